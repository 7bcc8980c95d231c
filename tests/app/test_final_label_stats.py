"""Statistics with several reviewers count each judged item once, under its final label."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.audit.report import agreement_section, error_types_section, render
from app.io.importer import import_file
from app.review.adjudication import project_final_labels
from app.store import JudgmentKey, JudgmentValue, Project
from app.store.queries import error_types_by_system, sentence_judgment_scores

S, U = "supported", "unsupported"


@pytest.fixture
def reviewed(tmp_path: Path, pairs_file: Path) -> tuple[Path, str, str, dict[str, int]]:
    """Alice and Bob review the same sentences; Carol adjudicates one dispute.

    a: both unsupported (entity); b: alice supported, bob unsupported (predicate), nobody
    adjudicates; c: they disagree, carol decides unsupported (circumstance); d: alice alone,
    supported; the first pair: both unsupported (entity).
    """
    from app.analysis import analyze
    from models.checkers.lexical import LexicalArcChecker

    path = tmp_path / "two.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
        analyze(p, [LexicalArcChecker()])
        oids = p.output_ids()
        sents = [s.id for oid in oids for s in p.sentences(output_id=oid)]
        assert len(sents) >= 4
        sid = dict(zip("abcd", sents, strict=False))
        plan = {
            "alice": {"a": (U, "entity"), "b": (S, None), "c": (S, None), "d": (S, None)},
            "bob": {"a": (U, "entity"), "b": (U, "predicate"), "c": (U, "entity")},
        }
        oid_of = {s.id: oid for oid in oids for s in p.sentences(output_id=oid)}
        for who, labels in plan.items():
            p.set_annotator(who)
            for name, (label, err) in labels.items():
                p.judge(
                    JudgmentKey(oid_of[sid[name]], "sentence", sentence_id=sid[name]),
                    JudgmentValue(label, "relabel", error_type=err),
                )
            p.judge(JudgmentKey(oids[0]), JudgmentValue(U, "reject", error_type="entity"))
        p.set_annotator("carol")
        p.judge(
            JudgmentKey(oid_of[sid["c"]], "sentence", sentence_id=sid["c"], role="adjudicated"),
            JudgmentValue(U, "reject", error_type="circumstance"),
        )
        checker, version = "lexical", p.current_versions()["lexical"]
    return path, checker, version, sid


def test_final_labels_one_per_item(reviewed: tuple[Path, str, str, dict[str, int]]) -> None:
    path, _c, _v, sid = reviewed
    with Project.open(path) as p:
        finals = project_final_labels(p)
    by_sentence = {i.sentence_id: i for i in finals.of("sentence")}
    assert set(by_sentence) == {sid["a"], sid["c"], sid["d"]}  # b is disputed
    assert (by_sentence[sid["a"]].label, by_sentence[sid["a"]].source) == (U, "agreed")
    assert (by_sentence[sid["c"]].label, by_sentence[sid["c"]].error_type) == (
        U,
        "circumstance",
    )
    assert by_sentence[sid["d"]].source == "single"
    assert finals.disputed == {"sentence": 1}
    assert [(i.label, i.error_type) for i in finals.of("pair")] == [(U, "entity")]


def test_judged_vs_model_counts_each_sentence_once(
    reviewed: tuple[Path, str, str, dict[str, int]],
) -> None:
    path, checker, version, _sid = reviewed
    with Project.open(path) as p:
        judged = sentence_judgment_scores(p, checker, version)
    # one row per sentence (old: one per judgment, 7), the dispute left out and counted
    assert sorted(label for label, *_rest in judged.rows) == [S, U, U]
    assert judged.left_out == 1
    assert all(score is not None for _l, score, _e, _s in judged.rows)


def test_error_types_by_system_counts_each_item_once(
    reviewed: tuple[Path, str, str, dict[str, int]],
) -> None:
    path, *_ = reviewed
    with Project.open(path) as p:
        errors = error_types_by_system(p)
    counts: dict[str, int] = {}
    for _system, err, n in errors.rows:
        counts[err] = counts.get(err, 0) + n
    # a and the pair (entity, agreed), c (circumstance, adjudicated); b disputed: not counted
    # (old: entity 5, predicate 1, circumstance 1)
    assert counts == {"entity": 2, "circumstance": 1}
    assert errors.left_out == 1


def test_stats_plots_say_how_many_items_are_left_out(
    reviewed: tuple[Path, str, str, dict[str, int]],
) -> None:
    from matplotlib.figure import Figure

    from app.gui.stats import agreement, errors_by_system

    path, checker, version, _sid = reviewed
    with Project.open(path) as p:
        judged = sentence_judgment_scores(p, checker, version)
        errors = error_types_by_system(p)
    fig = Figure()
    agreement(fig, judged.rows, "lexical", 0.5, judged.left_out)
    grid = fig.axes[0].images[0].get_array()
    assert int(grid.sum()) == 3
    assert "1 sentence left out: reviewers disagree" in fig.axes[0].get_title()
    fig = Figure()
    errors_by_system(fig, errors.rows, errors.left_out)
    assert "1 item left out" in fig.axes[0].get_title()


def test_report_counts_each_item_once(reviewed: tuple[Path, str, str, dict[str, int]]) -> None:
    path, checker, _v, _sid = reviewed
    with Project.open(path) as p:
        text = render(p, checker=checker, sections=[agreement_section, error_types_section])
    assert "3 output sentences and 1 pair judged" in text
    assert "1 sentence or pair is left out" in text
    assert "1 item is left out" in text
    # the error-type table (old code: entity 5, predicate 1, circumstance 1)
    errors = text[text.index('<section id="errors">') :]
    errors = errors[: errors.index("</section>")]
    totals = {
        cells[0]: int(cells[-1])
        for cells in (
            re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>.*?</tr>", errors)
        )
        if cells
    }
    with Project.open(path) as p:
        names = {t["key"]: t["name"] for t in p.taxonomy()}
    assert totals == {names["entity"]: 2, names["circumstance"]: 1}


def test_calibration_reads_each_item_once(
    reviewed: tuple[Path, str, str, dict[str, int]],
) -> None:
    """Learning from judgments takes one judgment per item: a: agreed U, c: adjudicated U,
    d: alice's S; b (disputed, not adjudicated) is left out; the pair: agreed U."""
    from app.learning.calibration import judged_points

    path, checker, version, _sid = reviewed
    with Project.open(path) as p:
        sentences = judged_points(p, checker, version, "sentence")
        pairs = judged_points(p, checker, version, "pair")
    assert sorted(sentences.y.tolist()) == [0, 0, 1]
    assert pairs.y.tolist() == [0]
