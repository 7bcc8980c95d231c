"""Issue 25, items 7 and 8: a question-check conflict is marked as plainly as an unsupported
sentence, on the pair and in the list, and its words say what was asked and what each side says."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCharFormat, QTextCursor

from app.analysis import analyze
from app.gui.main import MainWindow
from app.io.importer import import_file
from app.item_models import COL_CONFLICTS, HIDDEN
from app.settings import Settings
from app.store import Project
from models.checkers.base import Grain, PairInput, PairScore, SentenceScore, pair_score
from models.checkers.questions import QuestionChecker
from tests.conftest import write_jsonl

SOURCE = (
    "Construction began in 1893, and the Carrow Street Library opened on 12 October 1896 "
    "with 4,000 books."
)
CONFLICTING = "The Carrow Street Library first opened on 12 October 1893. It held 4,000 books."
AGREEING = "The Carrow Street Library opened on 12 October 1896. It held 4,000 books."


class Steady:
    """A sentence checker that finds every sentence supported (0.77), as the combined score
    found demo-04's first sentence."""

    name = "steady"
    version = "s1"
    display_name = "steady check"
    grain: Grain = "sentence"

    def score(self, batch: Sequence[PairInput], **_: Any) -> list[PairScore]:
        return [
            pair_score(
                item.key, self, [SentenceScore(s.index, 0.77) for s in item.output.sentences]
            )  # type: ignore[arg-type]
            for item in batch
        ]


@pytest.fixture(scope="module")
def conflicted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("conflict")
    path = tmp / "c.factdesk"
    pairs = [
        {"id": "conflict", "source": SOURCE, "output": CONFLICTING},
        {"id": "agrees", "source": SOURCE, "output": AGREEING},
    ]
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp / "pairs.jsonl", pairs))
        analyze(p, [QuestionChecker()])
        analyze(p, [Steady()])
    return path


@pytest.fixture
def win(qtbot, settings: Settings, conflicted: Path, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    import shutil

    path = tmp_path / "c.factdesk"
    shutil.copy(conflicted, path)
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    w.checker_box.setCurrentIndex(w.checker_box.findData("steady"))
    w.session.select_pair(w.session.project.output_ids()[0])  # type: ignore[union-attr]
    w.output_view.setFocus()
    yield w
    w.close()


def fmt_at(w: MainWindow, text: str) -> QTextCharFormat:
    """The character format in the output pane at the middle of the first ``text``."""
    plain = w.output_view.toPlainText()
    cursor = QTextCursor(w.output_view.document())
    cursor.setPosition(plain.index(text) + len(text) // 2)
    return cursor.charFormat()


def test_a_conflict_is_marked_with_colour_pattern_and_words(win: MainWindow) -> None:
    w = win
    assert w.judging.checker == "steady" and w.judging.unit == 0
    plain = w.output_view.toPlainText()
    assert "⚠ conflict" in plain  # its own glyph and word, beside the shown checker's ✔
    assert plain.index("⚠ conflict") < plain.index("12 October 1893")
    badge = fmt_at(w, "⚠ conflict")
    assert badge.background().color().red() > 150 and badge.fontWeight() >= 700
    answer = fmt_at(w, "1893")  # the conflicting answer itself
    assert answer.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
    assert answer.background().color().red() > 150 and answer.fontWeight() >= 700
    tip = answer.toolTip()
    assert "the output says 12 October 1893" in tip and "the source says 12 October 1896" in tip
    # in words under the prompt, whichever checker is shown
    assert w.view.finding.isVisible()
    assert "the output says 12 October 1893, the source says 12 October 1896" in (
        w.view.finding.text()
    )
    assert "conflict" in w.prompt.text()
    assert w.view.finding.property("conflict") is True  # the theme draws a red rule beside it
    # the agreeing sentence is not marked
    assert plain.count("⚠ conflict") == 1


def test_blind_mode_hides_the_conflict(win: MainWindow) -> None:
    w = win
    w.judging.set_blind(True)
    assert "⚠" not in w.output_view.toPlainText() and not w.view.finding.isVisible()
    assert "conflict" not in w.prompt.text()
    cell = w.proxy.index(0, COL_CONFLICTS)
    assert cell.data() == HIDDEN and cell.data(Qt.ItemDataRole.BackgroundRole) is None
    assert "12 October" not in cell.data(Qt.ItemDataRole.ToolTipRole)


def test_the_pair_list_counts_conflicts_whichever_checker_is_shown(win: MainWindow) -> None:
    w = win
    assert w.model.headerData(COL_CONFLICTS, Qt.Orientation.Horizontal) == "⚠"
    rows = {w.proxy.index(r, 0).data(): r for r in range(w.proxy.rowCount())}
    assert w.proxy.index(rows["conflict"], COL_CONFLICTS).data() == "⚠ 1"
    assert w.proxy.index(rows["agrees"], COL_CONFLICTS).data() == ""
    tip = w.proxy.index(rows["conflict"], COL_CONFLICTS).data(Qt.ItemDataRole.ToolTipRole)
    assert "12 October 1893" in tip and "12 October 1896" in tip
    w.checker_box.setCurrentIndex(w.checker_box.findData("questions"))
    rows = {w.proxy.index(r, 0).data(): r for r in range(w.proxy.rowCount())}
    assert w.proxy.index(rows["conflict"], COL_CONFLICTS).data() == "⚠ 1"
    # sorting by the column puts the conflicts first
    w.table.sortByColumn(COL_CONFLICTS, Qt.SortOrder.DescendingOrder)
    assert w.proxy.index(0, 0).data() == "conflict"


def test_question_lines_say_what_was_asked_and_what_each_side_says(win: MainWindow) -> None:
    w = win
    text = w.view.finding.text()
    assert "no answer" not in text and "not in this role" not in text and " ?" not in text
    lines = text.splitlines()
    # the shown score passes the sentence: the flag beside it says so, with both scores
    assert lines[0] == (
        "question-based check (flags it at 0.00; steady check passes it at 0.77) on sentence 1:"
    )
    assert lines[1].startswith("✗ Asked “")
    assert lines[2].startswith("✓ Asked “") and "the output and the source say" in lines[2]


def test_the_demo_04_detail_reads_plainly() -> None:
    """demo-04's first sentence as the bundled question check words it."""
    from app.store.findings import finding_lines

    detail = (
        "Q: … Carrow Street Library first opened on [when], with a collection … output: "
        "12 October 1893 · source: 12 October 1896 (in “Construction began in 1893, and the "
        "…”) ✗\nQ: The [who/what] first opened on 12 October 1893 … output: Carrow Street "
        "Library · source: no answer (Carrow Street Library in the source, not in this role) ?\n"
        "Q: … collection of just over [how many] books. output: 4,000 · source: 4,000 (in "
        "“Construction began in 1893, and the …”) ✓\nQ: … voted [how many] to build … output: "
        "six to three · source: no answer (six to three not stated in the source; it may follow "
        "from its figures) ?\nQ: [who/what] signed it. output: Lars Quist · source: no answer "
        "(Lars Quist nowhere in the source) ?"
    )
    assert finding_lines(detail) == [
        "✗ Asked “… Carrow Street Library first opened on [when], with a collection …”: the "
        "output says 12 October 1893, the source says 12 October 1896 (in “Construction began "
        "in 1893, and the …”)",
        "✓ Asked “… collection of just over [how many] books.”: the output and the source say "
        "4,000 (in “Construction began in 1893, and the …”)",
        "In the source, but not found in the role the output gives it: Carrow Street Library",
        "Not stated in the source (it may follow from its figures): six to three",
        "Nowhere in the source: Lars Quist",
    ]


def test_the_next_most_useful_order_counts_a_conflict_as_a_likely_error(win: MainWindow) -> None:
    from app.learning.queue import queue

    w = win
    assert w.session.project is not None
    items = queue(w.session.project, "steady", "s1", 0.5)  # the shown checker finds nothing wrong
    assert items[0].output_id == w.session.project.output_ids()[0]
    assert items[0].priority > items[1].priority  # not import order: the conflict counts
    assert "the source answers otherwise in 1 sentence" in items[0].reason
    assert "answers otherwise" not in items[1].reason
