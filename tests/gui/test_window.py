"""Keyboard flows in the review window (offscreen)."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from app.gui.jobs import ExportRequest, run_export
from app.gui.main import MainWindow
from app.store import JudgmentKey
from app.tasks import Job


def key(qtbot, w: MainWindow, k: Qt.Key, mods=Qt.KeyboardModifier.NoModifier) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(w.output_view, k, mods)


def sentence_key(w: MainWindow, n: int) -> JudgmentKey:
    assert w.judging.bundle is not None
    return JudgmentKey(
        w.judging.bundle.output.id, "sentence", sentence_id=w.judging.bundle.sentences[n].id
    )


def test_judge_undo_redo_reopen_undo_export(qtbot, window, settings, demo_path, tmp_path) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    first = w.session.current_output_id()
    s0, s1 = sentence_key(w, 0), sentence_key(w, 1)
    key(qtbot, w, Qt.Key.Key_A)  # accept sentence 1, advance
    assert w.session.project.judgment(s0).label == "supported"
    assert w.session.project.judgment(s0).decision == "accept"
    assert w.judging.unit == 1
    key(qtbot, w, Qt.Key.Key_2)  # error type 2 (entity) on sentence 2, advance to next pair
    v = w.session.project.judgment(s1)
    assert (v.label, v.decision, v.error_type) == ("unsupported", "relabel", "entity")
    assert w.session.current_output_id() != first
    assert w.saved_label.text().startswith("✔ Saved")
    key(qtbot, w, Qt.Key.Key_X)  # reject first sentence of pair 2
    assert w.undo_stack.count() == 3
    key(qtbot, w, Qt.Key.Key_U)  # undo the reject
    key(qtbot, w, Qt.Key.Key_U)  # undo the relabel
    assert w.session.project.judgment(s1) is None
    assert "undid" in w.saved_label.text()
    w.undo_stack.redo()  # redo the relabel
    assert w.session.project.judgment(s1).error_type == "entity"
    assert (w.undo_stack.index(), w.undo_stack.count()) == (2, 3)
    w.close()

    again = MainWindow(settings)
    qtbot.addWidget(again)
    again.session.open_project(demo_path)
    assert (again.undo_stack.index(), again.undo_stack.count()) == (2, 3)
    again.output_view.setFocus()
    key(qtbot, again, Qt.Key.Key_U)  # undo the relabel again, after reopening
    assert again.session.project.judgment(s1) is None
    again.undo_stack.redo()
    again.undo_stack.redo()
    assert again.session.project.judgment(s1).error_type == "entity"
    assert again.undo_stack.index() == 3

    out = tmp_path / "out.jsonl"
    done: list[object] = []
    again.runner.submit(
        Job("io", run_export, ExportRequest(str(demo_path), str(out), "jsonl"), on_done=done.append)
    )
    qtbot.waitUntil(lambda: bool(done), timeout=20000)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 32
    assert "judgments" in json.dumps(records[0])
    again.close()


def test_keys_are_silent_while_typing_and_remappable(qtbot, settings, demo_path) -> None:  # type: ignore[no-untyped-def]
    settings.set_key("accept", "Y")
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(demo_path)
    qtbot.keyClicks(w.search, "ax")
    assert w.undo_stack.count() == 0
    assert w.search.text() == "ax"
    key(qtbot, w, Qt.Key.Key_A)  # no longer bound
    assert w.undo_stack.count() == 0
    key(qtbot, w, Qt.Key.Key_Y)
    assert w.undo_stack.count() == 1
    w.close()


def test_navigation_and_levels(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    first = w.session.current_output_id()
    key(qtbot, w, Qt.Key.Key_J)
    assert w.judging.unit == 1
    key(qtbot, w, Qt.Key.Key_K)
    assert w.judging.unit == 0
    key(qtbot, w, Qt.Key.Key_Right)
    assert w.session.current_output_id() != first
    key(qtbot, w, Qt.Key.Key_Left)
    assert w.session.current_output_id() == first
    key(qtbot, w, Qt.Key.Key_T)  # arc level: non-entailed arcs
    assert (
        w.judging.level == "arc"
        and w.judging.units
        and all(u.key.target == "arc" for u in w.judging.units)
    )
    key(qtbot, w, Qt.Key.Key_X)
    arc_key = w.judging.units[0].key
    assert w.session.project.judgment(arc_key).label == "unsupported"
    key(qtbot, w, Qt.Key.Key_T)  # pair level
    assert w.judging.level == "pair"
    key(qtbot, w, Qt.Key.Key_F)  # flag malformed
    assert (
        w.session.project.judgment(JudgmentKey(first, "pair", aspect="flag")).label == "malformed"
    )
    assert "FLAGGED" in w.header.text()
    key(qtbot, w, Qt.Key.Key_A)  # pair supported
    assert w.session.project.judgment(JudgmentKey(first, "pair")).label == "supported"


def test_marks_tooltips_and_evidence(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.session.select_pair(w.model.list_row(1).row.output_id)
    text = w.output_view.toPlainText()
    assert "✘" in text or "✔" in text
    # the current sentence's tooltip names the checker and its score
    start = text.index("▶")
    assert "lexical baseline: support" in w.output_view.tooltip_at(start + 4)
    assert "▸" in w.source_view.toPlainText()  # evidence marked in the source
    # arcs: both words carry the same number, and a tooltip with label, score and checker
    n, arc, score = w.judging.flagged_arcs()[0]
    head_at = text.index(arc.head_text)
    child_at = text.index(arc.child_text)
    for at, word in ((head_at, arc.head_text), (child_at, arc.child_text)):
        after = text[at + len(word) : at + len(word) + 12]
        assert str(n) in after.split(" ")[0]
    tip = w.output_view.tooltip_at(child_at)
    assert arc.label in tip and f"{score:.2f}" in tip and "lexical baseline" in tip


def test_blind_mode_hides_marks_and_is_recorded(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    key(qtbot, w, Qt.Key.Key_B)
    assert w.judging.blind
    text = w.output_view.toPlainText()
    assert "✔" not in text and "✘" not in text
    assert "▸" not in w.source_view.toPlainText()
    s0 = sentence_key(w, 0)
    key(qtbot, w, Qt.Key.Key_A)
    assert w.session.project.judgment(s0).model_visible is False
    key(qtbot, w, Qt.Key.Key_B)
    s1 = sentence_key(w, 1)
    key(qtbot, w, Qt.Key.Key_A)
    assert w.session.project.judgment(s1).model_visible is True


def test_ais_two_stage_flow(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    first = w.session.current_output_id()
    key(qtbot, w, Qt.Key.Key_I)
    assert w.judging.ais_mode and "Source hidden" in w.source_view.toPlainText()
    assert "AIS 1/2" in w.prompt.text()
    key(qtbot, w, Qt.Key.Key_A)  # interpretable: yes -> stage two, source shown
    assert (
        w.session.project.judgment(JudgmentKey(first, "pair", aspect="interpretable")).label
        == "yes"
    )
    assert w.judging.ais_stage == 2 and "Source hidden" not in w.source_view.toPlainText()
    key(qtbot, w, Qt.Key.Key_X)  # not supported -> next pair, stage one again
    v = w.session.project.judgment(JudgmentKey(first, "pair"))
    assert v.label == "unsupported" and v.model_visible is True
    second = w.session.current_output_id()
    assert second != first and w.judging.ais_stage == 1
    key(qtbot, w, Qt.Key.Key_X)  # not interpretable -> straight to the next pair
    assert (
        w.session.project.judgment(JudgmentKey(second, "pair", aspect="interpretable")).label
        == "no"
    )
    assert w.session.project.judgment(JudgmentKey(second, "pair")) is None
    assert w.session.current_output_id() not in (first, second)


def test_filters(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    key(qtbot, w, Qt.Key.Key_A)  # first pair now in progress
    w.status_filter.setCurrentText("in progress")
    assert w.proxy.rowCount() == 1
    w.status_filter.setCurrentIndex(0)
    w.label_filter.setCurrentText("supported")
    assert w.proxy.rowCount() == 1
    w.label_filter.setCurrentIndex(0)
    w.system_filter.setCurrentText("qa-bot")
    assert 0 < w.proxy.rowCount() < 32
    w.system_filter.setCurrentIndex(0)
    w.score_max.setValue(0.3)
    assert w.proxy.rowCount() < 32
    w.score_max.setValue(1.0)
    qtbot.keyClicks(w.search, "Inchmara")
    qtbot.waitUntil(lambda: w.proxy.rowCount() < 32, timeout=3000)
    assert w.proxy.rowCount() >= 1
    w.search.clear()
    qtbot.waitUntil(lambda: w.proxy.rowCount() == 32, timeout=3000)
    key(qtbot, w, Qt.Key.Key_3)  # circumstance error on the current sentence
    w.error_filter.setCurrentText("circumstance")
    assert w.proxy.rowCount() == 1


def test_threshold_changes_marks(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.threshold.setValue(0.0)
    w.session.apply_threshold()
    assert not w.judging.flagged_arcs()
    assert "✘" not in w.output_view.toPlainText()
    w.threshold.setValue(1.0)
    w.session.apply_threshold()
    assert w.judging.flagged_arcs()


def test_analysis_runs_in_the_background_and_close_joins(qtbot, settings, small_unanalysed) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(small_unanalysed)
    assert w.model.list_row(0).row.lowest_support is None
    w.analysis_menu.start(["lexical"], device="cpu")
    assert w.runner.is_busy("model")
    qtbot.waitUntil(lambda: not w.runner.is_busy("model"), timeout=60000)
    assert w.session.checker == "lexical" and "lexical baseline" in w.checker_note.text()
    assert all(w.model.list_row(i).row.lowest_support is not None for i in range(w.model.total()))
    # a second run has nothing to do; closing mid-run cancels and joins
    w.analysis_menu.start(["lexical"], device="cpu")
    w.close()
    assert not w.runner.is_busy("model")


def test_stats_and_dialogs(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from app.gui.dialogs import ImportDialog, RelabelDialog

    w: MainWindow = window
    key(qtbot, w, Qt.Key.Key_1)
    stats = w.review_menu.stats_dialog()
    assert stats is not None
    qtbot.addWidget(stats)
    for plot in stats.plots:
        plot.save(str(tmp_path / f"{plot.name}.png"))
        assert (tmp_path / f"{plot.name}.png").stat().st_size > 1000
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "source": "S.", "output": "O."}\n{"id": "b", "source": "S."}\n')
    dlg = ImportDialog(str(w.session.project.path), w.runner, w.session.reload_rows, w)
    qtbot.addWidget(dlg)
    dlg.path.setText(str(bad))
    dlg.preview()
    assert dlg.table.rowCount() == 1 and dlg.errors.count() == 1
    assert "line 2" in dlg.errors.item(0).text()
    rel = RelabelDialog(w.session.project.taxonomy(), None)
    qtbot.addWidget(rel)
    rel.error.setCurrentIndex(rel.error.findData("extrinsic"))
    rel.note.setText("date is not in the source")
    target = w.judging.current_unit().key
    w.judging.relabel(*rel.values())
    v = w.session.project.judgment(target)
    assert (v.label, v.decision, v.error_type, v.note) == (
        "unsupported",
        "relabel",
        "extrinsic",
        "date is not in the source",
    )


def test_run_entry_point_opens_the_project(qtbot, demo_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.gui.main import run

    seen: list[str] = []

    def check_and_close() -> None:
        for top in QApplication.topLevelWidgets():
            if isinstance(top, MainWindow) and top.isVisible():
                seen.append(top.windowTitle())
                assert top.judging.bundle is not None
                top.close()

    QTimer.singleShot(200, check_and_close)
    assert run(str(demo_path)) == 0
    assert seen == ["FactDesk — demo.factdesk"]


def test_zoom_and_dark_theme(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from app import settings as S

    w: MainWindow = window
    size = w.output_view.font().pointSize()
    w.prefs.zoom(+2)
    assert w.output_view.font().pointSize() == size + 2
    assert w.settings.get(S.FONT_SIZE) == size + 2
    w.dark_action.setChecked(True)
    w.prefs.toggle_dark()
    assert w.settings.get(S.DARK) is True
    assert w.palette().window().color().lightness() < 100
    w.dark_action.setChecked(False)
    w.prefs.toggle_dark()
    names = [w.table.accessibleName(), w.output_view.accessibleName(), w.threshold.accessibleName()]
    assert all(names)
