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


# ---------------------------------------------------------------------- the house (item 15)
HOST = APP / "gui" / "host.py"
#: Host-typed panels: each module's host is found from its ``ListHost``/``PanelHost`` hints.
HOSTED = (*PANELS, "help", "analysis")
#: What main.py's window may define: building, wiring, closing. Everything else is a room's.
ASSEMBLY = {"__init__", "_build", "_wire", "closeEvent"}


def _protocol_members() -> dict[str, set[str]]:
    """Each protocol class of host.py -> the members it declares (its bases' included)."""
    tree = ast.parse(HOST.read_text(encoding="utf-8"))
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            own = {
                n.name if isinstance(n, ast.FunctionDef) else n.target.id  # type: ignore[union-attr]
                for n in node.body
                if isinstance(n, ast.FunctionDef)
                or (isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name))
            }
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in members:
                    own |= members[base.id]
            members[node.name] = own
    return members


def _is_host(annotation: ast.expr | None) -> bool:
    return isinstance(annotation, ast.Name) and annotation.id in ("ListHost", "PanelHost")


def _host_uses(path: Path) -> set[str]:
    """``host.member`` and ``host.pair_list.member`` uses in a module, the host being every
    parameter typed by a host protocol, what it is kept in (``self.w``) and local aliases."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    kept: set[str] = set()  # self attributes holding the host
    for fn in functions:
        params = {a.arg for a in fn.args.args if _is_host(a.annotation)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                for target in node.targets:
                    if (
                        node.value.id in params
                        and isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        kept.add(target.attr)

    def is_kept(expr: ast.expr) -> bool:
        return (
            isinstance(expr, ast.Attribute)
            and isinstance(expr.value, ast.Name)
            and expr.value.id == "self"
            and expr.attr in kept
        )

    uses: set[str] = set()
    for fn in functions:
        names = {a.arg for a in fn.args.args if _is_host(a.annotation)}
        for node in ast.walk(fn):  # aliases: ``w = self.w``, ``w, mode = self.w, ...``
            if isinstance(node, ast.Assign):
                pairs: list[tuple[ast.expr, ast.expr]] = []
                for target in node.targets:
                    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                        pairs += list(zip(target.elts, node.value.elts, strict=False))
                    else:
                        pairs.append((target, node.value))
                for target, value in pairs:
                    if isinstance(target, ast.Name) and (
                        is_kept(value) or (isinstance(value, ast.Name) and value.id in names)
                    ):
                        names.add(target.id)

        def is_host(expr: ast.expr, names: set[str] = names) -> bool:
            return (isinstance(expr, ast.Name) and expr.id in names) or is_kept(expr)

        for node in ast.walk(fn):
            if isinstance(node, ast.Attribute):
                if is_host(node.value):
                    uses.add(node.attr)
                elif (
                    isinstance(node.value, ast.Attribute)
                    and node.value.attr == "pair_list"
                    and is_host(node.value.value)
                ):
                    uses.add(f"pair_list.{node.attr}")
    return uses


@pytest.mark.parametrize("panel", HOSTED)
def test_panels_use_only_the_host_protocol(panel: str) -> None:
    members = _protocol_members()
    allowed = members["ListHost"] | {f"pair_list.{m}" for m in members["PairListing"]}
    uses = _host_uses(APP / "gui" / f"{panel}.py")
    assert uses, f"no host found in app.gui.{panel}"
    assert sorted(uses - allowed) == []


def test_host_protocols_hand_out_no_list_widget() -> None:
    """A panel gets intents (place a panel under the list, order it, show rows), never the
    list's table, model, proxy, threshold box or splitter: no member of the protocols is typed
    by a widget or an item model, but for the window itself (a dialog's parent), its status
    bar and a widget a panel hands in to be placed."""
    qt_widgets = pytest.importorskip("PySide6.QtWidgets")
    qt_core = pytest.importorskip("PySide6.QtCore")
    import importlib

    tree = ast.parse(HOST.read_text(encoding="utf-8"))
    where: dict[str, str] = {}  # a name in the hints -> the module it is imported from
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            where.update({a.asname or a.name: node.module for a in node.names})
    assert not {"app.gui.pairlist", "app.item_models", "app.gui.textview"} & set(where.values())
    hinted: set[str] = set()
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            hints: list[ast.expr | None] = []
            if isinstance(node, ast.FunctionDef):
                hints = [node.returns, *(a.annotation for a in node.args.args)]
                hints += [a.annotation for a in node.args.kwonlyargs]
            elif isinstance(node, ast.AnnAssign):
                hints = [node.annotation]
            for hint in hints:
                if hint is not None:
                    hinted |= {n.id for n in ast.walk(hint) if isinstance(n, ast.Name)}
    widgets = []
    for name in sorted(hinted & set(where)):
        obj = getattr(importlib.import_module(where[name]), name)
        raw = isinstance(obj, type) and issubclass(
            obj, (qt_widgets.QWidget, qt_core.QAbstractItemModel)
        )
        if raw and obj not in (qt_widgets.QWidget, qt_widgets.QStatusBar):
            widgets.append(name)
    assert widgets == []


def test_main_window_is_assembly_only() -> None:
    """main.py builds, wires and closes the window; every slot and all state live in a room
    (the session, the File menu, the modes, the view preferences, the analysis wiring...)."""
    tree = ast.parse((APP / "gui" / "main.py").read_text(encoding="utf-8"))
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert functions == ["run"]
    assert [c.name for c in classes] == ["MainWindow"]
    methods = {n.name for n in classes[0].body if isinstance(n, ast.FunctionDef)}
    assert methods <= ASSEMBLY, sorted(methods - ASSEMBLY)
    # Nothing but the window's own parts in its body: no properties or class state either.
    others = [n for n in classes[0].body if not isinstance(n, ast.FunctionDef | ast.Expr)]
    assert others == []
