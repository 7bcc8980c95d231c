"""Issue 25, item 5: adjudicating as an editor does, from the keyboard and the panel."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.gui.main import MainWindow
from app.item_models import OutputIdRole
from app.store import JudgmentKey, JudgmentValue, Project


def disputed_sentences(project: Project, n_pairs: int = 2) -> list[tuple[int, list[int]]]:
    """ana and ben disagree on every sentence of the first pairs with two or more sentences:
    ana supports, ben rejects as an entity error. Returns (output id, sentence ids)."""
    out = []
    for oid in project.output_ids():
        sids = [s.id for s in project.sentences(output_id=oid)]
        if len(sids) >= 2:
            out.append((oid, sids[:2]))
        if len(out) == n_pairs:
            break
    for name in ("ana", "ben"):
        project.set_annotator(name)
        for oid, sids in out:
            for sid in sids:
                key = JudgmentKey(oid, "sentence", sentence_id=sid)
                if name == "ana":
                    project.judge(key, JudgmentValue("supported", "accept"))
                else:
                    project.judge(key, JudgmentValue("unsupported", "reject", error_type="entity"))
    return out


def adjudicated(project: Project, oid: int) -> dict[int | None, tuple[str, str | None]]:
    return {
        j.sentence_id: (j.label, j.error_type)
        for j in project.judgments(oid)
        if j.role == "adjudicated"
    }


def start(w: MainWindow) -> list[tuple[int, list[int]]]:
    assert w.session.project is not None
    pairs = disputed_sentences(w.session.project)
    w.reviewer.switch("cleo")
    w.actions_["adjudicate"].trigger()
    w.session.select_pair(pairs[0][0])
    w.output_view.setFocus()
    return pairs


def test_rejecting_keeps_the_error_type_the_rejecting_reviewers_gave(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    (oid, (first, second)), _ = start(w)
    assert w.judging.current_unit().key.sentence_id == first
    qtbot.keyClick(w.output_view, Qt.Key.Key_X)
    assert adjudicated(w.session.project, oid)[first] == ("unsupported", "entity")
    assert "entity" in w.statusBar().currentMessage()
    # the panel's button does the same
    panel = w.adjudication.panel
    assert panel.current_item().sentence_id == second
    panel.no.click()
    assert adjudicated(w.session.project, oid)[second] == ("unsupported", "entity")
    # an error-type key still picks another type
    w.undo_stack.undo()
    w.judging.focus_key(JudgmentKey(oid, "sentence", sentence_id=second))
    qtbot.keyClick(w.output_view, Qt.Key.Key_1)
    assert adjudicated(w.session.project, oid)[second][1] == w.session.project.taxonomy()[0]["key"]


def test_the_reviewers_table_follows_the_keyboard(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    (oid, (first, second)), _ = start(w)
    panel = w.adjudication.panel
    assert panel.current_item().sentence_id == first
    qtbot.keyClick(w.output_view, Qt.Key.Key_J)
    assert w.judging.current_unit().key.sentence_id == second
    assert panel.current_item().sentence_id == second
    qtbot.keyClick(w.output_view, Qt.Key.Key_K)
    assert panel.current_item().sentence_id == first
    # and a row picked in the table is the item the keys judge
    row = next(r for r, item in enumerate(panel.items) if item.sentence_id == second)
    panel.table.selectRow(row)
    assert w.judging.current_unit().key.sentence_id == second


def test_a_settled_pair_leaves_the_disagreement_list(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    (oid, _sids), (other, _) = start(w)

    def listed() -> list[int]:
        return [w.proxy.index(r, 0).data(OutputIdRole) for r in range(w.proxy.rowCount())]

    assert listed() == [oid, other]
    qtbot.keyClick(w.output_view, Qt.Key.Key_A)  # the first disputed sentence
    qtbot.wait(10)
    assert listed() == [oid, other]  # one dispute left on this pair
    qtbot.keyClick(w.output_view, Qt.Key.Key_X)
    qtbot.waitUntil(lambda: listed() == [other], timeout=2000)
    assert w.session.current_output_id() == other  # on to the next disputed pair, at its first item
    assert (
        w.judging.current_unit().key.sentence_id
        == w.session.project.sentences(output_id=other)[0].id
    )
    w.undo_stack.undo()  # disputed again: back in the list, and shown
    qtbot.waitUntil(lambda: listed() == [oid, other], timeout=2000)
    assert w.session.current_output_id() == oid


def test_the_panel_leaves_the_text_panes_their_height(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.resize(1400, 850)
    w.reviewer.switch("cleo")  # the reviewer bar hides: measure after
    qtbot.wait(20)
    before = (w.source_view.height(), w.output_view.height(), w.arc_view.height())
    start(w)
    qtbot.waitUntil(lambda: w.adjudication.panel.isVisible(), timeout=2000)
    QApplication.processEvents()
    after = (w.source_view.height(), w.output_view.height(), w.arc_view.height())
    assert after == before
    assert w.adjudication.panel.table.isVisible() and w.adjudication.panel.height() > 150
