"""The layout's rules, checked on the import graph of ``app`` (issue 25, items 15-17).

Every import counts: at module level, inside functions and under ``TYPE_CHECKING``, since each
one ties the modules together for a reader and for a refactoring.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
PANELS = ("merging", "adjudication", "report", "reviewer", "familiarity", "learning")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    """Module name -> the ``app`` modules it imports (a package import names the package)."""
    files = {_module_name(p): p for p in APP.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets.add(base)
                # ``from app.gui import main`` imports the module app.gui.main.
                targets.update(
                    f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files
                )
        graph[name] = {t for t in targets if t in files}
    return graph


GRAPH = _graph()


def _imports(module: str, prefix: str) -> set[str]:
    return {t for t in GRAPH[module] if t == prefix or t.startswith(prefix + ".")}


def test_no_import_circle_among_gui_modules() -> None:
    gui = {m: {t for t in ts if t.startswith("app.gui.")} for m, ts in GRAPH.items()}
    gui = {m: ts for m, ts in gui.items() if m.startswith("app.gui.")}
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(gui.get(node, ())):
            if state.get(nxt) == 1:
                circles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(gui):
        if start not in state:
            visit(start, [start])
    assert circles == [], "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_nothing_outside_gui_imports_gui_but_the_cli() -> None:
    offenders = {
        m: sorted(_imports(m, "app.gui"))
        for m in GRAPH
        if not (m == "app.gui" or m.startswith("app.gui.")) and m != "app.cli"
    }
    assert {m: ts for m, ts in offenders.items() if ts} == {}


@pytest.mark.parametrize("panel", PANELS)
def test_no_panel_imports_the_main_window(panel: str) -> None:
    assert f"app.gui.{panel}" in GRAPH
    assert "app.gui.main" not in GRAPH[f"app.gui.{panel}"]


def test_analysis_does_not_import_learning() -> None:
    analysis = [m for m in GRAPH if m == "app.analysis" or m.startswith("app.analysis.")]
    assert analysis
    assert {
        m: sorted(_imports(m, "app.learning")) for m in analysis if _imports(m, "app.learning")
    } == {}
