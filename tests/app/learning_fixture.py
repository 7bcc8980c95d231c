"""A small analysed project for the learning tests: synthetic pairs scored by fake components.

Each pair's output is one sentence naming its number; the fake component checkers read the
number and give fixed, known scores, and the real combined score (the bundled combiner's
weights) combines them. The "editor" supports a pair exactly when its alignment score is high,
whatever the other signals say, so an adapted model must move towards alignment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from app.analysis import analyze
from app.io.importer import import_file
from app.store import Project
from app.store.judging import JudgmentKey, JudgmentValue
from models.checkers.base import ArcScore, PairInput, PairScore, SentenceScore, pair_score
from models.checkers.combined import CombinedChecker, load_combiner
from models.checkers.lexical import LexicalArcChecker

N_PAIRS = 40
SOURCE = "The town council met on Monday. It discussed the new library and the bus station."


def values(k: int) -> dict[str, float]:
    return {
        "dae": 0.15 + 0.7 * (k % 10) / 9,
        "support": 0.3 + 0.4 * ((k * 3) % 7) / 6,
        "align": 0.9 - 0.8 * ((k * 7) % 10) / 9,
        "lexical": 0.5,
        "nli": 0.2 + 0.6 * ((k * 5) % 8) / 7,
        "questions": 1.0,  # every question answered as the output has it: no conflict
    }


def editor_supports(k: int) -> bool:
    return values(k)["align"] > 0.5


class Fake:
    """A component checker that reads the pair number from the output and returns its value."""

    grain = "arc"

    def __init__(self, name: str, version: str) -> None:
        self.name, self.version, self.display_name = name, version, f"fake {name}"

    def score(self, batch: Sequence[PairInput], **_: object) -> list[PairScore]:
        out = []
        for item in batch:
            k = int(re.findall(r"\d+", item.output.text)[0])
            v = values(k)[self.name]
            sentences = [SentenceScore(s.index, v, v, (0,), 0, None) for s in item.output.sentences]
            arcs = [
                ArcScore(s.index, a, v) for s in item.output.sentences for a in range(len(s.arcs))
            ]
            out.append(pair_score(item.key, self, sentences, arcs))  # type: ignore[arg-type]
        return out


def components() -> dict[str, Fake]:
    # lexical's version is the real one: projects never store lexical scores (see adapt).
    return {
        "dae": Fake("dae", "fd1"),
        "support": Fake("support", "fs1"),
        "align": Fake("align", "fa1"),
        "lexical": Fake("lexical", LexicalArcChecker.version),
        "nli": Fake("nli", "fn1"),
        "questions": Fake("questions", "fq1"),
    }


def checkers() -> list:
    parts = components()
    combined = CombinedChecker(load_combiner(), parts)
    return [parts[n] for n in ("dae", "support", "align", "nli", "questions")] + [combined]


def build(
    path: Path, *, pairs: int = N_PAIRS, judge: int = N_PAIRS, blind_every: int = 3
) -> Project:
    """Create, import, analyse and judge (pair level, the first ``judge`` pairs).

    Also the benchmarks' project (``pairs`` > 40): same scores every 10 pairs, distinct texts.
    """
    src = path.with_suffix(".jsonl")
    src.write_text(
        "".join(
            json.dumps({"id": f"q{k}", "source": SOURCE, "output": f"Item {k} was discussed."})
            + "\n"
            for k in range(pairs)
        ),
        encoding="utf-8",
    )
    project = Project.create(path)
    import_file(project, src)
    analyze(project, checkers(), chunk_size=256)
    for oid in project.output_ids()[:judge]:
        k = oid - 1
        yes = editor_supports(k)
        project.judge(
            JudgmentKey(oid, "pair"),
            JudgmentValue(
                "supported" if yes else "unsupported",
                "accept" if yes else "reject",
                model_visible=k % blind_every != 0,
            ),
        )
    return project
