"""The arc pane: resizable, fitted to its height, scrolled to what matters, judged arcs as judged."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QSplitter, QTextEdit

from app.gui.arcview import (
    FLAGGED,
    JUDGED_SUPPORTED,
    JUDGED_UNSUPPORTED,
    ArcDiagram,
    ArcItem,
    ArcView,
)


def _sentence(n: int) -> tuple[str, list[tuple[int, int]]]:
    words = [f"word{i}" for i in range(n)]
    text = " ".join(words) + "."
    spans, pos = [], 0
    for w in words:
        spans.append((pos, pos + len(w)))
        pos += len(w) + 1
    return text, spans


def _arc(
    arc_id: int,
    spans: list[tuple[int, int]],
    head: int,
    child: int,
    score: float | None,
    label: str = "dep",
    judged: str | None = None,
) -> ArcItem:
    return ArcItem(
        arc_id,
        label,
        spans[head],
        spans[child],
        f"word{head}",
        f"word{child}",
        score,
        arc_id,
        judged,
    )


def _nested(spans: list[tuple[int, int]], depth: int, score: float = 0.1) -> list[ArcItem]:
    """Arcs from word 0 to words 1..depth: each spans the shorter ones, so they stack."""
    return [_arc(k, spans, 0, k, score) for k in range(1, depth + 1)]


def _pane(qtbot, width: int = 500, height: int = 260) -> tuple[QSplitter, ArcView]:  # type: ignore[no-untyped-def]
    view = ArcView()
    split = view.split_below(QTextEdit())
    qtbot.addWidget(split)
    split.resize(width, height)
    split.show()
    qtbot.waitExposed(split)
    return split, view


def _visible(view: ArcView) -> QRectF:
    vp = view.scroll_area.viewport()
    return QRectF(
        view.scroll_area.horizontalScrollBar().value(),
        view.scroll_area.verticalScrollBar().value(),
        vp.width(),
        vp.height(),
    )


def _show(view: ArcView, text: str, arcs: list[ArcItem], current: int | None = None) -> None:
    view.diagram.configure(current_arc=current)
    view.diagram.set_sentence(text, 0, len(text), arcs)
    view.update_view()


def test_the_arc_pane_grows_with_its_splitter(qtbot) -> None:  # type: ignore[no-untyped-def]
    split, view = _pane(qtbot, 600, 400)
    text, spans = _sentence(8)
    _show(view, text, _nested(spans, 3))
    assert view.minimumSizeHint().height() < view.sizeHint().height()
    assert view.minimumSizeHint().height() < 150  # a small pane is allowed
    split.setSizes([300, 100])
    small = view.scroll_area.viewport().height()
    split.setSizes([100, 300])
    big = view.scroll_area.viewport().height()
    assert big > small + 150  # the diagram pane takes the height it is given


def test_arc_heights_scale_to_the_pane(qtbot) -> None:  # type: ignore[no-untyped-def]
    split, view = _pane(qtbot, 700, 500)
    text, spans = _sentence(8)
    _show(view, text, _nested(spans, 6))
    d = view.diagram

    def top_label() -> QRectF:
        return min((g.label_rect for g in d.geometry_), key=lambda r: r.top())

    split.setSizes([300, 200])
    low = top_label()
    low_span = d.words[0].rect.top() - low.top()
    assert d.geometry_ and low.top() >= 0
    # everything fits the pane: words and top label visible without scrolling vertically
    assert d.words[0].rect.bottom() <= view.scroll_area.viewport().height()
    assert view.scroll_area.verticalScrollBar().maximum() == 0
    split.setSizes([100, 400])
    high = top_label()
    # a taller pane draws taller arcs (the words move down, the top label stays at the top)
    assert d.words[0].rect.top() - high.top() > low_span + 30
    assert d.words[0].rect.bottom() <= view.scroll_area.viewport().height()


def test_long_labels_are_elided_and_stay_inside(qtbot) -> None:  # type: ignore[no-untyped-def]
    _split, view = _pane(qtbot, 500, 300)
    text, spans = _sentence(6)
    long = "a-very-long-relation-label-" * 6
    arcs = [
        _arc(1, spans, 0, 1, 0.1, long),  # at the left edge
        _arc(2, spans, 5, 4, 0.1, long),  # at the right edge
    ]
    _show(view, text, arcs)
    d = view.diagram
    assert len(d.geometry_) == 2
    for g in d.geometry_:
        assert g.label_text.endswith("…") and len(g.label_text) < len(long)
        assert long in d.tooltip_for(g)  # the whole label is still available
        assert g.label_rect.left() >= 0
        assert g.label_rect.right() <= d.width()
        assert g.label_rect.top() >= 0


def test_the_selected_arc_is_scrolled_into_view(qtbot) -> None:  # type: ignore[no-untyped-def]
    _split, view = _pane(qtbot, 400, 300)
    text, spans = _sentence(60)
    arcs = [_arc(1, spans, 1, 2, 0.1), _arc(2, spans, 57, 58, 0.1)]
    _show(view, text, arcs)
    bar = view.scroll_area.horizontalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    _show(view, text, arcs, current=2)
    g = next(g for g in view.diagram.geometry_ if g.arc.arc_id == 2)
    assert bar.value() > 0
    assert _visible(view).contains(g.label_rect)
    _show(view, text, arcs, current=1)
    g = next(g for g in view.diagram.geometry_ if g.arc.arc_id == 1)
    assert _visible(view).contains(g.label_rect)


def test_show_entailed_arcs_keeps_the_words_in_view(qtbot) -> None:  # type: ignore[no-untyped-def]
    split, view = _pane(qtbot, 700, 400)
    split.setSizes([300, 100])  # a short pane: many stacked arcs cannot all fit
    text, spans = _sentence(14)
    arcs = [_arc(1, spans, 0, 1, 0.1)] + [
        _arc(k, spans, 0, k, 0.9) for k in range(2, 14)
    ]  # one flagged, twelve entailed and nested
    _show(view, text, arcs)
    d = view.diagram
    assert _visible(view).contains(d.words[0].rect)
    view.show_entailed.setChecked(True)
    assert len(d.geometry_) == 13
    for w in d.words[:3]:
        assert _visible(view).contains(w.rect)
    view.show_entailed.setChecked(False)
    assert _visible(view).contains(d.words[0].rect)


def test_a_new_sentence_starts_scrolled_to_the_left(qtbot) -> None:  # type: ignore[no-untyped-def]
    _split, view = _pane(qtbot, 400, 300)
    text, spans = _sentence(60)
    _show(view, text, [_arc(1, spans, 57, 58, 0.1)])
    bar = view.scroll_area.horizontalScrollBar()
    bar.setValue(bar.maximum())
    other, spans2 = _sentence(61)
    _show(view, other, [_arc(7, spans2, 57, 58, 0.1)])
    assert bar.value() == 0
    # the same sentence redrawn (a threshold change, say) keeps where the editor scrolled to
    bar.setValue(bar.maximum())
    _show(view, other, [_arc(7, spans2, 57, 58, 0.1)])
    assert bar.value() == bar.maximum() > 0


def test_next_pair_in_the_window_resets_the_arc_scroll(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w = window
    w.session.select_pair(w.model.list_row(1).row.output_id)
    w.prefs.zoom(+6)  # wide enough to scroll
    bar = w.arc_view.scroll_area.horizontalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    w.session.select_pair(w.model.list_row(2).row.output_id)
    assert w.arc_view.diagram.current_arc is None  # sentence level: nothing to scroll to
    assert bar.maximum() > 0 and bar.value() == 0


def _pixel(d: ArcDiagram, rect: QRectF) -> QColor:
    image = d.grab().toImage()
    ratio = image.devicePixelRatio()
    # inside the label's rounded box, left of its text
    return image.pixelColor(int((rect.left() + 2) * ratio), int(rect.center().y() * ratio))


def _close(a: QColor, b: QColor) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) < 40


def test_judged_arcs_are_drawn_as_judged(qtbot) -> None:  # type: ignore[no-untyped-def]
    d = ArcDiagram()
    qtbot.addWidget(d)
    text, spans = _sentence(8)
    arcs = [
        _arc(1, spans, 0, 1, 0.1),  # flagged by the model, not judged
        _arc(2, spans, 2, 3, 0.1, judged="supported"),  # flagged, the editor disagreed
        _arc(3, spans, 4, 5, 0.1, judged="unsupported"),  # flagged, the editor agreed
        _arc(4, spans, 6, 7, 0.9, judged="unsupported"),  # entailed, the editor rejected it
    ]
    d.set_sentence(text, 0, len(text), arcs)
    d.resize(d.fitted_size())
    by_id = {g.arc.arc_id: g for g in d.geometry_}
    assert set(by_id) == {1, 2, 3, 4}  # a judged entailed arc is shown without the toggle
    assert by_id[1].judged is None and by_id[1].label_text.startswith("✘1")
    assert by_id[2].judged == "supported" and by_id[2].label_text.startswith("✔2")
    assert by_id[3].judged == "unsupported" and by_id[4].judged == "unsupported"
    assert "you judged it supported" in d.tooltip_for(by_id[2])
    d.show()
    qtbot.waitExposed(d)
    unjudged = _pixel(d, by_id[1].label_rect)
    assert not _close(unjudged, FLAGGED)  # the model's flag: an outlined label, no fill
    assert _close(_pixel(d, by_id[2].label_rect), JUDGED_SUPPORTED)
    assert _close(_pixel(d, by_id[3].label_rect), JUDGED_UNSUPPORTED)
    assert _close(_pixel(d, by_id[4].label_rect), JUDGED_UNSUPPORTED)
    # judged arcs are drawn on top and found first
    assert [g.arc.arc_id for g in d.geometry_][-1] in {2, 3, 4}
