"""The evidence shown in the source pane: the best few sentences, ranked, the best one distinct."""

from __future__ import annotations

import json

from PySide6.QtGui import QTextCursor

from app.gui.textview import (
    COLOURS,
    EVIDENCE_RANK,
    MarkedText,
    render_source,
)
from app.paths import demo_pairs_file
from models.evidence import shown_evidence
from models.parsing import parse


def _spans(text: str) -> list[tuple[int, int, int]]:
    doc = parse(text)
    return [(i, s.start, s.end) for i, s in enumerate(doc.sentences)]


def _marks(view: MarkedText) -> dict[int, tuple[int, str]]:
    """Per evidence rank: (document position where its mark starts, the marked text)."""
    out: dict[int, tuple[int, str]] = {}
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            rank = frag.charFormat().property(EVIDENCE_RANK)
            if rank is not None and frag.text().strip() and not frag.text().startswith("▸"):
                out[int(rank)] = (frag.position(), frag.text())
            it += 1
        block = block.next()
    return out


def test_demo_03_first_sentence_shows_the_figures_ranked(qtbot) -> None:  # type: ignore[no-untyped-def]
    pair = next(
        r
        for r in map(json.loads, demo_pairs_file().read_text(encoding="utf-8").splitlines())
        if r["id"] == "demo-03"
    )
    src, out = parse(pair["source"]), parse(pair["output"])
    sentences = [(i, s.text) for i, s in enumerate(src.sentences)]
    figures = next(i for i, t in sentences if "41,000 households" in t)
    # the window the bundled support checker read: the figures sentence is not in it
    window = (0, 3, 8, 10, 11, 21, 22)
    shown = shown_evidence(sentences, out.sentences[0].text, window)
    assert figures in shown and len(shown) == 3
    assert sorted(shown.values()) == [1, 2, 3]

    view = MarkedText("Source")
    qtbot.addWidget(view)
    spans = [(i, s.start, s.end) for i, s in enumerate(src.sentences)]
    pos = render_source(view, pair["source"], spans, shown, "evidence (support)", set(window))
    marks = _marks(view)
    assert set(marks) == {1, 2, 3}  # three sentences marked, not the whole source
    best_pos, best_text = marks[1]
    assert pos is not None and pos <= best_pos  # the pane scrolls to the best one
    best_idx = next(i for i, r in shown.items() if r == 1)
    assert best_text == src.sentences[best_idx].text
    assert "▸1" in view.toPlainText() and "▸3" in view.toPlainText()
    # the best one is distinct: its own, stronger highlight; the others share the lighter one
    fmt = {r: _format_at(view, p) for r, (p, _t) in marks.items()}
    assert fmt[1].background().color() == COLOURS["evidence_best"]
    assert fmt[2].background().color() == COLOURS["evidence"] == fmt[3].background().color()
    assert fmt[1].fontWeight() > fmt[2].fontWeight()
    tips = {r: view.tooltip_at(p) for r, (p, _t) in marks.items()}
    assert tips[1].startswith("best match") and "match 2 of 3" in tips[2]
    fig_rank = shown[figures]
    assert "not in the checker's input" in tips[fig_rank]


def _format_at(view: MarkedText, position: int):  # type: ignore[no-untyped-def]
    cursor = QTextCursor(view.document())
    cursor.setPosition(position + 1)
    return cursor.charFormat()


def test_a_short_source_is_not_marked_whole(qtbot) -> None:  # type: ignore[no-untyped-def]
    text = (
        "The council met on Monday. Weather was mild across the region. "
        "The bridge over the Tamsin River will close for repairs in May. "
        "Local shops reported strong sales. A new library opened downtown."
    )
    spans = _spans(text)
    sentences = [(i, text[s:e]) for i, s, e in spans]
    shown = shown_evidence(sentences, "The bridge will close in May.", range(len(spans)))
    assert shown == {2: 1}  # only the sentence that shares words with the output sentence
    view = MarkedText("Source")
    qtbot.addWidget(view)
    render_source(view, text, spans, shown)
    assert set(_marks(view)) == {1}
    assert view.toPlainText().count("▸") == 1


def test_a_plain_set_of_evidence_is_still_drawn_unranked(qtbot) -> None:  # type: ignore[no-untyped-def]
    text = "One. Two. Three."
    spans = _spans(text)
    view = MarkedText("Source")
    qtbot.addWidget(view)
    first = render_source(view, text, spans, {0, 2})
    assert first == 0
    assert view.toPlainText().count("▸") == 2 and "▸1" not in view.toPlainText()


def test_a_bare_answer_shows_the_evidence_for_its_question() -> None:
    """demo-01 answers "No." to whether foot passengers must book: the sentence has no words to
    match, so without its question nothing was marked; the booking sentence is what decides."""
    pair = next(
        r
        for r in map(json.loads, demo_pairs_file().read_text(encoding="utf-8").splitlines())
        if r["id"] == "demo-01"
    )
    src = parse(pair["source"])
    sentences = [(i, s.text) for i, s in enumerate(src.sentences)]
    booking = next(i for i, t in sentences if "foot passengers" in t and "booked" in t)
    assert shown_evidence(sentences, "No.") == {}
    shown = shown_evidence(sentences, "No.", question=pair["context"])
    assert shown[booking] == 1
    # a sentence with words of its own is matched by them, whatever the question
    own = "A return ticket for a foot passenger costs 18 dollars."
    assert shown_evidence(sentences, own, question=pair["context"]) == shown_evidence(
        sentences, own
    )
