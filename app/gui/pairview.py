"""The pair view: header, judging prompt, source and output side by side, the arc diagram.

It draws what the :class:`~app.gui.judging.JudgingController` holds and turns clicks into
signals; it makes no decisions and writes nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from app.gui.arcview import ArcItem, ArcView
from app.gui.claims import header_lines
from app.gui.judging import JudgingController, Unit
from app.gui.plaintext import PlainToolTips, plain_label, text_view_tips
from app.gui.textview import (
    ArcMark,
    MarkedText,
    SentenceMark,
    render_output,
    render_source,
    set_font_size,
)
from app.store.findings import CONFLICT_GLYPH, conflict_words, finding_lines
from app.store.project import Project
from models.checkers.questions import Said
from models.claims import question_text

LEGEND = (
    "Marks: ✔ supported (green)  ✘ unsupported (red, wavy underline)  "
    "? not checked (grey, dotted, italic)  "
    "⚠ conflict (red badge, bold red wavy words): the source answers a name or figure otherwise  "
    "underlined purple words with numbers: non-entailed arcs  ▸ evidence (yellow, dashed)  "
    "arc diagram: ✘ red dashed arcs are not entailed (click one to judge it)"
)


def conflict_tip(clash: list[Said]) -> str:
    """A sentence's conflicts in words, for its badge and words ("" when none)."""
    if not clash:
        return ""
    return "Conflict with the source (question-based check): " + "; ".join(
        conflict_words(x) for x in clash
    )


class OneLineLabel(QLabel):
    """A single line of plain text, cut with "…" to the width it gets; the full text is its tooltip.

    The key hint is long; wrapped, it pushed the texts down and grew the prompt by a line.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        # Never wider than it is given: the window, not this line, decides the width.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.full_text = ""

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self.setToolTip(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        width = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, width)
        if shown != self.text():
            self.setText(shown)


#: The arc pane's share of the room under the prompt until the editor moves the splitter
#: (then the window keeps where it was left, between sessions too).
ARC_SHARE = 0.4
#: ... and at least this many lines of text: the words and a few levels of arcs.
ARC_MIN_LINES = 9


class PairView(QWidget):
    """One pair in detail; :meth:`draw` draws the controller's current state."""

    sentence_clicked = Signal(int)
    arc_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel()
        self.header.setAccessibleName("Pair header")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt = QLabel()
        self.prompt.setAccessibleName("Judging prompt")
        self.prompt.setWordWrap(True)
        self.prompt.setObjectName("prompt")
        plain_label(self.prompt)  # arc labels, words, judgments and error types come from data
        self.keys_hint = OneLineLabel()
        self.keys_hint.setAccessibleName("Judging keys")
        self.keys_hint.setObjectName("keys_hint")
        # What the shown checker found in the sentence (questions, answers): its words about
        # the data, so plain text; hidden when it says nothing.
        self.finding = plain_label(QLabel())
        self.finding.setAccessibleName("What the checker found in the sentence")
        self.finding.setObjectName("finding")
        self.finding.setWordWrap(True)
        self.finding.hide()
        self.source_view = MarkedText("Source text")
        self.output_view = MarkedText("Output text")
        self.output_view.sentence_clicked.connect(self.sentence_clicked)
        self.arc_view = ArcView()
        self.arc_view.arc_clicked.connect(self.arc_clicked)
        self.arc_sentence: int | None = None  # sentence id the arc diagram shows
        # Tooltips carry checker names, arc labels and words: shown as plain text.
        self._tips = [
            text_view_tips(self.source_view),
            text_view_tips(self.output_view),
            PlainToolTips(self.arc_view.diagram, self._arc_tip),
        ]
        self.source_title = plain_label(QLabel("Source"))
        source_box = QWidget()
        sv = QVBoxLayout(source_box)
        sv.setContentsMargins(0, 0, 0, 0)
        sv.addWidget(self.source_title)
        sv.addWidget(self.source_view)
        self.source_box = source_box
        self.output_title = QLabel("Output")
        out_box = QWidget()
        ov = QVBoxLayout(out_box)
        ov.setContentsMargins(0, 0, 0, 0)
        ov.addWidget(self.output_title)
        ov.addWidget(self.output_view)
        self.text_split = QSplitter(Qt.Orientation.Horizontal)
        self.text_split.addWidget(source_box)
        self.text_split.addWidget(out_box)
        self.legend = QLabel(LEGEND)
        self.legend.setWordWrap(True)
        self.legend.setObjectName("legend")
        rv = QVBoxLayout(self)
        rv.setContentsMargins(4, 4, 4, 4)
        rv.addWidget(self.header)
        rv.addWidget(self.prompt)
        rv.addWidget(self.keys_hint)
        rv.addWidget(self.finding)
        self.arc_split = self.arc_view.split_below(self.text_split)
        rv.addWidget(self.arc_split, 1)  # the arc pane under both text panes, resizable
        self._arc_sized = False  # the default height is given once, when first laid out
        self.arc_split.installEventFilter(self)
        rv.addWidget(self.legend)

    def arc_height_restored(self) -> None:
        """The window put the splitter where the editor left it: no default height."""
        self._arc_sized = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.arc_split
            and event.type() == QEvent.Type.Resize
            and not self._arc_sized
            and self.arc_split.height() > 0
        ):
            self._default_arc_height()
        return super().eventFilter(watched, event)

    def _default_arc_height(self) -> None:
        """Give the arc diagram :data:`ARC_SHARE` of the room (at least :data:`ARC_MIN_LINES`
        lines), once the splitter has its first real height."""
        self._arc_sized = True
        total = sum(self.arc_split.sizes()) or self.arc_split.height()
        unit = self.arc_view.diagram._metrics()[1]
        arc = max(int(total * ARC_SHARE), int(unit * ARC_MIN_LINES))
        arc = min(arc, total - self.text_split.minimumSizeHint().height())
        self.arc_split.setSizes([total - arc, arc])

    def _arc_tip(self, pos: QPoint) -> str | None:
        d = self.arc_view.diagram
        g = d.arc_at(QPointF(pos))
        return None if g is None else d.tooltip_for(g)

    def set_font_size(self, size: int) -> None:
        for view in (self.source_view, self.output_view):
            set_font_size(view, size)
        self.arc_view.set_font_size(size)

    # ================================================================== drawing
    def show_nothing(self, project: Project | None) -> None:
        if project is None:
            said = (
                "No project open: File ▸ Open project (Ctrl+O), New project (Ctrl+N) "
                "or Open demo project."
            )
        elif project.count_pairs() == 0:
            said = (
                "This project has no pairs yet: File ▸ Add a pair (Ctrl+Shift+N) to paste or "
                "load a source and an output, or Import pairs (Ctrl+I) from JSONL, CSV or TSV."
            )
        else:
            said = "No pair matches the filters."
        self.header.setText(said)
        self.prompt.setText("")
        self.keys_hint.set_full_text("")
        self.source_view.clear()
        self.output_view.clear()
        self.arc_sentence = None
        self.arc_view.diagram.clear()
        self.arc_view.title.setText("Arcs")
        self.arc_view.update_view()
        self._render_finding(None)

    def draw(self, c: JudgingController) -> None:
        """Draw the controller's pair: marks, evidence, arc diagram, header and prompt."""
        b = c.bundle
        if b is None:
            self.show_nothing(c.project)
            return
        blind = c.hides_model
        unit = c.current_unit()
        cur_sentence = unit.number if unit and unit.key.target == "sentence" else None
        cur_arc = unit.number if unit and unit.key.target == "arc" else None
        marks = []
        for s in b.sentences:
            state, _score, tip = c.sentence_state(s.id)
            human = c.judg.get((f"sentence:{s.id}", "support"))
            clash = [] if blind else c.sentence_conflicts(s.id)
            marks.append(
                SentenceMark(
                    s.idx,
                    s.start,
                    s.end,
                    None if blind else state,
                    "" if blind else tip,
                    human.label if human else None,
                    human.error_type if human else None,
                    tuple(x.output for x in clash),
                    conflict_tip(clash),
                )
            )
        arcs = []
        if not blind:
            for n, arc, score in c.flagged_arcs():
                human = c.judg.get((f"arc:{arc.id}", "support"))
                arcs.append(
                    ArcMark(
                        n,
                        arc.id,
                        arc.label,
                        (arc.head_start, arc.head_end),
                        (arc.child_start, arc.child_end),
                        arc.head_text,
                        arc.child_text,
                        score,
                        f"arc {n}: {arc.label}({arc.head_text} → {arc.child_text}) "
                        f"· {c.checker_label} {score:.2f} (not entailed)",
                        human.label if human else None,
                    )
                )
        pos = render_output(self.output_view, b.output.text, marks, arcs, cur_sentence, cur_arc)
        if cur_sentence is not None and cur_sentence in pos.sentence_pos:
            self.output_view.scroll_to(pos.sentence_pos[cur_sentence])
        elif cur_arc is not None and cur_arc in pos.arc_pos:
            self.output_view.scroll_to(pos.arc_pos[cur_arc])
        # source: hidden in AIS stage one; evidence of the current sentence otherwise
        hide_source = c.ais_mode and c.ais_stage == 1
        evidence: dict[int, int] = {}  # source sentence index -> rank, 1 the best
        window: set[int] = set()  # what the checker read
        if not blind and unit is not None and unit.key.sentence_id is not None:
            sc = c.scores()
            row = None if sc is None else sc[1].get(unit.key.sentence_id)
            if row is not None and row.evidence:
                window = set(row.evidence)
                said = next(s.text for s in b.sentences if s.id == unit.key.sentence_id)
                shown = b.shown_evidence(said, window, detail=row.detail)
                evidence = {idx: rank for rank, (idx, _text) in enumerate(shown, start=1)}
        if hide_source:
            self.source_view.setPlainText(
                "(Source hidden: first decide whether the output is interpretable on its own.)"
            )
        else:
            first = render_source(
                self.source_view,
                b.source.text,
                [(s.idx, s.start, s.end) for s in b.source_sentences],
                evidence,
                f"evidence ({c.checker_label})",
                window,
            )
            if first is not None:
                self.source_view.scroll_to(first)
        self.source_title.setText("Source" + (" — evidence marked ▸" if evidence else ""))
        self._render_arcs(c, blind, unit)
        self._render_finding(None if blind else c)
        self.render_header(c)

    def _render_finding(self, c: JudgingController | None) -> None:
        """Show what the checkers found in the sentence whose arcs are drawn (the one under the
        keyboard): the shown checker's words, and those of any other checker that flags it;
        hidden when none says anything in words, and while scores are hidden."""
        b = None if c is None else c.bundle
        sentence = (
            None if b is None else next((s for s in b.sentences if s.id == self.arc_sentence), None)
        )
        found = [] if c is None or sentence is None else c.sentence_findings(sentence.id)
        if sentence is None or not found:
            self.finding.clear()
            self.finding.hide()
            return
        self.finding.setText(
            "\n\n".join(
                f"{label} on sentence {sentence.idx + 1}:\n" + "\n".join(finding_lines(text))
                for label, text in found
            )
        )
        # A conflict is the strongest evidence there is: the panel says so with a red rule too.
        clash = bool(c is not None and c.sentence_conflicts(sentence.id))
        if self.finding.property("conflict") != clash:
            self.finding.setProperty("conflict", clash)  # the theme draws a solid red rule
            self.finding.style().unpolish(self.finding)
            self.finding.style().polish(self.finding)
        self.finding.show()

    def _render_arcs(self, c: JudgingController, blind: bool, unit: Unit | None) -> None:
        """Draw the arc diagram of the current unit's sentence (kept at pair level)."""
        b = c.bundle
        assert b is not None
        ids = {s.id for s in b.sentences}
        if unit is not None and unit.key.sentence_id is not None:
            self.arc_sentence = unit.key.sentence_id
        elif self.arc_sentence not in ids:
            self.arc_sentence = b.sentences[0].id if b.sentences else None
        view = self.arc_view
        sentence = next((s for s in b.sentences if s.id == self.arc_sentence), None)
        if sentence is None:
            view.diagram.clear("No sentence")
            view.title.setText("Arcs")
            view.update_view()
            return
        sc = c.scores()
        numbers = {arc.id: n for n, arc, _score in c.flagged_arcs()}
        items = [
            ArcItem(
                arc.id,
                arc.label,
                (arc.head_start, arc.head_end),
                (arc.child_start, arc.child_end),
                arc.head_text,
                arc.child_text,
                None if sc is None else sc[2].get(arc.id),
                numbers.get(arc.id),
                (h.label if (h := c.judg.get((f"arc:{arc.id}", "support"))) else None),
            )
            for arc in b.arcs
            if arc.sentence_id == sentence.id
        ]
        current = None
        if unit is not None and unit.key.target == "arc":
            current = unit.key.arc_id
        elif view.diagram.current_arc in {i.arc_id for i in items}:
            current = view.diagram.current_arc  # an entailed arc the user clicked
        view.diagram.configure(
            threshold=c.threshold,
            blind=blind,
            current_arc=current,
            checker_label=c.checker_label,
        )
        view.diagram.set_sentence(b.output.text, sentence.start, sentence.end, items)
        flagged = sum(1 for i in items if i.number is not None)
        what = (
            "hidden in blind mode"
            if blind
            else "not analysed"
            if sc is None
            else f"{flagged} of {len(items)} not entailed below {c.threshold:.2f}"
        )
        view.title.setText(f"Arcs of sentence {sentence.idx + 1}: {what}")
        view.update_view()

    def render_header(self, c: JudgingController) -> None:
        b = c.bundle
        assert b is not None
        flags = " · ⚑ FLAGGED malformed" if ("pair", "flag") in c.judg else ""
        pair_j = c.judg.get(("pair", "support"))
        pj = f" · pair judged: {pair_j.label}" if pair_j else ""
        qa = header_lines(b.output.context, b.output.text, c.claims.get(b.output.id))
        if qa:
            ctx = "\n" + "\n".join(qa)
        else:
            ctx = f"\n{b.output.context}" if b.output.context else ""
        self.header.setText(
            f"{b.output.external_id} · system: {b.output.system or '—'}{pj}{flags}{ctx}"
        )
        unit = c.current_unit()
        mode = "BLIND · " if c.blind else ""
        k = c.keys_text
        if c.ais_mode:
            question = question_text(b.output.context)
            if c.ais_stage == 1 and question is not None:
                # As the AIS study asks it for QA: the answer is read with its question.
                q = (
                    "AIS 1/2: Read with its question, is the answer interpretable on its own? "
                    f"(source hidden)\nQuestion: {question}"
                )
                ans = f"{k['accept']} yes · {k['reject']} no"
            elif c.ais_stage == 1:
                q = "AIS 1/2: Is the output interpretable on its own? (source hidden)"
                ans = f"{k['accept']} yes · {k['reject']} no"
            else:
                q = "AIS 2/2: Is everything in the output supported by the source?"
                ans = f"{k['accept']} supported · {k['reject']} not supported"
            self.prompt.setText(f"{mode}{q}")
            self.keys_hint.set_full_text(
                f"{ans} · {k['flag']} flag malformed · {k['skip']} skip · "
                f"{k['ais']} leave AIS mode · F1 all keys"
            )
            return
        if unit is None:
            what = "no non-entailed arcs here" if c.level == "arc" else "nothing to judge"
            self.prompt.setText(f"{mode}{c.level} level: {what}")
            self.keys_hint.set_full_text(
                f"{k['level']} change level · {k['next_pair']}/{k['prev_pair']} pair · F1 all keys"
            )
            return
        current = c.judg.get((unit.key.target_key, "support"))
        done = (
            f" — judged {current.label}"
            + (f" ({current.error_type})" if current and current.error_type else "")
            if current
            else ""
        )
        score = "" if unit.score is None or c.blind else f" · model {unit.score:.2f}"
        clash = (
            ""
            if c.hides_model or unit.key.target != "sentence" or unit.key.sentence_id is None
            else f" · {CONFLICT_GLYPH} conflict with the source (question-based check)"
            if c.sentence_conflicts(unit.key.sentence_id)
            else ""
        )
        self.prompt.setText(f"{mode}Judging {unit.title}{score}{clash}{done}")
        self.keys_hint.set_full_text(
            f"{k['accept']} supported · {k['reject']} unsupported · 1–9 error type · "
            f"{k['relabel']} relabel+note · {k['skip']} skip · {k['flag']} flag · "
            f"{k['next']}/{k['prev']} item · {k['next_pair']}/{k['prev_pair']} pair · "
            f"{k['level']} level ({c.level}) · F1 all keys"
        )
