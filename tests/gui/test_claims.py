"""A QA pair in the window: the question and answer as one claim, and AIS stage one with it."""

from __future__ import annotations

from pathlib import Path

from app.gui.claims import header_lines


def _qa_project(tmp_path: Path) -> Path:
    from app.io.importer import import_file
    from app.store import Project
    from tests.conftest import write_jsonl

    records = [
        {
            "id": "qa-1",
            "source": "Only vehicles have to be booked ahead. Foot passengers buy tickets on the day.",
            "output": "No. Only vehicles have to be booked ahead.",
            "question": "Do foot passengers need to book the ferry in advance?",
        },
        {"id": "plain", "source": "The ferry sails daily.", "output": "The ferry sails daily."},
    ]
    path = tmp_path / "qa.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "qa.jsonl", records))
    return path


def _ids(project) -> dict[str, int]:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from app.store.schema import Output

    with project.session() as s:
        return {e: i for e, i in s.execute(select(Output.external_id, Output.id))}


def test_header_lines_show_question_answer_and_claims() -> None:
    lines = header_lines("Question: Is it open?", "No.", ("It is not open.",))
    assert lines == ["Q: Is it open? — A: No.", "Claim checked: It is not open."]
    assert header_lines(None, "No.", None) == []
    assert "reading the answer" in header_lines("Is it open?", "No.", None)[1]
    assert "stands on its own" in header_lines("Is it open?", "It is open.", ())[1]


def test_window_shows_the_claim_and_asks_ais_stage_one_with_the_question(  # type: ignore[no-untyped-def]
    qtbot, settings, tmp_path: Path
) -> None:
    from app.gui.main import MainWindow

    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(_qa_project(tmp_path))
    ids = _ids(w.session.project)
    w.session.show_pair(ids["qa-1"])
    header = w.view.header
    assert "Q: Do foot passengers need to book the ferry in advance? — A: No. Only" in header.text()
    qtbot.waitUntil(
        lambda: (
            "Claim checked: Foot passengers do not need to book the ferry in advance."
            in header.text()
        ),
        timeout=30000,
    )
    w.judging.do("ais")
    prompt = w.view.prompt.text()
    assert "Read with its question" in prompt
    assert "Question: Do foot passengers need to book the ferry in advance?" in prompt
    # A pair without a question keeps the plain header and the plain AIS question.
    w.session.show_pair(ids["plain"])
    assert "Q:" not in header.text() and "Claim" not in header.text()
    assert "Is the output interpretable on its own?" in w.view.prompt.text()
    w.close()
