"""Compiler diagnostics: positions, errors and warnings, formatted as compilers do.

Every message names a place in the *original* source file (after the C preprocessor, line
markers map positions back to the file that was included), formatted like gcc/clang:

    prog.p4:12:5: error: <message>
    prog.p4:12:5: warning: <message>

(p4c itself prints `prog.p4(12): [--Werror=type-error] error: ...`; the project uses the
file:line:col form, which editors and CI tools understand.)

How phases use it: each phase (preprocess, parse, check, mid end, back end) reports into one
`Diagnostics` collector, keeps going while it can (so one run shows several errors), and calls
`Diagnostics.raise_if_errors()` at its end, which raises `CompileError` carrying every error
of the phase. A phase that cannot continue at all raises `CompileError` at once through
`Diagnostics.fatal()`. After `max_errors` errors the collector raises, so a broken file does
not print thousands of follow-up errors.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True, slots=True)
class Pos:
    """A position in an original source file; line and column are 1-based."""
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = Pos("<builtin>", 0, 0)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: str          # "error" | "warning" | "note"
    pos: Optional[Pos]
    message: str

    def __str__(self) -> str:
        where = f"{self.pos}: " if self.pos is not None else ""
        return f"{where}{self.severity}: {self.message}"


class CompileError(Exception):
    """One or more errors; str() is the compiler output, one diagnostic per line."""

    def __init__(self, diagnostics, message: Optional[str] = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__(message or "\n".join(str(d) for d in self.diagnostics))

    @classmethod
    def at(cls, pos: Optional[Pos], message: str) -> "CompileError":
        return cls([Diagnostic("error", pos, message)])

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


@dataclass(slots=True)
class Diagnostics:
    """Collector shared by the phases of one compilation."""
    max_errors: int = 20
    items: list = field(default_factory=list)

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.items if d.severity == "error")

    def error(self, pos: Optional[Pos], message: str) -> None:
        d = Diagnostic("error", pos, message)
        if pos is not None and any(x.severity == "error" and x.pos == pos for x in self.items):
            # one error per source position: code checked twice (an inlined function's body
            # is checked at its declaration and at every call) reports once, and a second
            # error at the same place is a consequence of the first
            return
        self.items.append(d)
        if self.error_count >= self.max_errors:
            raise CompileError(self.items + [Diagnostic("note", None, "too many errors, stopping")])

    def warning(self, pos: Optional[Pos], message: str) -> None:
        d = Diagnostic("warning", pos, message)
        if d not in self.items:
            self.items.append(d)

    def fatal(self, pos: Optional[Pos], message: str):
        """Record an error and stop the phase now."""
        self.items.append(Diagnostic("error", pos, message))
        raise CompileError(self.items)

    def raise_if_errors(self) -> None:
        if self.error_count:
            raise CompileError(self.items)

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]


def internal_error(e: BaseException, where: str = "") -> str:
    """The message for a bug of the compiler itself (an exception no pass meant to raise): one
    line naming the exception and where it happened, never a traceback."""
    place = f" in {where}" if where else ""
    return (f"internal compiler error{place}: {type(e).__name__}: {e} "
            f"(please report it with the program)")


def failure_text(e: Exception) -> str:
    """What a command prints for a compilation that raised `e`: a CompileError's diagnostics,
    one a line; anything else is a bug of the compiler, one internal-compiler-error line."""
    return str(e) if isinstance(e, CompileError) else f"error: {internal_error(e)}"
