"""Issue 14 in the window: calibrated threshold, queue order and key, adaptation job, help."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.gui.learning import HELP_TEXT
from app.gui.main import MainWindow
from app.item_models import OutputIdRole
from app.store.judging import JudgmentKey

sys.path.insert(0, str(Path(__file__).parents[1] / "app"))
import learning_fixture as F  # noqa: E402


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("learnwin") / "base.factdesk"
    F.build(path).close()
    return path


@pytest.fixture
def win(qtbot, settings, learned: Path, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.factdesk"
    shutil.copy(learned, path)
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    yield w
    w.close()


def test_calibrate_sets_the_threshold_and_says_on_how_many_judgments(win: MainWindow) -> None:
    assert win.session.checker == "combined"
    assert win.learning.calibration_label.text() == ""
    win.actions_["calibrate"].trigger()
    fit = win.learning.fit
    assert fit is not None and fit.n_judgments == F.N_PAIRS
    assert win.threshold.value() == pytest.approx(fit.threshold, abs=5e-4)
    assert win.learning.calibration_label.text() == f" calibrated on {F.N_PAIRS} judgments"
    win.threshold.setValue(0.9)
    assert "(not in use)" in win.learning.calibration_label.text()


def test_queue_order_tooltips_and_the_next_useful_key(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    project = win.session.project
    assert project is not None
    open_ids = project.output_ids()[-3:]
    for oid in open_ids:
        project.judge(JudgmentKey(oid, "pair"), None)
    win.session.reload_rows()
    win.learning.order_box.setCurrentIndex(1)  # next most useful
    top = [win.proxy.index(r, 0).data(OutputIdRole) for r in range(3)]
    assert set(top) == set(open_ids)  # the open pairs first, done ones after
    tip = win.proxy.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "Why here: " in tip
    win.model.set_scores_hidden(True)  # blind mode: the reasons quote the model, so they hide
    assert "Why here" not in win.proxy.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    win.model.set_scores_hidden(False)
    win.session.select_pair(project.output_ids()[0])
    win.output_view.setFocus()
    qtbot.keyClick(win.output_view, Qt.Key.Key_N)
    assert win.session.current_output_id() == top[0]
    assert win.statusBar().currentMessage().startswith("Next most useful: ")
    qtbot.keyClick(win.output_view, Qt.Key.Key_N)
    assert win.session.current_output_id() == top[1]
    # The disagreement filter keeps only pairs where judgment and model differ.
    win.learning.order_box.setCurrentIndex(2)
    shown = {win.proxy.index(r, 0).data(OutputIdRole) for r in range(win.proxy.rowCount())}
    assert shown and shown < set(project.output_ids())
    # Sorting by a column gives the list back to the editor's order.
    win.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    assert win.learning.order_box.currentIndex() == 0
    assert win.proxy.rowCount() == F.N_PAIRS


def test_adapt_in_the_background_then_back_to_the_bundled_model(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    base = win.session.version
    win.actions_["adapt"].trigger()
    assert win.learning.cancel_button.isVisibleTo(win)
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    assert win.session.version is not None and win.session.version.startswith(f"{base}+p")
    assert "adapted to this project" in win.checker_box.currentText()
    assert win.statusBar().currentMessage().startswith("Adapted to 40 judgments")
    assert not win.learning.bundled_action.isChecked()
    win.learning.bundled_action.trigger()  # checked: the bundled model
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    assert win.session.version == base
    assert win.learning.bundled_action.isChecked()


def test_a_calibrated_threshold_does_not_follow_another_version(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    win.actions_["calibrate"].trigger()
    fit = win.learning.fit
    assert fit is not None and win.threshold.value() == pytest.approx(fit.threshold, abs=5e-4)
    assert abs(fit.threshold - 0.5) > 1e-3
    win.actions_["adapt"].trigger()  # a new version, not calibrated yet
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    assert win.learning.fit is None
    assert win.threshold.value() == 0.5
    assert win.learning.calibration_label.text() == ""


def test_stats_has_the_learning_plots(win: MainWindow) -> None:

    win.actions_["calibrate"].trigger()
    assert win.session.project is not None
    dialog = win.review_menu.stats_dialog()
    assert dialog is not None
    names = [p.name for p in dialog.plots]
    assert "reliability" in names and "agreement vs threshold" in names
    rel = dialog.plots[names.index("reliability")].fig.axes[0]
    assert any("calibrated" in line.get_label() for line in rel.get_lines())
    dialog.close()


def test_help_says_what_learning_does_and_does_not(win: MainWindow) -> None:
    box = win.learning.show_help()
    assert box.text() == HELP_TEXT
    # paragraphs flow: no line break inside one (the box wraps to its width)
    paragraphs = HELP_TEXT.split("\n\n")
    assert len(paragraphs) == 5 and all("\n" not in p and "  " not in p for p in paragraphs)
    assert "you have judged, FactDesk fits" in HELP_TEXT
    assert "not" in HELP_TEXT and "this project" in HELP_TEXT
    box.close()


def test_next_useful_key_puts_the_cursor_on_the_weakest_open_sentence(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window  # the demo, analysed with the lexical baseline
    assert w.judging.level == "sentence"
    qtbot.keyClick(w.output_view, Qt.Key.Key_N)
    units = w.judging.units
    scores = [u.score for u in units if u.score is not None]
    assert scores and units[w.judging.unit].score == min(scores)
    message = w.statusBar().currentMessage()
    assert (
        message.startswith("Next most useful: ") and f"on {units[w.judging.unit].title}" in message
    )
    w.judging.set_blind(True)  # blind: the jump follows the list, not the model's queue
    qtbot.keyClick(w.output_view, Qt.Key.Key_N)
    assert w.statusBar().currentMessage().startswith("Next pair not done, in the list's order")


def test_adapting_keeps_the_pair_and_the_list_in_place(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """The list takes the adapted scores in place: no reset, the same pair selected and shown
    with its new scores; the list then holds what a fresh reload would."""
    from app.item_models import COL_LOWEST
    from app.store.queries import list_rows

    oid = win.proxy.index(5, 0).data(OutputIdRole)
    win.session.select_pair(oid)
    old_scores = [win.proxy.index(n, COL_LOWEST).data() for n in range(win.proxy.rowCount())]
    with qtbot.assertNotEmitted(win.model.modelReset):
        win.actions_["adapt"].trigger()
        qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
        qtbot.wait(20)  # the detail reloads on the next turn of the event loop
    assert win.session.version is not None and "+p" in win.session.version
    assert win.table.currentIndex().data(OutputIdRole) == oid
    assert [i.data(OutputIdRole) for i in win.table.selectionModel().selectedRows()] == [oid]
    assert win.session.current_output_id() == oid
    assert win.session.project is not None
    fresh = list_rows(
        win.session.project, win.session.checker, win.session.version, win.threshold.value()
    )
    assert win.model.output_ids() == [r.row.output_id for r in fresh]
    for n, r in enumerate(fresh):
        assert win.model.list_row(n) == r
    # the new scores are shown (not every pair's moves past the second decimal)
    new_scores = [win.proxy.index(n, COL_LOWEST).data() for n in range(win.proxy.rowCount())]
    assert sum(a != b for a, b in zip(old_scores, new_scores, strict=True)) >= 3
    scores = win.judging.scores()
    assert scores is not None and scores[0].version == win.session.version  # the detail too


def test_cancelling_the_adaptation_keeps_the_window_usable(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """The adaptation runs in a child process: a cancel reaches it before it re-scores, the
    window says so, and the next adaptation finishes what was left."""
    base = win.session.version
    win.actions_["adapt"].trigger()
    win.learning.cancel_button.click()
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    assert win.statusBar().currentMessage().startswith("Adaptation cancelled")
    assert not win.learning.cancel_button.isVisibleTo(win)
    assert win.session.version == base  # nothing re-scored: the bundled scores are still shown
    win.actions_["adapt"].trigger()
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    assert win.session.version is not None and win.session.version.startswith(f"{base}+p")
    assert win.statusBar().currentMessage().startswith("Adapted to 40 judgments")
