"""The keyboard dialog: every judging action with its key, remappable and checked for clashes."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QKeySequenceEdit,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.settings import DEFAULT_KEYS

#: What each action does, as the dialog shows it.
DESCRIPTIONS: dict[str, str] = {
    "accept": "accept: supported / entailed",
    "reject": "reject: unsupported / not entailed",
    "skip": "skip",
    "flag": "flag the pair (malformed item)",
    "relabel": "relabel with error type and note",
    "next": "next sentence or arc",
    "prev": "previous sentence or arc",
    "next_alt": "next sentence or arc (second key)",
    "prev_alt": "previous sentence or arc (second key)",
    "next_pair": "next pair",
    "prev_pair": "previous pair",
    "next_pair_alt": "next pair (second key)",
    "prev_pair_alt": "previous pair (second key)",
    "level": "judging level: arc, sentence, pair",
    "blind": "blind mode (hide model marks)",
    "ais": "AIS two-stage mode",
    "undo": "undo the last decision",
    "next_useful": "next most useful pair (the queue: errors and doubts first)",
}

#: Keys the window keeps for itself: 1-9 pick an error type.
RESERVED = {str(d): "error type" for d in range(1, 10)}


def key_problems(keys: dict[str, str]) -> list[str]:
    """Why a key map cannot be used: empty, reserved or shared keys (empty list = fine)."""
    problems = []
    seen: dict[str, str] = {}
    for action, text in keys.items():
        seq = QKeySequence(text)
        norm = seq.toString(QKeySequence.SequenceFormat.PortableText)
        if not norm:
            problems.append(f"'{action}' has no key")
            continue
        if seq.count() > 1:
            problems.append(f"'{action}': one key (with modifiers) only, not a sequence")
        if norm in RESERVED:
            problems.append(f"'{action}': {norm} is kept for choosing an error type")
        if norm in seen:
            problems.append(f"'{action}' and '{seen[norm]}' share the key {norm}")
        seen.setdefault(norm, action)
    return problems


class KeysDialog(QDialog):
    """A table of actions and key editors; OK is enabled only for a usable key map."""

    def __init__(self, keys: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setAccessibleName("Keyboard shortcuts")
        self.table = QTableWidget(len(DEFAULT_KEYS), 2)
        self.table.setHorizontalHeaderLabels(["Action", "Key"])
        self.table.setAccessibleName("Judging keys")
        self.editors: dict[str, QKeySequenceEdit] = {}
        for row, action in enumerate(DEFAULT_KEYS):
            item = QTableWidgetItem(DESCRIPTIONS.get(action, action))
            item.setToolTip(f"{action} (default {DEFAULT_KEYS[action]})")
            self.table.setItem(row, 0, item)
            edit = QKeySequenceEdit(QKeySequence(keys.get(action, DEFAULT_KEYS[action])))
            edit.setMaximumSequenceLength(1)
            edit.setAccessibleName(f"Key for {action}")
            edit.keySequenceChanged.connect(self._check)
            self.editors[action] = edit
            self.table.setCellWidget(row, 1, edit)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setAccessibleName("Problems with the keys")
        note = QLabel(
            "Also: 1–9 reject with that error type · Ctrl+Z / Ctrl+Shift+Z undo / redo. "
            "Judging keys are silent while a text field has focus."
        )
        note.setWordWrap(True)
        reset = QPushButton("Reset to defaults")
        reset.clicked.connect(self.reset)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(note)
        layout.addWidget(self.problems)
        layout.addWidget(reset)
        layout.addWidget(self.buttons)
        self.resize(560, 620)
        self._check()

    def keys(self) -> dict[str, str]:
        """The edited key map, action -> portable key text."""
        return {
            action: edit.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
            for action, edit in self.editors.items()
        }

    def reset(self) -> None:
        for action, edit in self.editors.items():
            edit.setKeySequence(QKeySequence(DEFAULT_KEYS[action]))

    def _check(self) -> None:
        problems = key_problems(self.keys())
        self.problems.setText("\n".join(problems))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(not problems)
