"""A broken loader rule, and the error that carries them all."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    path: str        # where in the document, e.g. actions[3].primitives[0].parameters[1]
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class Bmv2JsonError(ValueError):
    """The JSON breaks a rule of the BMv2 loader; `.problems` lists every one found."""

    def __init__(self, problems: list):
        self.problems = list(problems)
        shown = "\n".join(f"  {p}" for p in self.problems[:20])
        more = f"\n  ... and {len(self.problems) - 20} more" if len(self.problems) > 20 else ""
        super().__init__(f"{len(self.problems)} BMv2 loader rule(s) broken:\n{shown}{more}")
