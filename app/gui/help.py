"""The Help menu's guide and About box.

The guide is text written here (rich text: headings and tables), with the judging keys the
editor has now; the About box is plain text read at run time from the app's version, the
bundled models' configs and the model card (:mod:`models.bundle_info`), so it stays true when
the models change.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

import app
from app.gui.keys import DESCRIPTIONS

if TYPE_CHECKING:
    from app.gui.host import PanelHost

#: The guide's sections after the keys, in the order shown (written here, not data).
GUIDE_SECTIONS = """
<h3>What the marks mean</h3>
<table cellpadding="3">
<tr><td><b>✔</b></td><td>The output sentence is supported by the source (score at or above the
threshold; the score is in the tooltip).</td></tr>
<tr><td><b>✗</b> red wavy underline</td><td>Not supported: the score is below the threshold.
</td></tr>
<tr><td><b>?</b> grey dotted italic</td><td>Not checked (no content arcs, or too long for the
model); the tooltip says why.</td></tr>
<tr><td>purple underline, numbered</td><td>A dependency arc (head → child) the model finds not
entailed by the source. The arc diagram under the texts draws the selected sentence's arcs: red
dashed = not entailed; solid with a filled label = judged by you (green ✔ entailed, dark red ✘
not).</td></tr>
<tr><td><b>▸1 ▸2 ▸3</b> in the source</td><td>The three source sentences that best match the
selected output sentence, ▸1 the best (stronger yellow, solid underline).</td></tr>
<tr><td>lines under the prompt</td><td>What a checker found in words. A question-based check
line asks the output's names and figures of the source ("output: 1893 · source: 1896 ✗"): a ✗
there is a conflict between the two texts — check it.</td></tr>
<tr><td>list icons</td><td>Unjudged, in progress, done, flagged. <i>Lowest</i> is the pair's
lowest sentence score, <i>Arcs</i> its number of non-entailed arcs.</td></tr>
</table>
<p>Every mark is shown by a symbol or pattern as well as a colour.</p>

<h3>Blind review</h3>
<p>Blind mode (B) hides every model mark: sentence and arc marks, scores, the list's
<i>Lowest</i> and <i>Arcs</i> columns and the orders and filters that use them. Judge first,
then turn it off to compare. Each judgment records whether the marks were visible.</p>

<h3>AIS two-stage mode</h3>
<p>AIS mode (I) follows the Attributable to Identified Sources protocol. Stage one hides the
source and the scores and asks: is the output interpretable on its own? (accept = yes, reject =
no; "no" finishes the pair.) Stage two shows the source and asks: is all of it supported? F
flags a malformed item. For an answer with a question, stage one shows the question, and the
header shows question and answer as one claim.</p>

<h3>Adjudication</h3>
<p>When several reviewers judged the same pairs (File ▸ Merge judgments from…), Review ▸
Adjudication mode shows each reviewer's decision and note side by side and keeps the pairs
they disagree on. Your decision there is the final label (undoable); exports and statistics use
it, and keep every reviewer's judgment beside it.</p>

<h3>Learning from your judgments</h3>
<p>Analysis ▸ Calibrate threshold and Adapt to my judgments fit the threshold and the combined
score to your decisions on this project; see Help ▸ Calibration and adaptation.</p>

<h3>Bringing pairs in</h3>
<p><b>File ▸ Add a pair</b> (Ctrl+Shift+N): paste a source and an output, load each from a file
or drop its file on the box — plain text, a Word (.docx) or OpenDocument (.odt) document, or a
web page saved as HTML (its article is read). The pair is shown and analysed at once. <b>File ▸
Import pairs</b> (Ctrl+I) reads many pairs from JSONL, CSV or TSV, and lists every record it
cannot use before anything is imported. <b>Edit ▸ Remove pair</b> takes out the pair shown, if
it was added by mistake; a pair with judgments is never removed. From a terminal,
<tt>factdesk check ARTICLE DRAFT</tt> prints the marks of one pair without a project; given
several drafts of the article, it checks each and ranks them.</p>

<h3>Export formats (File ▸ Export)</h3>
<table cellpadding="3">
<tr><td><b>jsonl</b></td><td>Everything: pairs, sentences, arcs, every checker's scores and
evidence, every judgment and the final labels. Imports back without loss.</td></tr>
<tr><td><b>csv</b></td><td>One row per output sentence: each checker's score and detail, your
judgment and the final label.</td></tr>
<tr><td><b>dae-arcs</b></td><td>The DAE arc training format: one line per judged sentence with
its arcs and their labels, to train arc models on your judgments.</td></tr>
<tr><td><b>frank</b></td><td>FRANK-style: per output sentence, its error categories (EntE,
RelE, CircE, … or NoE).</td></tr>
<tr><td><b>xsumfaith</b></td><td>XSumFaith-style: hallucinated spans with character offsets into
the output.</td></tr>
</table>
<p>frank and xsumfaith take your final labels first and the model's marks where nobody judged;
each record says which. File ▸ Export report writes the audit as one HTML file.</p>
"""

#: Keys the guide lists beside the remappable ones (fixed in the window).
FIXED_KEYS = (
    ("1–9", "reject with error type n"),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo"),
    ("Esc", "leave a text field (search, threshold)"),
)


def guide_html(keys: dict[str, str]) -> str:
    """The guide as rich text, with the judging keys as they are mapped now."""
    rows = [
        f"<tr><td><b>{html.escape(keys[action])}</b></td><td>{html.escape(text)}</td></tr>"
        for action, text in DESCRIPTIONS.items()
        if keys.get(action)
    ]
    rows += [
        f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(t)}</td></tr>" for k, t in FIXED_KEYS
    ]
    return (
        "<h2>FactDesk guide</h2>"
        "<p>FactDesk marks what the source does not support in machine-written text; you accept,"
        " reject or relabel each mark, and export the result.</p>"
        "<h3>Keys</h3><p>They judge wherever focus is, except in a text field. Review ▸"
        " Keyboard shortcuts (F1) remaps them.</p>"
        f'<table cellpadding="2">{"".join(rows)}</table>' + GUIDE_SECTIONS
    )


def about_text(folder: Path | None = None) -> str:
    """The About box: app version, each bundled model's version, the card's headline figures.

    Args:
        folder: the models folder; the bundled one when None.
    """
    from models.bundle_info import bundled_models, card_text, headline_figures

    lines = [f"FactDesk {app.__version__}", "", "Bundled models (resources/models):"]
    models = bundled_models(folder)
    if models:
        rows = [["model", "version", "what it does"]]
        rows += [[m.name, m.version, m.role] for m in models]
        lines += _columns(rows)
        bases = sorted({m.base.split(" (")[0] for m in models if m.base})
        lines += [f"  base encoder: {b}" for b in bases]
    else:
        lines.append("  none found (only the lexical baseline and the question-based check run)")
    card = card_text(folder)
    figures = None if card is None else headline_figures(card)
    lines.append("")
    if figures is None:
        lines.append("Model card: no quality table found.")
    else:
        when = f", measured {figures.measured}" if figures.measured else ""
        lines.append(f"Quality on held-out data (model card{when}):")
        lines += _columns(
            [["checker", *figures.columns], *([name, *values] for name, values in figures.rows)]
        )
        lines.append("Ranking: faithful output above unfaithful output of the same source (%);")
        lines.append("BA: balanced accuracy (%); full figures in resources/models/MODEL_CARD.md.")
    return "\n".join(lines)


def _columns(rows: list[list[str]]) -> list[str]:
    """Rows as lines of aligned columns (the About box uses a fixed-width font)."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


class GuideDialog(QDialog):
    """The guide (rich text written by us)."""

    def __init__(self, keys: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("FactDesk guide")
        self.resize(720, 640)
        self.browser = QTextBrowser()
        self.browser.setAccessibleName("Guide")
        self.browser.setOpenLinks(False)
        self.browser.setHtml(guide_html(keys))
        _layout(self, self.browser)


class AboutDialog(QDialog):
    """Version, bundled models and their figures (plain text: versions and names are data)."""

    def __init__(self, folder: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About FactDesk")
        text = about_text(folder)
        self.text = QPlainTextEdit(text)
        self.text.setAccessibleName("About FactDesk")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font: QFont = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.text.setFont(font)
        _layout(self, self.text)
        screen = self.screen() or QGuiApplication.primaryScreen()
        self.resize(fitting(text, font, screen.availableGeometry() if screen else None))


def fitting(text: str, font: QFont, room: QRect | None) -> QSize:
    """A size that shows every line of ``text`` whole, without scrolling, where the screen's
    free area ``room`` allows (at most 90% of its width and 85% of its height; at least
    760 × 420)."""
    metrics = QFontMetrics(font)
    lines = text.splitlines() or [""]
    # the text's margins, the frame, a scroll bar's width and the button row
    width = max(metrics.horizontalAdvance(line) for line in lines) + 60
    height = metrics.lineSpacing() * (len(lines) + 1) + 90
    if room is not None:
        width = min(width, int(room.width() * 0.9))
        height = min(height, int(room.height() * 0.85))
    return QSize(max(width, 760), max(height, 420))


def _layout(dialog: QDialog, body: QWidget) -> None:
    lay = QVBoxLayout(dialog)
    lay.addWidget(body, 1)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    lay.addWidget(buttons)


_D = TypeVar("_D", bound=QDialog)


class HelpMenu:
    """The Help menu's slots: guide and About open as windows beside the review."""

    def __init__(self, window: PanelHost) -> None:
        self.w = window
        self.dialog: QDialog | None = None  # the last one opened (tests read it)

    def slots(self) -> dict[str, Callable[[], object]]:
        return {"guide": self.show_guide, "about": self.show_about}

    def show_guide(self) -> GuideDialog:
        return self._open(GuideDialog(self.w.judging.keys_text, self.w.window()))

    def show_about(self) -> AboutDialog:
        return self._open(AboutDialog(parent=self.w.window()))

    def _open(self, dialog: _D) -> _D:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()  # not modal: the guide can stay open beside the pair
        dialog.raise_()
        self.dialog = dialog
        return dialog
