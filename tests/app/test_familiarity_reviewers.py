"""Entity familiarity with several reviewers who disagree: every way of reading it (the command,
its JSON, the queue, the audit report) counts each description once under its final label
(adjudicated, else agreed); a dispute nobody settled is left to the model."""

from __future__ import annotations

import json
import re

import pytest

from app.audit.familiarity import analyse, unfamiliar_first
from app.audit.report import familiarity_section, render
from app.cli import main
from app.store import Project
from app.store.judging import JudgmentKey, JudgmentValue
from tests.app.test_familiarity import by_name, fam_project  # noqa: F401 - a fixture

U, S = "unsupported", "supported"


def judge_as(project: Project, who: str, key: JudgmentKey, value: JudgmentValue) -> None:
    project.set_annotator(who)
    project.judge(key, value)


def disagree(project: Project) -> dict[str, int]:
    """o3 (Merkel, familiar): alice rejects the sentence, bob accepts it, nobody adjudicates.
    o2 (FIFA President Bach, unfamiliar): alice rejects its arcs, carol adjudicates them
    unsupported (incongruous), bob accepts them afterwards. o4 (Bill Gates, unseen): alice and
    bob both reject the pair as nonfactual. Returns the output ids by pair id."""
    report = analyse(project)
    merkel = by_name(report, "o3", "Angela Merkel")
    fifa = by_name(report, "o2", "Thomas Bach")
    gates = by_name(report, "o4", "Bill Gates")
    (sent,) = project.sentences(output_id=merkel.output_id)
    key = JudgmentKey(merkel.output_id, "sentence", sentence_id=sent.id)
    judge_as(project, "alice", key, JudgmentValue(U, "reject", "nonfactual"))
    judge_as(project, "bob", key, JudgmentValue(S, "accept"))
    (fifa_d,) = fifa.descriptions
    assert fifa_d.arc_ids
    for arc_id in fifa_d.arc_ids:
        arc = dict(target="arc", arc_id=arc_id)
        judge_as(
            project,
            "alice",
            JudgmentKey(fifa.output_id, **arc),  # type: ignore[arg-type]
            JudgmentValue(U, "reject", "nonfactual"),
        )
        judge_as(
            project,
            "carol",
            JudgmentKey(fifa.output_id, **arc, role="adjudicated"),  # type: ignore[arg-type]
            JudgmentValue(U, "reject", "incongruous"),
        )
        judge_as(
            project,
            "bob",  # later than the adjudication, and of another mind
            JudgmentKey(fifa.output_id, **arc),  # type: ignore[arg-type]
            JudgmentValue(S, "accept"),
        )
    for who in ("alice", "bob"):
        judge_as(
            project, who, JudgmentKey(gates.output_id), JudgmentValue(U, "reject", "nonfactual")
        )
    return {"o2": fifa.output_id, "o3": merkel.output_id, "o4": gates.output_id}


#: What every path must show for :func:`disagree`: per familiarity group, (descriptions judged,
#: nonfactual, incongruous). Familiar: the dispute is not a judgment; unfamiliar: the
#: adjudicated label and type, not bob's later accept; unseen: two agreeing reviewers, once.
EXPECTED = {"familiar": (0, 0, 0), "unfamiliar": (1, 0, 1), "unseen": (1, 1, 0)}


def test_familiarity_command_reads_final_labels(
    fam_project: Project,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    ids = disagree(fam_project)
    path = str(fam_project.path)
    assert main(["familiarity", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    got = {
        r["group"]: (
            r["judged"],
            r["errors"]["nonfactual"]["count"],
            r["errors"]["incongruous"]["count"],
        )
        for r in data["by_familiarity"]
    }
    assert got == EXPECTED
    by_system = {r["group"]: r for r in data["by_system"]}
    assert by_system["sys-a"]["judged"] == 0  # o1 unjudged, o3 in dispute
    descriptions = {
        (e["id"], e["name"]): e["descriptions"]
        for e in data["output_entities"]
        if e["descriptions"]
    }
    (merkel,) = descriptions[("o3", "Angela Merkel")]
    assert (merkel["by"], merkel["judged"]) == ("model", False)
    (fifa,) = descriptions[("o2", "Thomas Bach")]
    assert (fifa["verdict"], fifa["by"], fifa["error_types"]) == (
        "not supported",
        "editor",
        ["incongruous"],
    )
    # the disputed description is the model's to flag: it stays in the list to check first;
    # the adjudicated one is decided and leaves it
    assert main(["familiarity", path]) == 0
    out = capsys.readouterr().out
    assert "final labels override" in out
    first = out[out.index("descriptions to check first:") :]
    assert 'o3: familiar entity "Angela Merkel"' in first
    assert "o2:" not in first
    queue = unfamiliar_first(fam_project)
    assert ids["o3"] in queue and ids["o2"] not in queue


def test_report_familiarity_section_reads_final_labels(fam_project: Project) -> None:  # noqa: F811
    disagree(fam_project)
    text = render(fam_project, checker="lexical", sections=[familiarity_section])
    assert "final labels override" in text
    table = text[text.index("<h3>By familiarity</h3>") : text.index("<h3>By system and")]
    rows = {
        cells[0]: cells
        for cells in (
            re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>.*?</tr>", table)
        )
        if cells
    }
    got = {
        group: (int(c[5]), int(c[6].split(" /")[0]), int(c[7].split(" /")[0]))
        for group, c in rows.items()
    }
    assert got == EXPECTED
