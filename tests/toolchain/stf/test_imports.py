"""toolchain.stf imports the project's modules at the top of each module, where the reader
sees what it depends on (tests/test_layers.py checks which ones it may import); an import
deferred on purpose says why in the comment just above it."""

import ast
from pathlib import Path

import pytest

STF = Path(__file__).resolve().parents[3] / "toolchain" / "stf"
PROJECT = ("toolchain", "netbase", "hosts", "controller", "topologies", "sim", "live",
           "analyzer", "experiments")


def _deferred_project_imports(path: Path) -> list[int]:
    """Lines of imports of project modules inside functions or classes, without a comment
    saying why on the line above."""
    lines = path.read_text().splitlines()
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        for child in ast.iter_child_nodes(node):
            if isinstance(node, ast.Module) or not isinstance(child, (ast.Import, ast.ImportFrom)):
                continue
            names = [a.name for a in child.names] if isinstance(child, ast.Import) \
                else [child.module or ""]
            project = (isinstance(child, ast.ImportFrom) and child.level) or \
                any(n.split(".")[0] in PROJECT for n in names)
            above = lines[child.lineno - 2].strip() if child.lineno > 1 else ""
            if project and not above.startswith("#"):
                found.append(child.lineno)
    return found


@pytest.mark.parametrize("path", sorted(STF.glob("*.py")), ids=lambda p: p.name)
def test_project_imports_are_at_module_top(path):
    assert _deferred_project_imports(path) == []
