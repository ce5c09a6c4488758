"""Errors raised by the embedded target: at load time and by the runtime CLI."""

from __future__ import annotations

__all__ = ["LoadError", "CliError"]


class LoadError(Exception):
    """The BMv2 JSON cannot be loaded: malformed, or it uses a feature this target refuses.

    The message always names the offending JSON feature (a primitive, an expression op, a
    parser op, a table type...), so that a user knows what to change in the program.
    """


class CliError(Exception):
    """A runtime CLI command failed. ``str(e)`` is simple_switch_CLI's message for it.

    ``line`` is the 1-based line number of the command when it came from a commands file.
    """

    def __init__(self, message: str, *, line: int | None = None, command: str | None = None):
        self.message = message
        self.line = line
        self.command = command
        text = message if line is None else f"line {line}: {command!r}: {message}"
        super().__init__(text)
