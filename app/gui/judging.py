"""The judging controller: keys and clicks in, store writes and undo commands out; no widgets.

The window shows what the controller holds (the pair, its judgments, the item under the
keyboard) and forwards user actions to it. Everything here runs without a window, so tests drive
it directly: open a project, ``show_pair``, ``do("accept")``, read the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QKeyCombination, QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QUndoStack

from app.gui.undo import JudgeCommand, rebuild
from app.io.bundles import PairBundle, load_bundles
from app.settings import DEFAULT_KEYS
from app.store import Change, JudgmentKey, JudgmentValue, Project
from app.store.findings import finding_lines
from app.store.schema import ArcRow, PairScoreRow, SentenceScoreRow
from models.reasons import NOTHING_TO_CHECK

if TYPE_CHECKING:
    from app.review.adjudication import ItemVotes
    from models.checkers.questions import Said

LEVELS = ("sentence", "arc", "pair")

#: Every action the keys can be bound to (the keymap's names).
ACTIONS = tuple(DEFAULT_KEYS)

Scores = tuple[PairScoreRow, dict[int, SentenceScoreRow], dict[int, float]]


@dataclass(frozen=True)
class Unit:
    """The item under the keyboard: a sentence, an arc or the whole pair."""

    key: JudgmentKey
    score: float | None
    title: str
    number: int | None = None  # arc number or sentence index
    #: a sentence that states nothing to check ("Here is a summary:", "## Key points"): the
    #: keyboard passes over it (a click still selects it)
    passive: bool = False


class JudgingController(QObject):
    """Turns judging actions into committed, undoable decisions on the open project.

    Signals tell the window what to show; the controller never reads or writes a widget.
    Stepping to another pair goes through :attr:`step_pair`, which the window points at its
    pair list (the list's order and filters decide what "next pair" is).
    """

    #: Draw the current pair again (the state below changed).
    updated = Signal()
    #: A decision was committed, undone or redone: the text for the save indicator.
    saved = Signal(str)
    #: A short message for the status bar, and how long to show it (ms).
    message = Signal(str, int)
    #: A pair's judgments changed (its list row needs a refresh): the output id.
    judged = Signal(int)
    #: Blind mode, AIS mode or the level changed (menus mirror them).
    modes_changed = Signal()
    #: The relabel key was pressed: the window asks for label, error type and note.
    relabel_requested = Signal()
    #: Undo or redo changed a pair that is not on screen: the window shows it (output id).
    revisit = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.undo_stack = QUndoStack(self)
        self.bundle: PairBundle | None = None
        self.judg: dict[tuple[str, str], JudgmentValue] = {}
        self.units: list[Unit] = []
        self.unit = 0
        self.level = "sentence"
        self.ais_mode = False
        self.ais_stage = 1
        self.blind = False
        #: Adjudication mode: a decision key on an item the reviewers disagree on records the
        #: adjudicated decision (the final label), not the adjudicator's own review.
        self.adjudicating = False
        self.advance = True
        self.threshold = 0.5
        self.checker: str | None = None
        self.version: str | None = None
        self.checker_label = ""
        #: Checker name -> display name of every checker with a run (set by the window).
        self.display_names: dict[str, str] = {}
        self.last_saved: str | None = None
        self.keys_text: dict[str, str] = dict(DEFAULT_KEYS)
        self.keymap: dict[int, str] = {}
        self.set_keys(self.keys_text)
        #: Move the pair list by +1/-1; True when it moved (set by the window).
        self.step_pair: Callable[[int], bool] = lambda _step: False
        #: Jumps to the next pair of the "next most useful" queue (the window's queue control).
        self.jump_useful: Callable[[], object] = lambda: self.message.emit(
            "No queue in this window", 3000
        )
        self._quiet = False
        #: Output id -> the claims of its answer read with its question (see app/gui/claims.py).
        self.claims: dict[int, tuple[str, ...]] = {}

    # ================================================================== project
    def attach(self, project: Project) -> None:
        """Judge this project from now on; the undo stack mirrors its history."""
        self.project = project
        self.bundle = None
        self.units = []
        self.claims = {}
        rebuild(self.undo_stack, project, self._changed)

    def detach(self) -> None:
        """Forget the project (the caller closes it)."""
        self.undo_stack.clear()
        self.project = None
        self.bundle = None
        self.units = []
        self.judg = {}

    def set_checker(self, name: str | None, version: str | None, label: str) -> None:
        """Whose scores the marks, units and prompts show."""
        self.checker, self.version, self.checker_label = name, version, label

    def show_pair(self, output_id: int) -> None:
        """Load one pair's detail and draw it; the keyboard starts on its first item."""
        assert self.project is not None
        self.bundle = load_bundles(self.project, [output_id])[0]
        self._load_judgments()
        self.ais_stage = 1
        self.unit = 0
        self.build_units()
        self.unit = self._active(0, +1) or 0
        self.redraw()

    def reload_pair(self) -> None:
        """Reload the current pair (new scores arrived), keeping the item under the keyboard."""
        if self.project is None or self.bundle is None:
            return
        keep = self.unit
        self.bundle = load_bundles(self.project, [self.bundle.output.id])[0]
        self.build_units()
        self.unit = min(keep, max(0, len(self.units) - 1))
        self.redraw()

    def focus_key(self, key: JudgmentKey) -> None:
        """Put the keyboard on the item with this key, when the current level shows it."""
        if self.bundle is None or self.bundle.output.id != key.output_id:
            return
        i = next((i for i, u in enumerate(self.units) if u.key == key), None)
        if i is not None and i != self.unit:
            self.unit = i
            self.redraw()

    def clear_pair(self) -> None:
        self.bundle = None
        self.units = []

    def current_output_id(self) -> int | None:
        return None if self.bundle is None else self.bundle.output.id

    def _load_judgments(self) -> None:
        assert self.bundle is not None and self.project is not None
        self.judg = {}
        for j in self.project.judgments(self.bundle.output.id, own=True):
            if j.role != "review":
                continue  # adjudicated decisions are shown by the adjudication panel
            self.judg[(j.target_key, j.aspect)] = JudgmentValue(
                j.label, j.decision, j.error_type, j.note, j.model_visible, j.model_score
            )

    def redraw(self) -> None:
        self.updated.emit()

    # ================================================================== scores
    @property
    def hides_model(self) -> bool:
        """Model marks and scores are hidden: blind mode, or AIS stage one."""
        return self.blind or (self.ais_mode and self.ais_stage == 1)

    def scores(self) -> Scores | None:
        if self.bundle is None or not self.checker:
            return None
        return self.bundle.scores.get(self.checker)

    def sentence_state(self, sid: int) -> tuple[str | None, float | None, str]:
        """(state, score, tooltip) of an output sentence under the shown checker."""
        sc = self.scores()
        if sc is None:
            return None, None, "not analysed"
        row = sc[1].get(sid)
        if row is None:
            why = self.bundle.left_out(self.checker) if self.bundle is not None else None
            if why is not None:  # the whole pair was left out (an output not in English, say)
                return "not_checked", None, f"not checked: {why}"
            return None, None, "not analysed"
        # what the checker found, in words
        found = "".join(f"\n{line}" for line in finding_lines(row.detail))
        if row.not_checked:
            return "not_checked", row.score, f"not checked: {row.not_checked}{found}"
        if row.score is None:
            return "not_checked", None, f"no score{found}"
        state = "supported" if row.score >= self.threshold else "unsupported"
        tip = f"{self.checker_label}: support {row.score:.2f}"
        if row.min_arc is not None:
            tip += f" (lowest arc {row.min_arc:.2f})"
        if row.evidence:
            tip += " · evidence: source sentence " + ", ".join(str(i + 1) for i in row.evidence[:8])
            if len(row.evidence) > 8:
                tip += ", …"
        if row.omitted:
            tip += f" · {row.omitted} source sentences omitted"
        return state, row.score, tip + found

    def sentence_findings(self, sid: int) -> list[tuple[str, str]]:
        """(checker label, what it found) for an output sentence, in words: the shown checker's
        detail first, then that of every other checker that flags the sentence at its default
        threshold (say, the question-based check's conflicts while the combined score is shown),
        with its score, and the shown checker's where that passes the sentence."""
        b = self.bundle
        if b is None or not self.checker:
            return []
        labels = {**self.display_names, self.checker: self.checker_label}
        return b.findings(self.checker, sid, self.threshold, labels)

    def sentence_conflicts(self, sid: int) -> list[Said]:
        """What the question-based check finds the source answering otherwise in an output
        sentence (a name or figure), whichever checker is shown; [] when it did not run."""
        return [] if self.bundle is None else self.bundle.conflicts(sid)

    def flagged_arcs(self) -> list[tuple[int, ArcRow, float]]:
        """(number, arc row, score) for the arcs under the threshold, numbered from 1."""
        sc = self.scores()
        if sc is None or self.bundle is None:
            return []
        out: list[tuple[int, ArcRow, float]] = []
        for arc in self.bundle.arcs:
            score = sc[2].get(arc.id)
            if score is not None and score < self.threshold:
                out.append((len(out) + 1, arc, score))
        return out

    def build_units(self) -> None:
        b = self.bundle
        if b is None:
            self.units = []
            return
        oid = b.output.id
        if self.ais_mode or self.level == "pair":
            sc = self.scores()
            pscore = None if sc is None else sc[0].score
            self.units = [Unit(JudgmentKey(oid, "pair"), pscore, "the whole output")]
        elif self.level == "arc" and not self.blind:
            self.units = [
                Unit(
                    JudgmentKey(oid, "arc", sentence_id=arc.sentence_id, arc_id=arc.id),
                    score,
                    f"arc {n}: {arc.label} {arc.head_text} → {arc.child_text}",
                    n,
                )
                for n, arc, score in self.flagged_arcs()
            ]
        else:
            self.units = [
                Unit(
                    JudgmentKey(oid, "sentence", sentence_id=s.id),
                    self.sentence_state(s.id)[1],
                    f"sentence {s.idx + 1} of {len(b.sentences)}",
                    s.idx,
                    self._states_nothing(s.id),
                )
                for s in b.sentences
            ]
        self.unit = max(0, min(self.unit, len(self.units) - 1))

    def _states_nothing(self, sid: int) -> bool:
        """Whether the shown checker found that a sentence states nothing to check (not one it
        could not read: that one the editor must judge). Never in blind mode: the model's
        reading stays hidden there."""
        sc = self.scores()
        row = None if sc is None or self.blind else sc[1].get(sid)
        return row is not None and row.not_checked in NOTHING_TO_CHECK

    def _active(self, start: int, step: int) -> int | None:
        """The first unit from ``start`` in direction ``step`` that the keyboard stops at (every
        unit when all are passive), or None."""
        every = all(u.passive for u in self.units)
        i = start
        while 0 <= i < len(self.units):
            if every or not self.units[i].passive:
                return i
            i += step
        return None

    def current_unit(self) -> Unit | None:
        return self.units[self.unit] if 0 <= self.unit < len(self.units) else None

    # ================================================================== keys
    def set_keys(self, keys: dict[str, str]) -> None:
        """Use this key map (action -> portable key text)."""
        self.keys_text = dict(keys)
        self.keymap = {}
        for action, text in self.keys_text.items():
            seq = QKeySequence(text)
            if seq.count():
                # QKeySequence supports indexing at runtime; the stubs lack __getitem__.
                self.keymap[seq[0].toCombined()] = action  # type: ignore[index]

    def action_for(self, key: int, modifiers: Qt.KeyboardModifier) -> str | None:
        """The action bound to a key press: a keymap name, ``error_type:N`` or None."""
        mods = modifiers & ~Qt.KeyboardModifier.KeypadModifier
        action = self.keymap.get(QKeyCombination(mods, Qt.Key(key)).toCombined())
        if action is not None:
            return action
        if mods == Qt.KeyboardModifier.NoModifier and Qt.Key.Key_1 <= key <= Qt.Key.Key_9:
            return f"error_type:{key - Qt.Key.Key_1}"
        return None

    def press(
        self, key: int, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
    ) -> bool:
        """Run what a key press is bound to; False when the key is not a judging key.

        A judging key that cannot act now is still taken, and :attr:`message` says why.
        """
        action = self.action_for(key, modifiers)
        if action is None:
            return False
        if self.project is None:
            self.message.emit(
                "No project open: judging keys act once a project is open (File ▸ Open project)",
                5000,
            )
            return False
        why = self.refusal(action)
        if why is not None:
            self.message.emit(why, 5000)
            return True
        self.do(action)
        return True

    def refusal(self, action: str) -> str | None:
        """Why ``action`` cannot act on the current pair and item (None: it can)."""
        if action in ("undo", "blind", "ais", "level") or action.startswith(("next", "prev")):
            return None
        if self.bundle is None:
            return "No pair shown: no pair matches the filters"
        if action in ("flag", "skip"):
            return None
        if action.startswith("error_type:"):
            n = int(action.split(":", 1)[1])
            assert self.project is not None
            count = len(self.project.taxonomy())
            if self.ais_mode and self.ais_stage == 1:
                return (
                    f"AIS stage 1 asks only whether the output is interpretable "
                    f"({self.keys_text['accept']} yes / {self.keys_text['reject']} no); "
                    "error types come in stage 2"
                )
            if n >= count:
                return f"No error type {n + 1}: the taxonomy has {count}"
        if self.ais_mode:
            return None
        if self.current_unit() is None:
            what = "no non-entailed arcs" if self.level == "arc" else "nothing to judge"
            return (
                f"{self.level.capitalize()} level: {what} on this pair "
                f"({self.keys_text['level']} changes the level)"
            )
        return None

    def do(self, action: str) -> None:
        """Run a named judging action (what the keys are bound to)."""
        if action.startswith("error_type:"):
            self.error_type(int(action.split(":", 1)[1]))
            return
        handlers: dict[str, Callable[[], object]] = {
            "accept": self.accept_item,
            "reject": self.reject_item,
            "skip": self.skip,
            "flag": self.toggle_flag,
            "relabel": self.relabel_requested.emit,
            "next": self.next_item,
            "prev": self.prev_item,
            "next_alt": self.next_item,
            "prev_alt": self.prev_item,
            "next_pair": self.next_pair,
            "prev_pair": self.prev_pair,
            "next_pair_alt": self.next_pair,
            "prev_pair_alt": self.prev_pair,
            "level": self.cycle_level,
            "blind": lambda: self.set_blind(not self.blind),
            "ais": lambda: self.set_ais(not self.ais_mode),
            "undo": self.undo_stack.undo,
            "next_useful": lambda: self.jump_useful(),
        }
        handlers[action]()

    # ================================================================== judging
    def judge(self, key: JudgmentKey, value: JudgmentValue | None, *, render: bool = True) -> None:
        """Commit one decision through the undo stack (it is saved at once).

        ``render=False`` when the caller moves on and redraws anyway (one drawing per key).
        """
        assert self.project is not None
        self._quiet = not render
        try:
            self.undo_stack.push(JudgeCommand(self.project, self._changed, key, value))
        finally:
            self._quiet = False

    def _disputed(self, key: JudgmentKey) -> ItemVotes | None:
        """In adjudication mode, the item the reviewers judged differently under ``key``."""
        if not self.adjudicating or self.project is None or key.role != "review":
            return None
        from app.review.adjudication import pair_items

        slot = (key.target_key, key.aspect)
        for item in pair_items(self.project, key.output_id):
            if (item.target_key, item.aspect) == slot and item.disagree:
                return item
        return None

    def decision_key(self, key: JudgmentKey) -> JudgmentKey:
        """Where a decision key's judgment goes: in adjudication mode, on an item the
        reviewers judged differently, the adjudicated decision; else the reviewer's own."""
        return key if self._disputed(key) is None else replace(key, role="adjudicated")

    def _judge_decision(
        self, key: JudgmentKey, value: JudgmentValue, *, render: bool = True
    ) -> None:
        """Commit a decision key's judgment (see :meth:`decision_key`) and say which it was.

        An adjudicated label given without an error type (X) takes the one the reviewers who
        gave that label agree on, so that rejecting keeps what the rejecting reviewers found.
        """
        item = self._disputed(key)
        if item is not None:
            key = replace(key, role="adjudicated")
            if value.error_type is None:
                value = replace(value, error_type=item.error_type_for(value.label))
        self.judge(key, value, render=render)
        if key.role == "adjudicated":
            what = key.target if key.aspect == "support" else f"{key.target} {key.aspect}"
            kind = f" ({value.error_type})" if value.error_type else ""
            self.message.emit(
                f"Adjudicated the {what}: {value.label}{kind} is its final label (the "
                "reviewers disagree on it; undo takes it back)",
                8000,
            )
        elif self.adjudicating:
            self.message.emit(
                f"Your own review: {value.label} (the reviewers do not disagree on this item)",
                5000,
            )

    def _changed(self, change: Change, action: str = "do") -> None:
        """After any commit, undo or redo: refresh what shows it and say it is saved."""
        oid = change.key.output_id
        if (
            self.bundle is not None
            and self.bundle.output.id == oid
            and self.project is not None
            and change.key.role == "review"
        ):
            slot = (change.key.target_key, change.key.aspect)
            value = self.project.judgment(change.key)
            if value is None:
                self.judg.pop(slot, None)
            else:
                self.judg[slot] = value
        self.judged.emit(oid)
        if action != "do" and (self.bundle is None or self.bundle.output.id != oid):
            self.revisit.emit(oid)
            self.focus_key(change.key)
        stamp = datetime.now().strftime("%H:%M:%S")
        what = {"do": "", "undo": "undid ", "redo": "redid "}[action]
        self.set_saved(f"Saved {stamp} — {what}{change.describe()}")
        if self.bundle is not None and self.bundle.output.id == oid and not self._quiet:
            self.redraw()

    def set_saved(self, text: str) -> None:
        self.last_saved = text
        self.saved.emit(text)

    def _value(
        self,
        label: str,
        decision: str,
        unit: Unit | None,
        *,
        error_type: str | None = None,
        note: str | None = None,
    ) -> JudgmentValue:
        return JudgmentValue(
            label=label,
            decision=decision,
            model_visible=not self.hides_model,
            model_score=None if unit is None else unit.score,
            error_type=error_type,
            note=note,
        )

    def accept_item(self) -> None:
        self._decide(True)

    def reject_item(self) -> None:
        self._decide(False)

    def _decide(self, yes: bool) -> None:
        if self.bundle is None:
            return
        oid = self.bundle.output.id
        if self.ais_mode:
            unit = self.current_unit()
            if self.ais_stage == 1:
                self._judge_decision(
                    JudgmentKey(oid, "pair", aspect="interpretable"),
                    self._value("yes" if yes else "no", "accept" if yes else "reject", unit),
                )
                if yes:
                    self.ais_stage = 2
                    self.redraw()
                else:
                    self.next_pair()  # not interpretable: attribution is not rated
                return
            self._judge_decision(
                JudgmentKey(oid, "pair"),
                self._value(
                    "supported" if yes else "unsupported", "accept" if yes else "reject", unit
                ),
            )
            self.next_pair()
            return
        unit = self.current_unit()
        if unit is None:
            return
        self._judge_decision(
            unit.key,
            self._value("supported" if yes else "unsupported", "accept" if yes else "reject", unit),
            render=False,
        )
        self._advance()

    def error_type(self, n: int) -> None:
        """Relabel the current item as unsupported with the n-th error type of the taxonomy."""
        if self.project is None or self.bundle is None:
            return
        taxonomy = self.project.taxonomy()
        unit = self.current_unit()
        if unit is None or n >= len(taxonomy) or (self.ais_mode and self.ais_stage == 1):
            return
        key = unit.key if not self.ais_mode else JudgmentKey(self.bundle.output.id, "pair")
        self._judge_decision(
            key,
            self._value("unsupported", "relabel", unit, error_type=taxonomy[n]["key"]),
            render=self.ais_mode,
        )
        if self.ais_mode:
            self.next_pair()
        else:
            self._advance()

    def relabel(self, label: str, error_type: str | None, note: str | None) -> None:
        unit = self.current_unit()
        if unit is None:
            return
        self._judge_decision(
            unit.key,
            self._value(label, "relabel", unit, error_type=error_type, note=note or None),
            render=False,
        )
        self._advance()

    def current_judgment(self) -> JudgmentValue | None:
        """The support judgment of the item under the keyboard, if any."""
        unit = self.current_unit()
        return None if unit is None else self.judg.get((unit.key.target_key, "support"))

    def toggle_flag(self) -> None:
        if self.bundle is None:
            return
        key = JudgmentKey(self.bundle.output.id, "pair", aspect="flag")
        if ("pair", "flag") in self.judg:
            self.judge(key, None)
        else:
            self.judge(key, self._value("malformed", "flag", None))
        if self.ais_mode:
            self.next_pair()

    def skip(self) -> None:
        if self.ais_mode:
            self.next_pair()
        else:
            self._advance()

    # ================================================================== moving
    def _advance(self) -> None:
        if self.advance:
            self.next_item()
        else:
            self.redraw()

    def next_item(self) -> None:
        following = self._active(self.unit + 1, +1)
        if following is not None:
            self.unit = following
            self.redraw()
        elif not self._step(+1):
            self.redraw()

    def prev_item(self) -> None:
        before = self._active(self.unit - 1, -1)
        if before is not None:
            self.unit = before
            self.redraw()
        else:
            self.prev_pair(last=True)

    def next_pair(self) -> None:
        self._step(+1)

    def prev_pair(self, last: bool = False) -> None:
        self._step(-1)
        if last and self.units:
            self.unit = self._active(len(self.units) - 1, -1) or 0
            self.redraw()

    def _step(self, step: int) -> bool:
        if self.step_pair(step):
            return True
        self.message.emit("No more pairs in this direction", 3000)
        return False

    def cycle_level(self) -> None:
        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]
        if self.level == "arc" and self.blind:
            self.level = "pair"
        self.unit = 0
        self.build_units()
        self.redraw()
        self.modes_changed.emit()

    def set_level(self, level: str) -> None:
        self.level = level
        self.unit = 0
        self.build_units()
        self.redraw()
        self.modes_changed.emit()

    def select_arc(self, arc_id: int) -> bool:
        """An arc clicked in the diagram: a non-entailed one becomes the arc being judged.

        Returns True when the arc is now the judged item.
        """
        if self.bundle is None or self.blind:
            return False
        if arc_id not in {arc.id for _n, arc, _s in self.flagged_arcs()}:
            arc = next((a for a in self.bundle.arcs if a.id == arc_id), None)
            if arc is not None:
                self.message.emit(
                    f"{arc.label}({arc.head_text} → {arc.child_text}) is not flagged; "
                    "arc-level judging covers the non-entailed arcs",
                    5000,
                )
            return False  # the diagram keeps it highlighted; the judging unit stays where it was
        if self.ais_mode or self.level != "arc":
            self.level = "arc"
            self.ais_mode = False
            self.build_units()
            self.modes_changed.emit()
        self.unit = next((i for i, u in enumerate(self.units) if u.key.arc_id == arc_id), 0)
        self.redraw()
        return True

    def select_sentence(self, index: int) -> None:
        """A sentence clicked in the output: it becomes the judged item (sentence level)."""
        if self.level != "sentence" or self.ais_mode:
            self.level = "sentence"
            self.ais_mode = False
            self.build_units()
            self.modes_changed.emit()
        self.unit = index
        self.redraw()

    # ================================================================== modes
    def set_blind(self, on: bool) -> None:
        self.blind = on
        if self.blind and self.level == "arc":
            self.level = "sentence"
        self.build_units()
        if self.bundle:
            self.redraw()
        self.modes_changed.emit()

    def set_ais(self, on: bool) -> None:
        self.ais_mode = on
        self.ais_stage = 1
        self.unit = 0
        self.build_units()
        if self.bundle:
            self.redraw()
        self.modes_changed.emit()

    def set_threshold(self, value: float) -> None:
        self.threshold = value
