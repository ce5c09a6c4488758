"""Errors raised by the embedded target: at load time and by the runtime CLI."""

from __future__ import annotations

__all__ = ["LoadError", "CliError", "one_line"]


MAX_MESSAGE = 400


def one_line(text: str) -> str:
    """``text`` as one printable line: control characters escaped (a name read from the JSON
    may hold a newline), and at most MAX_MESSAGE characters."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 3] + "..."


class LoadError(Exception):
    """The BMv2 JSON cannot be loaded: malformed, or it uses a feature this target refuses.

    The message always names the offending JSON feature (a primitive, an expression op, a
    parser op, a table type...) or the JSON path of a value of the wrong type or out of
    range, so that a user knows what to change in the program. It is one line.
    """

    def __init__(self, message: str):
        super().__init__(one_line(str(message)))


class CliError(Exception):
    """A runtime CLI command failed. ``str(e)`` is simple_switch_CLI's message for it.

    ``line`` is the 1-based line number of the command when it came from a commands file.
    """

    def __init__(self, message: str, *, line: int | None = None, command: str | None = None):
        self.message = message
        self.line = line
        self.command = command
        # from a commands file: one line of at most MAX_MESSAGE characters, however long the
        # command (a number of a hundred thousand digits is still one readable error)
        text = message if line is None else one_line(f"line {line}: {command!r}: {message}")
        super().__init__(text)
