"""A pair's scores do not depend on what else is analysed with it (issue 27, item 7)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import select

from app.io.importer import import_file
from app.paths import demo_pairs_file
from app.store import Project
from app.store.schema import Output, PairScoreRow, SentenceRow, SentenceScoreRow
from models.registry import default_checkers

ROOT = Path(__file__).resolve().parents[2]


def stored_scores(path: Path) -> dict[tuple[str, str, int], float | None]:
    """Every stored pair score (sentence -1) and sentence score, by (checker, pair, sentence)."""
    with Project.open(path) as project, project.session() as s:
        pairs = s.execute(
            select(PairScoreRow.checker, Output.external_id, PairScoreRow.score).join(
                Output, Output.id == PairScoreRow.output_id
            )
        )
        sentences = s.execute(
            select(
                SentenceScoreRow.checker,
                Output.external_id,
                SentenceRow.idx,
                SentenceScoreRow.score,
            )
            .join(SentenceRow, SentenceRow.id == SentenceScoreRow.sentence_id)
            .join(Output, Output.id == SentenceRow.output_id)
        )
        out = {(c, pair, -1): score for c, pair, score in pairs}
        out.update({(c, pair, idx): score for c, pair, idx, score in sentences})
    return out


def analysed_demo(path: Path, shard_size: int) -> dict[tuple[str, str, int], float | None]:
    """The demo imported into a new project and analysed by the command line in its own process
    (no model cache shared with the other analysis), ``shard_size`` pairs at a time."""
    with Project.create(path) as project:
        import_file(project, demo_pairs_file())
    checkers: list[str] = []
    for name in [*default_checkers(), "grounding"]:  # grounding: the arc model's second pass
        checkers += ["--checker", name]
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "analyze", str(path), *checkers]
        + ["--shard-size", str(shard_size), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return stored_scores(path)


def apart(a: float | None, b: float | None) -> bool:
    """Two stored scores differ by more than 0.01 (or only one of them is there)."""
    if a is None or b is None:
        return (a is None) != (b is None)
    return abs(a - b) > 0.01


def test_the_demo_scores_the_same_whole_and_two_pairs_at_a_time(tmp_path: Path) -> None:
    whole = analysed_demo(tmp_path / "whole.factdesk", shard_size=1000)
    in_twos = analysed_demo(tmp_path / "twos.factdesk", shard_size=2)
    assert whole.keys() == in_twos.keys()
    assert len({pair for _, pair, _ in whole}) == 32
    moved = {key: (a, in_twos[key]) for key, a in whole.items() if apart(a, in_twos[key])}
    by_checker = Counter(checker for checker, _, _ in moved)
    assert not moved, f"{len(moved)} of {len(whole)} scores moved ({dict(by_checker)}): " + str(
        sorted(moved.items())[:5]
    )
