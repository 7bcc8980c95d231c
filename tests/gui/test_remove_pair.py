"""Edit ▸ Remove pair: the pair shown goes, after a confirmation, unless it is judged."""

from __future__ import annotations

from app.gui.main import MainWindow


def test_edit_remove_pair_takes_out_the_pair_shown_unless_judged(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from app.store import JudgmentKey, JudgmentValue

    w: MainWindow = window
    project = w.session.project
    asked: list[str] = []
    w.removing.confirm = lambda question: asked.append(question) or True
    ids = project.output_ids()
    w.session.pairs.select(ids[1])
    w.actions_["remove_pair"].trigger()
    assert asked and "Remove pair 'demo-02'" in asked[0]
    qtbot.waitUntil(lambda: project.count_pairs() == len(ids) - 1, timeout=10_000)
    qtbot.waitUntil(lambda: w.session.current_output_id() == ids[2], timeout=10_000)
    assert "Removed pair 'demo-02'" in w.statusBar().currentMessage()
    # a judged pair: not asked, not removed, and the editor told why
    project.judge(JudgmentKey(ids[2]), JudgmentValue("supported", "accept"))
    w.session.show_pair(ids[2])
    asked.clear()
    w.actions_["remove_pair"].trigger()
    assert asked == [] and project.count_pairs() == len(ids) - 1
    assert "is kept: it has 1 judgment" in w.statusBar().currentMessage()
    # the editor says no: nothing happens
    w.removing.confirm = lambda question: False
    w.session.pairs.select(ids[3])
    w.actions_["remove_pair"].trigger()
    qtbot.wait(200)
    assert project.count_pairs() == len(ids) - 1
