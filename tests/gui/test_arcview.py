"""The arc diagram under the output pane and the Analysis menu's checker choice (offscreen)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from app.gui.arcview import ArcDiagram, ArcItem, split_words
from app.gui.main import MainWindow
from app.tasks import Job


def _second_sentence(w: MainWindow) -> int:
    """Show pair 2, sentence 2 (it has flagged and entailed arcs); returns its sentence id."""
    w.session.select_pair(w.model.list_row(1).row.output_id)
    w.judging.next_item()
    unit = w.judging.current_unit()
    assert unit is not None and unit.key.sentence_id is not None
    return unit.key.sentence_id


def _arcs_of(w: MainWindow, sid: int) -> list:  # type: ignore[type-arg]
    assert w.judging.bundle is not None
    return [a for a in w.judging.bundle.arcs if a.sentence_id == sid]


def test_split_words_cuts_at_whitespace_and_arc_ends() -> None:
    text = "Port Elsin's council put off a vote."
    spans = split_words(text, 0, len(text), {5, 10, 35, 36})
    assert [text[s:e] for s, e in spans] == [
        "Port",
        "Elsin",
        "'s",
        "council",
        "put",
        "off",
        "a",
        "vote",
        ".",
    ]


def test_one_arc_per_non_entailed_arc_with_the_right_endpoints(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    sid = _second_sentence(w)
    flagged = {
        arc.id: (n, arc) for n, arc, _s in w.judging.flagged_arcs() if arc.sentence_id == sid
    }
    assert flagged and len(flagged) < len(_arcs_of(w, sid))  # both kinds in this sentence
    d = w.arc_view.diagram
    assert sorted(g.arc.arc_id for g in d.geometry_) == sorted(flagged)
    for g in d.geometry_:
        n, arc = flagged[g.arc.arc_id]
        head, child = d.words[g.head_word], d.words[g.child_word]
        assert (head.start, head.end, head.text) == (arc.head_start, arc.head_end, arc.head_text)
        assert (child.start, child.end, child.text) == (
            arc.child_start,
            arc.child_end,
            arc.child_text,
        )
        assert head.rect.left() <= g.head_x <= head.rect.right()
        assert child.rect.left() <= g.child_x <= child.rect.right()
        start, end = g.path.pointAtPercent(0.0), g.path.pointAtPercent(1.0)
        assert start.x() == pytest.approx(g.head_x) and end.x() == pytest.approx(g.child_x)
        assert g.state == "flagged" and g.label_text == f"✘{n} {arc.label}"
        tip = d.tooltip_for(g)
        assert arc.label in tip and "lexical baseline" in tip and "not entailed" in tip
    # entailed arcs only on request, and then marked as such
    w.arc_view.show_entailed.setChecked(True)
    assert len(d.geometry_) == len(_arcs_of(w, sid))
    assert {g.state for g in d.geometry_} == {"flagged", "entailed"}
    w.arc_view.show_entailed.setChecked(False)
    assert len(d.geometry_) == len(flagged)


def test_blind_mode_hides_every_arc(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    _second_sentence(w)
    w.arc_view.show_entailed.setChecked(True)
    assert w.arc_view.diagram.geometry_
    qtbot.keyClick(w.output_view, Qt.Key.Key_B)
    assert w.judging.blind
    assert w.arc_view.diagram.geometry_ == []
    assert w.arc_view.diagram.words  # the sentence itself is still there
    assert "blind" in w.arc_view.title.text()
    qtbot.keyClick(w.output_view, Qt.Key.Key_B)
    assert w.arc_view.diagram.geometry_


def test_arc_view_follows_the_threshold(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    sid = _second_sentence(w)
    assert w.arc_view.diagram.geometry_
    w.threshold.setValue(0.0)
    w.session.apply_threshold()
    assert w.arc_view.diagram.geometry_ == []
    assert "0 of" in w.arc_view.title.text()
    w.threshold.setValue(1.0)
    w.session.apply_threshold()
    sc = w.judging.scores()
    expected = {a.id for a in _arcs_of(w, sid) if sc[2].get(a.id, 1.0) < 1.0}
    assert {g.arc.arc_id for g in w.arc_view.diagram.geometry_} == expected


def test_threshold_decides_which_arcs_are_flagged(qtbot) -> None:  # type: ignore[no-untyped-def]
    d = ArcDiagram()
    qtbot.addWidget(d)
    text = "The cat sat on the mat."
    arcs = [
        ArcItem(1, "nsubj", (8, 11), (4, 7), "sat", "cat", 0.4),
        ArcItem(2, "long", (0, 3), (19, 22), "The", "mat", 0.8),
        ArcItem(3, "det", (19, 22), (15, 18), "mat", "the", None),
    ]
    d.set_sentence(text, 0, len(text), arcs)
    assert [g.arc.arc_id for g in d.geometry_] == [1]
    d.configure(threshold=0.9)
    assert sorted(g.arc.arc_id for g in d.geometry_) == [1, 2]
    d.configure(threshold=0.3, show_entailed=True)
    states = {g.arc.arc_id: g.state for g in d.geometry_}
    assert states == {1: "entailed", 2: "entailed", 3: "unscored"}
    # the longer arc stands above the shorter one it spans
    d.configure(threshold=0.9, show_entailed=False)
    height = {g.arc.arc_id: g.label_rect.center().y() for g in d.geometry_}
    assert height[2] < height[1]


def test_font_zoom_scales_the_diagram(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    _second_sentence(w)
    before = w.arc_view.diagram.sizeHint()
    w.prefs.zoom(+4)
    after = w.arc_view.diagram.sizeHint()
    assert after.width() > before.width() and after.height() > before.height()
    # a long sentence is wider than the pane: it scrolls sideways
    assert w.arc_view.scroll_area.horizontalScrollBar().maximum() > 0


def test_clicking_a_flagged_arc_makes_it_the_judged_arc(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    _second_sentence(w)
    d = w.arc_view.diagram
    g = d.geometry_[-1]
    w.arc_view.scroll_area.ensureVisible(
        int(g.label_rect.center().x()), int(g.label_rect.center().y())
    )
    centre = g.label_rect.center()
    qtbot.mouseClick(d, Qt.MouseButton.LeftButton, pos=QPoint(int(centre.x()), int(centre.y())))
    assert w.judging.level == "arc"
    unit = w.judging.current_unit()
    assert unit is not None and unit.key.arc_id == g.arc.arc_id
    assert d.current_arc == g.arc.arc_id
    assert f"arc {g.arc.number}:" in w.prompt.text()
    qtbot.keyClick(w.output_view, Qt.Key.Key_X)  # judged at once with the keyboard
    assert w.session.project.judgment(unit.key).label == "unsupported"


def test_checker_menu_lists_the_registrys_available_checkers(qtbot, window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from models import registry

    w: MainWindow = window
    registry.default_checkers()  # registers the bundled entries
    monkeypatch.setitem(
        registry.CHECKERS,
        "fake_ok",
        registry.CheckerEntry("fake_ok", "fake available", "arc", lambda d, m: None),  # type: ignore[arg-type, return-value]
    )
    monkeypatch.setitem(
        registry.CHECKERS,
        "fake_off",
        registry.CheckerEntry(
            "fake_off",
            "fake missing",
            "arc",
            lambda d, m: None,
            available=lambda: False,  # type: ignore[arg-type, return-value]
        ),
    )
    w.checker_menu.aboutToShow.emit()
    listed = [a.data() for a in w.checker_menu.actions()]
    expected = [n for n, e in registry.CHECKERS.items() if e.available() and not e.needs_model_dir]
    assert listed == expected
    assert "lexical" in listed and "fake_ok" in listed
    assert "fake_off" not in listed
    # the claim check is listed exactly when its bundled NLI model is installed
    from models.checkers.nli import bundled_available

    assert ("nli" in listed) == bundled_available()
    defaults = set(registry.default_checkers())
    for action in w.checker_menu.actions():
        assert action.text().endswith("(default)") == (action.data() in defaults)

    # the menu and the own-model action extend the one analysis request
    jobs: list[Job] = []
    monkeypatch.setattr(w.runner, "submit", jobs.append)
    next(a for a in w.checker_menu.actions() if a.data() == "lexical").trigger()
    assert jobs[-1].request.checkers == ("lexical",) and jobs[-1].request.model_dir is None
    monkeypatch.setattr(
        "app.gui.analysis.QFileDialog.getExistingDirectory", lambda *a, **k: "/models/my-nli"
    )
    w.analysis_menu.nli_dir_dialog()
    assert jobs[-1].request.checkers == ("nli",)
    assert jobs[-1].request.model_dir == "/models/my-nli"


def test_run_analysis_hands_the_model_dir_to_the_checker(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.gui.jobs import AnalysisRequest, run_analysis
    from models import registry

    seen: list[object] = []

    def fake_load(name, *, device="auto", model_dir=None):  # type: ignore[no-untyped-def]
        seen.append((name, model_dir))
        raise RuntimeError("stop here")

    monkeypatch.setattr(registry, "load_checker", fake_load)
    req = AnalysisRequest("unused.factdesk", ("nli",), "cpu", model_dir="/models/my-nli")
    with pytest.raises(RuntimeError, match="stop here"):
        run_analysis(req, None)  # type: ignore[arg-type]
    assert seen == [("nli", "/models/my-nli")]
