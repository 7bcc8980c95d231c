"""Every menu and toolbar action of the window, declared in one place.

:data:`MENUS` lists the menus in order; each entry names an action by id. The window passes one
slot per id to :func:`build_actions`; a new command adds a line here and a slot there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

Shortcut = QKeySequence.StandardKey | str | None


@dataclass(frozen=True)
class ActionSpec:
    """One command: id (the slot's name), menu text, shortcut, checkable."""

    id: str
    text: str
    shortcut: Shortcut = None
    checkable: bool = False
    tooltip: str = ""


SEPARATOR = None
#: A submenu filled by the window when it is about to show (recent projects, checkers).
SUBMENU = "submenu:"

K = QKeySequence.StandardKey
MENUS: tuple[tuple[str, tuple[ActionSpec | str | None, ...]], ...] = (
    (
        "&File",
        (
            ActionSpec("new_project", "&New project…", K.New),
            ActionSpec("open_project", "&Open project…", K.Open),
            SUBMENU + "recent:Recent projects",
            ActionSpec("open_demo", "Open &demo project"),
            SEPARATOR,
            ActionSpec("import", "&Import pairs…", "Ctrl+I"),
            ActionSpec("add_pair", "&Add a pair (paste or load two texts)…", "Ctrl+Shift+N"),
            ActionSpec("export", "&Export…", "Ctrl+E"),
            ActionSpec("merge", "&Merge judgments from…"),
            ActionSpec("export_report", "Export &report…"),
            SEPARATOR,
            ActionSpec("quit", "&Quit", K.Quit),
        ),
    ),
    (
        "&Edit",
        (
            "undo",
            "redo",
            SEPARATOR,
            ActionSpec("find", "Find…", K.Find),
            SEPARATOR,
            ActionSpec("remove_pair", "Re&move pair (not judged)…"),
        ),
    ),
    (
        "&Review",
        (
            ActionSpec("blind", "&Blind mode (hide model marks)", checkable=True),
            ActionSpec("ais", "&AIS two-stage mode", checkable=True),
            ActionSpec("advance", "Decide and ad&vance", checkable=True),
            ActionSpec("unfamiliar_first", "&Unfamiliar-entity descriptions first", checkable=True),
            ActionSpec("relabel", "Relabel with error type and note…"),
            ActionSpec("keys", "Keyboard shortcuts…", "F1"),
            SEPARATOR,
            ActionSpec("reviewer", "Reviewer &name…"),
            ActionSpec("adjudicate", "Ad&judication mode (reviewers side by side)", checkable=True),
        ),
    ),
    (
        "&Analysis",
        (
            ActionSpec("analyse", "&Analyse with default checkers", "Ctrl+R"),
            SUBMENU + "checkers:Analyse &with",
            ActionSpec("analyse_nli_dir", "Analyse with own &NLI model directory…"),
            ActionSpec("cancel_analysis", "&Cancel analysis"),
            SEPARATOR,
            ActionSpec("calibrate", "Calibrate &threshold from my judgments"),
            ActionSpec("adapt", "Adapt to my &judgments"),
            ActionSpec(
                "bundled_model",
                "Use the &bundled model (not the one adapted to this project)",
                checkable=True,
            ),
        ),
    ),
    (
        "&View",
        (
            ActionSpec("stats", "&Statistics…", "Ctrl+T"),
            ActionSpec("zoom_in", "Zoom &in", K.ZoomIn),
            ActionSpec("zoom_out", "Zoom &out", K.ZoomOut),
            ActionSpec("dark", "&Dark theme", checkable=True),
        ),
    ),
    (
        "&Help",
        (
            ActionSpec("guide", "&Guide: keys, marks, modes, exports…"),
            ActionSpec("help_learning", "&Calibration and adaptation…"),
            SEPARATOR,
            ActionSpec("about", "&About FactDesk…"),
        ),
    ),
)

#: Menu entries whose judging key is shown beside them (action id -> keymap action). The key
#: is shown, not bound: the judging keys are handled by the window's key filter.
KEY_HINTS = {"blind": "blind", "ais": "ais", "relabel": "relabel"}

#: What the review toolbar carries, in order.
TOOLBAR = ("analyse", "undo", "redo", "blind", "ais")


@dataclass
class Actions:
    """The built actions by id, and the submenus the window fills."""

    actions: dict[str, QAction] = field(default_factory=dict)
    submenus: dict[str, QMenu] = field(default_factory=dict)

    def __getitem__(self, name: str) -> QAction:
        return self.actions[name]


def build_actions(
    window: QMainWindow,
    slots: Mapping[str, Callable[[], object]],
    undo_stack: QUndoStack,
    toolbar: QToolBar,
) -> Actions:
    """Create the menu bar from :data:`MENUS` and fill the toolbar from :data:`TOOLBAR`.

    Args:
        window: the main window (owner of the actions and the menu bar).
        slots: one callable per action id; a checkable action's slot reads its state.
        undo_stack: its undo and redo actions go into Edit and the toolbar.
        toolbar: the review toolbar.
    """
    built = Actions()
    undo = undo_stack.createUndoAction(window, "&Undo")
    undo.setShortcut(QKeySequence.StandardKey.Undo)
    redo = undo_stack.createRedoAction(window, "&Redo")
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    built.actions["undo"], built.actions["redo"] = undo, redo
    bar = window.menuBar()
    for title, entries in MENUS:
        menu = bar.addMenu(title)
        for entry in entries:
            if entry is SEPARATOR:
                menu.addSeparator()
            elif isinstance(entry, str) and entry.startswith(SUBMENU):
                key, text = entry[len(SUBMENU) :].split(":", 1)
                built.submenus[key] = menu.addMenu(text)
            elif isinstance(entry, str):
                menu.addAction(built.actions[entry])
            else:
                assert isinstance(entry, ActionSpec)
                action = QAction(entry.text, window)
                if entry.shortcut is not None:
                    action.setShortcut(QKeySequence(entry.shortcut))
                action.setCheckable(entry.checkable)
                if entry.tooltip:
                    action.setToolTip(entry.tooltip)
                slot = slots[entry.id]
                action.triggered.connect(lambda _checked=False, s=slot: s())
                menu.addAction(action)
                built.actions[entry.id] = action
    for name in TOOLBAR:
        if name in ("undo", "redo"):
            # The stack's actions are renamed "Undo sentence: supported" after each decision;
            # the toolbar keeps a short twin so the checker box beside it keeps its width.
            toolbar.addAction(_short_twin(built.actions[name], name.capitalize(), window))
        else:
            toolbar.addAction(built.actions[name])
    return built


def _short_twin(action: QAction, text: str, parent: QMainWindow) -> QAction:
    twin = QAction(text, parent)
    twin.triggered.connect(lambda _checked=False: action.trigger())

    def mirror() -> None:
        twin.setEnabled(action.isEnabled())
        twin.setToolTip(action.text().replace("&", ""))

    action.changed.connect(mirror)
    mirror()
    return twin


def show_key_hints(built: Actions, keys: dict[str, str]) -> None:
    """Show the current judging keys beside the menu entries of :data:`KEY_HINTS`."""
    specs = {e.id: e for _title, entries in MENUS for e in entries if isinstance(e, ActionSpec)}
    for action_id, key_action in KEY_HINTS.items():
        action = built.actions[action_id]
        text = specs[action_id].text
        action.setIconText(text.replace("&", "").rstrip("…"))
        key = keys.get(key_action, "")
        action.setText(f"{text}\t{key}" if key else text)
