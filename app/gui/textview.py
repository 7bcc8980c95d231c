"""The two text panes: output with support marks and arcs, source with evidence highlights.

Documents are built with ``QTextCursor`` and ``QTextCharFormat`` (no HTML escaping), one
segment per run of characters that share a format. Every state has a glyph and an underline
pattern besides its colour; tooltips carry scores and the checker's display name.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QFont, QHelpEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QToolTip, QWidget

# Colours are translucent so that they read on light and dark backgrounds alike.
COLOURS = {
    "supported": QColor(46, 160, 67, 70),
    "unsupported": QColor(218, 54, 51, 85),
    "not_checked": QColor(128, 128, 128, 80),
    "evidence": QColor(240, 200, 30, 90),
    "evidence_best": QColor(240, 170, 0, 170),  # the best-ranked evidence sentence
    "arc": QColor(137, 87, 229),
    "current": QColor(56, 132, 244, 60),
    # A question-check conflict: the words in a stronger red than an unsupported sentence,
    # and a badge in solid red with white letters (reads on light and dark themes).
    "conflict": QColor(218, 54, 51, 150),
    "conflict_badge": QColor(183, 28, 28),
}
GLYPHS = {"supported": "✔", "unsupported": "✘", "not_checked": "?"}
#: The badge before a sentence the question-based check finds in conflict with the source.
CONFLICT_BADGE = "\u2009⚠ conflict\u2009"
UNDERLINES = {
    "supported": QTextCharFormat.UnderlineStyle.NoUnderline,
    "unsupported": QTextCharFormat.UnderlineStyle.WaveUnderline,
    "not_checked": QTextCharFormat.UnderlineStyle.DotLine,
}
EVIDENCE_RANK = QTextCharFormat.Property.UserProperty + 1  # an evidence sentence's rank (tests)
HUMAN_GLYPHS = {"supported": "✓", "unsupported": "✗", "yes": "✓", "no": "✗"}


@dataclass(frozen=True)
class SentenceMark:
    """How one output sentence is drawn."""

    index: int
    start: int
    end: int
    state: str | None  # supported / unsupported / not_checked / None (no score or blind)
    tooltip: str
    human: str | None = None  # the human label, shown as a tag after the sentence
    human_error: str | None = None
    #: The output's answers the source answers otherwise (question-based check), and the
    #: conflict in words (the badge's and the words' tooltip); () when none.
    conflicts: tuple[str, ...] = ()
    conflict_tip: str = ""


@dataclass(frozen=True)
class ArcMark:
    number: int
    arc_id: int
    label: str
    head: tuple[int, int]
    child: tuple[int, int]
    head_text: str
    child_text: str
    score: float
    tooltip: str
    human: str | None = None


@dataclass
class Rendered:
    """Document positions of things the window scrolls to."""

    sentence_pos: dict[int, int] = field(default_factory=dict)
    arc_pos: dict[int, int] = field(default_factory=dict)


class MarkedText(QTextBrowser):
    """A read-only text pane whose tooltips come from the character formats."""

    sentence_clicked = Signal(int)

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(name)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._anchor)
        self.viewport().installEventFilter(self)

    def _anchor(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("s:"):
            self.sentence_clicked.emit(int(text[2:]))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.viewport() and event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            cursor = self.cursorForPosition(event.pos())
            if not cursor.atBlockEnd():
                cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
            tip = cursor.charFormat().toolTip()
            if tip:
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                QToolTip.hideText()
            return True
        return super().eventFilter(watched, event)

    def tooltip_at(self, position: int) -> str:
        """The tooltip of the character at a document position (tests)."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(position + 1)
        return cursor.charFormat().toolTip()

    def scroll_to(self, position: int) -> None:
        cursor = QTextCursor(self.document())
        cursor.setPosition(min(position, self.document().characterCount() - 1))
        self.setTextCursor(cursor)
        self.ensureCursorVisible()


def _fmt(base: QTextCharFormat | None = None) -> QTextCharFormat:
    return QTextCharFormat(base) if base is not None else QTextCharFormat()


def render_output(
    view: MarkedText,
    text: str,
    sentences: list[SentenceMark],
    arcs: list[ArcMark],
    current: int | None,
    current_arc: int | None = None,
) -> Rendered:
    """Draw the output text with sentence marks, flagged arcs and the current item."""
    doc = view.document()
    doc.clear()
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()  # one layout pass at the end instead of one per insert
    out = Rendered()
    words: dict[tuple[int, int], list[ArcMark]] = {}
    for arc in arcs:
        words.setdefault(arc.head, []).append(arc)
        words.setdefault(arc.child, []).append(arc)
    cuts = {0, len(text)}
    conflict_spans: list[tuple[int, int, SentenceMark]] = []
    for s in sentences:
        cuts.update((s.start, s.end))
        for answer in s.conflicts:
            at = text.find(answer, s.start, s.end) if answer else -1
            if at >= 0:
                conflict_spans.append((at, at + len(answer), s))
                cuts.update((at, at + len(answer)))
    for a, b in words:
        cuts.update((a, b))
    cuts_sorted = sorted(c for c in cuts if 0 <= c <= len(text))
    by_start = {s.start: s for s in sentences}
    by_end = {s.end: s for s in sentences}

    def sentence_at(pos: int) -> SentenceMark | None:
        for s in sentences:
            if s.start <= pos < s.end:
                return s
        return None

    for a, b in zip(cuts_sorted, cuts_sorted[1:], strict=False):
        if a in by_start:
            s = by_start[a]
            out.sentence_pos[s.index] = cursor.position()
            lead = _fmt()
            lead.setAnchor(True)
            lead.setAnchorHref(f"s:{s.index}")
            lead.setToolTip(s.tooltip)
            if s.index == current:
                lead.setFontWeight(QFont.Weight.Bold)
                lead.setForeground(COLOURS["arc"].darker(120))
                cursor.insertText("▶ ", lead)
            if s.state:
                g = _fmt(lead)
                g.setBackground(COLOURS[s.state])
                cursor.insertText(GLYPHS[s.state] + " ", g)
            if s.conflict_tip:
                badge = _fmt(lead)
                badge.setBackground(COLOURS["conflict_badge"])
                badge.setForeground(QColor(255, 255, 255))
                badge.setFontWeight(QFont.Weight.Bold)
                badge.setToolTip(s.conflict_tip + ("\n\n" + s.tooltip if s.tooltip else ""))
                cursor.insertText(f"{CONFLICT_BADGE}", badge)
                cursor.insertText(" ", lead)
        here = sentence_at(a)
        f = _fmt()
        if here is not None:
            f.setAnchor(True)
            f.setAnchorHref(f"s:{here.index}")
            f.setToolTip(here.tooltip)
            if here.state:
                f.setBackground(COLOURS[here.state])
                f.setUnderlineStyle(UNDERLINES[here.state])
                if here.state == "unsupported":
                    f.setUnderlineColor(QColor(200, 30, 30))
                if here.state == "not_checked":
                    f.setFontItalic(True)
            if here.index == current and current_arc is None:
                f.setFontWeight(QFont.Weight.DemiBold)
        if any(lo <= a < hi for lo, hi, _s in conflict_spans):
            owner = next(m for lo, hi, m in conflict_spans if lo <= a < hi)
            f.setBackground(COLOURS["conflict"])
            f.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            f.setUnderlineColor(QColor(200, 30, 30))
            f.setFontWeight(QFont.Weight.Bold)
            f.setToolTip(owner.conflict_tip + ("\n\n" + owner.tooltip if owner.tooltip else ""))
        marks = words.get((a, b), [])
        if marks:
            f.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            f.setUnderlineColor(COLOURS["arc"])
            f.setForeground(COLOURS["arc"])
            f.setFontWeight(QFont.Weight.Bold)
            f.setToolTip("\n".join(m.tooltip for m in marks))
            if any(m.number == current_arc for m in marks):
                f.setBackground(COLOURS["current"])
                f.setFontUnderline(True)
            for m in marks:
                out.arc_pos.setdefault(m.number, cursor.position())
        cursor.insertText(text[a:b], f)
        if marks:
            sup = _fmt(f)
            sup.setVerticalAlignment(QTextCharFormat.VerticalAlignment.AlignSuperScript)
            sup.setUnderlineStyle(QTextCharFormat.UnderlineStyle.NoUnderline)
            tags = ",".join(f"{m.number}{HUMAN_GLYPHS.get(m.human or '', '')}" for m in marks)
            cursor.insertText(tags, sup)
        if b in by_end:
            s = by_end[b]
            if s.human:
                tag = _fmt()
                tag.setFontWeight(QFont.Weight.Bold)
                tag.setForeground(QColor(21, 101, 192))
                tag.setToolTip(
                    f"your judgment: {s.human}" + (f" ({s.human_error})" if s.human_error else "")
                )
                label = f" [{HUMAN_GLYPHS.get(s.human, '')} {s.human}"
                label += f": {s.human_error}]" if s.human_error else "]"
                cursor.insertText(label, tag)
    cursor.endEditBlock()
    return out


def render_source(
    view: MarkedText,
    text: str,
    sentences: list[tuple[int, int, int]],
    evidence: Collection[int] | Mapping[int, int],
    tooltip: str = "",
    window: Collection[int] | None = None,
) -> int | None:
    """Draw the source with evidence sentences marked; returns where the best one starts.

    ``evidence`` is either a set of sentence indices, all marked alike, or a ranking
    ``{index: rank}`` (from :func:`shown_evidence`): each marked sentence then starts with
    ``▸rank``, and the best one (rank 1) is drawn distinctly: a stronger highlight, a solid
    underline, bold. ``window``, when given, is what the checker read; tooltips say whether a
    shown sentence was in it.
    """
    ranks: Mapping[int, int] | None = evidence if isinstance(evidence, Mapping) else None
    doc = view.document()
    doc.clear()
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    first: int | None = None
    best: int | None = None
    pos = 0
    for idx, start, end in sorted(sentences, key=lambda t: t[1]):
        if start > pos:
            cursor.insertText(text[pos:start], _fmt())
        if idx in evidence:
            rank = None if ranks is None else ranks[idx]
            f = _fmt()
            f.setBackground(COLOURS["evidence_best" if rank == 1 else "evidence"])
            f.setUnderlineStyle(
                QTextCharFormat.UnderlineStyle.SingleUnderline
                if rank == 1
                else QTextCharFormat.UnderlineStyle.DashUnderline
            )
            if rank == 1:
                f.setFontWeight(QFont.Weight.DemiBold)
            tip = tooltip or "evidence for the selected sentence"
            if rank is not None:
                what = "best match" if rank == 1 else f"match {rank} of {len(ranks or {})}"
                tip = f"{what} · {tip}"
            if window is not None:
                tip += (
                    " · read by the checker" if idx in window else " · not in the checker's input"
                )
            f.setToolTip(tip)
            f.setProperty(EVIDENCE_RANK, rank if rank is not None else 0)
            if first is None:
                first = cursor.position()
            if rank == 1:
                best = cursor.position()
            mark = _fmt(f)
            mark.setFontWeight(QFont.Weight.Bold)
            cursor.insertText("▸" if rank is None else f"▸{rank}", mark)
            cursor.insertText(text[start:end], f)
        else:
            cursor.insertText(text[start:end], _fmt())
        pos = max(pos, end)
    if pos < len(text):
        cursor.insertText(text[pos:], _fmt())
    cursor.endEditBlock()
    return best if best is not None else first


def set_font_size(view: MarkedText, size: int) -> None:
    font = view.font()
    font.setPointSize(size)
    view.setFont(font)
    view.document().setDefaultFont(font)


__all__ = [
    "ArcMark",
    "MarkedText",
    "Rendered",
    "SentenceMark",
    "render_output",
    "render_source",
    "set_font_size",
    "Qt",
]
