"""A sentence the shown checker did not check says why under the prompt, as `check` prints it."""

from __future__ import annotations

from pathlib import Path

from app.analysis import analyze
from app.gui.main import MainWindow
from app.io.importer import import_file
from app.store import Project
from models.registry import load_checker
from tests.conftest import write_jsonl

SOURCE = (
    "The Carrow museum will reopen in March after two years of building work. Visitors will "
    "find a new wing devoted to the painting of the region."
)
OUTPUT = (
    "The museum reopens in March after two years of building work.\nLe musée rouvre en mars "
    "après deux ans de travaux, et les visiteurs pourront découvrir une nouvelle aile consacrée "
    "à la peinture de la région."
)


def test_the_reason_a_sentence_was_not_checked_is_under_the_prompt(
    qtbot, settings, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mixed.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "m.jsonl", [{"source": SOURCE, "output": OUTPUT}]))
        analyze(p, [load_checker("lexical")])
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    assert "Judging sentence 1 of 2" in w.prompt.text()
    assert not w.view.finding.isVisible()  # the English sentence: read, nothing to say
    w.judging.next_item()
    assert "Judging sentence 2 of 2" in w.prompt.text()  # a stop: the editor judges it
    assert w.view.finding.isVisible()
    assert "not checked: it reads as French, not English" in w.view.finding.text()
    w.close()
