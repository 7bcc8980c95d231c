"""Learning from the editor in the window (issue 14): the calibrated threshold, the queue,
adaptation as a background job, and the help text.

:class:`LearningPanel` owns the widgets and actions of the three features and follows the
window through its pair list (every new project, checker, threshold or analysis reloads the
list): the threshold takes the calibration of the shown checker version when there is one
and says on how many judgments it rests; the order box sorts the list in "next most useful"
order (or keeps only the pairs where the editor and the model disagree) with the reason in
each id's tooltip; the N key jumps to the next pair of that queue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QLabel, QMessageBox, QProgressBar, QPushButton

from app import settings as S
from app.gui.pairlist import combo
from app.gui.plaintext import plain_label
from app.learning.job import AdaptRequest, NewRows, next_threshold, run_adapt
from app.tasks import Job
from app.wording import counted

if TYPE_CHECKING:
    from app.gui.host import ListHost
    from app.learning.calibration import Fit
    from app.learning.queue import QueueItem

ORDERS = ("import order", "next most useful", "disagreements: you vs the model")
ORDER_TIP = (
    "Order of the pair list: next most useful puts likely errors and doubtful pairs "
    "first (why: each id's tooltip); N jumps to the next one"
)
HIDDEN_MESSAGE = (
    "Model hidden (blind or AIS mode): the list's model-based order and filters are off "
    "until it shows again, since they would reveal its scores"
)
#: Why the model's orders and filters are off while its marks are hidden.
BLIND_TIP = (
    "Blind or AIS mode: the next-most-useful order, the disagreement filter and "
    "unfamiliar-entity descriptions first are off, since they would reveal the model's "
    "scores; the list keeps its own order and N goes to the next pair not done"
)
LANE = "model"  # adaptation writes scores: never beside an analysis

#: The Calibration and adaptation help, as written here; :data:`HELP_TEXT` is what the box shows.
_HELP = """Learning from your judgments

Calibrate threshold (Analysis menu; factdesk calibrate): from the pairs, sentences and arcs you
have judged, FactDesk fits the threshold that best matches your decisions (best balanced
accuracy, or with --target-recall the lowest threshold that catches that share of what you
rejected) and a calibrated probability. The threshold box then uses it and says on how many
judgments it rests; Statistics shows a reliability plot and agreement against the threshold.

Adapt to my judgments (Analysis menu; factdesk adapt): refits the last layer of the combined
score on your pair and sentence judgments, together with the examples it was first trained on,
so a few judgments move it without erasing it; with enough arc judgments the arc scores are
recalibrated to them too. The adapted model is stored inside the project
file (it travels with it; the bundled model files are never changed), has its own version, and
re-scores the project from the scores already stored, in seconds. "Use the bundled model"
switches back at any time; nothing is deleted. Judgments made with the model's marks visible and
made blind weigh the same; how many of each it used is reported.

Next most useful order (the list's order box; key N): pairs likely unsupported or near the
threshold first, then those where the arc and sentence checkers disagree; the disagreement
filter lists the pairs where your judgment and the model's flag differ. Each pair's tooltip
says why it is where it is.

What they are not: calibration and adaptation fit this editor on this project. The figures
they report are measured on your own judgments; they are no claim about the checker's quality
on other projects, other editors or other kinds of text."""
#: One line per paragraph: the message box wraps it to its own width (the source's line breaks,
#: kept, broke its lines again mid-sentence).
HELP_TEXT = "\n\n".join(" ".join(part.split("\n")) for part in _HELP.split("\n\n"))


class LearningPanel(QObject):
    """Calibrated threshold, queue order and key, adaptation job, help (see module doc)."""

    def __init__(self, window: ListHost) -> None:
        super().__init__(window.window())
        self.w = window
        self.fit: Fit | None = None
        self._applied: tuple[object, ...] | None = None
        #: The threshold last taken from a calibration (None: the editor's own).
        self._calibrated_value: float | None = None
        #: The model-based order set aside while the model is hidden (0: none).
        self._set_aside = 0
        # ---- beside the threshold
        self.calibration_label = plain_label(QLabel())
        self.calibration_label.setAccessibleName("Threshold calibration")
        # ---- the order box, under the search box of the pair list
        self.order_box = combo("Pair order", list(ORDERS))
        self.order_box.setToolTip(ORDER_TIP)
        window.pair_list.place_in_list(self.order_box)
        # ---- the adaptation job's progress and Cancel
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Adaptation progress")
        self.progress.setMaximumWidth(200)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel adaptation")
        self.cancel_button.setAccessibleName("Cancel adaptation")
        self.cancel_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()

    # ================================================================== wiring
    def slots(self) -> dict[str, Callable[[], object]]:
        return {
            "calibrate": self.calibrate,
            "adapt": self.adapt,
            "bundled_model": self.toggle_bundled,
            "help_learning": self.show_help,
        }

    def wire(self) -> None:
        """Connect to the window (after the window's own handlers)."""
        w = self.w
        w.statusBar().addPermanentWidget(self.progress)
        w.statusBar().addPermanentWidget(self.cancel_button)
        w.pair_list.reloaded.connect(self.follow)
        w.threshold_edited.connect(lambda _v: self._show_label())
        self.order_box.currentIndexChanged.connect(lambda _i: self.apply_order())
        w.pair_list.column_sorted.connect(self._header_sorted)
        w.judging.jump_useful = self.jump
        # After the window's own handler, which hides the list's scores.
        w.judging.modes_changed.connect(self.follow_hidden)
        self.bundled_action = w.action("bundled_model")
        self.follow_hidden()

    def follow_hidden(self) -> None:
        """Blind and AIS modes: every order and filter that reads a model score is off.

        The model's orders are disabled in the order box (its tooltip says why) and one already
        chosen is set aside (import order) until the model shows again; unfamiliar-entity
        descriptions first (a filter and order on the shown checker's scores) is disabled and
        inert while the model is hidden (the list ignores the model's order and filters then).
        """
        w = self.w
        hidden = w.pair_list.scores_hidden
        items = self.order_box.model()
        assert isinstance(items, QStandardItemModel)
        for row in range(1, len(ORDERS)):
            entry = items.item(row)
            assert entry is not None
            entry.setEnabled(not hidden)
        self.order_box.setToolTip(BLIND_TIP if hidden else ORDER_TIP)
        familiar = w.action("unfamiliar_first")
        familiar.setEnabled(not hidden)
        familiar.setToolTip(BLIND_TIP if hidden else familiar.text().replace("&", ""))
        if hidden:
            was_on = self.order_box.currentIndex() > 0 or familiar.isChecked()
            if self.order_box.currentIndex() > 0:
                self._set_aside = self.order_box.currentIndex()
                self.order_box.setCurrentIndex(0)  # applies the import order
            if was_on:
                w.statusBar().showMessage(HIDDEN_MESSAGE, 8000)
        elif self._set_aside:
            back, self._set_aside = self._set_aside, 0
            self.order_box.setCurrentIndex(back)  # the order chosen before, again

    # ================================================================== following the window
    def follow(self) -> None:
        """The list was reloaded (project, checker, threshold or analysis changed)."""
        project, checker, version = self.w.project, self.w.checker, self.w.version
        self.fit = None
        if project is not None and checker and version:
            if project.calibrated(checker, version):
                from app.learning.calibration import shown_threshold

                self.fit = shown_threshold(project, checker, version)
            key = (str(project.path), checker, version)
            if key != self._applied:
                self._applied = key
                # Another version's calibration (say, before adapting) is not kept: back to
                # the default rather than a value fitted to other scores.
                value = next_threshold(
                    self.w.threshold,
                    self._calibrated_value,
                    self.fit,
                    float(S.THRESHOLD.default),
                )
                self._calibrated_value = None if self.fit is None else self.fit.threshold
                self.w.set_threshold(value)  # the list reloads once more
        self._show_label()
        self._show_model_state()
        if self.order_box.currentIndex() > 0:
            self.apply_order()

    def _show_label(self) -> None:
        fit, label = self.fit, self.calibration_label
        if fit is None:
            label.setText("")
            label.setToolTip("")
            return
        from app.learning.calibration import describe

        used = abs(self.w.threshold - fit.threshold) < 5e-4
        label.setText(
            f" calibrated on {fit.n_judgments} judgments"
            if used
            else f" calibrated {fit.threshold:.3f} on {fit.n_judgments} judgments (not in use)"
        )
        label.setToolTip(describe(fit) + "\n(fits your decisions on this project only)")

    def _show_model_state(self) -> None:
        project = self.w.project
        if project is None:
            return
        head, latest = None, None
        if project.adapted():  # the adaptation code (and numpy) loads only for a project using it
            from app.store.heads import active_model, latest_model

            head, latest = active_model(project), latest_model(project)
        self.bundled_action.blockSignals(True)
        # In use only when it is the version shown (a newer bundled model leaves it aside).
        self.bundled_action.setChecked(head is None or self.w.version != head.version)
        self.bundled_action.setEnabled(latest is not None)
        self.bundled_action.blockSignals(False)

    # ================================================================== the queue
    def items(self) -> list[QueueItem]:
        from app.learning.queue import queue

        assert self.w.project is not None
        return queue(self.w.project, self.w.checker, self.w.version, self.w.threshold)

    def apply_order(self) -> None:
        """Sort (and, for disagreements, filter) the list by the queue; reasons in tooltips."""
        w, mode = self.w, self.order_box.currentIndex()
        if mode > 0 and w.pair_list.scores_hidden:
            self.order_box.blockSignals(True)
            self.order_box.setCurrentIndex(0)
            self.order_box.blockSignals(False)
            mode = 0
            w.statusBar().showMessage(HIDDEN_MESSAGE, 8000)
        if mode == 0 or w.project is None:
            w.pair_list.set_order(None, {})
            return
        from app.learning.queue import disagreements

        items = self.items()
        w.pair_list.set_order(
            {i.output_id: n for n, i in enumerate(items)},
            {i.output_id: i.reason for i in items},
            {i.output_id for i in disagreements(items)} if mode == 2 else None,
        )

    def _header_sorted(self) -> None:
        if self.order_box.currentIndex() > 0:
            # A column the editor chose wins over the queue.
            self.order_box.blockSignals(True)
            self.order_box.setCurrentIndex(0)
            self.order_box.blockSignals(False)
            self.w.pair_list.set_order(None, {}, sort=False)  # sorted by the column now

    def jump(self) -> None:
        """Show the next pair of the queue (not done, not the one shown) and say why."""
        w = self.w
        if w.project is None:
            return
        from app.learning.queue import disagreements

        current = w.current_output_id()
        if w.pair_list.scores_hidden:
            self._jump_model_free(current)
            return
        items = self.items()
        if self.order_box.currentIndex() == 2:
            items = disagreements(items)
        nxt = next((i for i in items if not i.done and i.output_id != current), None)
        if nxt is None:
            w.statusBar().showMessage("Nothing left in the queue: every pair is done", 5000)
            return
        w.select_pair(nxt.output_id)
        if w.current_output_id() != nxt.output_id:
            w.show_pair(nxt.output_id)
        where = self._focus_weakest()
        w.statusBar().showMessage(f"Next most useful: {nxt.reason}{where}", 8000)

    def _jump_model_free(self, current: int | None) -> None:
        """N while the model is hidden: the next pair not done, in the list's own order (the
        queue's order would reveal the model's scores); from the top again at the end."""
        w = self.w
        found = w.pair_list.next_open(current)
        if found is None:
            w.statusBar().showMessage("Nothing left: every pair in the list is done", 5000)
            return
        w.select_pair(found)
        w.statusBar().showMessage(
            "Next pair not done, in the list's order (the model-based queue is off while the "
            "model is hidden: blind or AIS mode)",
            8000,
        )

    def _focus_weakest(self) -> str:
        """Put the keyboard on the pair's lowest-scored item not judged yet; say which."""
        j = self.w.judging
        if j.level == "pair" or j.ais_mode:
            return ""
        scored = [
            (u.score, n)
            for n, u in enumerate(j.units)
            if u.score is not None and (u.key.target_key, u.key.aspect) not in j.judg
        ]
        if not scored:
            return ""
        score, n = min(scored)
        unit = j.units[n]
        j.focus_key(unit.key)
        return f" — on {unit.title} ({score:.2f})"

    # ================================================================== calibrate, adapt
    def calibrate(self) -> None:
        w = self.w
        if w.project is None or not w.checker:
            w.statusBar().showMessage("Nothing to calibrate: open and analyse a project", 6000)
            return
        from app.learning.calibration import calibrate

        try:
            fits, skipped = calibrate(w.project, checker=w.checker)
        except Exception as err:  # noqa: BLE001 - shown through the window's one handler
            w.show_error(err)
            return
        if not fits:
            w.statusBar().showMessage(
                "Not calibrated: " + "; ".join(s["reason"] for s in skipped), 10000
            )
            return
        self._applied = None  # take the new threshold
        w.reload_rows()
        levels = ", ".join(f"{f.level} {f.threshold:.3f} ({f.n_judgments})" for f in fits)
        w.statusBar().showMessage(f"Calibrated from your judgments: {levels}", 8000)

    def adapt(self) -> None:
        self._submit("adapt", "Adapting the combined score to your judgments…")

    def toggle_bundled(self) -> None:
        on = self.bundled_action.isChecked()
        self._submit(
            "bundled" if on else "project",
            "Back to the bundled model…" if on else "Using the model adapted to this project…",
        )

    def _submit(self, action: str, text: str) -> None:
        w = self.w
        if w.project is None:
            w.statusBar().showMessage("No project: open one first", 6000)
            self._show_model_state()
            return
        if w.runner.is_busy(LANE):
            w.statusBar().showMessage(
                "An analysis or adaptation is running: wait for it, or cancel it first", 8000
            )
            self._show_model_state()
            return
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        w.statusBar().showMessage(text)
        w.runner.submit(
            Job(
                LANE,
                run_adapt,
                AdaptRequest(
                    str(w.project.path),
                    action,
                    w.threshold,
                    self._calibrated_value,
                    float(S.THRESHOLD.default),
                    w.project.annotator,
                ),
                on_done=self._done,
                on_error=w.show_error,
                on_progress=self._progress,
                on_finished=self._finished,
            )
        )

    def cancel(self) -> None:
        self.w.runner.cancel(LANE)

    def busy(self) -> bool:
        return self.w.runner.is_busy(LANE)

    def _progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"re-scoring {done}/{total}")

    def _finished(self, _cancelled: bool) -> None:
        self.progress.hide()
        self.cancel_button.hide()

    def _done(self, report: object) -> None:
        assert isinstance(report, dict)
        w = self.w
        if report.get("cancelled"):
            text = "Adaptation cancelled: what was re-scored is kept; adapt again to finish"
        elif "switched" in report:
            which = "bundled model" if report["switched"] == "bundled" else "project model"
            text = f"Using the {which} (combined {report['version']})"
        else:
            j = report.get("judgments", {})
            ba0, ba1 = report.get("balanced_accuracy_before"), report.get("balanced_accuracy_after")
            fit = "" if ba0 is None or ba1 is None else f"; on them {ba0:.0%} → {ba1:.0%} BA"
            text = (
                f"Adapted to {counted(sum(j.values()), 'judgment')} ({report.get('made_blind', 0)} "
                f"made blind){fit}; re-scored {counted(report.get('rescored_pairs', 0), 'pair')}"
                + (f"; shown: v{report['version']}" if report.get("version") else "")
            )
        if w.project is not None:
            oid = w.current_output_id()
            w.refresh_checkers()
            new = report.get("new_rows")
            if isinstance(new, NewRows) and self._still_fresh(new):
                self._take_rows(new)
            else:
                w.reload_rows()
            if oid is not None:
                w.select_pair(oid)
                # The pair's new scores on the next turn of the event loop: the list's refresh
                # and the detail's reload are two short stalls, not one long one.
                QTimer.singleShot(0, self, lambda: self._reload_shown(oid))
        w.statusBar().showMessage(text, 10000)

    def _reload_shown(self, output_id: int) -> None:
        """Redraw the shown pair with its new scores, the keyboard on the item it was on."""
        w = self.w
        if w.project is None:
            return
        if w.current_output_id() == output_id:
            w.judging.reload_pair()
        else:
            w.show_pair(output_id)

    def _still_fresh(self, new: NewRows) -> bool:
        """The worker's rows still hold: same checker and reviewer, nothing judged since."""
        from sqlalchemy import func, select

        from app.store.schema import AuditEntry

        w = self.w
        if w.project is None or w.checker != "combined" or w.version != new.version:
            return False
        if w.project.annotator != new.reviewer:
            return False  # the reviewer changed while the job ran: the rows are not theirs
        with w.project.session() as s:
            return (s.scalar(select(func.max(AuditEntry.id))) or 0) == new.audit_id

    def _take_rows(self, new: NewRows) -> None:
        """Show the worker's rows: the threshold they were built at, without a reload."""
        w = self.w
        assert w.project is not None
        self._applied = (str(w.project.path), w.checker, new.version)
        self._calibrated_value = None if new.fit is None else new.fit.threshold
        w.set_threshold(new.threshold, reload=False)
        w.pair_list.show_rows(new.rows)  # follow() runs on the reload: label, queue order

    # ================================================================== help
    def show_help(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, "Calibration and adaptation", HELP_TEXT)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setParent(self.w.window(), box.windowFlags())
        box.open()
        return box
