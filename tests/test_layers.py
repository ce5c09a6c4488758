"""The package layers of docs/architecture.md, checked on the import statements themselves: no
package imports one above it or beside it, and no modules import each other in a circle (an
import under ``if TYPE_CHECKING:``, which only the type checker follows, counts for the layers
but cannot make a circle at run time)."""

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# one package per paper, none importing another: each registers its scenarios with the run
# machinery (experiments.runner), which knows none of them
STUDIES = ("experiments.studies.rdtcp", "experiments.studies.rrtcp", "experiments.studies.frto",
           "experiments.studies.netreno", "experiments.studies.dbce")
# bottom first; a package may import only packages of a lower layer (and itself)
LAYERS = (
    ("netbase",),
    ("toolchain.compiler", "toolchain.switch"),
    ("toolchain.stf",),
    ("hosts", "controller", "topologies"),
    ("sim", "analyzer"),
    ("live",),
    ("experiments.runner",),
    STUDIES,
    ("experiments",),               # the drivers users run
)
LAYER_OF = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}
SOURCE_TREES = ("netbase", "toolchain", "hosts", "controller", "topologies", "sim", "analyzer",
                "live", "experiments")


def _modules() -> dict[str, Path]:
    found = {}
    for tree in SOURCE_TREES:
        for path in (ROOT / tree).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _package(module: str) -> str:
    """The layered package a module belongs to (the longest LAYER_OF key that prefixes it)."""
    best = ""
    for pkg in LAYER_OF:
        if (module == pkg or module.startswith(pkg + ".")) and len(pkg) > len(best):
            best = pkg
    return best or module.split(".")[0]


def _statements(node: ast.AST):
    """Every statement under ``node``, nested ones too (an import is a statement, and only a
    statement holds statements: walking them alone, not every expression, finds every import)."""
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            for child in value:
                if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                    if isinstance(child, ast.stmt):
                        yield child
                    yield from _statements(child)


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the import statements under ``if TYPE_CHECKING:``."""
    return {id(node) for block in _statements(tree) if isinstance(block, ast.If)
            and isinstance(block.test, (ast.Name, ast.Attribute))
            and (getattr(block.test, "id", None) or getattr(block.test, "attr", None))
            == "TYPE_CHECKING"
            for stmt in block.body for node in [stmt, *_statements(stmt)]
            if isinstance(node, (ast.Import, ast.ImportFrom))}


@cache
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _imports(module: str, path: Path, *, run_time_only: bool = False) -> list[tuple[str, int]]:
    """The project modules ``module`` imports, with the line of each import (``run_time_only``:
    not those under ``if TYPE_CHECKING:``)."""
    tree = _parse(path)
    is_package = path.name == "__init__.py"
    skip = _type_only(tree) if run_time_only else set()
    out = []
    for node in _statements(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join(parts + ([base] if base else []))
            # "from pkg import mod" imports the module; "from pkg import name", the package
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                out.append((name, node.lineno))
    return out


# built by the first test that needs them, not at import: every pytest process collects this
# module (each xdist worker, each phase of `make test`), few run its tests
@cache
def graph() -> dict[str, list[tuple[str, int]]]:
    return {m: _imports(m, p) for m, p in MODULES.items()}


@cache
def run_time_graph() -> dict[str, list[tuple[str, int]]]:
    return {m: _imports(m, p, run_time_only=True) for m, p in MODULES.items()}


def test_every_source_package_has_a_layer():
    assert {_package(m) for m in MODULES} <= set(LAYER_OF) | {"toolchain"}


def test_no_package_imports_a_package_above_or_beside_it():
    wrong = []
    for module, imports in graph().items():
        here = _package(module)
        for target, line in imports:
            there = _package(target)
            if there != here and there in LAYER_OF and here in LAYER_OF \
                    and LAYER_OF[there] >= LAYER_OF[here]:
                wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line}: {here} imports {target}")
    assert wrong == []


def test_no_import_cycles():
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []
    counter = [0]

    def visit(v):   # Tarjan's strongly connected components, iteratively deep enough here
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w, _ in run_time_graph()[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph()):
        if module not in index:
            visit(module)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_run_machinery_imports_no_study():
    """A study registers its scenarios with the machinery (experiments.runner.spec.register);
    the machinery never names one, so a new study is a package of its own and touches no
    machinery file."""
    assert [f"{MODULES[m].relative_to(ROOT)}:{line}: imports {t}"
            for m, imports in graph().items() if _package(m) == "experiments.runner"
            for t, line in imports if t.startswith("experiments.studies")] == []


def test_every_study_directory_is_a_layered_package():
    found = {f"experiments.studies.{p.name}" for p in (ROOT / "experiments" / "studies").iterdir()
             if (p / "__init__.py").exists()}
    assert found == set(STUDIES)


@pytest.mark.parametrize("package", ["netbase"])
def test_the_bottom_layer_imports_nothing_of_the_project(package):
    assert [(m, t) for m, imports in graph().items() if _package(m) == package
            for t, _ in imports if _package(t) != package] == []


MAX_MODULE_LINES = 1000


def test_no_source_module_is_over_a_thousand_lines():
    """A module a newcomer can read: past this size a module holds more than one piece and is
    split along its parts (the engine's connection into scoreboard, recovery, receiver, ...)."""
    long = {m: n for m, p in MODULES.items()
            if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_an_import_under_type_checking_counts_for_the_layers_not_for_cycles():
    source = ("from typing import TYPE_CHECKING\nimport os\nif TYPE_CHECKING:\n"
              "    from hosts.tcp.config import TcpConfig\n    import typing as t\n")
    tree = ast.parse(source)
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert _type_only(tree) == {id(n) for n in imports[2:]}
