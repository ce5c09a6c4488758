"""Python source generation: the JSON is compiled once, at load time, into Python functions.

A ``CodeGen`` accumulates function definitions and the module-level constants they use.
The switch then ``exec``s the compiled module in a namespace holding its own state (tables,
registers, counters...), so several switches share one compiled program.
"""

from __future__ import annotations

__all__ = ["CodeGen", "FunctionBuilder"]


class FunctionBuilder:
    """Lines of one function body with indentation management."""

    def __init__(self, signature: str):
        self.signature = signature
        self.lines: list[str] = []
        self.depth = 1
        self._counter = [0]          # shared with sub-builders: temporaries stay unique

    def sub(self) -> "FunctionBuilder":
        """A builder for a block written elsewhere in this function (lines indented from 0),
        whose temporaries are numbered with this function's."""
        b = FunctionBuilder(self.signature)
        b.depth = 0
        b._counter = self._counter
        return b

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def emit_all(self, lines: list[str]) -> None:
        for line in lines:
            self.emit(line)

    def indent(self) -> None:
        self.depth += 1

    def dedent(self) -> None:
        self.depth -= 1

    def tmp(self, prefix: str = "t") -> str:
        self._counter[0] += 1
        return f"_{prefix}{self._counter[0]}"

    def source(self) -> str:
        body = self.lines or ["    pass"]
        return f"def {self.signature}:\n" + "\n".join(body) + "\n"


class CodeGen:
    """Collects generated functions and constants; ``module_source()`` is the whole module."""

    def __init__(self):
        self.functions: list[str] = []
        self.constants: dict[str, object] = {}
        self._const_ids: dict[object, str] = {}
        self._names = 0

    def name(self, prefix: str) -> str:
        self._names += 1
        return f"{prefix}_{self._names}"

    def const(self, value, prefix: str = "K") -> str:
        """A module-level name bound to ``value`` (hashable values are shared)."""
        try:
            key = (prefix, value)
            if key in self._const_ids:
                return self._const_ids[key]
        except TypeError:
            key = None
        name = self.name(f"_{prefix}")
        self.constants[name] = value
        if key is not None:
            self._const_ids[key] = name
        return name

    def add(self, fb: FunctionBuilder) -> None:
        self.functions.append(fb.source())

    def add_source(self, src: str) -> None:
        self.functions.append(src)

    def module_source(self) -> str:
        return "\n".join(self.functions)
