"""The shape of src/posenc: no import cycle between its modules, and modules short enough to read whole.

The import graph is read with ``ast``, so it sees every ``import`` and ``from ... import`` statement,
at module level and inside functions alike: a lazy import hides a cycle from Python, not from a reader.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "posenc"
MAX_LINES = 700


def module_name(path: Path, root: Path) -> str:
    """``root/posenc/plot.py`` -> ``"posenc.plot"``; a package's ``__init__.py`` is the package."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the modules of the package under ``root`` that it imports, anywhere in its text."""
    modules = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # from . import x, from ..y import z
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                imported.add(base)
                # from posenc import plot imports the module posenc.plot, not a name of posenc
                imported.update(f"{base}.{alias.name}" for alias in node.names)
        graph[name] = {module for module in imported if module in modules and module != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as ``[a, b, ..., a]``, or ``[]`` if the graph has none."""
    state: dict[str, str] = {}  # "open" while on the current path, "done" once every path from it is seen

    def visit(module: str, path: list[str]) -> list[str]:
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target, [*path, target])):
                return cycle
        state[module] = "done"
        return []

    for module in sorted(graph):
        if module not in state and (cycle := visit(module, [module])):
            return cycle
    return []


def test_the_posenc_modules_import_each_other_without_a_cycle():
    graph = import_graph(PACKAGE)
    cycle = find_cycle(graph)
    assert not cycle, "import cycle: " + " -> ".join(cycle)
    assert "posenc.frame" in graph["posenc.interactive"]  # the graph does see lazy imports


def test_the_cycle_finder_sees_a_cycle_through_a_lazy_import(tmp_path):
    # The shape posenc.plot and posenc.interactive had: one imports the other at the top, the other
    # imports it back inside a function.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "draw.py").write_text("from pkg.figure import Figure\n")
    (package / "figure.py").write_text("class Figure:\n    def png(self):\n        from pkg import draw\n")
    (package / "other.py").write_text("from . import figure\n")
    graph = import_graph(package)
    # from pkg import draw runs pkg/__init__.py too: an edge to the package itself.
    assert graph == {
        "pkg": set(),
        "pkg.draw": {"pkg.figure"},
        "pkg.figure": {"pkg", "pkg.draw"},
        "pkg.other": {"pkg", "pkg.figure"},
    }
    assert find_cycle(graph) == ["pkg.draw", "pkg.figure", "pkg.draw"]
    (package / "figure.py").write_text("class Figure:\n    pass\n")
    assert find_cycle(import_graph(package)) == []


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda path: path.name)
def test_every_module_fits_in_a_head(path):
    assert line_count(path) <= MAX_LINES, f"{path.name} has {line_count(path)} lines, more than {MAX_LINES}"
