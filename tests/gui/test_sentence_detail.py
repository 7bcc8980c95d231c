"""The pair view shows what the shown checker found in the sentence under the keyboard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.analysis import analyze
from app.gui.main import MainWindow
from app.io.importer import import_file
from app.item_models import COL_LOWEST
from app.settings import Settings
from app.store import Project
from app.store.findings import finding_lines
from tests.app.test_sentence_detail import FOUND, FakeQuestions
from tests.conftest import GERMAN_PAIR, PAIRS, write_jsonl

#: Markup in data must show as the characters it is made of.
MARKUP = "\nQ: <b>what</b> did it cost? output: <img src=x> · source: four million euros ✗"


@pytest.fixture
def detailed(qtbot, settings: Settings, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    """A window on one pair whose first sentence the fake question-based check explained."""
    path = tmp_path / "q.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "pairs.jsonl", [PAIRS[1]]))
        analyze(p, [FakeQuestions({0: FOUND + MARKUP})])
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    w.output_view.setFocus()
    yield w
    w.close()


def test_the_current_sentences_detail_is_shown_as_plain_text(detailed: MainWindow) -> None:
    w = detailed
    finding = w.view.finding
    assert w.judging.checker_label == "question-based check" and w.judging.unit == 0
    assert finding.isVisible()  # seen without hovering
    assert finding.textFormat() == Qt.TextFormat.PlainText
    # each question as asked, with what the output and the source say (issue 25, item 8)
    lines = finding_lines(FOUND + MARKUP)
    assert finding.text() == "question-based check on sentence 1:\n" + "\n".join(lines)
    assert "the source says <img src=x>" not in finding.text()  # markup is text, as it is
    assert "the output says <img src=x>, the source says four million euros" in finding.text()
    # the sentence's tooltip says it too
    text = w.output_view.toPlainText()
    tip = w.output_view.tooltip_at(text.index("▶") + 4)
    assert "question-based check: support 0.20" in tip and lines[0] in tip

    w.judging.do("next")  # sentence 2: the check found nothing to say
    assert w.judging.unit == 1 and not finding.isVisible() and finding.text() == ""
    w.judging.do("prev")
    assert finding.isVisible() and "on sentence 1:" in finding.text()


def test_blind_mode_hides_the_detail(detailed: MainWindow) -> None:
    w = detailed
    assert w.view.finding.isVisible()
    w.judging.do("blind")
    assert w.judging.blind and not w.view.finding.isVisible()
    w.judging.do("blind")
    assert w.view.finding.isVisible()


class Explains(FakeQuestions):
    """Another checker with words for a sentence it does not flag."""

    name = "explains"
    display_name = "explaining check"


def test_another_checkers_words_show_where_it_flags_the_sentence(
    qtbot,  # type: ignore[no-untyped-def]
    settings: Settings,
    tmp_path: Path,
) -> None:
    """With the lexical baseline shown, the question-based check's conflict on sentence 1 is
    shown too (it flags it); another check's words on sentence 2, which it does not flag, are
    not."""
    from models.checkers.lexical import LexicalArcChecker

    path = tmp_path / "two.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "pairs.jsonl", [PAIRS[1]]))
        analyze(p, [FakeQuestions({0: FOUND}), Explains({1: "all answered ✓"}, low=0.9)])
        analyze(p, [LexicalArcChecker()])
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    w.checker_box.setCurrentIndex(w.checker_box.findData("lexical"))
    w.output_view.setFocus()
    assert w.judging.checker == "lexical" and w.judging.unit == 0
    assert w.view.finding.isVisible()
    assert (
        w.view.finding.text()
        == "question-based check (flags it at 0.20) on sentence 1:\n"
        + "\n".join(finding_lines(FOUND))
    )
    w.judging.do("next")
    assert not w.view.finding.isVisible()
    w.close()


def test_a_pair_left_unscored_says_why_on_its_sentences(
    qtbot, settings: Settings, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """A pair analysis left out whole (its source is German) shows its sentences as not
    checked, with the reason, not as never analysed."""
    from models.checkers.lexical import LexicalArcChecker

    path = tmp_path / "de.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "de.jsonl", [GERMAN_PAIR]))
        analyze(p, [LexicalArcChecker()])
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    w.output_view.setFocus()
    why = "not checked: the source reads as German, not English: the models read English only"
    assert w.view.finding.isVisible() and why in w.view.finding.text()
    sid = w.judging.bundle.sentences[0].id
    state, score, tip = w.judging.sentence_state(sid)
    assert (state, score) == ("not_checked", None) and tip == why
    # the pair list's lowest-score cell says why too, not "not analysed"
    cell = w.proxy.index(0, COL_LOWEST)
    assert cell.data() == "—" and cell.data(Qt.ItemDataRole.ToolTipRole) == why
    w.close()
