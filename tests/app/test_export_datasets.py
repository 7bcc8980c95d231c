"""FRANK- and XSumFaith-style exports: round trip (export, parse, the same verdicts and spans).

The expected verdicts are worked out here from the store's own reads (judgments, scores,
arcs), not from the exporter's code: the editors' final label where there is one, the lexical
baseline's score at 0.5 where there is none.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.analysis import analyze
from app.io.exporter import export
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from models.checkers.lexical import LexicalArcChecker

FRANK = {"entity": "EntE", "predicate": "RelE", "circumstance": "CircE"}


def judged(project: Project, pairs_file: Path) -> dict[str, int]:
    """p1: the pair judged supported; p2: sentence 0 unsupported (entity), sentence 1 disputed
    by two reviewers; p3: one arc rejected (extrinsic); p4 (two sentences) left to the model."""
    import_file(project, pairs_file)
    p4 = pairs_file.with_name("p4.jsonl")
    p4.write_text(
        json.dumps(
            {
                "id": "p4",
                "source": "The mayor of Paris opened the bridge. It cost four million euros.",
                "output": "The mayor of Rome opened it. It cost four million euros.",
            }
        )
        + "\n",
        "utf-8",
    )
    import_file(project, p4)
    analyze(project, [LexicalArcChecker()])
    ids = {r.external_id: r.output_id for r in project.pair_rows()}
    project.set_annotator("alice")
    project.judge(JudgmentKey(ids["p1"]), JudgmentValue("supported", "accept"))
    s2 = project.sentences(output_id=ids["p2"])
    project.judge(
        JudgmentKey(ids["p2"], "sentence", s2[0].id),
        JudgmentValue("unsupported", "reject", "entity", "Lyon, not Paris"),
    )
    project.judge(JudgmentKey(ids["p2"], "sentence", s2[1].id), JudgmentValue("supported"))
    s3 = project.sentences(output_id=ids["p3"])
    arc = project.arcs([s3[0].id])[0]
    project.judge(
        JudgmentKey(ids["p3"], "arc", s3[0].id, arc.id),
        JudgmentValue("unsupported", "reject", "extrinsic"),
    )
    project.set_annotator("bob")
    project.judge(JudgmentKey(ids["p2"], "sentence", s2[1].id), JudgmentValue("unsupported"))
    return ids


def read(path: Path) -> dict[str, dict]:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {r.get("hash", r.get("bbcid")): r for r in records}


def model_label(project: Project, sentence_id: int) -> str:
    version = project.current_versions()["lexical"]
    score = project.sentence_scores("lexical", version, [sentence_id])[sentence_id].score
    assert score is not None
    return "supported" if score >= 0.5 else "unsupported"


def test_frank_round_trip_gives_back_every_verdict_and_where_it_comes_from(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    ids = judged(project, pairs_file)
    out = tmp_path / "frank.jsonl"
    assert export(project, out, fmt="frank") == 4
    records = read(out)
    assert set(records) == {"p1", "p2", "p3", "p4"}

    p1 = records["p1"]
    assert p1["summary_sentences_annotations"] == [{"alice": ["NoE"]}]
    assert p1["Factuality"] == 1.0 and p1["from"] == "editor" and "model" not in p1

    p2 = records["p2"]
    s2 = project.sentences(output_id=ids["p2"])
    assert p2["summary_sentences"] == [s.text for s in s2]
    assert p2["summary_sentences_annotations"] == [{"alice": ["EntE"]}, {"disputed": []}]
    first, second = p2["sentences"]
    assert (first["label"], first["from"], first["error_types"]) == (
        "unsupported",
        "editor",
        ["entity"],
    )
    assert (second["label"], second["from"]) == (None, "disputed")
    assert p2["Factuality"] == 0.0 and p2["from"] == "editor and disputed"

    p3 = records["p3"]
    s3 = project.sentences(output_id=ids["p3"])
    by_editor = p3["sentences"][0]
    # An arc judged unsupported makes its sentence unsupported, with the arc's error type;
    # extrinsic is no FRANK category.
    assert (by_editor["label"], by_editor["from"], by_editor["annotator"]) == (
        "unsupported",
        "editor",
        "alice",
    )
    assert by_editor["categories"] == ["OtherE"] and by_editor["error_types"] == ["extrinsic"]
    assert len(s3) == 1 and "model" not in p3

    p4 = records["p4"]
    s4 = project.sentences(output_id=ids["p4"])
    labels = [model_label(project, s.id) for s in s4]
    assert labels == ["unsupported", "supported"]  # Rome is not in the source
    version = project.current_versions()["lexical"]
    for label, rec in zip(labels, p4["sentences"], strict=True):
        assert (rec["label"], rec["from"], rec["annotator"]) == (
            label,
            "model",
            f"model:lexical {version}",
        )
        assert rec["categories"] == (["NoE"] if label == "supported" else ["OtherE"])
    assert p4["Factuality"] == 0.5 and p4["from"] == "model"
    assert p4["model"] == {"checker": "lexical", "version": version, "threshold": 0.5}
    for rec in records.values():  # offsets give back each sentence's text
        for sent, text in zip(rec["sentences"], rec["summary_sentences"], strict=True):
            assert rec["summary"][sent["start"] : sent["end"]] == text


def test_xsumfaith_round_trip_spans_match_the_text_at_their_offsets(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    ids = judged(project, pairs_file)
    out = tmp_path / "xsum.jsonl"
    assert export(project, out, fmt="xsumfaith") == 4
    records = read(out)

    for rec in records.values():
        for annotator, spans in rec["hallucination_spans"].items():
            for sp in spans:
                assert rec["summary"][sp["start"] : sp["end"]] == sp["span"] != ""
                assert sp["from"] == ("model" if annotator.startswith("model:") else "editor")

    assert records["p1"]["hallucination_spans"] == {"alice": []}
    assert records["p1"]["label_faithful"] == 1

    # The sentence judged unsupported without arc judgments: the whole sentence is the span.
    p2 = records["p2"]
    s2 = project.sentences(output_id=ids["p2"])
    assert p2["hallucination_spans"]["alice"] == [
        {
            "type": None,
            "span": s2[0].text,
            "start": s2[0].start,
            "end": s2[0].end,
            "sentence": 0,
            "error_type": "entity",
            "from": "editor",
        }
    ]
    assert p2["label_faithful"] is None  # one sentence is disputed

    # The rejected arc: the words whose every judged arc is unsupported, typed extrinsic.
    p3 = records["p3"]
    arc = project.arcs([project.sentences(output_id=ids["p3"])[0].id])[0]
    words = {
        p3["summary"][a:b]
        for a, b in ((arc.head_start, arc.head_end), (arc.child_start, arc.child_end))
    }
    alice = p3["hallucination_spans"]["alice"]
    assert {sp["type"] for sp in alice} == {"extrinsic"}
    assert set(" ".join(sp["span"] for sp in alice).split()) == words

    # The model's spans: words all of whose arcs the lexical baseline scores below 0.5.
    p4 = records["p4"]
    assert p4["from"] == "model" and list(p4["hallucination_spans"]) == [
        f"model:lexical {project.current_versions()['lexical']}"
    ]
    (spans,) = p4["hallucination_spans"].values()
    assert "Rome" in {sp["span"] for sp in spans}
    version = project.current_versions()["lexical"]
    arcs = project.arcs([s.id for s in project.sentences(output_id=ids["p4"])])
    scores = project.arc_scores("lexical", version, [a.id for a in arcs])
    flagged = {
        (start, end)
        for a in arcs
        for start, end in ((a.head_start, a.head_end), (a.child_start, a.child_end))
        if all(
            scores[b.id] < 0.5
            for b in arcs
            if (start, end) in ((b.head_start, b.head_end), (b.child_start, b.child_end))
        )
    }
    covered = {
        (a, b) for a, b in flagged if any(sp["start"] <= a and b <= sp["end"] for sp in spans)
    }
    assert covered == flagged and p4["label_faithful"] == 0


def test_cli_exports_both_shapes(project: Project, pairs_file: Path, tmp_path: Path) -> None:
    from app.cli import main

    judged(project, pairs_file)
    for fmt in ("frank", "xsumfaith"):
        out = tmp_path / f"{fmt}.jsonl"
        assert main(["export", str(project.path), str(out), "--format", fmt]) == 0
        assert set(read(out)) == {"p1", "p2", "p3", "p4"}
