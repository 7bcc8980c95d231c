"""The two text panes: output with support marks and arcs, source with evidence highlights.

Documents are built with ``QTextCursor`` and ``QTextCharFormat`` (no HTML escaping), one
segment per run of characters that share a format. Every state has a glyph and an underline
pattern besides its colour; tooltips carry scores and the checker's display name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QFont, QHelpEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QToolTip, QWidget

# Colours are translucent so that they read on light and dark backgrounds alike.
COLOURS = {
    "supported": QColor(46, 160, 67, 70),
    "unsupported": QColor(218, 54, 51, 85),
    "not_checked": QColor(128, 128, 128, 80),
    "evidence": QColor(240, 200, 30, 110),
    "arc": QColor(137, 87, 229),
    "current": QColor(56, 132, 244, 60),
}
GLYPHS = {"supported": "✔", "unsupported": "✘", "not_checked": "?"}
UNDERLINES = {
    "supported": QTextCharFormat.UnderlineStyle.NoUnderline,
    "unsupported": QTextCharFormat.UnderlineStyle.WaveUnderline,
    "not_checked": QTextCharFormat.UnderlineStyle.DotLine,
}
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
    for s in sentences:
        cuts.update((s.start, s.end))
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
    evidence: set[int],
    tooltip: str = "",
) -> int | None:
    """Draw the source with evidence sentences marked; returns the first evidence position."""
    doc = view.document()
    doc.clear()
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    first: int | None = None
    pos = 0
    for idx, start, end in sorted(sentences, key=lambda t: t[1]):
        if start > pos:
            cursor.insertText(text[pos:start], _fmt())
        if idx in evidence:
            f = _fmt()
            f.setBackground(COLOURS["evidence"])
            f.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
            f.setToolTip(tooltip or "evidence for the selected sentence")
            if first is None:
                first = cursor.position()
            mark = _fmt(f)
            mark.setFontWeight(QFont.Weight.Bold)
            cursor.insertText("▸", mark)
            cursor.insertText(text[start:end], f)
        else:
            cursor.insertText(text[start:end], _fmt())
        pos = max(pos, end)
    if pos < len(text):
        cursor.insertText(text[pos:], _fmt())
    cursor.endEditBlock()
    return first


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
