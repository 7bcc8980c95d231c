"""The audit report with several reviewers: each item under its final label, disputes shown as
disputes (who said what), never one reviewer's judgment standing for the item."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.analysis import analyze
from app.audit.report import counts_section, flagged_section, render
from app.io.importer import import_file
from app.store import Project
from app.store.judging import JudgmentKey, JudgmentValue
from models.registry import load_checker
from tests.app.test_familiarity import PAIRS
from tests.conftest import write_jsonl

S, U = "supported", "unsupported"


@pytest.fixture
def disputed(tmp_path: Path) -> Path:
    """o1's sentence: alice rejects, bob (later) accepts, nobody adjudicates. o2's sentence:
    carol adjudicates it unsupported, bob accepts it afterwards. o3's sentence: alice and bob
    reject it, carol adjudicates it supported (between them). o4's pair: alice rejects, bob
    accepts."""
    path = tmp_path / "reviewers.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "r.jsonl", PAIRS))
        analyze(p, [load_checker("lexical")])
        sent = {oid: p.sentences(output_id=oid)[0].id for oid in (1, 2, 3)}

        def judge(who: str, oid: int, value: JudgmentValue, *, pair: bool = False, **kw) -> None:  # type: ignore[no-untyped-def]
            p.set_annotator(who)
            key = (
                JudgmentKey(oid, **kw)
                if pair
                else JudgmentKey(oid, "sentence", sentence_id=sent[oid], **kw)
            )
            p.judge(key, value)

        judge("alice", 1, JudgmentValue(U, "reject", "nonfactual", note="not in the source"))
        judge("bob", 1, JudgmentValue(S, "accept"))
        judge("alice", 2, JudgmentValue(U, "reject", "nonfactual"))
        judge("carol", 2, JudgmentValue(U, "reject", "incongruous"), role="adjudicated")
        judge("bob", 2, JudgmentValue(S, "accept"))
        judge("alice", 3, JudgmentValue(U, "reject", "nonfactual"))
        judge("carol", 3, JudgmentValue(S, "accept"), role="adjudicated")
        judge("bob", 3, JudgmentValue(U, "reject", "nonfactual"))
        judge("alice", 4, JudgmentValue(U, "reject", "incongruous"), pair=True)
        judge("bob", 4, JudgmentValue(S, "accept"), pair=True)
    return path


def items_by_pair(text: str) -> dict[str, str]:
    """The flagged list's entries, by pair id."""
    parts = text.split('<div class="item">')[1:]
    return {re.match(r"<h3>(\S+) ", part).group(1): part for part in parts}  # type: ignore[union-attr]


def test_report_shows_final_labels_and_lists_disputes(disputed: Path) -> None:
    # threshold 0: the model flags nothing, so what is listed is the reviewers' doing
    with Project.open(disputed) as p:
        text = render(p, checker="lexical", threshold=0.0, sections=[flagged_section])
    items = items_by_pair(text)
    # o3: adjudicated supported; the latest reviewer's rejection does not stand for the item
    assert set(items) == {"o1", "o2", "o4"}
    # a reject still in dispute is listed, as a dispute, with who said what
    assert "in dispute" in items["o1"]
    assert "alice: unsupported (nonfactual) — “not in the source”" in items["o1"]
    assert "bob: supported" in items["o1"]
    # the adjudicated label, not the later reviewer's
    assert "final: unsupported (incongruous), adjudicated by carol" in items["o2"]
    assert "editor: supported" not in items["o2"]
    # a disputed pair says so
    assert '<span class="tag">pair in dispute</span>' in items["o4"]
    assert "alice: unsupported (incongruous)" in items["o4"] and "bob: supported" in items["o4"]
    assert "pair judged" not in items["o4"]


def test_report_counts_items_under_their_final_label(disputed: Path) -> None:
    with Project.open(disputed) as p:
        text = render(p, checker="lexical", sections=[counts_section])
    rows = [
        re.findall(r"<td[^>]*>([^<]*)</td>", row)
        for row in re.findall(r"<tr>.*?</tr>", text)
        if "support" in row
    ]
    assert rows == [
        ["pair", "support", "in dispute", "1"],
        ["sentence", "support", "in dispute", "1"],
        ["sentence", "support", "supported", "1"],
        ["sentence", "support", "unsupported", "1"],
    ]
