"""Entity familiarity over a project: tags, description verdicts, rates, queue and CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.analysis import analyze
from app.audit.familiarity import analyse, description_priorities, unfamiliar_first
from app.cli import main
from app.io.importer import import_file
from app.store import Project
from app.store.judging import JudgmentKey, JudgmentValue
from models.registry import load_checker
from tests.conftest import write_jsonl

# Thomas Bach is introduced with a description in every source; Angela Merkel never is.
# Bill Gates and Microsoft appear in no source.
PAIRS = [
    {
        "id": "o1",
        "system": "sys-a",
        "source": "IOC President Thomas Bach opened the session in Lausanne on Monday. "
        "Angela Merkel said the budget was fair.",
        "output": "IOC President Thomas Bach opened the session.",
    },
    {
        "id": "o2",
        "system": "sys-b",
        "source": "Olympic chief Thomas Bach visited Tokyo on Tuesday. "
        "Angela Merkel spoke in Berlin on Friday.",
        "output": "FIFA President Thomas Bach visited Tokyo.",
    },
    {
        "id": "o3",
        "system": "sys-a",
        "source": "Thomas Bach, the German lawyer, met Angela Merkel in Berlin.",
        "output": "German Chancellor Angela Merkel met Thomas Bach in Berlin.",
    },
    {
        "id": "o4",
        "system": "sys-b",
        "source": "Angela Merkel said the plan would work.",
        "output": "Microsoft founder Bill Gates said the plan would work.",
    },
]


@pytest.fixture
def fam_project(tmp_path: Path) -> Iterator[Project]:
    p = Project.create(tmp_path / "fam.factdesk")
    import_file(p, write_jsonl(tmp_path / "fam.jsonl", PAIRS))
    analyze(p, [load_checker("lexical")])
    yield p
    p.close()


def by_name(report, ext: str, name: str):
    return next(m for m in report.mentions if m.external_id == ext and m.name == name)


def test_familiarity_tags_on_a_fixture_project(fam_project: Project) -> None:
    report = analyse(fam_project)
    bach, merkel = report.entities["bach"], report.entities["merkel"]
    assert (bach.documents, bach.introduced_described, bach.tag) == (3, 3, "unfamiliar")
    assert (merkel.documents, merkel.introduced_described, merkel.tag) == (4, 0, "familiar")
    assert by_name(report, "o2", "Thomas Bach").tag == "unfamiliar"
    assert by_name(report, "o3", "Angela Merkel").tag == "familiar"
    assert by_name(report, "o4", "Bill Gates").tag == "unseen"
    counts = report.entity_counts()
    assert counts["unfamiliar"] == 1 and counts["unseen"] >= 1


def test_description_verdicts_from_arc_scores(fam_project: Project) -> None:
    report = analyse(fam_project)
    assert report.checker == "lexical"
    (ioc,) = by_name(report, "o1", "Thomas Bach").descriptions
    assert (ioc.text, ioc.verdict, ioc.by) == ("IOC President", "supported", "model")
    (fifa,) = by_name(report, "o2", "Thomas Bach").descriptions
    assert (fifa.text, fifa.verdict, fifa.by) == ("FIFA President", "not supported", "model")
    assert fifa.score is not None and fifa.score < 0.5
    # the attaching arc President -compound-> Bach and the inner arc FIFA -> President
    arcs = {a.id: a for a in fam_project.arcs([s.id for s in fam_project.sentences(output_id=2)])}
    assert {(arcs[i].head_text, arcs[i].child_text) for i in fifa.arc_ids} == {
        ("Bach", "President"),
        ("President", "FIFA"),
    }
    # a threshold of 0 counts every scored arc as entailed
    assert (
        by_name(analyse(fam_project, threshold=0.0), "o2", "Thomas Bach").descriptions[0].verdict
        == "supported"
    )


def test_editor_judgments_override_and_feed_error_rates(fam_project: Project) -> None:
    report = analyse(fam_project)
    fifa = by_name(report, "o2", "Thomas Bach")
    merkel = by_name(report, "o3", "Angela Merkel")
    # the editor says FIFA President is fine (arc judgment) ...
    (fifa_d,) = fifa.descriptions
    for arc_id in fifa_d.arc_ids:
        fam_project.judge(
            JudgmentKey(fifa.output_id, "arc", arc_id=arc_id), JudgmentValue("supported", "accept")
        )
    # ... and Merkel's sentence is unsupported with a nonfactual error
    (sent,) = fam_project.sentences(output_id=merkel.output_id)
    fam_project.judge(
        JudgmentKey(merkel.output_id, "sentence", sentence_id=sent.id),
        JudgmentValue("unsupported", "reject", "nonfactual"),
    )
    report = analyse(fam_project)
    (fifa_d,) = by_name(report, "o2", "Thomas Bach").descriptions
    assert (fifa_d.verdict, fifa_d.by, fifa_d.judged) == ("supported", "editor", True)
    (merkel_d,) = by_name(report, "o3", "Angela Merkel").descriptions
    assert merkel_d.error_types == ("nonfactual",) and merkel_d.verdict == "not supported"
    rows = {r.group: r for r in report.rates("familiarity")}
    assert rows["familiar"].judged == 1 and rows["familiar"].error_counts["nonfactual"] == 1
    assert rows["familiar"].rate("nonfactual") == 1.0 and rows["familiar"].rate("incongruous") == 0
    assert rows["unfamiliar"].judged == 1 and rows["unfamiliar"].rate("nonfactual") == 0.0
    by_system = {r.group: r for r in report.rates("system")}
    assert by_system["sys-a"].error_counts["nonfactual"] == 1
    assert by_system["sys-b"].error_counts["nonfactual"] == 0
    # a sentence judged supported makes its arcs entailed
    o1 = by_name(report, "o1", "Thomas Bach")
    (s1,) = fam_project.sentences(output_id=o1.output_id)
    fam_project.judge(
        JudgmentKey(o1.output_id, "sentence", sentence_id=s1.id), JudgmentValue("supported")
    )
    (ioc,) = by_name(analyse(fam_project), "o1", "Thomas Bach").descriptions
    assert (ioc.verdict, ioc.by) == ("supported", "editor")


def test_several_reviewers_count_once_under_the_final_label(fam_project: Project) -> None:
    """Two reviewers who disagree leave the description to the model (as statistics leave the
    item out); an adjudication decides it, with the adjudicator's error type."""
    merkel = by_name(analyse(fam_project), "o3", "Angela Merkel")
    (sent,) = fam_project.sentences(output_id=merkel.output_id)
    key = JudgmentKey(merkel.output_id, "sentence", sentence_id=sent.id)
    fam_project.set_annotator("alice")
    fam_project.judge(key, JudgmentValue("unsupported", "reject", "nonfactual"))
    fam_project.set_annotator("bob")  # later, and of another mind
    fam_project.judge(key, JudgmentValue("supported", "accept"))
    (d,) = by_name(analyse(fam_project), "o3", "Angela Merkel").descriptions
    assert (d.by, d.judged, d.error_types) == ("model", False, ())
    rows = {r.group: r for r in analyse(fam_project).rates("familiarity")}
    assert rows["familiar"].judged == 0
    fam_project.set_annotator("carol")
    fam_project.judge(
        JudgmentKey(merkel.output_id, "sentence", sentence_id=sent.id, role="adjudicated"),
        JudgmentValue("unsupported", "reject", "incongruous"),
    )
    report = analyse(fam_project)
    (d,) = by_name(report, "o3", "Angela Merkel").descriptions
    assert (d.verdict, d.judged, d.error_types) == ("not supported", True, ("incongruous",))
    rows = {r.group: r for r in report.rates("familiarity")}
    assert rows["familiar"].judged == 1 and rows["familiar"].error_counts["incongruous"] == 1
    assert rows["familiar"].error_counts["nonfactual"] == 0


def test_queue_puts_unfamiliar_descriptions_first(fam_project: Project) -> None:
    queue = unfamiliar_first(fam_project)
    order = sorted(queue, key=lambda oid: -queue[oid][0])
    ext = {m.output_id: m.external_id for m in analyse(fam_project).mentions}
    assert [ext[o] for o in order] == ["o2", "o4", "o3"]  # unfamiliar, unseen, familiar
    assert "FIFA President" in queue[order[0]][1] and "unfamiliar" in queue[order[0]][1]
    assert ext.get(1) == "o1" and 1 not in queue  # a supported description is not queued
    # once an editor decided it, it leaves the queue
    report = analyse(fam_project)
    fifa = by_name(report, "o2", "Thomas Bach")
    fam_project.judge(
        JudgmentKey(fifa.output_id, "arc", arc_id=fifa.descriptions[0].arc_ids[0]),
        JudgmentValue("unsupported", "reject", "nonfactual"),
    )
    assert fifa.output_id not in description_priorities(analyse(fam_project))


def test_cli_json_and_text(fam_project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(fam_project.path)
    assert main(["familiarity", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["checker"] == "lexical" and data["entities"]["unfamiliar"] == 1
    assert [r["group"] for r in data["by_familiarity"]] == ["familiar", "unfamiliar", "unseen"]
    assert {"nonfactual", "incongruous"} <= set(data["by_familiarity"][0]["errors"])
    bach = next(e for e in data["source_entities"] if e["key"] == "bach")
    assert bach["familiarity"] == "unfamiliar" and bach["introduced_described"] == 3
    assert main(["familiarity", path]) == 0
    out = capsys.readouterr().out
    assert "by familiarity:" in out and "FIFA President" in out
    assert main(["familiarity", path, "--checker", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "checker 'nosuch' has not analysed" in err


def test_a_lower_case_output_is_read_for_names_with_its_sources_capitals(
    tmp_path: Path,
) -> None:
    # a summariser trained on lower-cased text; as written, spaCy reads "acme corp sales" as
    # one organisation no source names (on 300 lower-case SummEval outputs it found 568
    # mentions, 456 of them entities of the source; with the source's capitals 1,059 and 1,030)
    pairs = [
        {
            "id": "lc",
            "source": "Dana Ruiz, the chief executive of Acme Corp, said sales rose.",
            "output": "chief executive dana ruiz said acme corp sales rose .",
        }
    ]
    p = Project.create(tmp_path / "lc.factdesk")
    try:
        import_file(p, write_jsonl(tmp_path / "lc.jsonl", pairs))
        analyze(p, [load_checker("lexical")])
        report = analyse(p)
        acme = next(m for m in report.mentions if m.kind == "ORG")
        assert acme.key == "acme corp" and acme.tag != "unseen"
        # the offsets are the text's as written and stored
        assert pairs[0]["output"][acme.start : acme.end] == "acme corp"
        ruiz = next(m for m in report.mentions if m.kind == "PERSON")
        assert pairs[0]["output"][ruiz.start : ruiz.end] == "dana ruiz"
        assert [d.text.lower() for d in ruiz.descriptions] == ["chief executive"]
    finally:
        p.close()
