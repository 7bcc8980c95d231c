"""Adjudication mode: each reviewer's decision and note side by side, and the final word.

Review ▸ Adjudication mode shows this panel under the pair list (the pair's texts keep their
room) and turns on the pair list's "Reviewers disagree" filter. The panel lists the items of the
pair on screen that anyone judged (the ones reviewers disagree on marked ≠), with one column per
reviewer; its selected row follows the item under the keyboard, and a row picked in it becomes
that item. A pair whose last dispute is settled leaves the filtered list. The adjudicator's
decision is committed through the judging controller as a judgment of role ``adjudicated``
under the window's reviewer name: saved at once, undoable like every decision, and what exports
take as the item's final label (:mod:`app.review.adjudication`). While the mode is on, the judging keys
(accept, reject, error types, relabel) on an item the reviewers disagree on record the
adjudicated decision too, and the status bar says so; on other items they record the
adjudicator's own review, as outside the mode. A final label given without an error type (X,
"Final: unsupported") takes the error type the reviewers who gave that label agree on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.plaintext import plain_label
from app.review.adjudication import ItemVotes, pair_items
from app.store import JudgmentKey, JudgmentValue, Project
from app.store.judging import INTERPRETABLE_LABELS, SUPPORT_LABELS
from app.store.schema import Judgment

if TYPE_CHECKING:
    from app.gui.host import ListHost

Judge = Callable[[JudgmentKey, JudgmentValue | None], None]
#: Where an item picked in the table goes: the judging controller's keyboard.
Focus = Callable[[JudgmentKey], None]


def describe(j: Judgment | None) -> str:
    """One reviewer's judgment in a cell: label, error type, note."""
    if j is None:
        return "—"
    parts = [j.label]
    if j.error_type:
        parts.append(j.error_type)
    if j.note:
        parts.append(f"“{j.note}”")
    return " · ".join(parts)


class AdjudicationPanel(QWidget):
    """The items of one pair with every reviewer's judgment, and the adjudicator's buttons."""

    def __init__(
        self, judge: Judge, focus: Focus | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.judge = judge
        self.focus = focus
        self.project: Project | None = None
        self.output_id: int | None = None
        self.items: list[ItemVotes] = []
        self.reviewers: list[str] = []
        self._sentences: dict[int, int] = {}  # sentence id -> index, of the pair shown
        self._following = False  # the table is being set to follow the keyboard
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)  # as the pair list above it
        head = QHBoxLayout()
        title = QLabel("Adjudication")
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        head.addWidget(title, 1)
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAccessibleName("Leave adjudication mode")
        self.close_button.setToolTip("Leave adjudication mode")
        head.addWidget(self.close_button)
        lay.addLayout(head)
        self.info = plain_label(QLabel())
        self.info.setWordWrap(True)
        lay.addWidget(self.info)
        self.table = QTableWidget(0, 0)
        self.table.setAccessibleName("Reviewers' decisions")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(True)
        self.table.itemSelectionChanged.connect(self._picked)
        lay.addWidget(self.table, 1)
        row = QGridLayout()
        self.yes = QPushButton()
        self.no = QPushButton()
        self.yes.clicked.connect(lambda: self.decide(self._labels()[0]))
        self.no.clicked.connect(lambda: self.decide(self._labels()[1]))
        self.take_from = QComboBox()
        self.take_from.setAccessibleName("Reviewer whose decision to take")
        self.take = QPushButton("Take this reviewer's decision")
        self.take.clicked.connect(lambda: self.take_reviewer(self.take_from.currentText()))
        self.clear = QPushButton("Clear adjudication")
        self.clear.clicked.connect(self.clear_decision)
        self.note = QLineEdit(placeholderText="Adjudicator's note (optional)")
        self.note.setAccessibleName("Adjudicator's note")
        # Three short rows: the panel sits in the pair list's column.
        row.addWidget(self.yes, 0, 0)
        row.addWidget(self.no, 0, 1)
        row.addWidget(self.clear, 0, 2)
        row.addWidget(self.take_from, 1, 0)
        row.addWidget(self.take, 1, 1, 1, 2)
        row.addWidget(self.note, 2, 0, 1, 3)
        lay.addLayout(row)
        self._selection_changed()

    # ------------------------------------------------------------------ showing
    def show_pair(
        self,
        project: Project | None,
        output_id: int | None,
        follow: tuple[str, str] | None = None,
    ) -> None:
        """List the items of this pair (None: nothing shown).

        Args:
            project: the open project.
            output_id: the pair shown.
            follow: (target key, aspect) of the item under the keyboard: its row is selected
                when the table has one; else the selected row is kept (the first disputed one
                on a new pair).
        """
        self._following = True  # rebuilding the table moves its selection: not the user's
        try:
            self._show_pair(project, output_id, follow)
        finally:
            self._following = False
        self._selection_changed()

    def _show_pair(
        self, project: Project | None, output_id: int | None, follow: tuple[str, str] | None
    ) -> None:
        keep = self.table.currentRow() if output_id == self.output_id else -1
        self.project, self.output_id = project, output_id
        self.items = [] if project is None or output_id is None else pair_items(project, output_id)
        self._sentences = (
            {}
            if project is None or output_id is None
            else {s.id: s.idx for s in project.sentences(output_id=output_id)}
        )
        self.reviewers = sorted({r for item in self.items for r in item.reviews})
        headers = ["item", *self.reviewers, "adjudicated"]
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(self.items))
        for r, item in enumerate(self.items):
            cells = [
                ("≠ " if item.disagree else "= ") + self._item_name(item),
                *(describe(item.reviews.get(name)) for name in self.reviewers),
                describe(item.adjudicated)
                + ("" if item.adjudicated is None else f" ({item.adjudicated.annotator})"),
            ]
            for c, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if item.disagree:
                    font = cell.font()
                    font.setBold(True)
                    cell.setFont(font)
                self.table.setItem(r, c, cell)
        disputed = sum(item.disagree and item.adjudicated is None for item in self.items)
        who = project.annotator if project is not None else "—"
        self.info.setText(
            f"Adjudicating as {who}: {len(self.items)} judged items, {disputed} disputed (≠) "
            "and not adjudicated."
            if self.items
            else "No judgments on this pair yet."
        )
        self.info.setToolTip(
            "The decision you pick here, or with the judging keys on a disputed item, is "
            "recorded as your adjudicated judgment, the final label in exports."
        )
        self.take_from.clear()
        self.take_from.addItems(self.reviewers)
        self.table.resizeColumnsToContents()
        if self.items:
            first = next((i for i, it in enumerate(self.items) if it.disagree), 0)
            followed = next(
                (i for i, it in enumerate(self.items) if (it.target_key, it.aspect) == follow),
                None,
            )
            if followed is not None:
                pick = followed
            else:
                pick = keep if 0 <= keep < len(self.items) else first
            self.table.selectRow(pick)

    def _item_name(self, item: ItemVotes) -> str:
        what = "the pair"
        if self.project is not None and item.target != "pair":
            what = f"sentence {self._sentences.get(item.sentence_id or -1, 0) + 1}"
            if item.target == "arc":
                arc = next(
                    (a for a in self.project.arcs([item.sentence_id or -1]) if a.id == item.arc_id),
                    None,
                )
                if arc is not None:
                    what += f", arc {arc.label} {arc.head_text} → {arc.child_text}"
        return what if item.aspect == "support" else f"{what} (interpretable?)"

    def _picked(self) -> None:
        """The selected row changed: the buttons follow; picked by the user, the judging keys
        act on that item too."""
        self._selection_changed()
        item = self.current_item()
        if item is not None and not self._following and self.focus is not None:
            self.focus(replace(self._key(item), role="review"))

    def current_item(self) -> ItemVotes | None:
        row = self.table.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    def _labels(self) -> tuple[str, ...]:
        item = self.current_item()
        return (
            INTERPRETABLE_LABELS
            if item is not None and item.aspect == "interpretable"
            else SUPPORT_LABELS
        )

    def _selection_changed(self) -> None:
        item = self.current_item()
        labels = self._labels()
        self.yes.setText(f"Final: {labels[0]}")
        self.no.setText(f"Final: {labels[1]}")
        for w in (self.yes, self.no, self.take, self.take_from, self.note):
            w.setEnabled(item is not None)
        self.clear.setEnabled(item is not None and item.adjudicated is not None)

    # ------------------------------------------------------------------ deciding
    def _key(self, item: ItemVotes) -> JudgmentKey:
        assert self.output_id is not None
        return JudgmentKey(
            self.output_id,
            item.target,  # type: ignore[arg-type]
            sentence_id=item.sentence_id,
            arc_id=item.arc_id,
            aspect=item.aspect,  # type: ignore[arg-type]
            role="adjudicated",
        )

    def decide(self, label: str, *, error_type: str | None = None) -> None:
        """Record the adjudicator's final label for the selected item; without an error type,
        the one the reviewers who gave ``label`` agree on."""
        item = self.current_item()
        if item is None:
            return
        positive = label in (SUPPORT_LABELS[0], INTERPRETABLE_LABELS[0])
        value = JudgmentValue(
            label,
            "accept" if positive else "reject",
            error_type=error_type if error_type is not None else item.error_type_for(label),
            note=self.note.text().strip() or None,
            model_visible=False,
        )
        self.judge(self._key(item), value)
        self.note.clear()

    def take_reviewer(self, reviewer: str) -> None:
        """The final label is this reviewer's decision (with their error type)."""
        item = self.current_item()
        if item is None or reviewer not in item.reviews:
            return
        chosen = item.reviews[reviewer]
        self.decide(chosen.label, error_type=chosen.error_type)

    def clear_decision(self) -> None:
        item = self.current_item()
        if item is not None and item.adjudicated is not None:
            self.judge(self._key(item), None)


class AdjudicationMode:
    """Wires the panel into the window: under the pair list (placed there by the host), the
    pair list's disagreement filter, and a refresh whenever the pair on screen, the item
    under the keyboard or a judgment changes."""

    def __init__(self, window: ListHost) -> None:
        self.window = window
        self.on = False
        self.panel = AdjudicationPanel(window.judging.judge, window.judging.focus_key)
        self.panel.setObjectName("adjudication_panel")
        self.panel.close_button.clicked.connect(self._close_clicked)
        window.pair_list.place_under_list(self.panel)
        window.judging.updated.connect(self.refresh)
        window.judging.judged.connect(self._judged)

    def set_on(self, on: bool) -> None:
        """Enter or leave adjudication mode (the panel and the "Reviewers disagree" filter)."""
        self.on = on
        self.window.judging.adjudicating = on
        if on:
            self.window.pair_list.show_under_list(self.panel, (2, 5))  # the list keeps 3/5
        else:
            self.panel.hide()
        self.window.pair_list.set_disagree_filter(on)
        self.refresh()
        keys = self.window.judging.keys_text
        self.window.statusBar().showMessage(
            f"Adjudication mode: {keys['accept']} / {keys['reject']} and the error-type keys on "
            "an item the reviewers disagree on record your adjudicated decision (its final label)"
            if on
            else "Adjudication mode off: the judging keys record your own review",
            8000,
        )

    def toggle(self) -> None:
        """Review ▸ Adjudication mode: on or off as the action is checked."""
        self.set_on(self.window.action("adjudicate").isChecked())

    def _close_clicked(self) -> None:
        action = self.window.action("adjudicate")
        action.setChecked(False)
        self.set_on(False)

    def _judged(self, _output_id: int) -> None:
        self.refresh()
        # After the key that judged has moved on (decide and advance): the filtered list then
        # drops a pair whose last dispute is settled, and takes back one disputed again.
        QTimer.singleShot(0, self.panel, self.window.pair_list.refresh_disagreements)

    def refresh(self) -> None:
        if not self.on:
            return
        unit = self.window.judging.current_unit()
        follow = None if unit is None else (unit.key.target_key, unit.key.aspect)
        self.panel.show_pair(self.window.project, self.window.current_output_id(), follow)
