"""A displaCy-style arc diagram of one output sentence.

The sentence's words sit in a row; above them a curved arc runs from each head word to its
child with the arc's label at its top. Non-entailed arcs (score below the threshold) are drawn
prominently: red, dashed, thicker, and labelled ``✘n`` with the same number the output pane
shows, so their state never rests on colour alone. Entailed arcs are hidden unless asked for,
and then faint and thin; arcs without a score are faint and dotted. In blind mode no arc is
drawn at all. Arcs the editor has judged are drawn as judged, whatever the model said: solid
and green with ``✔`` when judged supported, solid and dark red with a filled ``✘`` label when
judged unsupported, and always shown (an entailed arc the editor rejected must not disappear).

Words come from the character offsets alone: the sentence is cut at whitespace and at every arc
endpoint, so each endpoint lands on its own word without re-tokenising. All sizes derive from the
font metrics, so the diagram follows font zoom and high-DPI screens. :class:`ArcView` is a
resizable pane: arc heights scale to the height it is given (down to a floor where labels would
overlap, then it scrolls), labels are elided and kept inside the diagram, long sentences scroll
sideways, the selected arc is scrolled into view, and a new sentence starts at the left with its
words in view.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPaintEvent,
    QPalette,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app.gui.textview import COLOURS

FLAGGED = QColor(200, 30, 30)
FLAGGED_ON_DARK = QColor(255, 105, 97)  # the same red, legible on a dark background
FAINT_ALPHA = 110
JUDGED_SUPPORTED = QColor(46, 140, 60)
JUDGED_SUPPORTED_ON_DARK = QColor(110, 200, 120)
JUDGED_UNSUPPORTED = QColor(150, 20, 20)
JUDGED_UNSUPPORTED_ON_DARK = QColor(255, 140, 130)
MAX_LEVELS = 8  # deeper nesting shares the top level instead of growing the widget further
MIN_STEP = 1.15  # the lowest level spacing, in label heights: closer and stacked labels overlap
NATURAL_STEP = 1.7  # level spacing in font heights when there is room (the size hint)
MAX_STEP = 2.6  # arcs grow with a taller pane up to this spacing, in font heights
MAX_LABEL = 14.0  # longest label drawn, in font heights; longer ones are elided (full in tooltip)
JUDGED_LABELS = {"supported": "supported", "yes": "supported", "unsupported": "unsupported"}
JUDGED_LABELS |= {"no": "unsupported"}
_KEEP = object()  # configure(): leave this option as it is


@dataclass(frozen=True)
class ArcItem:
    """One arc as the diagram needs it (offsets are into the whole output text)."""

    arc_id: int
    label: str
    head: tuple[int, int]
    child: tuple[int, int]
    head_text: str
    child_text: str
    score: float | None
    number: int | None = None  # the non-entailed arc's number in the output pane
    judged: str | None = None  # the editor's label for this arc (supported / unsupported)


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    text: str
    rect: QRectF


@dataclass(frozen=True)
class ArcGeometry:
    """Where one visible arc is drawn."""

    arc: ArcItem
    head_word: int
    child_word: int
    head_x: float
    child_x: float
    level: int
    state: str  # "flagged", "entailed" or "unscored"
    path: QPainterPath
    label_rect: QRectF
    label_text: str
    judged: str | None = None  # "supported" / "unsupported" when the editor judged the arc


def split_words(
    text: str, start: int, end: int, cuts: set[int] | None = None
) -> list[tuple[int, int]]:
    """Word spans of ``text[start:end]``: cut at whitespace and at the given offsets."""
    bounds = {c for c in (cuts or set()) if start < c < end}
    spans: list[tuple[int, int]] = []
    i = start
    while i < end:
        while i < end and text[i].isspace():
            i += 1
        j = i
        while j < end and not text[j].isspace():
            j += 1
        if j > i:
            edges = [i, *sorted(c for c in bounds if i < c < j), j]
            spans.extend(zip(edges, edges[1:], strict=False))
        i = j
    return spans


class ArcDiagram(QWidget):
    """Paints the words of one sentence and its arcs; hover for details, click to select."""

    arc_clicked = Signal(int)  # arc id
    relaid = Signal()  # the layout (and so the size) changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Arc diagram of the selected sentence")
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # judging keys stay with the output pane
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.setAutoFillBackground(True)
        self._text = ""
        self._span = (0, 0)
        self._arcs: list[ArcItem] = []
        self.threshold = 0.5
        self.blind = False
        self.show_entailed = False
        self.current_arc: int | None = None  # arc id, highlighted
        self.checker_label = ""
        self.message = ""
        self.words: list[Word] = []
        self.geometry_: list[ArcGeometry] = []
        self._size = QSize(0, 0)
        self._fitted = QSize(0, 0)
        self.available_height = 0.0  # set by ArcView from its viewport; 0: natural heights
        self._hover: int | None = None

    # -------------------------------------------------------------- data
    def set_sentence(self, text: str, start: int, end: int, arcs: list[ArcItem]) -> None:
        """Show ``text[start:end]`` with these arcs (those of that sentence)."""
        self._text, self._span, self._arcs = text, (start, end), list(arcs)
        self.relayout()

    def clear(self, message: str = "") -> None:
        self._text, self._span, self._arcs = "", (0, 0), []
        self.message = message
        self.relayout()

    def configure(
        self,
        *,
        threshold: float | None = None,
        blind: bool | None = None,
        show_entailed: bool | None = None,
        current_arc: int | None | object = _KEEP,
        checker_label: str | None = None,
    ) -> None:
        """Change how arcs are shown, relaying out once."""
        if threshold is not None:
            self.threshold = threshold
        if blind is not None:
            self.blind = blind
        if show_entailed is not None:
            self.show_entailed = show_entailed
        if current_arc is not _KEEP:
            assert current_arc is None or isinstance(current_arc, int)
            self.current_arc = current_arc
        if checker_label is not None:
            self.checker_label = checker_label
        self.relayout()

    def state_of(self, arc: ArcItem) -> str:
        if arc.score is None:
            return "unscored"
        return "flagged" if arc.score < self.threshold else "entailed"

    @staticmethod
    def judged_of(arc: ArcItem) -> str | None:
        """The editor's verdict on the arc: "supported", "unsupported" or None (not judged)."""
        return None if arc.judged is None else JUDGED_LABELS.get(arc.judged, arc.judged)

    def _label_text(self, arc: ArcItem) -> str:
        num = "" if arc.number is None else str(arc.number)
        judged = self.judged_of(arc)
        if judged == "supported":
            return f"✔{num} {arc.label}"
        if judged is not None:
            return f"✘{num} {arc.label}"
        if self.state_of(arc) != "flagged":
            return arc.label
        return f"✘{num} {arc.label}"

    def visible_arcs(self) -> list[ArcItem]:
        """Flagged and judged arcs; the entailed and unscored ones too when asked for."""
        if self.blind:
            return []
        return [
            a
            for a in self._arcs
            if self.show_entailed or self.state_of(a) == "flagged" or a.judged is not None
        ]

    def sentence_key(self) -> tuple[object, ...]:
        """What identifies the sentence shown: a new key means a new sentence (or pair)."""
        return (self._text, self._span, tuple(a.arc_id for a in self._arcs))

    def set_available_height(self, height: float) -> None:
        """The height the pane offers: arc heights scale to fit it (0: natural heights)."""
        if abs(height - self.available_height) >= 1:
            self.available_height = height
            self.relayout()

    # -------------------------------------------------------------- layout
    def _metrics(self) -> tuple[QFontMetricsF, float]:
        fm = QFontMetricsF(self.font())
        return fm, fm.height()

    def _small_font(self) -> QFont:
        small = self.font()
        small.setPointSizeF(max(6.0, self.font().pointSizeF() * 0.85))
        return small

    def relayout(self) -> None:
        """Place words and arcs from the current font and height (on data, option, font and
        size changes)."""
        fm, unit = self._metrics()
        sfm = QFontMetricsF(self._small_font())
        start, end = self._span
        visible = self.visible_arcs()
        cuts: set[int] = set()
        for a in self._arcs:
            cuts.update((*a.head, *a.child))
        spans = split_words(self._text, start, end, cuts)

        # arc levels: one above the highest arc nested inside (displaCy-like stacking)
        index_of = {s: i for i, (s, _e) in enumerate(spans)}

        def word_at(offset: int) -> int:
            if offset in index_of:
                return index_of[offset]
            for i, (s, e) in enumerate(spans):
                if s <= offset < e:
                    return i
            return max(0, len(spans) - 1)

        ends = [(a, word_at(a.head[0]), word_at(a.child[0])) for a in visible]
        ends = [t for t in ends if t[1] != t[2]]
        ends.sort(key=lambda t: abs(t[1] - t[2]))
        levels: list[int] = []
        for i, (_a, h, c) in enumerate(ends):
            lo, hi = min(h, c), max(h, c)
            inner = [
                levels[j]
                for j, (_b, h2, c2) in enumerate(ends[:i])
                if lo <= min(h2, c2) and max(h2, c2) <= hi
            ]
            levels.append(min(MAX_LEVELS, 1 + max(inner, default=0)))
        top_level = max(levels, default=0)

        pad = unit * 0.6
        label_h = sfm.height() + 2
        # Everything but the stacked levels: margins, the top label, the words below.
        fixed = pad + label_h + (unit * 0.5 if top_level else 0) + unit * 1.6
        natural = unit * NATURAL_STEP
        step = natural
        if top_level and self.available_height > 0:
            fit = (self.available_height - 1 - fixed) / top_level  # 1: the size rounds up
            step = min(max(fit, label_h * MIN_STEP), unit * MAX_STEP)
        base = fixed - unit * 1.6 + top_level * step
        if spans and self.available_height > 0:
            # a pane taller than the arcs need: the words sit at its bottom, as in displaCy
            base += max(0.0, self.available_height - 1 - (base + unit * 1.6))
        gap = fm.horizontalAdvance("  ") + unit * 0.6
        widths = [max(fm.horizontalAdvance(self._text[s:e]), unit * 1.2) for s, e in spans]
        max_label = unit * MAX_LABEL
        labels = [
            sfm.elidedText(self._label_text(a), Qt.TextElideMode.ElideRight, max_label)
            for a, _h, _c in ends
        ]
        # Words joined by a lowest-level arc stand far enough apart for its label, so that the
        # labels of neighbouring short arcs never overlap.
        extra = [0.0] * len(spans)
        for (_a, h, c), text in zip(ends, labels, strict=True):
            if abs(h - c) == 1:
                i = min(h, c)
                need = sfm.horizontalAdvance(text) + unit * 0.9
                have = widths[i] / 2 + gap + widths[i + 1] / 2
                extra[i] = max(extra[i], need - have)
        x = pad
        words: list[Word] = []
        for (s, e), w, more in zip(spans, widths, extra, strict=True):
            words.append(Word(s, e, self._text[s:e], QRectF(x, base + unit * 0.3, w, unit)))
            x += w + gap + more
        width = x - gap - extra[-1] + pad if words else 0.0
        if not words and self.message:
            width = fm.horizontalAdvance(self.message) + 2 * pad

        # endpoints: spread over the middle of each word, ordered by where the other end is
        attach: dict[int, list[tuple[float, int, str]]] = {}
        for k, (_a, h, c) in enumerate(ends):
            attach.setdefault(h, []).append((words[c].rect.center().x(), k, "head"))
            attach.setdefault(c, []).append((words[h].rect.center().x(), k, "child"))
        xs: dict[tuple[int, str], float] = {}
        for wi, items in attach.items():
            items.sort()
            r = words[wi].rect
            n = len(items)
            for m, (_ox, k, role) in enumerate(items):
                frac = 0.5 if n == 1 else 0.2 + 0.6 * m / (n - 1)
                xs[(k, role)] = r.left() + r.width() * frac

        geoms: list[ArcGeometry] = []
        for k, (a, h, c) in enumerate(ends):
            hx, cx = xs[(k, "head")], xs[(k, "child")]
            height = levels[k] * step
            path = QPainterPath(QPointF(hx, base))
            ctrl = height / 0.75  # a cubic with both controls at ctrl peaks at 0.75 * ctrl
            path.cubicTo(QPointF(hx, base - ctrl), QPointF(cx, base - ctrl), QPointF(cx, base))
            state = self.state_of(a)
            text = labels[k]
            lw = sfm.horizontalAdvance(text) + unit * 0.4
            # centred over the arc, but never past either edge of the diagram
            left = min(max((hx + cx) / 2 - lw / 2, pad / 2), max(pad / 2, width - pad / 2 - lw))
            rect = QRectF(left, base - height - label_h / 2, lw, label_h)
            judged = self.judged_of(a)
            geoms.append(ArcGeometry(a, h, c, hx, cx, levels[k], state, path, rect, text, judged))
        # flagged and judged arcs last: painted on top and found first by hit tests
        order = {"unscored": 0, "entailed": 1, "flagged": 2}
        geoms.sort(
            key=lambda g: (g.judged is not None, order[g.state], g.arc.arc_id == self.current_arc)
        )
        self.words, self.geometry_ = words, geoms
        self._fitted = QSize(int(width) + 1, int(base + unit * 1.6) + 1)
        natural_base = fixed - unit * 1.6 + top_level * natural
        self._size = QSize(int(width) + 1, int(natural_base + unit * 1.6) + 1)
        self.updateGeometry()
        self.update()
        self.relaid.emit()

    def sizeHint(self) -> QSize:
        """The natural size: every arc at its natural height, the whole sentence in one row."""
        return self._size

    def minimumSizeHint(self) -> QSize:
        return self._fitted

    def fitted_size(self) -> QSize:
        """The size laid out for the available height (arcs scaled to it, down to the floor)."""
        return self._fitted

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self.relayout()
        super().changeEvent(event)

    # -------------------------------------------------------------- painting
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text_colour = pal.color(QPalette.ColorRole.Text)
        fm, unit = self._metrics()
        if not self.words:
            if self.message:
                p.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
                p.drawText(QPointF(unit * 0.6, unit * 1.2), self.message)
            p.end()
            return
        current = next((g for g in self.geometry_ if g.arc.arc_id == self.current_arc), None)
        for i, w in enumerate(self.words):
            if current is not None and i in (current.head_word, current.child_word):
                p.fillRect(w.rect.adjusted(-2, 0, 2, 0), COLOURS["current"])
            p.setPen(text_colour)
            p.setFont(self.font())
            p.drawText(QPointF(w.rect.left(), w.rect.top() + fm.ascent()), w.text)
        small = self._small_font()
        width = max(1.0, unit / 10)
        dark = pal.color(QPalette.ColorRole.Base).lightness() < 128
        red = FLAGGED_ON_DARK if dark else FLAGGED
        judged_colour = {
            "supported": JUDGED_SUPPORTED_ON_DARK if dark else JUDGED_SUPPORTED,
            "unsupported": JUDGED_UNSUPPORTED_ON_DARK if dark else JUDGED_UNSUPPORTED,
        }
        colours: dict[int, QColor] = {}
        for g in self.geometry_:
            focus = g.arc.arc_id in (self.current_arc, self._hover)
            if g.judged is not None:
                # the editor's verdict replaces the model's: solid, never the dashed model red
                colour = QColor(judged_colour.get(g.judged, text_colour))
                pen = QPen(colour, width * (3.2 if focus else 2.2))
            elif g.state == "flagged":
                colour = QColor(red)
                pen = QPen(colour, width * (3.2 if focus else 2.2))
                pen.setStyle(Qt.PenStyle.DashLine)
            else:
                colour = QColor(text_colour)
                colour.setAlpha(255 if focus else FAINT_ALPHA)
                pen = QPen(colour, width * (2.0 if focus else 1.0))
                if g.state == "unscored":
                    pen.setStyle(Qt.PenStyle.DotLine)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(g.path)
            # arrowhead at the child, pointing down onto the word
            base = g.path.pointAtPercent(1.0)
            a = unit * 0.3
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawPolygon(
                QPolygonF(
                    [
                        base,
                        QPointF(base.x() - a / 2, base.y() - a),
                        QPointF(base.x() + a / 2, base.y() - a),
                    ]
                )
            )
            colours[g.arc.arc_id] = colour
        # labels after every curve, on a background so that no line crosses their text
        for g in self.geometry_:
            colour = colours[g.arc.arc_id]
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(pal.color(QPalette.ColorRole.Base))
            p.drawRoundedRect(g.label_rect, 3, 3)
            if g.arc.arc_id == self.current_arc:
                p.setBrush(COLOURS["current"])
                p.drawRoundedRect(g.label_rect, 3, 3)
            text_pen = QPen(colour)
            if g.judged is not None:
                # judged: a filled label in the verdict's colour, text in the background colour
                p.setBrush(colour)
                p.drawRoundedRect(g.label_rect, 3, 3)
                text_pen = QPen(pal.color(QPalette.ColorRole.Base))
            elif g.state == "flagged":
                p.setPen(QPen(colour, width))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(g.label_rect, 3, 3)
                text_pen = QPen(red)
            p.setFont(small)
            p.setPen(text_pen)
            p.drawText(g.label_rect, Qt.AlignmentFlag.AlignCenter, g.label_text)
        p.end()

    # -------------------------------------------------------------- interaction
    def arc_at(self, pos: QPointF) -> ArcGeometry | None:
        """The visible arc under a point: labels first, then the curves (flagged on top)."""
        _fm, unit = self._metrics()
        for g in reversed(self.geometry_):
            if g.label_rect.contains(pos):
                return g
        stroker = QPainterPathStroker()
        stroker.setWidth(max(6.0, unit * 0.5))
        for g in reversed(self.geometry_):
            if stroker.createStroke(g.path).contains(pos):
                return g
        return None

    def tooltip_for(self, g: ArcGeometry) -> str:
        a = g.arc
        what = {
            "flagged": "not entailed",
            "entailed": "entailed",
            "unscored": "not scored",
        }[g.state]
        num = f"arc {a.number}: " if a.number is not None else ""
        score = "" if a.score is None else f" · {self.checker_label} {a.score:.2f}".rstrip()
        judged = "" if g.judged is None else f" · you judged it {g.judged}"
        return f"{num}{a.label}({a.head_text} → {a.child_text}){score} ({what}){judged}"

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            g = self.arc_at(QPointF(event.pos()))
            if g is not None:
                QToolTip.showText(event.globalPos(), self.tooltip_for(g), self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        g = self.arc_at(event.position())
        hover = None if g is None else g.arc.arc_id
        if hover != self._hover:
            self._hover = hover
            self.setCursor(
                Qt.CursorShape.PointingHandCursor if g is not None else Qt.CursorShape.ArrowCursor
            )
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if self._hover is not None:
            self._hover = None
            self.update()
        super().leaveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        g = self.arc_at(event.position())
        if g is not None and event.button() == Qt.MouseButton.LeftButton:
            self.current_arc = g.arc.arc_id
            self.update()
            self.arc_clicked.emit(g.arc.arc_id)
            event.accept()
            return
        super().mousePressEvent(event)


class ArcView(QWidget):
    """The arc diagram with its title and the "show entailed arcs" toggle: a resizable pane.

    Put it in a vertical splitter under the text panes (:meth:`split_below` builds one); the
    diagram's arcs scale to the height the pane gets, and it scrolls where the sentence is wider
    or the arcs taller than the pane. The owner calls :meth:`update_view` after changing the
    diagram's sentence or options; a new sentence starts scrolled to the left with its words in
    view, and the selected arc is scrolled into view.
    """

    arc_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.diagram = ArcDiagram()
        self.diagram.arc_clicked.connect(self.arc_clicked)
        self.diagram.arc_clicked.connect(lambda _id: self.scroll_to_current())
        self.title = QLabel("Arcs")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.show_entailed = QCheckBox("Show entailed arcs")
        self.show_entailed.setAccessibleName("Show entailed arcs in the arc diagram")
        self.show_entailed.setToolTip("Also draw the arcs the checker finds entailed (faint)")
        self.show_entailed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.show_entailed.toggled.connect(self._show_entailed_toggled)
        self.scroll_area = QScrollArea()
        self.scroll_area.setAccessibleName("Arc diagram")
        self.scroll_area.setWidget(self.diagram)
        # The diagram is sized here, not by the scroll area, so that scrolling to an arc right
        # after a change sees the new size (a resizable widget is only resized on a later event).
        self.scroll_area.setWidgetResizable(False)
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroll_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroll_area.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.scroll_area.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.scroll_area.viewport().installEventFilter(self)
        self.diagram.relaid.connect(self._resize_diagram)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title, 1)
        head.addWidget(self.show_entailed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(head)
        lay.addWidget(self.scroll_area, 1)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._shown_key: tuple[object, ...] | None = None
        self._fit()

    # -------------------------------------------------------------- placement
    def split_below(self, top: QWidget) -> QSplitter:
        """A vertical splitter with ``top`` above this pane, for the window to lay out.

        The editor drags the handle to give the diagram more or less room; the pane cannot be
        collapsed to nothing, and extra window height goes mostly to ``top``.
        """
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("arc_split")
        split.setChildrenCollapsible(False)
        split.addWidget(top)
        split.addWidget(self)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        mine = self.sizeHint().height()
        split.setSizes([max(top.sizeHint().height(), 3 * mine), mine])
        return split

    def sizeHint(self) -> QSize:
        """Room for the sentence's arcs at their natural height (up to about 14 lines)."""
        _fm, unit = self.diagram._metrics()
        natural = self.diagram.sizeHint()
        bar = self.scroll_area.horizontalScrollBar().sizeHint().height()
        height = min(max(natural.height() + bar, unit * 5), unit * 14)
        return QSize(
            min(max(natural.width(), int(unit * 20)), int(unit * 60)),
            int(height + self.title.sizeHint().height() + 6),
        )

    def minimumSizeHint(self) -> QSize:
        """The title and a few lines of diagram: the words and the lowest arcs."""
        _fm, unit = self.diagram._metrics()
        return QSize(int(unit * 12), int(self.title.sizeHint().height() + unit * 4.5))

    # -------------------------------------------------------------- sizing
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.scroll_area.viewport() and event.type() == QEvent.Type.Resize:
            self._fit()
        return super().eventFilter(watched, event)

    def _fit(self) -> None:
        """Scale the arcs to the viewport's height (the diagram relays out and is resized)."""
        height = self.scroll_area.viewport().height()
        # A horizontal scroll bar, when the sentence is wider, takes its height from the arcs.
        if self.diagram.fitted_size().width() > self.scroll_area.viewport().width():
            bar = self.scroll_area.horizontalScrollBar()
            if not bar.isVisible():
                height -= bar.sizeHint().height()
        self.diagram.set_available_height(float(max(height, 0)))
        self._resize_diagram()
        self.keep_words_in_view()

    def _resize_diagram(self) -> None:
        vp = self.scroll_area.viewport().size()
        fitted = self.diagram.fitted_size()
        size = QSize(max(fitted.width(), vp.width()), max(fitted.height(), vp.height()))
        if size != self.diagram.size():
            self.diagram.resize(size)
        self.updateGeometry()

    def set_font_size(self, size: int) -> None:
        font = self.diagram.font()
        font.setPointSize(size)
        self.diagram.setFont(font)  # FontChange relayouts
        self._fit()
        self.update_view()

    # -------------------------------------------------------------- scrolling
    def _show_entailed_toggled(self, on: bool) -> None:
        self.diagram.configure(show_entailed=on)
        self._fit()
        self.keep_words_in_view()
        self.scroll_to_current()

    def keep_words_in_view(self) -> None:
        """Scroll vertically so that the sentence's words are visible (they sit at the bottom)."""
        if self.diagram.words:
            w = self.diagram.words[0].rect
            bar = self.scroll_area.verticalScrollBar()
            vp = self.scroll_area.viewport().height()
            if not (bar.value() <= w.top() and w.bottom() <= bar.value() + vp):
                bar.setValue(int(w.bottom() + w.height() * 0.5 - vp))

    def scroll_to_current(self) -> None:
        """Bring the selected arc into view: its label, and as much of its span as fits."""
        d = self.diagram
        g = next((g for g in d.geometry_ if g.arc.arc_id == d.current_arc), None)
        if g is None:
            return
        lo, hi = sorted((g.head_x, g.child_x))
        span = g.label_rect.united(QRectF(lo, g.label_rect.top(), hi - lo, 1))
        vp = self.scroll_area.viewport()
        hbar = self.scroll_area.horizontalScrollBar()
        if span.width() <= vp.width():
            if span.left() < hbar.value():
                hbar.setValue(int(span.left()) - 4)
            elif span.right() > hbar.value() + vp.width():
                hbar.setValue(int(span.right() - vp.width()) + 4)
        else:  # wider than the pane: centre the label
            hbar.setValue(int(g.label_rect.center().x() - vp.width() / 2))
        vbar = self.scroll_area.verticalScrollBar()
        if g.label_rect.top() < vbar.value():
            vbar.setValue(int(g.label_rect.top()) - 2)
        elif g.label_rect.bottom() > vbar.value() + vp.height():
            vbar.setValue(int(g.label_rect.bottom() - vp.height()) + 2)

    def update_view(self) -> None:
        """Resize after the diagram changed; a new sentence starts scrolled to the left with
        its words in view; then the selected arc, if any, is scrolled into view."""
        self._fit()
        key = self.diagram.sentence_key()
        if key != self._shown_key:
            self._shown_key = key
            self.scroll_area.horizontalScrollBar().setValue(0)
            self.scroll_area.verticalScrollBar().setValue(0)
            self.keep_words_in_view()
        self.scroll_to_current()


__all__ = ["ArcDiagram", "ArcGeometry", "ArcItem", "ArcView", "split_words"]
