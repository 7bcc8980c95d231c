"""Job wiring for analysis: the request, the progress bar and Cancel button, and the results.

:class:`AnalysisPanel` builds the request on the main thread, hands it to the task runner's
model lane and turns the worker's reports into signals (chunk committed, run ended).
:class:`AnalysisMenu` is the Analysis menu's slots (analyse, a checker alone, an own NLI model)
and what the window refreshes as results come in, through its host
(:class:`app.gui.host.ListHost`). The analysis itself runs in a child process
(:func:`app.gui.jobs.analyse_in_process`): the models never load into the window's interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QProgressBar, QPushButton

from app.gui.jobs import AnalysisRequest, DemoRequest, analyse_in_process, demo_in_process
from app.gui.plaintext import menu_text
from app.tasks import Job, TaskRunner

if TYPE_CHECKING:
    from app.gui.host import ListHost


class AnalysisPanel(QObject):
    """Starts and cancels analyses; owns the status bar's progress bar and Cancel button."""

    #: Scores of these output ids were committed.
    chunk = Signal(list)
    #: The run ended (done or cancelled): its report.
    done = Signal(dict)
    #: The run failed.
    failed = Signal(object)
    #: A line for the status bar.
    message = Signal(str)
    #: The run's widgets were hidden (focus may need a new home).
    finished = Signal()
    #: What the job is doing now and how far: ("Parsing", 3, 32); total 0 when unknown.
    stepped = Signal(str, int, int)

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Analysis progress")
        self.progress.setMaximumWidth(240)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel analysis")
        # Clicking Cancel must not take the keyboard from judging (nor hand it to the search box
        # when the button hides itself).
        self.cancel_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()

    def start(
        self,
        project_path: str,
        checkers: list[str],
        device: str = "auto",
        model_dir: str | None = None,
    ) -> None:
        """Score every pair not yet scored by ``checkers``; chunks are reported as committed."""
        req = AnalysisRequest(project_path, tuple(checkers), device, model_dir=model_dir)
        self._busy_bar()
        self.message.emit(f"Analysing with {', '.join(checkers)}…")
        self.runner.submit(
            Job(
                "model",
                analyse_in_process,
                req,
                on_done=self._done,
                on_error=self.failed.emit,
                on_progress=self._progress,
                on_step=self._step,
                on_partial=self._partial,
                on_finished=self._finished,
            )
        )

    def prepare_demo(
        self, path: str, on_ready: Callable[[str], object], checkers: tuple[str, ...] | None = None
    ) -> None:
        """Build the demo project or bring its analysis up to date, then ``on_ready(path)``.

        It loads and runs the models, so it takes the analysis lane, its progress bar (what is
        being done, from the first step: "Loading the models", "Parsing 3/32", "Scoring with
        dae 5/32") and its Cancel button; cancelling keeps what was scored and opens the demo.
        """
        self._busy_bar()
        self.message.emit("Preparing the demo project (analysing it on first use)…")
        self.runner.submit(
            Job(
                "model",
                demo_in_process,
                DemoRequest(path, checkers),
                on_done=lambda p: on_ready(str(p)),
                on_error=self.failed.emit,
                on_step=self._step,
                on_finished=self._finished,
            )
        )

    def cancel(self) -> None:
        self.runner.cancel("model")

    def busy(self) -> bool:
        return self.runner.is_busy("model")

    def _busy_bar(self) -> None:
        self.progress.setRange(0, 0)  # busy until the job says how far it is
        self.progress.show()
        self.cancel_button.show()

    def _progress(self, done: int, total: int) -> None:
        self.progress.show()
        self.cancel_button.show()
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(f"{done}/{total} pairs")

    def _step(self, what: str, done: int, total: int) -> None:
        self.progress.show()
        self.cancel_button.show()
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self.progress.setFormat(f"{what} {done}/{total}")
        else:
            self.progress.setRange(0, 0)  # a busy bar shows no text: the status bar says it
        self.progress.setToolTip(f"{what}…")
        if total <= 0:
            self.message.emit(f"{what}…")
        self.stepped.emit(what, done, total)

    def _partial(self, ids: object) -> None:
        assert isinstance(ids, list)
        self.chunk.emit(ids)

    def _done(self, report: object) -> None:
        assert isinstance(report, dict)
        self.done.emit(report)

    def _finished(self, _cancelled: bool) -> None:
        # A newer request may already be queued in the lane; its progress shows the bar again.
        self.progress.hide()
        self.cancel_button.hide()
        self.finished.emit()


def selectable_checkers() -> list[tuple[str, str]]:
    """(name, display name) of the checkers a menu offers: available, no model dir needed."""
    from models.registry import CHECKERS, default_checkers

    default_checkers()  # registers the bundled checkers before the registry is listed
    return [
        (e.name, e.display_name)
        for e in CHECKERS.values()
        if not e.needs_model_dir and e.available()
    ]


def fill_checker_menu(menu: QMenu, start: Callable[[list[str]], object]) -> None:
    """One entry per selectable checker; choosing one runs ``start([name])``."""
    from models.registry import default_checkers

    menu.clear()
    defaults = set(default_checkers())
    for name, display in selectable_checkers():
        action = menu.addAction(menu_text(display) + (" (default)" if name in defaults else ""))
        action.setData(name)
        action.setToolTip(f"Run only the '{name}' checker")
        action.triggered.connect(lambda _c=False, n=name: start([n]))


class AnalysisMenu:
    """The Analysis menu's slots, and what the window refreshes as an analysis reports.

    Args:
        host: the window, as a panel sees it.
        panel: the job wiring (progress bar, Cancel).
        follow: called when a run ended with the checker shown unchanged (its rows are fresh
            already; what follows the list's scores, the learning queue, reads them again).
    """

    def __init__(
        self,
        host: ListHost,
        panel: AnalysisPanel,
        follow: Callable[[], object],
    ) -> None:
        self.host = host
        self.panel = panel
        self.follow = follow
        panel.chunk.connect(self.chunk)
        panel.done.connect(self.done)
        panel.failed.connect(host.show_error)
        panel.message.connect(host.statusBar().showMessage)
        panel.finished.connect(self.finished)

    def start(
        self,
        checkers: list[str] | None = None,
        device: str = "auto",
        model_dir: str | None = None,
    ) -> None:
        """Score every pair not yet scored; results appear as chunks are committed.

        Args:
            checkers: registry names; None runs the default checkers.
            device: "auto", "cpu" or "cuda".
            model_dir: a user's model directory, given to the checkers of this run.
        """
        host = self.host
        if host.project is None:
            host.statusBar().showMessage(
                "No project to analyse: open one first (File ▸ Open project, Ctrl+O)", 8000
            )
            return
        if self.panel.busy():
            host.statusBar().showMessage(
                "An analysis is already running: wait for it, or Cancel it (status bar) first",
                8000,
            )
            return
        if checkers is None:
            from models.registry import default_checkers

            checkers = default_checkers()
        self.panel.start(str(host.project.path), checkers, device, model_dir)

    def fill_checker_menu(self, menu: QMenu) -> None:
        """Analysis ▸ Analyse with one checker, as it is about to show."""
        fill_checker_menu(menu, self.start)
        menu.setEnabled(self.host.project is not None)

    def nli_dir_dialog(self) -> None:
        """Ask for a Hugging Face NLI model folder and run the 'nli' checker with it."""
        if self.host.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self.host.window(), "Own NLI model directory")
        if folder:
            self.start(["nli"], model_dir=folder)

    def chunk(self, ids: list[int]) -> None:
        """A chunk's scores were committed: its rows, and the pair on screen when it is one."""
        host = self.host
        project = host.project
        if project is None:
            return
        # The checker box lists one entry a checker: a new checker fills it again.
        if not host.checker or len(host.judging.display_names) != len(project.checker_names()):
            oid = host.current_output_id()
            host.refresh_checkers()
            host.reload_rows()
            if oid is not None:
                host.select_pair(oid)
        else:
            host.refresh_rows(ids)
        oid = host.current_output_id()
        if oid is not None and oid in ids:
            host.judging.reload_pair()

    def finished(self) -> None:
        # The Cancel button is hidden now; focus that was there would move on to the search box.
        focus = QApplication.focusWidget()
        if focus is None or focus is self.panel.cancel_button or not focus.isVisible():
            self.host.focus_judging()

    def done(self, report: dict[str, object]) -> None:
        host = self.host
        state = "cancelled" if report.get("cancelled") else "done"
        host.statusBar().showMessage(
            f"Analysis {state}: {_count(report.get('pairs_scored', 0), 'pair')} scored, "
            f"{_count(report.get('not_checked', 0), 'sentence')} not checked",
            8000,
        )
        if host.project is not None:
            oid = host.current_output_id()
            shown = (host.checker, host.version)
            host.refresh_checkers()
            if (host.checker, host.version) == shown:
                # Each committed chunk has refreshed its rows and the pair on screen already:
                # a reload would only read them again (a long stall on a large project).
                self.follow()  # the queue and the calibration see the new scores
                return
            host.reload_rows()
            if oid is not None:
                host.select_pair(oid)
                host.show_pair(oid)


def _count(n: object, noun: str) -> str:
    """ "1 pair", "3 pairs"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
