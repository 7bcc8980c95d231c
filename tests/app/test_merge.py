"""Merging two reviewers' copies of one project: nothing lost, nothing doubled, idempotent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.cli import main
from app.io import merge as merge_module
from app.io.exporter import export
from app.io.importer import import_file
from app.io.merge import merge
from app.paths import demo_pairs_file
from app.store import JudgmentKey, JudgmentValue, Project
from app.store.schema import Judgment
from models.errors import InputError

EXTRA = 18  # pairs beside the 32 demo pairs: 50 in all


def _extra_pairs() -> list[dict[str, str]]:
    towns = ["Lyon", "Ghent", "Porto", "Graz", "Turku", "Bergen"]
    out = []
    for n in range(EXTRA):
        town = towns[n % len(towns)]
        source = (
            f"The council of {town} approved a budget of {n + 3} million euros on Monday. "
            f"The mayor said the money would repair {n + 2} schools before winter."
        )
        output = (
            f"{town} approved a {n + 3} million euro budget. It will repair {n + 2} schools."
            if n % 2
            else f"{town} rejected a budget of {n + 30} million euros on Friday."
        )
        out.append({"id": f"x{n}", "source": source, "output": output, "system": "sys-x"})
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of 50 pairs (the demo's 32 and 18 more), parsed and scored."""
    from app.analysis import analyze
    from models.checkers.lexical import LexicalArcChecker

    folder = tmp_path_factory.mktemp("merge")
    extra = folder / "extra.jsonl"
    extra.write_text("".join(json.dumps(r) + "\n" for r in _extra_pairs()), encoding="utf-8")
    path = folder / "base.factdesk"
    with Project.create(path) as p:
        import_file(p, demo_pairs_file())
        import_file(p, extra)
        analyze(p, [LexicalArcChecker()])
        assert p.count_pairs() == 50
    return path


def _copy(base: Path, to: Path) -> Path:
    shutil.copy(base, to)
    return to


def _judge_all(path: Path, reviewer: str, flip: int) -> dict[tuple, tuple]:
    """The reviewer judges every pair, its first sentence and its first arc; every ``flip``-th
    pair the other way. Returns what they decided, by (pair id, item, aspect)."""
    decided: dict[tuple, tuple] = {}
    with Project.open(path) as p:
        p.set_annotator(reviewer)
        for n, oid in enumerate(p.output_ids()):
            out, _src = p.pair(oid)
            yes = (n % 3 != 0) != (n % flip == 0)
            label = "supported" if yes else "unsupported"
            note = None if yes else f"{reviewer}: check pair {n}"
            p.judge(JudgmentKey(oid), JudgmentValue(label, "accept", note=note))
            decided[(out.external_id, "pair", "support")] = (label, note)
            sents = p.sentences(output_id=oid)
            if sents:
                p.judge(
                    JudgmentKey(oid, "sentence", sentence_id=sents[0].id),
                    JudgmentValue(label, "relabel", error_type=None if yes else "entity"),
                )
                decided[(out.external_id, "sentence0", "support")] = (label, None)
                arcs = p.arcs([sents[0].id])
                if arcs:
                    p.judge(
                        JudgmentKey(oid, "arc", sentence_id=sents[0].id, arc_id=arcs[0].id),
                        JudgmentValue(label, "accept"),
                    )
                    decided[(out.external_id, "arc0", "support")] = (label, None)
            if n % 10 == 0:
                p.judge(JudgmentKey(oid, aspect="interpretable"), JudgmentValue("yes", "accept"))
                decided[(out.external_id, "pair", "interpretable")] = ("yes", None)
    return decided


def _held(path: Path) -> dict[tuple, list[tuple]]:
    """Every judgment in a project: (annotator, pair id, item, aspect) -> [(label, note)]."""
    out: dict[tuple, list[tuple]] = {}
    with Project.open(path) as p, p.session() as s:
        from sqlalchemy import select

        from app.store.schema import ArcRow, Output, SentenceRow

        ext = dict(s.execute(select(Output.id, Output.external_id)).all())
        sidx = dict(s.execute(select(SentenceRow.id, SentenceRow.idx)).all())
        aidx = dict(s.execute(select(ArcRow.id, ArcRow.idx)).all())
        for j in s.scalars(select(Judgment)):
            item = {
                "pair": "pair",
                "sentence": f"sentence{sidx.get(j.sentence_id)}",
                "arc": f"arc{aidx.get(j.arc_id)}",
            }[j.target]
            key = (j.annotator, ext[j.output_id], item, j.aspect)
            out.setdefault(key, []).append((j.label, j.note))
    return out


def test_two_reviewers_merge_without_loss_or_doubles(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = _judge_all(_copy(base, tmp_path / "alice.factdesk"), "alice", flip=4)
    bob = _judge_all(_copy(base, tmp_path / "bob.factdesk"), "bob", flip=5)
    with Project.open(tmp_path / "bob.factdesk") as p:
        export(p, tmp_path / "bob.jsonl")  # bob sends an export, alice her project file
    target = _copy(base, tmp_path / "target.factdesk")
    args = ["merge", str(target), str(tmp_path / "alice.factdesk"), str(tmp_path / "bob.jsonl")]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["judgments_new"] == len(alice) + len(bob)
    files = {Path(f["file"]).name: f for f in report["files"]}
    assert files["alice.factdesk"]["kind"] == "project"
    assert files["bob.jsonl"]["kind"] == "jsonl"
    for f in files.values():
        assert f["pairs"] == f["pairs_matched"] == 50
        assert f["unmatched_pairs"] == f["unmatched_judgments"] == []
    held = _held(target)
    assert all(len(v) == 1 for v in held.values()), "nothing doubled"
    expected = {("alice", *k): [v] for k, v in alice.items()}
    expected.update({("bob", *k): [v] for k, v in bob.items()})
    assert held == expected, "nothing lost: every judgment of both reviewers, as decided"
    # They disagree on some pairs; both decisions are kept side by side.
    assert any(alice[k] != bob[k] for k in alice)

    # Merging again adds nothing.
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "0 new judgments" in text and "already present" in text
    assert _held(target) == held


def test_unmatched_pairs_and_conflicts_are_reported(base: Path, tmp_path: Path) -> None:
    other = _copy(base, tmp_path / "other.factdesk")
    with Project.open(other) as p:
        p.set_annotator("alice")
        first = p.output_ids()[0]
        p.judge(JudgmentKey(first), JudgmentValue("unsupported", "reject", note="from her copy"))
        export(p, tmp_path / "other.jsonl")
    lines = (tmp_path / "other.jsonl").read_text(encoding="utf-8").splitlines()
    changed = json.loads(lines[0])
    changed["output"] += " Extra words."
    changed.pop("sentences"), changed.pop("arcs"), changed.pop("source_sentences")
    changed.pop("checkers")
    unknown = {**json.loads(lines[1]), "id": "nowhere"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        "\n".join([json.dumps(changed), json.dumps(unknown), "{broken", lines[0]]) + "\n",
        encoding="utf-8",
    )
    target = _copy(base, tmp_path / "target.factdesk")
    with Project.open(target) as p:
        p.set_annotator("alice")  # alice judged the first pair differently in the target
        p.judge(JudgmentKey(p.output_ids()[0]), JudgmentValue("supported", "accept"))
        report = merge(p, [bad])
    (f,) = report.files
    reasons = [(u.where, u.reason) for u in f.unmatched_pairs]
    assert reasons[0][0] == "line 1" and "differs from the target's pair" in reasons[0][1]
    assert reasons[1][0] == "line 2" and "no pair with this id" in reasons[1][1]
    assert reasons[2][0] == "line 3"  # not JSON
    assert f.pairs_matched == 1 and f.judgments_new == 1
    (renamed,) = f.renamed
    assert renamed.reviewer == "alice" and renamed.kept_as == "alice (bad.jsonl)"
    text = report.text()
    assert "bad.jsonl, line 2 (nowhere): no pair with this id" in text
    assert "kept as reviewer 'alice (bad.jsonl)'" in text
    held = _held(target)
    first_id = json.loads(lines[0])["id"]
    assert held[("alice", first_id, "pair", "support")] == [("supported", None)]
    assert held[("alice (bad.jsonl)", first_id, "pair", "support")] == [
        ("unsupported", "from her copy")
    ]
    with Project.open(target) as p:
        assert merge(p, [bad]).judgments_new == 0  # the renamed conflict is present now


def test_a_failing_merge_leaves_the_target_unchanged(
    base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _judge_all(_copy(base, tmp_path / "alice.factdesk"), "alice", flip=4)
    target = _copy(base, tmp_path / "target.factdesk")
    notjson = tmp_path / "notes.jsonl"
    notjson.write_text("", encoding="utf-8")
    with Project.open(target) as p:
        with pytest.raises(InputError):
            merge(p, [tmp_path / "alice.factdesk", notjson])
        assert _held(target) == {}
        calls = []
        real = merge_module._merge_pair

        def failing(*a: object, **k: object) -> None:
            calls.append(None)
            if len(calls) == 30:
                raise OSError("disk full")
            real(*a, **k)  # type: ignore[arg-type]

        monkeypatch.setattr(merge_module, "_merge_pair", failing)
        with pytest.raises(OSError):
            merge(p, [tmp_path / "alice.factdesk"])
        assert _held(target) == {}
    assert main(["merge", str(target), str(target)]) == 2  # the target itself is refused


def test_judgments_without_a_reviewer_get_one(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _copy(base, tmp_path / "target.factdesk")
    with Project.open(target) as p:
        export(p, tmp_path / "plain.jsonl")
    record = json.loads((tmp_path / "plain.jsonl").read_text(encoding="utf-8").splitlines()[0])
    # Another tool's file: a pair judgment that names no annotator.
    record["judgments"] = [{"target": "pair", "aspect": "support", "label": "unsupported"}]
    other = tmp_path / "tool.jsonl"
    other.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["merge", str(target), str(other)]) == 0
    assert main(["merge", str(target), str(other), "--reviewer", "dana", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["files"][0]["reviewers"] == ["dana"] and report["judgments_new"] == 1
    held = _held(target)
    assert held[("unnamed (tool.jsonl)", record["id"], "pair", "support")] == [
        ("unsupported", None)
    ]
    assert held[("dana", record["id"], "pair", "support")] == [("unsupported", None)]


def test_an_older_exports_auto_ids_still_find_their_pairs(tmp_path: Path) -> None:
    """Ids made from the texts took in the question only from 27 November 2026: an older
    project's export names a question pair by the id of its texts alone. Merged into a project
    imported since, its judgments reach the one pair with those texts; where two pairs have them
    (one answer to two questions) the id says nothing of which, and the pair is unmatched."""
    from app.io.records import content_hash
    from tests.conftest import write_jsonl

    passage = "Vehicles must be booked a day ahead; foot passengers buy tickets on the day."
    one = {"source": passage, "output": "No.", "question": "Do foot passengers need to book?"}
    pairs = write_jsonl(tmp_path / "qa.jsonl", [one])
    with Project.create(tmp_path / "old.factdesk") as old:
        import_file(old, pairs)
        old.judge(JudgmentKey(old.output_ids()[0]), JudgmentValue("supported", "accept"))
        export(old, tmp_path / "old.jsonl")
    record = json.loads((tmp_path / "old.jsonl").read_text(encoding="utf-8"))
    record["id"] = "auto-" + content_hash(passage, "No.")[:16]  # as such an export named it
    (tmp_path / "old.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    with Project.create(tmp_path / "new.factdesk") as new:
        import_file(new, pairs)
        assert new.pair_rows()[0].external_id != record["id"]
        report = merge(new, [tmp_path / "old.jsonl"])
        assert report.files[0].pairs_matched == 1 and report.judgments_new == 1
    other = {**one, "question": "Can foot passengers turn up on the day?"}
    with Project.create(tmp_path / "two.factdesk") as two:
        import_file(two, write_jsonl(tmp_path / "two.jsonl", [one, other]))
        report = merge(two, [tmp_path / "old.jsonl"])
        assert report.files[0].pairs_matched == 0 and report.judgments_new == 0
        assert len(report.files[0].unmatched_pairs) == 1
