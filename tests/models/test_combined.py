"""The combined score: prediction, combination of component results, and the fit."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from models.checkers.base import PairInput, PairScore, SentenceScore, pair_score
from models.checkers.combined import KIND, CombinedChecker, Combiner, logit
from models.document import ParsedText, Sentence
from models.errors import ModelLoadError
from models.evaluation import auc, stratified_folds
from models.training.combine import fit_combiner, pair_features, standardise
from models.training.logistic import fit


def _spec(features: list[str], weights: list[float], bias: float = 0.0) -> dict:
    return {
        "kind": KIND,
        "features": features,
        "mean": [0.0] * len(features),
        "sd": [1.0] * len(features),
        "weights": weights,
        "bias": bias,
    }


def _output(n: int) -> ParsedText:
    sentences = tuple(Sentence(i, i * 10, i * 10 + 9, "x" * 9, (), ()) for i in range(n))
    return ParsedText(" ".join(s.text for s in sentences), sentences)


class Fixed:
    """A component checker returning given sentence scores (None: not checked)."""

    def __init__(self, name: str, values: Sequence[float | None], min_arc: float | None = None):
        self.name, self.version, self.grain = name, "v1", "arc"
        self.values, self.min_arc = values, min_arc

    def score(self, batch: Sequence[PairInput], **_: object) -> list[PairScore]:
        out = []
        for item in batch:
            sentences = [
                SentenceScore(
                    k,
                    v,
                    self.min_arc if v is not None else None,
                    (k,),
                    0,
                    None if v is not None else "no content arcs",
                )
                for k, v in enumerate(self.values)
            ]
            out.append(pair_score(item.key, self, sentences))  # type: ignore[arg-type]
        return out


def test_predict_is_logistic_on_standardised_logits_and_imputes_missing() -> None:
    comb = Combiner(_spec(["support", "align"], [2.0, 1.0], bias=0.5))
    p = comb.predict([[0.9, 0.2], [0.9, None]])
    expected0 = 1 / (1 + np.exp(-(2 * logit(0.9) + logit(0.2) + 0.5)))
    expected1 = 1 / (1 + np.exp(-(2 * logit(0.9) + 0.5)))  # missing align -> its mean (0)
    np.testing.assert_allclose(p, [expected0, expected1], rtol=1e-6)
    with pytest.raises(ModelLoadError):
        Combiner(_spec(["nonsense"], [1.0]))


def test_combined_checker_per_sentence_and_not_checked() -> None:
    comb = Combiner(_spec(["dae", "support"], [1.0, 1.0]))
    checker = CombinedChecker(
        comb,
        {
            "dae": Fixed("dae", [0.9, 0.1, None], 0.05),
            "support": Fixed("support", [0.8, 0.2, None]),
        },
    )
    (result,) = checker.score([PairInput("k", _output(0), _output(3))])
    first, second, third = result.sentences
    assert first.score == pytest.approx(1 / (1 + np.exp(-(logit(0.9) + logit(0.8)))))
    assert second.score < 0.5 < first.score
    assert third.score is None and third.not_checked == "no content arcs"
    assert result.score == second.score  # the weakest sentence
    assert checker.version.startswith(comb.version + ".")
    newer = Fixed("dae", [0.9, 0.1, None], 0.05)
    newer.version = "v2"
    other = CombinedChecker(comb, {"dae": newer, "support": Fixed("support", [0.8, 0.2, None])})
    assert other.version != checker.version  # a new component version is a new version
    with pytest.raises(ModelLoadError):
        CombinedChecker(comb, {"dae": Fixed("dae", [0.5])})


def test_a_sentence_only_weightless_features_read_is_not_checked() -> None:
    """Read by align alone (weight 0: the models' input was too short for it), a sentence
    would get the bias alone, a score that says nothing of it; it is not checked instead."""
    comb = Combiner(_spec(["support", "align"], [1.0, 0.0], bias=-0.4))
    checker = CombinedChecker(
        comb,
        {"support": Fixed("support", [0.9, None]), "align": Fixed("align", [0.9, 0.95])},
    )
    (result,) = checker.score([PairInput("k", _output(0), _output(2))])
    read, unread = result.sentences
    assert read.score is not None and read.score > 0.5
    assert unread.score is None and unread.not_checked == "no content arcs"
    assert result.score == read.score


def test_pair_features_take_the_weakest_sentence() -> None:
    results = {
        "dae": Fixed("dae", [0.9, 0.3], 0.1).score([PairInput("k", _output(0), _output(2))])[0],
        "support": Fixed("support", [None, None]).score([PairInput("k", _output(0), _output(2))])[
            0
        ],
    }
    assert pair_features(["dae", "dae_min", "support"], results, 2) == [0.3, 0.1, None]
    # one conflicting sentence makes the pair conflicting (a conflict speaks against support)
    item = PairInput("k", _output(0), _output(2))
    results["questions"] = Fixed("questions", [1.0, 0.0]).score([item])[0]
    assert pair_features(["dae", "questions_conflict"], results, 2) == [0.3, 1.0]


def test_fit_finds_the_informative_feature() -> None:
    rng = np.random.default_rng(1)
    y = (rng.uniform(size=600) < 0.5).astype(float)
    good = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.15, 600), 0.01, 0.99)
    noise = rng.uniform(0.01, 0.99, 600)
    x = np.stack([good, noise], 1)
    x[::7, 1] = np.nan  # missing values are allowed
    spec = fit_combiner(["support", "align"], x, y, {"support": "v"})
    assert spec["weights"][0] > 5 * abs(spec["weights"][1])
    assert spec["cv_auc"] > 0.8
    p = Combiner(spec).predict([[v if v == v else None for v in row] for row in x.tolist()])
    assert auc(p, y) > 0.8


def test_features_left_out_of_weigh_keep_weight_zero_and_their_standardisation() -> None:
    rng = np.random.default_rng(6)
    y = (rng.uniform(size=400) < 0.5).astype(float)
    good = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.1, 400), 0.01, 0.99)
    also = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.1, 400), 0.01, 0.99)
    both = fit_combiner(["nli", "support"], np.stack([good, also], 1), y, {})
    assert min(both["weights"]) > 0  # two informative signals: both weighed when free to
    spec = fit_combiner(["nli", "support"], np.stack([good, also], 1), y, {}, weigh=["nli"])
    assert spec["weights"][0] > 0 and spec["weights"][1] == 0.0
    assert spec["sd"][1] > 0 and spec["mean"][1] != 0.0  # the project head reads these
    assert spec["weigh"] == ["nli"] and both["weigh"] == ["nli", "support"]
    with pytest.raises(ValueError, match="nonsense"):
        fit_combiner(["nli"], good[:, None], y, {}, weigh=["nonsense"])
    with pytest.raises(ValueError, match="none of the features"):
        fit_combiner(["nli"], good[:, None], y, {}, weigh=["align"])


def test_the_fast_fit_reads_the_fast_paths_checkers_in_their_slots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``combine --fast`` fits on what ``combined-fast`` reads: the MiniLM NLI and arc/support
    checkers in the ``nli``, ``dae`` and ``support`` slots (a user's arc/support model, named,
    still fills its own); the default fit reads the bundled checkers."""
    from types import SimpleNamespace

    from models import registry
    from models.training.combine import load_components

    monkeypatch.setattr(
        registry,
        "load_checker",
        lambda name, **kw: SimpleNamespace(name=name, model_dir=kw.get("model_dir")),
    )
    features = ["dae", "dae_min", "support", "nli", "questions_conflict"]
    fast = load_components(features, fast=True)
    assert {slot: c.name for slot, c in fast.items()} == {
        "dae": "dae-fast",
        "support": "support-fast",
        "nli": "nli-fast",
        "questions": "questions",
    }
    assert {c.name for c in load_components(features).values()} == {
        "dae",
        "support",
        "nli",
        "questions",
    }
    mine = load_components(["dae", "nli"], fast=True, model_dir=Path("mine"))
    assert mine["dae"].name == "dae" and mine["dae"].model_dir == Path("mine")
    assert mine["nli"].name == "nli-fast"


def test_no_component_may_lower_the_combined_score_as_it_rises() -> None:
    """Two correlated signals fitted together pull apart (one weight turns negative); the fit
    zeroes that one, keeps it in the file and refits the rest."""
    rng = np.random.default_rng(3)
    y = (rng.uniform(size=800) < 0.5).astype(float)
    signal = 0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.12, 800)
    mean = np.clip(signal, 0.01, 0.99)
    # the lowest arc: the same signal plus noise that runs against the label
    low = np.clip(signal - 0.2 * y + rng.normal(0, 0.05, 800), 0.01, 0.99)
    x = np.stack([mean, low], 1)
    free, _ = fit(standardise(x)[0], y, l2=1e-3, balanced=True)
    assert free[1] < 0  # what an unconstrained fit does here
    spec = fit_combiner(["dae", "dae_min"], x, y, {"dae": "v"})
    assert spec["features"] == ["dae", "dae_min"] and spec["weights"][1] == 0.0
    assert spec["weights"][0] > 0 and spec["cv_auc"] > 0.8


def test_a_conflict_may_only_lower_the_combined_score() -> None:
    """The question-check conflict speaks against support: its weight is fitted at or below 0
    (a plain monotone fit would zero it), and a conflict that comes with support in the
    training rows gets no weight at all."""
    rng = np.random.default_rng(4)
    y = (rng.uniform(size=800) < 0.5).astype(float)
    nli = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.15, 800), 0.01, 0.99)
    conflict = ((rng.uniform(size=800) < 0.3) & (y == 0)).astype(float)
    spec = fit_combiner(["nli", "questions_conflict"], np.stack([nli, conflict], 1), y, {})
    assert spec["weights"][0] > 0 and spec["weights"][1] < 0
    comb = Combiner(spec)
    assert comb.predict([[0.7, 1.0]])[0] < comb.predict([[0.7, 0.0]])[0]
    backwards = ((rng.uniform(size=800) < 0.3) & (y == 1)).astype(float)
    spec = fit_combiner(["nli", "questions_conflict"], np.stack([nli, backwards], 1), y, {})
    assert spec["weights"][1] == 0.0 and spec["weights"][0] > 0


def test_stratified_folds_partition_and_balance() -> None:
    y = np.array([1] * 30 + [0] * 70)
    folds = stratified_folds(y, 5, seed=3)
    assert sorted(np.concatenate(folds).tolist()) == list(range(100))
    assert all(y[f].sum() == 6 for f in folds)


def test_word_match_signals_are_left_out_for_a_yes_no_claim() -> None:
    from models.claims import Claim

    comb = Combiner(_spec(["support", "align", "lexical"], [1.0, 1.0, 1.0]))
    checker = CombinedChecker(
        comb,
        {
            "support": Fixed("support", [0.3, 0.3]),
            "align": Fixed("align", [0.9, 0.9]),
            "lexical": Fixed("lexical", [1.0, 1.0]),
        },
    )
    out = _output(2)
    claim = Claim(0, "It is not open.", "yes/no", out.sentences[0])
    wh = Claim(1, "It opened in 1967.", "wh", out.sentences[1])
    (result,) = checker.score([PairInput("k", _output(0), out, "Is it open?", (claim, wh))])
    # The yes/no claim's words are the question's: only the model's support counts.
    assert result.sentences[0].score == pytest.approx(1 / (1 + np.exp(-logit(0.3))))
    assert result.sentences[1].score == pytest.approx(
        1 / (1 + np.exp(-(logit(0.3) + logit(0.9) + logit(1.0))))
    )


class Spy(Fixed):
    """A Fixed checker that records the keys of the pairs it was asked to score."""

    def __init__(self, name: str, values: Sequence[float | None]) -> None:
        super().__init__(name, values)
        self.seen: list[object] = []

    def score(self, batch: Sequence[PairInput], **kw: object) -> list[PairScore]:
        self.seen += [item.key for item in batch]
        return super().score(batch, **kw)


def _yes_no_pair(key: str) -> PairInput:
    from models.claims import Claim

    out = _output(2)
    claim = Claim(0, "It is not open.", "yes/no", out.sentences[0])
    wh = Claim(1, "It opened in 1967.", "wh", out.sentences[1])
    return PairInput(key, _output(0), out, "Is it open?", (claim, wh))


def test_a_yes_no_claim_is_judged_by_the_three_way_model() -> None:
    comb = Combiner(_spec(["support", "align"], [1.0, 1.0]))
    parts = {"support": Fixed("support", [0.3, 0.3]), "align": Fixed("align", [0.9, 0.9])}
    answers = Spy("nli", [0.85, 0.1])
    checker = CombinedChecker(comb, parts, answers)
    (result,) = checker.score([_yes_no_pair("k")])
    # The yes/no sentence blends the NLI checker's score (its "No" is already the contradiction
    # probability of what it denies) with the combined one; the wh claim keeps the features.
    combined = 1 / (1 + np.exp(-logit(0.3)))  # word-match signals are left out for yes/no
    want = 1 / (1 + np.exp(-(logit(combined) + logit(0.85)) / 2))
    assert result.sentences[0].score == pytest.approx(want)
    assert result.sentences[1].score == pytest.approx(1 / (1 + np.exp(-(logit(0.3) + logit(0.9)))))
    assert answers.seen == ["k"]
    assert CombinedChecker(comb, parts).version != checker.version


def test_pairs_without_a_yes_no_claim_score_exactly_as_before() -> None:
    from models.claims import Claim

    comb = Combiner(_spec(["dae", "support"], [1.0, 1.0]))
    parts = {"dae": Fixed("dae", [0.9, None], 0.05), "support": Fixed("support", [0.8, 0.4])}
    out = _output(2)
    wh = Claim(0, "It opened in 1967.", "wh", out.sentences[0])
    batch = [PairInput("plain", _output(0), out), PairInput("wh", _output(0), out, "When?", (wh,))]
    answers = Spy("nli", [0.01, 0.01])
    before = CombinedChecker(comb, parts).score(batch)
    after = CombinedChecker(comb, parts, answers).score(batch)
    assert [(r.score, r.sentences, r.arcs) for r in after] == [
        (r.score, r.sentences, r.arcs) for r in before
    ]
    assert answers.seen == []  # the NLI model is not even run for them


class Detailed(Fixed):
    """A component whose sentences say why (the NLI checker's words)."""

    def score(self, batch: Sequence[PairInput], **_: object) -> list[PairScore]:
        out = []
        for result in super().score(batch):
            sentences = [
                SentenceScore(s.sentence, s.score, None, s.evidence, 0, None, f"why {s.sentence}")
                for s in result.sentences
            ]
            out.append(pair_score(result.key, self, sentences))  # type: ignore[arg-type]
        return out


def test_a_question_conflict_and_the_claim_check_are_features() -> None:
    spec = _spec(["nli", "questions_conflict"], [1.0, -3.0])
    spec["sd"] = [1.0, float(logit(1.0))]  # the conflict flag standardised to -1 / +1
    comb = Combiner(spec)
    checker = CombinedChecker(
        comb,
        {
            "nli": Detailed("nli", [0.9, 0.6, 0.02]),
            # the question-based check: 0 = a name or figure the source answers otherwise
            "questions": Fixed("questions", [1.0, 0.0, 0.75]),
        },
    )
    (result,) = checker.score([PairInput("k", _output(0), _output(3))])
    agree, conflict, unsupported = result.sentences
    assert conflict.score == pytest.approx(1 / (1 + np.exp(-(logit(0.6) - 3.0))))
    assert agree.score == pytest.approx(1 / (1 + np.exp(-(logit(0.9) + 3.0))))
    assert conflict.score < 0.5 < agree.score and unsupported.score < 0.5
    # a flagged sentence says why in the NLI checker's words; a supported one says nothing
    assert unsupported.detail == "why 2" and conflict.detail == "why 1"
    assert agree.detail is None


def test_the_default_fit_has_the_shipped_combiners_features(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``python -m models.training.combine`` with no ``--features`` (and the reproduce
    pipeline) fits the features the bundled combiners were fitted on, not every candidate."""
    import json

    import models.training.combine as combine
    from models.checkers.combined import BUNDLED_FILE, FAST_FILE

    for file in (BUNDLED_FILE, FAST_FILE):
        features = json.loads(file.read_text(encoding="utf-8"))["features"]
        assert tuple(features) == combine.SHIPPED_FEATURES
    seen: dict = {}
    monkeypatch.setattr(combine, "build", lambda *a, **kw: seen.update(kw))
    combine.main(["--out", "unused.json"])
    assert tuple(seen["features"]) == combine.SHIPPED_FEATURES
