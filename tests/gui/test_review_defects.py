"""Issue 25, items 1-4 and 6: defects found by using the review window as an editor does."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.gui.main import MainWindow
from app.item_models import OutputIdRole
from app.settings import Settings
from app.store.judging import JudgmentKey, JudgmentValue

sys.path.insert(0, str(Path(__file__).parents[1] / "app"))
import learning_fixture as F  # noqa: E402


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("defects") / "base.factdesk"
    F.build(path).close()
    return path


@pytest.fixture
def win(qtbot, settings: Settings, learned: Path, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    """A window on an analysed project whose pairs the user 'root' judged."""
    path = tmp_path / "p.factdesk"
    shutil.copy(learned, path)
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    yield w
    w.close()


def statuses(w: MainWindow, ids: list[int]) -> list[str]:
    return [w.model.row_by_id(oid).status for oid in ids]  # type: ignore[union-attr]


# ---------------------------------------------------------------------- item 1
def test_after_adapt_the_list_shows_the_reviewers_own_judgments(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """The adaptation job builds the list as the window's reviewer, not as the user name."""
    win.reviewer.switch("ana")
    project = win.session.project
    assert project is not None and project.annotator == "ana"
    ids = project.output_ids()[:3]
    for oid in ids:
        project.judge(JudgmentKey(oid, "pair"), JudgmentValue("supported", "accept"))
    win.session.reload_rows()
    assert statuses(win, ids) == ["done"] * 3
    others = project.output_ids()[3:6]
    assert statuses(win, others) == ["unjudged"] * 3  # root's judgments are not ana's
    win.actions_["adapt"].trigger()
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    assert win.session.version is not None and "+p" in win.session.version
    assert statuses(win, ids) == ["done"] * 3
    assert statuses(win, others) == ["unjudged"] * 3


def test_rows_built_for_another_reviewer_are_not_taken(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """A reviewer switched while the adaptation ran: its rows are the old reviewer's, so the
    window reads its own (the freshness check knows whose rows they are)."""
    win.reviewer.switch("ana")
    project = win.session.project
    assert project is not None
    ids = project.output_ids()[:3]
    for oid in ids:
        project.judge(JudgmentKey(oid, "pair"), JudgmentValue("supported", "accept"))
    win.actions_["adapt"].trigger()
    win.reviewer.switch("ben")  # writes nothing: the audit log alone cannot tell
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    assert statuses(win, ids) == ["unjudged"] * 3  # ben judged nothing


# ---------------------------------------------------------------------- item 2
def test_naming_the_reviewer_gives_the_keyboard_back_to_judging(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.settings.set(__import__("app.settings").settings.REVIEWER, "")
    w.reviewer.bar.show()
    w.activateWindow()
    w.reviewer.bar.name.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.reviewer.bar.name, timeout=2000)
    w.reviewer.bar.name.clear()
    qtbot.keyClicks(w.reviewer.bar.name, "Ana")
    qtbot.keyClick(w.reviewer.bar.name, Qt.Key.Key_Return)
    assert not w.reviewer.bar.isVisible() and w.reviewer.name == "Ana"
    assert QApplication.focusWidget() is w.output_view
    assert w.judging.unit == 0
    target = QApplication.focusWidget()
    assert target is not None
    qtbot.keyClick(target, Qt.Key.Key_J)  # the next key judges, it does not search
    assert w.search.text() == "" and w.judging.unit == 1


# ---------------------------------------------------------------------- item 3
def test_the_unjudged_filter_keeps_pairs_with_sentences_left(window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    project = w.session.project
    assert project is not None
    multi = [o for o in project.output_ids() if len(project.sentences(output_id=o)) >= 2]
    started, finished = multi[:2]
    first = project.sentences(output_id=started)[0]
    project.judge(
        JudgmentKey(started, "sentence", sentence_id=first.id), JudgmentValue("supported", "accept")
    )
    for s in project.sentences(output_id=finished):
        project.judge(
            JudgmentKey(finished, "sentence", sentence_id=s.id),
            JudgmentValue("supported", "accept"),
        )
    w.session.reload_rows()
    assert statuses(w, [started, finished]) == ["in progress", "done"]
    w.status_filter.setCurrentIndex(w.status_filter.findData("unjudged"))
    shown = {w.proxy.index(r, 0).data(OutputIdRole) for r in range(w.proxy.rowCount())}
    assert started in shown  # one sentence judged, one still unjudged
    assert finished not in shown
    assert shown == set(project.output_ids()) - {finished}


# ---------------------------------------------------------------------- item 4
def listed(w: MainWindow) -> list[int]:
    return [w.proxy.index(r, 0).data(OutputIdRole) for r in range(w.proxy.rowCount())]


def test_blind_mode_turns_off_every_model_order_and_filter(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    project = win.session.project
    assert project is not None
    in_order = project.output_ids()
    for oid in in_order[-6:]:
        project.judge(JudgmentKey(oid, "pair"), None)  # pairs left to judge
    win.session.reload_rows()
    box = win.learning.order_box
    box.setCurrentIndex(1)  # next most useful: the model's scores decide
    assert listed(win) != in_order
    win.judging.set_blind(True)
    assert listed(win) == in_order  # import order: nothing of the model shows
    assert not box.model().item(1).isEnabled() and not box.model().item(2).isEnabled()
    assert "blind" in box.toolTip().lower()
    box.setCurrentIndex(2)  # the disagreements filter cannot come back while blind
    assert box.currentIndex() == 0 and listed(win) == in_order
    assert not win.actions_["unfamiliar_first"].isEnabled()
    assert "blind" in win.actions_["unfamiliar_first"].toolTip().lower()
    # N goes to the next pair not done, in the list's order, and says why it is model-free
    win.session.select_pair(in_order[0])
    win.output_view.setFocus()
    qtbot.keyClick(win.output_view, Qt.Key.Key_N)
    assert win.session.current_output_id() == in_order[-6]
    assert "blind" in win.statusBar().currentMessage()
    win.judging.set_blind(False)
    assert box.model().item(1).isEnabled()
    box.setCurrentIndex(1)
    assert listed(win) != in_order


def test_a_model_order_chosen_before_blind_mode_is_set_aside(win: MainWindow) -> None:
    project = win.session.project
    assert project is not None
    win.learning.order_box.setCurrentIndex(2)  # disagreements you vs the model
    assert win.proxy.rowCount() < win.model.total()
    win.judging.set_blind(True)
    assert win.learning.order_box.currentIndex() == 0
    assert win.proxy.rowCount() == win.model.total()
    assert "blind" in win.statusBar().currentMessage()
    win.judging.set_blind(False)  # the model shows again: so does the order chosen
    assert win.learning.order_box.currentIndex() == 2
    assert win.proxy.rowCount() < win.model.total()


# ---------------------------------------------------------------------- item 6
def test_after_adapt_the_checker_box_says_where_and_from_which_version(
    qtbot,  # type: ignore[no-untyped-def]
    win: MainWindow,
) -> None:
    base = win.session.version
    win.actions_["adapt"].trigger()
    qtbot.waitUntil(lambda: not win.learning.busy(), timeout=30000)
    box = win.checker_box
    tip = box.itemData(box.findData("combined"), Qt.ItemDataRole.ToolTipRole)
    assert "unrecorded" not in tip
    version = win.session.project.current_versions()["combined"]
    assert tip == (
        f"version {version}; scored on cpu, refitted from the scores of v{base} ({F.N_PAIRS} pairs)"
    )
    assert win.statusBar().currentMessage().endswith(f"; shown: v{win.session.version}")
