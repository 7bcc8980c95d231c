"""The pipeline: incremental, resumable after cancelling, consistent results."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.analysis import analyze, pair_starts, pending
from app.io.importer import import_file
from app.store import Project
from app.store.schema import Output
from models.checkers.lexical import LexicalArcChecker


def test_scores_all_pairs_then_nothing_on_a_second_run(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    checker = LexicalArcChecker()
    report = analyze(project, [checker])
    assert report.checkers[0].scored == 3 and not report.cancelled
    stats = project.stats()
    assert stats["parsed_pairs"] == 3 and stats["arcs"] > 10
    assert stats["checkers"]["lexical"]["scored_pairs"] == 3
    again = analyze(project, [checker])
    assert again.checkers[0].scored == 0 and again.checkers[0].already_scored == 3


def test_scores_are_stored_per_arc_sentence_and_pair(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    analyze(project, [LexicalArcChecker()])
    rows = {r.external_id: r for r in project.pair_rows("lexical", LexicalArcChecker.version)}
    assert rows["p1"].lowest_support == 1.0 and rows["p1"].flagged_arcs == 0
    assert rows["p2"].lowest_support < 1.0 and rows["p2"].flagged_arcs >= 2
    sents = project.sentences(output_id=rows["p2"].output_id)
    scores = project.sentence_scores("lexical", LexicalArcChecker.version, [s.id for s in sents])
    assert scores[sents[1].id].score == 1.0  # "It cost four million euros." is in the source
    arcs = project.arcs([sents[0].id])
    arc_scores = project.arc_scores("lexical", LexicalArcChecker.version, [a.id for a in arcs])
    low = {(a.head_text, a.label, a.child_text) for a in arcs if arc_scores[a.id] == 0.0}
    assert ("mayor", "prep_of", "Lyon") in low


def test_new_pairs_only_are_scored_incrementally(
    project: Project, pairs_file: Path, tmp_path: Path
) -> None:
    import_file(project, pairs_file)
    analyze(project, [LexicalArcChecker()])
    extra = tmp_path / "more.jsonl"
    extra.write_text(
        '{"id": "p9", "source": "A dog barked.", "output": "A dog barked."}\n', encoding="utf-8"
    )
    import_file(project, extra)
    assert len(pending(project, LexicalArcChecker())) == 1
    assert analyze(project, [LexicalArcChecker()]).checkers[0].scored == 1


def test_cancel_keeps_finished_chunks_and_resumes(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    committed: list[list[int]] = []
    report = analyze(
        project,
        [LexicalArcChecker()],
        chunk_size=1,
        should_stop=lambda: bool(committed),  # the user presses cancel after the first chunk
        on_chunk=committed.append,
    )
    assert report.cancelled
    done = report.checkers[0].scored
    assert done == 1 and len(committed) == 1
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == done
    resumed = analyze(project, [LexicalArcChecker()])
    assert resumed.checkers[0].scored == 3 - done
    assert project.stats()["checkers"]["lexical"]["scored_pairs"] == 3


def test_a_new_checker_version_rescores(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    analyze(project, [LexicalArcChecker()])

    class Newer(LexicalArcChecker):
        version = "test-newer"

    assert analyze(project, [Newer()]).checkers[0].scored == 3
    assert project.current_versions()["lexical"] == "test-newer"


def test_an_answer_is_read_with_its_question(project: Project, tmp_path: Path) -> None:
    from tests.conftest import write_jsonl

    source = "Foot passengers buy tickets at the terminal. Only vehicles are booked ahead."
    records = [
        {
            "id": "qa",
            "source": source,
            "output": "Yes.",
            "question": "Do foot passengers buy tickets at the terminal?",
        },
        {"id": "plain", "source": source + " It sails daily.", "output": "Yes."},
    ]
    import_file(project, write_jsonl(tmp_path / "qa.jsonl", records))
    analyze(project, [LexicalArcChecker()])
    rows = {r.external_id: r for r in project.pair_rows("lexical", LexicalArcChecker.version)}
    assert rows["qa"].lowest_support == 1.0
    assert rows["plain"].lowest_support is None
    sents = project.sentences(output_id=rows["plain"].output_id)
    plain = project.sentence_scores("lexical", LexicalArcChecker.version, [s.id for s in sents])
    assert plain[sents[0].id].not_checked == "no content arcs"


def test_a_new_analysis_reads_the_sentences_the_project_stored(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pairs parsed when a line break did not end a sentence keep their sentences (and so their
    judgments) when a later FactDesk analyses them again; new texts are cut at line breaks."""
    import json

    import models.parsing as parsing

    source = "The council met on Monday\nIt voted to close the pool. It opened in 1931."
    first = tmp_path / "first.jsonl"
    first.write_text(
        json.dumps({"id": "a", "source": source, "output": "It met on Monday\nIt voted"}) + "\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(parsing, "line_starts", lambda doc: [])  # as FactDesk cut them before
    import_file(project, first)
    analyze(project, [LexicalArcChecker()])
    monkeypatch.undo()
    second = tmp_path / "second.jsonl"
    second.write_text(
        json.dumps({"id": "b", "source": source, "output": "It met on Monday\nIt shut"}) + "\n",
        encoding="utf-8",
    )
    import_file(project, second)

    class Newer(LexicalArcChecker):
        version = "test-newer"

    report = analyze(project, [Newer()]).checkers[0]
    assert report.scored == 2 and report.sentences == 1 + 2
    rows = {r.external_id: r for r in project.pair_rows("lexical", Newer.version)}
    old = project.sentences(output_id=rows["a"].output_id)
    new = project.sentences(output_id=rows["b"].output_id)
    assert [s.text for s in old] == ["It met on Monday\nIt voted"]
    assert [s.text for s in new] == ["It met on Monday", "It shut"]
    for sents in (old, new):
        scored = project.sentence_scores("lexical", Newer.version, [s.id for s in sents])
        assert set(scored) == {s.id for s in sents}
    # the source was stored with the first pair: both pairs read it in those sentences
    starts = pair_starts(project, [rows["a"].output_id, rows["b"].output_id])
    with project.session() as s:
        source_id = s.get(Output, rows["a"].output_id).source_id
    stored = [x.start for x in project.sentences(source_id=source_id)]
    assert len(stored) == 2
    assert {oid: s[0] for oid, s in starts.items()} == {
        rows["a"].output_id: stored,
        rows["b"].output_id: stored,
    }


def test_scores_go_to_the_stored_arc_with_the_same_words(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An output whose arcs come out otherwise than when they were stored (here: in another
    order, as another arc rule or parser may give them) gets each arc score on the stored arc
    with the same words and label, never on the arc that sits at the same place."""
    import json

    import models.parsing as parsing
    from models.checkers.base import PairInput
    from models.parsing import parse_many

    source = "The mayor of Lyon opened a new bridge over the river on Monday."
    output = "The mayor of Paris opened a new bridge on Monday."
    data = tmp_path / "pair.jsonl"
    data.write_text(json.dumps({"id": "a", "source": source, "output": output}) + "\n")
    real = parsing.extract_arcs
    monkeypatch.setattr(parsing, "extract_arcs", lambda tokens, i: real(tokens, i)[::-1])
    import_file(project, data)
    analyze(project, [LexicalArcChecker()])
    monkeypatch.undo()

    class Newer(LexicalArcChecker):
        version = "test-newer"

    analyze(project, [Newer()])
    (row,) = project.pair_rows("lexical", Newer.version)
    arcs = project.arcs([s.id for s in project.sentences(output_id=row.output_id)])
    scored = project.arc_scores("lexical", Newer.version, [a.id for a in arcs])
    src, out = parse_many([source, output])
    fresh = Newer().score([PairInput(0, src, out)])[0].arcs
    want = {
        (
            out.sentences[a.sentence].arcs[a.arc].head,
            out.sentences[a.sentence].arcs[a.arc].child,
            out.sentences[a.sentence].arcs[a.arc].label,
        ): a.score
        for a in fresh
    }
    assert len(set(want.values())) > 1  # a misplaced score would show
    assert {a.id: scored[a.id] for a in arcs} == {
        a.id: want[(a.head_idx, a.child_idx, a.label)] for a in arcs
    }
