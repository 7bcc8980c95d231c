"""Analysis says what it is doing from the first batch on, not only when a chunk is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.analysis import analyze
from app.demo import prepare_demo
from app.io.importer import import_file
from app.store import Project
from models.checkers.lexical import LexicalArcChecker


def test_steps_name_the_stage_and_come_before_the_chunk_is_stored(
    project: Project, pairs_file: Path
) -> None:
    import_file(project, pairs_file)
    events: list[tuple[str, int, int]] = []
    analyze(
        project,
        [LexicalArcChecker()],
        chunk_size=2,
        step=lambda what, done, total: events.append((what, done, total)),
        on_chunk=lambda ids: events.append(("stored", len(ids), 0)),
    )
    first_store = events.index(("stored", 2, 0))
    before = events[:first_store]
    assert ("Parsing", 0, 3) == before[0]  # said before the first text is parsed
    assert ("Parsing", 2, 3) in before
    assert ("Scoring with lexical", 0, 3) in before and ("Scoring with lexical", 2, 3) in before
    assert ("Saving", 2, 3) in before
    # The second chunk counts on from the first.
    after = events[first_store + 1 :]
    assert ("Parsing", 2, 3) == after[0] and ("Saving", 3, 3) in after
    assert all(what and total == 3 for what, _done, total in events if what != "stored")


def test_the_demo_says_what_it_does_from_the_start(tmp_path: Path) -> None:
    events: list[tuple[str, int, int]] = []
    prepare_demo(
        tmp_path / "demo.factdesk",
        checkers=("lexical",),
        step=lambda what, done, total: events.append((what, done, total)),
    )
    stages = list(dict.fromkeys(what for what, _d, _t in events))
    assert stages == [
        "Loading the models",
        "Importing the demo pairs",
        "Parsing",
        "Scoring with lexical",
        "Saving",
    ]
    parsing = [done for what, done, total in events if what == "Parsing" and total == 32]
    assert parsing[0] == 0 and 0 < parsing[1] < 32  # progress inside the one chunk of 32


def test_the_terminal_bar_counts_models_while_loading_and_pairs_after(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The command line's progress bar reads "model/s" while the models load (it once said
    "pair/s" of six models) and "pair/s" from the first stage that counts pairs."""
    from app.analysis import LOADING
    from app.cli import _bar

    update, close = _bar("analysing")
    update(1, 6, LOADING)
    loading = capsys.readouterr().err.rsplit("\r", 1)[-1]
    update(3, 32, "Parsing")
    parsing = capsys.readouterr().err.rsplit("\r", 1)[-1]
    close()
    assert "1/6" in loading and "model" in loading and "pair" not in loading
    assert "3/32" in parsing and "pair" in parsing and "model" not in parsing


def test_the_analyze_command_names_each_stage_before_the_chunk_is_stored(
    tmp_path: Path, pairs_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``factdesk analyze`` shows what it is doing from the first pair on (it once stood at 0
    until a whole chunk was scored and stored: minutes for 32 pairs with the MPNet model)."""
    from app.cli import main

    proj = str(tmp_path / "steps.factdesk")
    assert main(["new", proj]) == 0 and main(["import", proj, str(pairs_file)]) == 0
    capsys.readouterr()
    assert main(["analyze", proj, "--checker", "lexical"]) == 0
    err = capsys.readouterr().err
    assert "analysing: Parsing" in err and "analysing: Scoring with lexical" in err
    assert err.index("analysing: Parsing") < err.index("analysing: Saving")
