"""Learning from the editor (issue 14): calibration, adaptation, the queue, the CLI."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import String, cast, delete, select, update

from app.analysis import analyze
from app.cli import main
from app.learning import calibration as C
from app.learning.adapt import (
    AdaptError,
    adapt_project,
    rescore_with_project_model,
    use_project_model,
)
from app.learning.queue import Signals, disagreements, queue, rank, register_provider
from app.store import Project
from app.store.heads import active_model, apply_project_model
from app.store.judging import JudgmentKey, JudgmentValue
from app.store.schema import ArcScoreRow, PairScoreRow, SentenceRow, SentenceScoreRow
from models.checkers.adapted import AdaptedCombinedChecker
from models.resources import resources_dir

sys.path.insert(0, str(Path(__file__).parent))
import learning_fixture as F  # noqa: E402


# ---------------------------------------------------------------------- calibration (pure)
def test_calibration_recovers_a_known_threshold() -> None:
    rng = np.random.default_rng(0)
    scores = rng.uniform(0, 1, 400)
    y = (scores >= 0.37).astype(int)
    fit = C.fit_points("c", "v", "pair", C.Points(scores, y, np.ones(400, bool)))
    assert abs(fit.threshold - 0.37) < 0.01
    assert fit.metrics["balanced_accuracy"] == 1.0
    assert fit.probability["method"] == "isotonic"  # enough judgments of both kinds
    p = fit.probability_of([0.1, 0.9])
    assert p[0] < 0.1 and p[1] > 0.9


def test_calibration_with_noise_and_few_judgments_uses_platt() -> None:
    rng = np.random.default_rng(1)
    scores = rng.uniform(0, 1, 40)
    y = (scores + rng.normal(0, 0.1, 40) >= 0.6).astype(int)
    fit = C.fit_points("c", "v", "sentence", C.Points(scores, y, np.zeros(40, bool)))
    assert 0.45 < fit.threshold < 0.75
    assert fit.probability["method"] == "platt" and fit.probability["a"] > 0
    assert fit.metrics["made_blind"] == 40


def test_target_recall_threshold_is_the_lowest_that_reaches_it() -> None:
    scores = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95])
    y = np.array([0, 0, 1, 0, 1, 0, 1, 1, 0, 1])  # rejected: .1 .2 .4 .6 .9
    t = C.recall_threshold(scores, y, 0.8)  # 4 of 5 rejected must be flagged: up to 0.6
    assert 0.6 < t <= 0.7
    assert C.recall_unsupported(scores, y, t) >= 0.8
    assert C.recall_unsupported(scores, y, 0.6) < 0.8  # anything lower misses the target
    assert C.recall_threshold(scores, y, 1.0) > 0.9
    with pytest.raises(C.CalibrationError):
        C.recall_threshold(scores, y, 1.5)


def test_too_few_or_one_sided_judgments_are_refused_with_the_level() -> None:
    pts = C.Points(np.array([0.2, 0.4, 0.6, 0.8]), np.ones(4, int), np.ones(4, bool))
    with pytest.raises(C.CalibrationError, match="pair level: 4 judgments"):
        C.fit_points("c", "v", "pair", pts)


# ---------------------------------------------------------------------- the queue (pure)
def test_queue_order_on_a_fixture() -> None:
    sigs = [
        Signals(1, 0.95),  # confidently supported: last of the open ones
        Signals(2, 0.10),  # likely unsupported
        Signals(3, 0.52),  # near the threshold
        Signals(4, 0.05, done=True),  # done: after every open pair
        Signals(5, 0.90, disagreeing_sentences=(2,)),
        Signals(6, None),  # not scored
        Signals(7, 0.80, editor_disagrees="pair judged unsupported, model 0.80"),
    ]
    items = rank(sigs, 0.5)
    assert [i.output_id for i in items] == [2, 3, 5, 7, 6, 1, 4]
    why = {i.output_id: i.reason for i in items}
    assert why[2].startswith("likely unsupported (0.10)")
    assert "near the threshold 0.50" in why[3]
    assert "arc and sentence checkers disagree on sentence 2" in why[5]
    assert why[4].startswith("done; ")
    assert [i.output_id for i in disagreements(items)] == [7]


def test_queue_takes_extra_priority_providers() -> None:
    sigs = [Signals(1, 0.9), Signals(2, 0.9)]
    items = rank(sigs, 0.5, [{2: (1.0, "unfamiliar entities: Inchmara")}])
    assert items[0].output_id == 2 and items[0].reason == "unfamiliar entities: Inchmara"


# ---------------------------------------------------------------------- an analysed project
@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("learn") / "base.factdesk"
    F.build(path).close()
    return path


@pytest.fixture
def proj(built: Path, tmp_path: Path) -> Iterator[Project]:
    path = tmp_path / "p.factdesk"
    shutil.copy(built, path)
    p = Project.open(path)
    yield p
    p.close()


def _tree_hashes(root: Path) -> dict[str, str]:
    return {
        str(f.relative_to(root)): hashlib.sha1(f.read_bytes()).hexdigest()
        for f in sorted(root.rglob("*"))
        if f.is_file() and "__pycache__" not in f.parts
    }


def _scores(project: Project, version: str) -> dict[int, float | None]:
    return project.pair_scores("combined", version)


def test_project_calibration_is_stored_with_its_judgment_count(proj: Project) -> None:
    fits, skipped = C.calibrate(proj)
    assert [f.level for f in fits] == ["pair"]
    assert {s["level"] for s in skipped} == {"sentence", "arc"}
    fit = C.shown_threshold(proj, "combined", proj.current_versions()["combined"])
    assert fit is not None and fit.n_judgments == F.N_PAIRS
    assert fit.metrics["made_blind"] == sum(1 for k in range(F.N_PAIRS) if k % 3 == 0)


def test_adaptation_moves_scores_towards_the_judgments_and_leaves_bundled_files(
    proj: Project,
) -> None:
    before_files = _tree_hashes(resources_dir())
    base = proj.current_versions()["combined"]
    report = adapt_project(proj)
    assert _tree_hashes(resources_dir()) == before_files
    assert report.base_version == base and report.version.startswith(base + "+p")
    assert proj.current_versions()["combined"] == report.version  # shown now
    assert report.rescored_pairs == F.N_PAIRS
    with proj.session() as s:  # the arcs are the bundled score's, copied under the new version
        arcs = {
            v: sorted(
                s.execute(
                    select(ArcScoreRow.arc_id, ArcScoreRow.score).where(
                        ArcScoreRow.checker == "combined", ArcScoreRow.version == v
                    )
                ).all()
            )
            for v in (base, report.version)
        }
    assert arcs[base] and arcs[base] == arcs[report.version]
    old, new = _scores(proj, base), _scores(proj, report.version)
    away = []  # pairs that move away from their judgment and end on the wrong side of 0.5
    for oid in proj.output_ids():
        o, n = old[oid], new[oid]
        assert o is not None and n is not None
        if F.editor_supports(oid - 1):
            away += [oid] if n < o - 1e-9 and n < 0.5 else []
        else:
            away += [oid] if n > o + 1e-9 and n >= 0.5 else []
    # one head moves all pairs together: a rare pair may go against its judgment, no more
    assert len(away) <= F.N_PAIRS // 20, away
    assert report.balanced_accuracy_after > report.balanced_accuracy_before  # type: ignore[operator]
    assert report.made_blind + report.made_with_marks_visible == F.N_PAIRS
    # Adapting again with the same judgments re-scores nothing.
    again = adapt_project(proj)
    assert again.version == report.version and again.rescored_pairs == 0


def test_adapted_scores_keep_the_bundled_checkers_detail(proj: Project) -> None:
    """The head re-weighs the bundled combined score; what that checker found stays beside it."""
    base = proj.current_versions()["combined"]
    with proj.session() as s:
        s.execute(
            update(SentenceScoreRow)
            .where(SentenceScoreRow.checker == "combined", SentenceScoreRow.version == base)
            .values(detail="found " + cast(SentenceScoreRow.sentence_id, String))
        )
    report = adapt_project(proj)

    def details(version: str) -> dict[int, str | None]:
        with proj.session() as s:
            rows = s.execute(
                select(SentenceScoreRow.sentence_id, SentenceScoreRow.detail).where(
                    SentenceScoreRow.checker == "combined", SentenceScoreRow.version == version
                )
            )
            return {sid: detail for sid, detail in rows}

    before, after = details(base), details(report.version)
    assert before and after == before
    assert all(d == f"found {sid}" for sid, d in after.items())


def test_switching_back_to_the_bundled_model_and_again(proj: Project) -> None:
    base = proj.current_versions()["combined"]
    report = adapt_project(proj)
    assert use_project_model(proj, False) == base
    assert proj.current_versions()["combined"] == base and active_model(proj) is None
    assert proj.checker_names()["combined"] == "combined score"
    assert use_project_model(proj, True) == report.version
    assert proj.current_versions()["combined"] == report.version


def test_adapt_without_judgments_says_why(built: Path, tmp_path: Path) -> None:
    path = tmp_path / "none.factdesk"
    shutil.copy(built, path)
    with Project.open(path) as p:
        for oid in p.output_ids():
            p.judge(JudgmentKey(oid, "pair"), None)
        with pytest.raises(AdaptError, match="no pair or sentence judgment"):
            adapt_project(p)


def test_project_model_travels_and_analysis_scores_new_pairs_with_it(
    proj: Project, tmp_path: Path
) -> None:
    report = adapt_project(proj)
    scores = _scores(proj, report.version)
    proj.close()
    moved = tmp_path / "elsewhere" / "moved.factdesk"
    moved.parent.mkdir()
    shutil.copy(proj.path, moved)
    with Project.open(moved) as p:
        assert active_model(p) is not None and active_model(p).version == report.version  # type: ignore[union-attr]
        # Drop the head's scores: the project alone is enough to compute them again.
        with p.session() as s:
            for table in (PairScoreRow, SentenceScoreRow):
                s.execute(delete(table).where(table.version == report.version))
        use_project_model(p, True)
        again = _scores(p, report.version)
        assert again.keys() == scores.keys()
        for oid in scores:
            assert again[oid] == pytest.approx(scores[oid])
        # Analysis scores a pair through the head too (same value as the stored-score path).
        first = p.output_ids()[0]
        with p.session() as s:
            s.execute(
                delete(PairScoreRow).where(
                    PairScoreRow.version == report.version, PairScoreRow.output_id == first
                )
            )
        wrapped = apply_project_model(p, F.checkers())
        assert isinstance(wrapped[-1], AdaptedCombinedChecker)
        analyze(p, F.checkers())
        assert _scores(p, report.version)[first] == pytest.approx(scores[first])


def test_queue_on_the_project_has_reasons_and_a_disagreement_filter(proj: Project) -> None:
    version = proj.current_versions()["combined"]
    # Reopen one pair as unjudged: the queue puts it before the done ones.
    last = proj.output_ids()[-1]
    proj.judge(JudgmentKey(last, "pair"), None)
    items = queue(proj, "combined", version, 0.5, providers=[])
    assert items[0].output_id == last and not items[0].done
    assert all(i.done for i in items[1:])
    assert all(i.reason for i in items)
    dis = disagreements(items)
    scores = _scores(proj, version)
    assert dis and all(
        (scores[i.output_id] >= 0.5) != F.editor_supports(i.output_id - 1)  # type: ignore[operator]
        for i in dis
    )


def test_registered_provider_is_used_by_default(proj: Project) -> None:
    version = proj.current_versions()["combined"]
    last = proj.output_ids()[-1]
    proj.judge(JudgmentKey(last, "pair"), None)
    proj.judge(JudgmentKey(last - 1, "pair"), None)
    register_provider("test", lambda p: {last - 1: (5.0, "test provider")})
    try:
        items = queue(proj, "combined", version, 0.5)
    finally:
        from app.learning.queue import PROVIDERS

        PROVIDERS.pop("test")
    assert items[0].output_id == last - 1 and "test provider" in items[0].reason


# ---------------------------------------------------------------------- CLI
def test_cli_calibrate_json(proj: Project, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(proj.path)
    assert main(["calibrate", path, "--json", "--level", "pair", "--target-recall", "0.9"]) == 0
    data = json.loads(capsys.readouterr().out)
    (fit,) = data["calibrations"]
    assert fit["level"] == "pair" and fit["target_recall"] == 0.9
    assert fit["n_judgments"] == F.N_PAIRS and fit["metrics"]["recall_unsupported"] >= 0.9
    assert main(["calibrate", path, "--level", "arc"]) == 2
    assert "arc level: 0 judgments" in capsys.readouterr().err
    assert main(["calibrate", path, "--target-recall", "2"]) == 2


def test_cli_adapt_json_and_reset(proj: Project, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(proj.path)
    assert main(["adapt", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["judgments"] == {"pair": F.N_PAIRS, "sentence": 0, "arc": 0}
    assert data["made_blind"] + data["made_with_marks_visible"] == F.N_PAIRS
    assert data["version"].startswith(data["base_version"] + "+p")
    assert main(["adapt", path, "--reset", "--json"]) == 0
    reset = json.loads(capsys.readouterr().out)
    assert reset["version"] == data["base_version"]
    with Project.open(path) as p:
        assert p.current_versions()["combined"] == data["base_version"]


def test_sentence_judgments_calibrate_and_adapt_at_sentence_level(proj: Project) -> None:
    version = proj.current_versions()["combined"]
    ids = proj.output_ids()
    for oid in ids:  # the pair judgments give way to sentence judgments
        proj.judge(JudgmentKey(oid, "pair"), None)
    for oid in ids[:20]:
        (sent,) = proj.sentences(output_id=oid)
        yes = F.editor_supports(oid - 1)
        proj.judge(
            JudgmentKey(oid, "sentence", sentence_id=sent.id),
            JudgmentValue("supported" if yes else "unsupported", model_visible=False),
        )
    fits, _ = C.calibrate(proj, levels=["sentence"])
    assert fits[0].level == "sentence" and fits[0].n_judgments == 20
    assert fits[0].metrics["made_blind"] == 20
    report = adapt_project(proj)
    assert report.judgments == {"pair": 0, "sentence": 20, "arc": 0} and report.made_blind == 20
    assert report.balanced_accuracy_after > report.balanced_accuracy_before  # type: ignore[operator]
    assert proj.current_versions()["combined"] != version


def test_cli_errors_are_one_line_and_name_the_project(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = tmp_path / "fresh.factdesk"
    Project.create(fresh).close()
    assert main(["calibrate", str(fresh)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"factdesk: error: {fresh}: not analysed yet; run analyze first"
    assert main(["adapt", str(fresh)]) == 2
    assert "no combined score yet" in capsys.readouterr().err
    path = tmp_path / "p.factdesk"
    shutil.copy(built, path)
    assert main(["adapt", str(path), "--use"]) == 2
    err = capsys.readouterr().err
    assert "no project model yet; adapt first" in err and len(err.strip().splitlines()) == 1
    assert main(["calibrate", str(path), "--checker", "nosuch"]) == 2
    assert "no scores from 'nosuch'" in capsys.readouterr().err


def test_arc_judgments_fit_an_arc_head_in_both_paths(proj: Project) -> None:
    from sqlalchemy import func

    from app.store.schema import ArcRow, SentenceRow

    base = proj.current_versions()["combined"]
    with proj.session() as s:
        first_arcs = s.execute(
            select(SentenceRow.output_id, func.min(ArcRow.id))
            .join(ArcRow, ArcRow.sentence_id == SentenceRow.id)
            .group_by(SentenceRow.output_id)
        ).all()
    # The editor finds every arc of a pair whose alignment is low not entailed.
    for oid, arc_id in first_arcs:
        (sent,) = proj.sentences(output_id=oid)
        yes = F.editor_supports(oid - 1)
        proj.judge(
            JudgmentKey(oid, "arc", sentence_id=sent.id, arc_id=arc_id),
            JudgmentValue("supported" if yes else "unsupported"),
        )
    report = adapt_project(proj)
    assert report.judgments["arc"] == len(first_arcs)
    head = active_model(proj)
    assert head is not None and head.arc is not None
    old = {a: sc for a, sc in _arc_scores(proj, base)}
    new = dict(_arc_scores(proj, report.version))
    assert old.keys() == new.keys()
    for arc_id, value in new.items():
        assert value == pytest.approx(head.arc_score(old[arc_id]))
    # A pair re-scored by analysis gets the same arc scores.
    first = proj.output_ids()[0]
    with proj.session() as s:
        s.execute(
            delete(PairScoreRow).where(
                PairScoreRow.version == report.version, PairScoreRow.output_id == first
            )
        )
    analyze(proj, F.checkers())
    again = dict(_arc_scores(proj, report.version))
    assert again == pytest.approx(new)


def _arc_scores(project: Project, version: str) -> list[tuple[int, float]]:
    with project.session() as s:
        return [
            (a, sc)
            for a, sc in s.execute(
                select(ArcScoreRow.arc_id, ArcScoreRow.score).where(
                    ArcScoreRow.checker == "combined", ArcScoreRow.version == version
                )
            )
        ]


def test_arc_head_moves_arc_scores_towards_the_judgments() -> None:
    from models.checkers.adapted import Head, identity_spec
    from models.checkers.combined import load_combiner
    from models.training.adapt import fit_arc_head

    scores = np.linspace(0.05, 0.95, 40)
    y = (scores > 0.7).astype(float)  # this editor rejects arcs the model finds likely (< 0.7)
    arc = fit_arc_head(scores, y)
    assert arc is not None and arc["judgments"] == 40
    head = Head({**identity_spec(load_combiner(), "v"), "arc": arc})
    assert head.arc_score(0.6) < 0.5 < head.arc_score(0.85)  # type: ignore[operator]
    assert fit_arc_head(scores[:5], y[:5]) is None  # too few to move anything
    assert fit_arc_head(scores, np.ones(40)) is None  # one kind only


def test_pairs_scored_elsewhere_get_the_heads_scores(proj: Project) -> None:
    """An analysis that ran the bundled models elsewhere (Ray workers) leaves the head's version
    missing for its new pairs: they get it from the stored component scores."""
    assert rescore_with_project_model(proj) is None  # bundled model in use: nothing to do
    report = adapt_project(proj)
    scores = _scores(proj, report.version)
    gone = proj.output_ids()[:5]
    with proj.session() as s:
        s.execute(
            delete(PairScoreRow).where(
                PairScoreRow.version == report.version, PairScoreRow.output_id.in_(gone)
            )
        )
        sentences = select(SentenceRow.id).where(SentenceRow.output_id.in_(gone))
        s.execute(
            delete(SentenceScoreRow).where(
                SentenceScoreRow.version == report.version,
                SentenceScoreRow.sentence_id.in_(sentences),
            )
        )
    again = rescore_with_project_model(proj)
    assert again is not None and again.rescored_pairs == len(gone)
    after = _scores(proj, report.version)
    assert after.keys() == scores.keys()
    for oid in scores:
        assert after[oid] == pytest.approx(scores[oid])
