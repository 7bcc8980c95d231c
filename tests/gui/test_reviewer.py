"""The reviewer's name in the window: asked once, kept in the settings, own judgments and undo."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app import settings as S
from app.settings import Settings
from app.store import JudgmentKey, JudgmentValue, Project


def test_reviewer_is_asked_once_and_kept(qtbot, settings: Settings, demo_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app.gui.main import MainWindow

    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(demo_path)
    assert w.reviewer.bar.isVisible()  # not given yet: the bar asks
    assert "not confirmed" in w.reviewer.label.text()
    w.reviewer.bar.name.setText("")
    w.reviewer.bar.use.click()
    assert "empty" in w.reviewer.bar.problem.text() and w.reviewer.bar.isVisible()
    w.reviewer.bar.name.setText("Ana")
    w.reviewer.bar.use.click()
    assert not w.reviewer.bar.isVisible()
    assert w.reviewer.label.text() == "Reviewer: Ana"
    assert settings.get(S.REVIEWER) == "Ana" and w.session.project is not None
    assert w.session.project.annotator == "Ana"
    assert w.actions_["reviewer"].text().startswith("Reviewer")
    w.close()
    again = MainWindow(Settings(settings.q))
    qtbot.addWidget(again)
    again.show()
    assert not again.reviewer.bar.isVisible()  # asked once
    assert again.reviewer.label.text() == "Reviewer: Ana"
    again.close()


def test_each_reviewer_sees_and_undoes_only_their_own(window) -> None:  # type: ignore[no-untyped-def]
    w = window
    w.reviewer.switch("ana")
    assert w.judging.bundle is not None and w.session.project is not None
    oid = w.judging.bundle.output.id
    key = JudgmentKey(oid, "sentence", sentence_id=w.judging.bundle.sentences[0].id)
    w.judging.press(Qt.Key.Key_A)  # ana accepts the first sentence
    assert w.session.project.judgment(key) == w.judging.judg[(key.target_key, "support")]
    # Another reviewer of the same file, elsewhere (a second copy of the window, a script).
    with Project.open(w.session.project.path) as other:
        other.set_annotator("ben")
        other.judge(key, JudgmentValue("unsupported", "reject"))
    w.reviewer.switch("ben")
    assert w.reviewer.label.text() == "Reviewer: ben"
    w.session.show_pair(oid)
    assert w.judging.judg[(key.target_key, "support")].label == "unsupported"
    assert w.undo_stack.count() == 1  # ben's own decision only
    w.reviewer.switch("ana")
    w.session.show_pair(oid)
    assert w.judging.judg[(key.target_key, "support")].label == "supported"
    assert w.undo_stack.count() == 1
    w.undo_stack.undo()  # ana undoes her own decision ...
    assert (key.target_key, "support") not in w.judging.judg
    with Project.open(w.session.project.path) as other:
        other.set_annotator("ben")
        value = other.judgment(key)  # ... and ben's is still there
        assert value is not None and value.label == "unsupported"


def test_file_merge_brings_another_reviewers_judgments(window, tmp_path: Path, qtbot) -> None:  # type: ignore[no-untyped-def]
    import shutil

    w = window
    w.reviewer.switch("ana")
    assert w.session.project is not None and w.judging.bundle is not None
    copy = tmp_path / "ben.factdesk"
    shutil.copy(w.session.project.path, copy)
    oid = w.judging.bundle.output.id
    with Project.open(copy) as other:
        other.set_annotator("ben")
        other.judge(JudgmentKey(oid), JudgmentValue("unsupported", "reject", note="ben's"))
    assert w.actions_["merge"].text() == "&Merge judgments from…"
    w.merging.merge([str(copy)])
    qtbot.waitUntil(lambda: w.merging.report is not None, timeout=20000)
    assert "1 new judgments" in w.merging.report.text.toPlainText()
    assert [(j.annotator, j.note) for j in w.session.project.judgments(oid)] == [("ben", "ben's")]
    assert ("pair", "support") not in w.judging.judg  # ana's view shows ana's own
    w.merging.report.close()


def test_statistics_has_a_reviewer_agreement_tab(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]

    w = window
    assert w.session.project is not None and w.judging.bundle is not None
    ids = w.session.project.output_ids()[:4]
    for name, labels in (("ana", "SSUU"), ("ben", "SUUU")):
        w.session.project.set_annotator(name)
        for oid, lab in zip(ids, labels, strict=True):
            label = "supported" if lab == "S" else "unsupported"
            w.session.project.judge(JudgmentKey(oid), JudgmentValue(label, "accept"))
    stats = w.review_menu.stats_dialog()
    assert stats is not None
    qtbot.addWidget(stats)
    tab = stats.agreement_tab
    assert stats.tabs.tabText(stats.tabs.indexOf(tab)) == "Reviewer agreement"
    assert tab.section.currentData() == "pair"
    assert tab.table.item(0, 0).text() == "ana vs ben"
    assert tab.table.item(0, 2).text() == "0.750"  # 3 of 4 agree
    assert tab.table.item(0, 3).text() == "0.500"  # p_e = 1/2: kappa (3/4 - 1/2) / (1/2)
    assert tab.table.rowCount() == 3  # the two reviewers, and each vs the model
    assert "Krippendorff" in tab.summary.text()
    tab.table.selectRow(1)
    tab.save(str(tmp_path / "agreement.png"))
    assert (tmp_path / "agreement.png").stat().st_size > 1000


def test_adjudication_mode_shows_reviewers_side_by_side(window) -> None:  # type: ignore[no-untyped-def]
    w = window
    assert w.session.project is not None and w.judging.bundle is not None
    oid, other = w.session.project.output_ids()[:2]
    for name, label, note in (("ana", "supported", None), ("ben", "unsupported", "made up")):
        w.session.project.set_annotator(name)
        w.session.project.judge(JudgmentKey(oid), JudgmentValue(label, "accept", note=note))
        w.session.project.judge(JudgmentKey(other), JudgmentValue("supported", "accept"))  # agreed
    w.reviewer.switch("cleo")
    w.actions_["adjudicate"].trigger()
    assert w.adjudication.panel.isVisible() and w.pairs.disagree_filter.isChecked()
    assert (
        w.proxy.rowCount() == 1 and w.session.current_output_id() == oid
    )  # only the disputed pair
    panel = w.adjudication.panel
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    assert headers == ["item", "ana", "ben", "adjudicated"]
    assert [panel.table.item(0, c).text() for c in range(4)] == [
        "≠ the pair",
        "supported",
        "unsupported · “made up”",
        "—",
    ]
    panel.note.setText("source says otherwise")
    panel.take_reviewer("ben")
    held = [j for j in w.session.project.judgments(oid) if j.role == "adjudicated"]
    assert [(j.annotator, j.label, j.note) for j in held] == [
        ("cleo", "unsupported", "source says otherwise")
    ]
    assert panel.table.item(0, 3).text() == "unsupported · “source says otherwise” (cleo)"
    assert "adjudicated" in (w.judging.last_saved or "")
    w.undo_stack.undo()  # the adjudication is undoable like any decision
    assert not [j for j in w.session.project.judgments(oid) if j.role == "adjudicated"]
    assert panel.table.item(0, 3).text() == "—"
    w.actions_["adjudicate"].trigger()
    assert not w.adjudication.panel.isVisible() and not w.pairs.disagree_filter.isChecked()
    assert w.proxy.rowCount() == w.model.total()


def test_decision_keys_adjudicate_disputed_items_in_adjudication_mode(window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtTest import QTest

    w = window
    assert w.session.project is not None
    oid = next(
        o
        for o in w.session.project.output_ids()
        if len(w.session.project.sentences(output_id=o)) >= 2
    )
    first, second = (s.id for s in w.session.project.sentences(output_id=oid)[:2])
    for name, label in (("ana", "supported"), ("ben", "unsupported")):
        w.session.project.set_annotator(name)
        w.session.project.judge(  # disputed
            JudgmentKey(oid, "sentence", sentence_id=first), JudgmentValue(label, "relabel")
        )
        w.session.project.judge(  # agreed
            JudgmentKey(oid, "sentence", sentence_id=second), JudgmentValue("supported", "accept")
        )
    w.reviewer.switch("cleo")
    w.actions_["adjudicate"].trigger()
    assert "adjudicated decision" in w.statusBar().currentMessage()
    w.session.select_pair(oid)
    assert w.session.current_output_id() == oid and w.judging.level == "sentence"
    assert w.judging.current_unit().key.sentence_id == first
    w.output_view.setFocus()

    def cleo(sid: int) -> list[tuple[str, str]]:
        return [
            (j.role, j.label)
            for j in w.session.project.judgments(oid)
            if j.annotator == "cleo" and j.sentence_id == sid
        ]

    QTest.keyClick(w.output_view, Qt.Key.Key_X)  # reject the disputed sentence
    assert cleo(first) == [("adjudicated", "unsupported")]  # the final label, not a 3rd review
    assert w.statusBar().currentMessage().startswith("Adjudicated the sentence: unsupported")
    panel = w.adjudication.panel
    row = next(r for r, item in enumerate(panel.items) if item.sentence_id == first)
    assert panel.table.item(row, panel.table.columnCount() - 1).text() == "unsupported (cleo)"
    # the keyboard moved on to the sentence both reviewers support: an ordinary review
    assert w.judging.current_unit().key.sentence_id == second
    QTest.keyClick(w.output_view, Qt.Key.Key_A)
    assert cleo(second) == [("review", "supported")]
    assert "adjudicated" not in (w.judging.last_saved or "")
    w.undo_stack.undo()
    w.undo_stack.undo()  # the adjudication is undone like any decision
    assert cleo(first) == [] and cleo(second) == []
    # out of the mode the keys record the reviewer's own judgment again
    w.actions_["adjudicate"].trigger()
    assert not w.judging.adjudicating
    w.session.select_pair(oid)
    w.judging.focus_key(JudgmentKey(oid, "sentence", sentence_id=first))
    w.output_view.setFocus()
    QTest.keyClick(w.output_view, Qt.Key.Key_X)
    assert cleo(first) == [("review", "unsupported")]
