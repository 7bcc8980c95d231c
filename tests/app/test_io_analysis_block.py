"""FactDesk-format records: the whole analysis block is checked before anything is written
(issue 13, item 7). A malformed block refuses the file with line and field, or with
--skip-invalid skips that record and lists it; never a traceback, never stored half-checked.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.io.exporter import export
from app.io.importer import import_file
from app.store import Project
from models.errors import InputError

SOURCE = "The mayor of Paris opened the new bridge on Tuesday. It cost four million euros."
OUTPUT = "The mayor of Lyon closed the bridge. It cost four million euros."


def record(pid: str = "r1") -> dict[str, Any]:
    """A valid record as FactDesk exports it: two sentences, arcs, scores and judgments."""
    return {
        "id": pid,
        "source": SOURCE,
        "output": OUTPUT,
        "system": f"system-{pid}",
        "sentences": [
            {"index": 0, "start": 0, "end": 36, "text": OUTPUT[0:36]},
            {"index": 1, "start": 37, "end": 64, "text": OUTPUT[37:64]},
        ],
        "source_sentences": [[0, 52], [53, 80]],
        "arcs": [
            {
                "sentence": 0,
                "index": 0,
                "label": "nsubj",
                "head": 4,
                "child": 1,
                "head_span": [18, 24],
                "child_span": [4, 9],
                "head_text": "closed",
                "child_text": "mayor",
            },
            {
                "sentence": 1,
                "index": 0,
                "label": "dobj",
                "head": 1,
                "child": 4,
                "head_span": [40, 44],
                "child_span": [58, 63],
                "head_text": "cost",
                "child_text": "euros",
            },
        ],
        "checkers": {
            "lexical": {
                "version": "2",
                "display_name": "lexical baseline",
                "grain": "arc",
                "score": 0.0,
                "sentences": [
                    {
                        "index": 0,
                        "score": 0.0,
                        "min_arc": 0.0,
                        "evidence": [0],
                        "omitted": 0,
                        "not_checked": None,
                        "detail": "Q: The mayor of [which city] closed the bridge? output: Lyon "
                        "· source: Paris (source sentence 1) ✗",
                    },
                    {
                        "index": 1,
                        "score": 1.0,
                        "min_arc": 1.0,
                        "evidence": [1],
                        "omitted": 0,
                        "not_checked": None,
                        "detail": None,
                    },
                ],
                "arcs": [
                    {"sentence": 0, "index": 0, "score": 0.0},
                    {"sentence": 1, "index": 0, "score": 1.0},
                ],
                "not_checked": [],
            }
        },
        "judgments": [
            {
                "target": "sentence",
                "sentence": 0,
                "arc": None,
                "aspect": "support",
                "label": "unsupported",
                "decision": "reject",
                "error_type": "entity",
                "note": "Lyon",
                "annotator": "ann",
                "created_at": "2026-01-02T03:04:05",
                "model_visible": True,
                "model_score": 0.0,
            },
            {
                "target": "arc",
                "sentence": 1,
                "arc": 0,
                "aspect": "support",
                "label": "supported",
                "decision": "accept",
                "created_at": "2026-01-02T03:04:06",
            },
            {"target": "pair", "aspect": "flag", "label": "malformed"},
        ],
    }


Mutation = Callable[[dict[str, Any]], None]


def setting(path: str, value: Any) -> Mutation:
    """Set ``value`` at a dotted path (list positions as numbers)."""

    def mutate(rec: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = rec
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def appending(path: str, value: Callable[[dict[str, Any]], Any]) -> Mutation:
    def mutate(rec: dict[str, Any]) -> None:
        node: Any = rec
        for part in path.split("."):
            node = node[int(part)] if isinstance(node, list) else node[part]
        node.append(value(rec))

    return mutate


SHAPES: dict[str, tuple[Mutation, str, str]] = {
    # the eight shapes of the issue
    "checkers as a list": (
        lambda r: r.update(checkers=[r["checkers"]["lexical"]]),
        "checkers",
        "expected an object, found a list",
    ),
    "judgments as a dict": (
        lambda r: r.update(judgments={"0": r["judgments"][0]}),
        "judgments",
        "expected a list, found an object",
    ),
    "two judgments on one target": (
        appending("judgments", lambda r: {**r["judgments"][0], "label": "supported"}),
        "judgments",
        "a second support judgment on sentence 0 by ann (the first is judgments[0])",
    ),
    "a string score": (
        setting("checkers.lexical.sentences.0.score", "0.3"),
        "checkers",
        "checkers.lexical.sentences[0].score: expected a score from 0 to 1, found text",
    ),
    "a detail that is not text": (
        setting("checkers.lexical.sentences.0.detail", ["Q: which city?"]),
        "checkers",
        "checkers.lexical.sentences[0].detail: expected text, found a list",
    ),
    "a duplicate sentence index": (
        setting("sentences.1.index", 0),
        "sentences",
        "sentence 0 is also sentences[0]",
    ),
    "evidence as a string": (
        setting("checkers.lexical.sentences.0.evidence", "0"),
        "checkers",
        "sentences[0].evidence: expected a list, found text",
    ),
    "a sentence span beyond the text": (
        setting("sentences.1.end", len(OUTPUT) + 10),
        "sentences",
        f"sentences[1].end: {len(OUTPUT) + 10} is outside 0..{len(OUTPUT)}",
    ),
    "an unknown label": (
        setting("judgments.0.label", "maybe"),
        "judgments",
        "judgments[0].label: 'maybe' is not one of supported, unsupported",
    ),
    # more of the same kind
    "a label of another aspect": (
        setting("judgments.2.label", "supported"),
        "judgments",
        "is not one of malformed",
    ),
    "an unknown aspect": (setting("judgments.0.aspect", "style"), "judgments", "'style'"),
    "an unknown target": (setting("judgments.0.target", "word"), "judgments", "'word'"),
    "an unknown decision": (setting("judgments.0.decision", "shrug"), "judgments", "'shrug'"),
    "a judgment on a missing arc": (setting("judgments.1.arc", 7), "judgments", "no arc 7"),
    "a judgment on a missing sentence": (
        setting("judgments.0.sentence", 5),
        "judgments",
        "no sentence 5 in this record",
    ),
    "a pair judgment naming a sentence": (
        setting("judgments.2.sentence", 0),
        "judgments",
        "a pair judgment names no sentence or arc",
    ),
    "a bad time": (setting("judgments.0.created_at", "yesterday"), "judgments", "ISO date"),
    "model_visible as text": (
        setting("judgments.0.model_visible", "yes"),
        "judgments",
        "expected true or false",
    ),
    "a model score above 1": (
        setting("judgments.0.model_score", 1.5),
        "judgments",
        "found 1.5",
    ),
    "a NaN score": (setting("checkers.lexical.score", float("nan")), "checkers", "found nan"),
    "a true/false score": (setting("checkers.lexical.score", True), "checkers", "true/false"),
    "a huge integer index": (setting("sentences.0.index", 10**400), "sentences", "outside"),
    "overlapping sentences": (setting("sentences.1.start", 30), "sentences", "starts inside"),
    "an empty sentence": (setting("sentences.1.start", 64), "sentences", "not before end"),
    "an arc of a missing sentence": (setting("arcs.1.sentence", 4), "arcs", "no sentence 4"),
    "an arc span outside its sentence": (
        setting("arcs.0.head_span", [40, 44]),
        "arcs",
        "arcs[0].head_span: [40, 44] is not a span within 0..36",
    ),
    "two arcs with one index": (setting("arcs.1.sentence", 0), "arcs", "two arcs 0"),
    "an arc label that is not text": (setting("arcs.0.label", 3), "arcs", "expected text"),
    "a span that is not a pair": (setting("arcs.0.child_span", [4]), "arcs", "[start, end]"),
    "evidence beyond the source sentences": (
        setting("checkers.lexical.sentences.1.evidence", [2]),
        "checkers",
        "source sentence 2 is not in source_sentences (2 sentences)",
    ),
    "a score of a missing sentence": (
        setting("checkers.lexical.sentences.1.index", 3),
        "checkers",
        "no sentence 3",
    ),
    "a sentence scored twice": (
        setting("checkers.lexical.sentences.1.index", 0),
        "checkers",
        "sentence 0 is scored twice",
    ),
    "a score of a missing arc": (
        setting("checkers.lexical.arcs.1.index", 9),
        "checkers",
        "no arc 9 of sentence 1",
    ),
    "an arc score that is null": (
        setting("checkers.lexical.arcs.1.score", None),
        "checkers",
        "found null",
    ),
    "a checker without a version": (
        lambda r: r["checkers"]["lexical"].pop("version"),
        "checkers",
        "checkers.lexical.version: expected text, found null",
    ),
    "an unknown grain": (setting("checkers.lexical.grain", "word"), "checkers", "'word'"),
    "a checker block that is a number": (
        setting("checkers.lexical", 1),
        "checkers",
        "checkers.lexical: expected an object",
    ),
    "not_checked that is not a list": (
        setting("checkers.lexical.not_checked", "none"),
        "checkers",
        "expected a list",
    ),
    "a source sentence beyond the source": (
        setting("source_sentences.1", [53, 999]),
        "source_sentences",
        "[53, 999] is not a span within 0..80",
    ),
    "a sentence that is not an object": (
        setting("sentences.0", [0, 36]),
        "sentences",
        "sentences[0]: expected an object, found a list",
    ),
}


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_valid_record_is_restored_whole(project: Project, tmp_path: Path) -> None:
    rec = record()
    report = import_file(project, write(tmp_path / "ok.jsonl", [rec]))
    assert report.imported == report.restored_pairs == 1
    out = tmp_path / "out.jsonl"
    export(project, out)
    back = json.loads(out.read_text(encoding="utf-8"))
    for name in ("sentences", "source_sentences", "arcs", "checkers"):
        assert back[name] == rec[name], name
    assert [(j["target"], j["sentence"], j["arc"], j["label"]) for j in back["judgments"]] == [
        ("sentence", 0, None, "unsupported"),
        ("arc", 1, 0, "supported"),
        ("pair", None, None, "malformed"),
    ]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_malformed_analysis_is_refused_or_skipped(
    project: Project, tmp_path: Path, shape: str
) -> None:
    mutate, field, text = SHAPES[shape]
    bad = copy.deepcopy(record("bad"))
    mutate(bad)
    path = write(tmp_path / "in.jsonl", [record("good1"), bad, record("good2")])

    with pytest.raises(InputError) as info:
        import_file(project, path)
    err = info.value
    assert (err.line, err.field) == (2, field), str(err)
    assert text in err.reason, err.reason
    assert project.count_pairs() == 0, "nothing of a refused file is written"

    report = import_file(project, path, skip_invalid=True)
    assert report.imported == report.restored_pairs == 2
    assert [(p.line, p.field, p.id) for p in report.skipped] == [(2, field, "bad")]
    assert text in report.skipped[0].reason
    assert [r.external_id for r in project.pair_rows()] == ["good1", "good2"]


def test_source_sentences_must_match_the_project(project: Project, tmp_path: Path) -> None:
    import_file(project, write(tmp_path / "a.jsonl", [record("first")]))
    other = record("second")
    other["source_sentences"] = [[0, 30], [31, 80]]
    path = write(tmp_path / "b.jsonl", [other])
    with pytest.raises(InputError) as info:
        import_file(project, path)
    assert (info.value.line, info.value.field) == (1, "source_sentences")
    assert "differ from those the project already has" in info.value.reason
    report = import_file(project, path, skip_invalid=True)
    assert report.imported == 0 and [p.field for p in report.skipped] == ["source_sentences"]
    assert project.count_pairs() == 1


def test_source_sentences_must_agree_within_a_file(project: Project, tmp_path: Path) -> None:
    other = record("second")
    other["source_sentences"] = [[0, 30], [31, 80]]
    other["checkers"]["lexical"]["sentences"][1]["evidence"] = [0]
    path = write(tmp_path / "b.jsonl", [record("first"), other])
    with pytest.raises(InputError) as info:
        import_file(project, path)
    assert (info.value.line, info.value.field) == (2, "source_sentences")
    assert project.count_pairs() == 0
