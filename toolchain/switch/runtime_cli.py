"""The simple_switch_CLI command language (behavioral-model ``tools/runtime_CLI.py`` and
``targets/simple_switch/sswitch_CLI.py``): same commands, syntax, output and messages.

``RuntimeCLI.onecmd(line)`` returns what simple_switch_CLI would print, errors included
(it never raises); ``run(line)`` raises ``CliError`` on a failed command instead, and
``run_commands`` runs a commands file, stopping at the first failing line.
"""

from __future__ import annotations

import os
from pathlib import Path

from .cli_parse import _Crash, parse_param
from .cli_state import StateCommands
from .cli_tables import TableCommands
from .errors import CliError
from .runtime import Runtime

__all__ = ["RuntimeCLI", "parse_param"]

_IDENTCHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class RuntimeCLI(TableCommands, StateCommands):
    """The command interpreter. ``commands()`` lists (name, help) for prompts and completion."""

    prompt = "RuntimeCmd: "

    def __init__(self, runtime: Runtime):
        self.rt = runtime
        self.lastcmd = ""
        self._out: list[str] = []

    # -- entry points -------------------------------------------------------------------------------
    def commands(self) -> list[tuple[str, str]]:
        return [(name[3:], (getattr(self, name).__doc__ or "").strip()) for name in sorted(dir(self))
                if name.startswith("do_")]

    def onecmd(self, line: str) -> str:
        try:
            return self.run(line)
        except CliError as e:
            return e.message

    def run(self, line: str) -> str:
        """One line as simple_switch_CLI's ``cmd.Cmd`` reads it: the command is the leading
        run of identifier characters; an empty line repeats the last command (cmd.Cmd's
        ``emptyline``); anything else that is not a command, '#' comments included, is
        "*** Unknown syntax". What a command prints before failing stays in the message."""
        line = line.strip()
        if not line:
            if not self.lastcmd:
                return ""
            line = self.lastcmd
        if line[0] == "?":
            line = "help " + line[1:]
        elif line[0] == "!":
            line = "shell " + line[1:]
        i = 0
        while i < len(line) and line[i] in _IDENTCHARS:
            i += 1
        cmd, arg = line[:i], line[i:].strip()
        self.lastcmd = "" if line == "EOF" else line
        fn = getattr(self, f"do_{cmd}", None) if cmd else None
        if fn is None:
            if line.startswith("#"):
                # a comment: simple_switch_CLI prints this too, but it is not counted as a
                # failed command (run_commands goes on)
                return f"*** Unknown syntax: {line}"
            raise CliError(f"*** Unknown syntax: {line}")
        self._out = []
        try:
            out = fn(arg)
        except CliError as e:
            raise CliError("\n".join(self._out + [e.message])) from None
        except Exception as e:  # noqa: BLE001 -- the real CLI dies with a traceback here
            raise _Crash("\n".join(self._out + [f"{type(e).__name__}: {e}"])) from None
        finally:
            printed, self._out = self._out, []
        if out:
            printed.append(out)
        return "\n".join(printed)

    def _print(self, *parts) -> None:
        """print(*parts) of the real CLI, for lines printed before a call that may fail."""
        self._out.append(" ".join(str(p) for p in parts))

    def run_commands(self, path_or_text) -> str:
        """A commands file as a script: blank lines and '#' lines are skipped (a convenience
        of the library: simple_switch_CLI would repeat the previous command on a blank line
        and print "*** Unknown syntax" for a comment); stops at the first failing line."""
        text = self._commands_text(path_or_text)
        outputs = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                outputs.append(self.run(line))
            except CliError as e:
                raise CliError(e.message, line=n, command=line.strip()) from None
        return "\n".join(o for o in outputs if o)

    def _commands_text(self, path_or_text) -> str:
        """The commands: the file's text for a path, else the text itself. A single word that
        is not a command is taken for a commands file (and its absence reported as such)."""
        word = "" if isinstance(path_or_text, os.PathLike) else path_or_text.strip()
        is_path = isinstance(path_or_text, os.PathLike) or (
            word and "\n" not in word and " " not in word and not hasattr(self, "do_" + word))
        if not is_path:
            return path_or_text
        try:
            data = Path(path_or_text).read_bytes()
        except OSError as e:
            raise CliError(f"cannot read commands file {str(path_or_text)!r}: {e.strerror}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            raise CliError(f"commands file {str(path_or_text)!r}, line {line}: byte "
                           f"0x{data[e.start]:02x} is not UTF-8 (is this a binary file?)") from None

    def do_help(self, line: str):
        "List available commands with \"help\" or detailed help with \"help cmd\"."
        # simple_switch_CLI prints cmd.Cmd's columnized help here; this lists one name a line
        if line:
            fn = getattr(self, f"do_{line.strip()}", None)
            return (fn.__doc__ or "") if fn else f"*** No help on {line.strip()}"
        return "\n".join(name for name, _ in self.commands())

    def do_shell(self, line: str):
        "Run a shell command"
        raise CliError("Error: shell commands are not run by this switch")
