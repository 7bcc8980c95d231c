"""The numpy metrics behind ``factdesk eval``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from models.evaluation import (
    balanced_accuracy,
    binary_f1,
    cv_balanced_accuracy,
    partial_correlation,
    ranking_accuracy,
    ranking_losses,
)
from models.training.data import clean_summary, split_of


def test_binary_f1_and_balanced_accuracy() -> None:
    assert binary_f1([1, 1, 0, 0], [1, 0, 1, 0]) == (0.5, 0.5, 0.5)
    assert balanced_accuracy([1, 1, 1, 0], [1, 1, 1, 1]) == 0.5


def test_cv_balanced_accuracy_separable() -> None:
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 2, 200)
    scores = gold + rng.normal(0, 0.1, 200)
    mean, sd = cv_balanced_accuracy(scores, gold)
    assert mean > 0.95 and 0 <= sd < 0.02
    noise_mean, noise_sd = cv_balanced_accuracy(rng.random(200), gold)
    assert noise_mean < 0.7
    # Repeats differ (new folds each time), so a spread is measured, not assumed.
    assert noise_sd > 0


def test_partial_correlation_removes_confounder() -> None:
    rng = np.random.default_rng(0)
    system = ["a"] * 100 + ["b"] * 100
    shift = np.array([0.0] * 100 + [5.0] * 100)
    human = shift + rng.normal(0, 1, 200)
    metric = shift + rng.normal(0, 1, 200)  # related only through the system
    assert np.corrcoef(metric, human)[0, 1] > 0.8
    assert abs(partial_correlation(metric, human, [system])) < 0.2


def test_ranking_accuracy_counts_ties_half() -> None:
    acc, n = ranking_accuracy({"d": [(0.9, 1), (0.2, 0), (0.9, 0)]})
    assert n == 2 and acc == 0.75


def test_ranking_losses_say_where_the_wrong_orders_lie() -> None:
    groups = {
        # both read as supported, the unfaithful one a little higher: lost at the top
        "a": [(0.85, 1), (0.9, 0)],
        # the faithful output flagged, below an unfaithful one; right above the other
        "b": [(0.3, 1), (0.4, 0), (0.2, 0)],
        # the faithful output between, tied with an unfaithful one (half lost)
        "c": [(0.6, 1), (0.6, 0)],
        # ordered right
        "d": [(0.95, 1), (0.1, 0)],
        # only the unfaithful output at the top: between
        "e": [(0.7, 1), (0.85, 0)],
        # the faithful output flagged, the unfaithful one not
        "f": [(0.45, 1), (0.55, 0)],
    }
    losses = ranking_losses(groups)
    acc, n = ranking_accuracy(groups)
    assert n == 7
    assert losses == {"both supported": 1 / 7, "faithful flagged": 2 / 7, "between": 1.5 / 7}
    assert abs(sum(losses.values()) - (1 - acc)) < 1e-12


def test_splits_are_fixed_and_clean_summary() -> None:
    assert split_of("doc-1") == split_of("doc-1")
    share = np.mean([split_of(str(i)) == "dev" for i in range(2000)])
    assert 0.15 < share < 0.25
    text, spans = clean_summary("bahrain\\'s leader", [(8, 17)])
    assert text == "bahrain's leader" and spans == [(7, 16)]


def test_qa_row_scores_answers_with_their_question() -> None:
    from models.checkers.lexical import LexicalArcChecker
    from models.evaluation import evaluate_qa, format_qa_table
    from models.training.examples import ParseCache
    from models.training.qa_data import QAItem

    passage = "The library opened in 1896 in the old town."
    q = "Did the library open in 1896?"
    items = [
        QAItem("nli/x", "g", "dev", "yes/no", passage, q, "Yes.", 1),
        QAItem("nli/x", "g", "dev", "yes/no", passage, "Did the museum close in 1990?", "Yes.", 0),
        QAItem("nli/x", "g", "dev", "short", passage, "When did the library open?", "In 1896.", 1),
        QAItem("nli/x", "g", "dev", "short", passage, "When did the library open?", "In 1901.", 0),
    ]
    result = evaluate_qa(items, {"lexical": LexicalArcChecker()}, ParseCache(None))
    row = result["lexical"]
    assert set(row) == {"yes/no", "short"}
    assert row["yes/no"]["n"] == 2 and row["yes/no"]["supported"] == 1
    # Bare "Yes." answers are checked (read as their claims), not left unchecked.
    assert row["yes/no"]["not_checked"] == 0 and row["short"]["not_checked"] == 0
    assert row["yes/no"]["balanced_accuracy_at_0.5"] == 1.0
    table = format_qa_table(result)
    assert "yes/no BA-cv (n=2, 1 supported)" in table and "lexical" in table


def test_polytope_ranked_by_its_accuracy_label_and_by_its_consistency_errors(tmp_path) -> None:
    """An output Polytope marks inaccurate only for what it leaves out (or for a source passage
    the reference lacks) is consistent with its source: the consistency reading ranks it as
    faithful; issue 27's figure keeps the accuracy label."""
    import json

    from models.evaluation import by_consistency, ranking_by_set
    from models.training.data import read_polytope

    doc = "The council approved the budget on Monday. Taxes rise by two percent."
    rows = [
        # omits the tax rise: inaccurate by the accuracy label, consistent with the source
        ("a", 0, [{"issue_type": "Accuracy", "subtype": "Omission"}]),
        # says three percent: a consistency error (beside an omission)
        (
            "b",
            0,
            [
                {"issue_type": "Accuracy", "subtype": "Omission"},
                {"issue_type": "Accuracy", "subtype": "Inaccuracy_internal"},
            ],
        ),
        ("c", 1, []),
    ]
    folder = tmp_path / "summaries"
    folder.mkdir()
    (folder / "polytope.jsonl").write_text(
        "\n".join(
            json.dumps(
                {
                    "model": m,
                    "ID": f"d1-{m}",
                    "document": doc,
                    "summary": "s",
                    "accuracy_label": label,
                    "errors": errors,
                }  # fmt: skip
            )
            for m, label, errors in rows
        )
    )
    records = read_polytope(tmp_path)
    assert [r.faithful for r in records] == [0, 0, 1]
    assert [r.extra["consistent"] for r in records] == ["1", "0", "1"]
    # scores: the omitting output above the wrong one, the full one above both
    values = {"polytope": [0.8, 0.1, 0.9]}
    accuracy = ranking_by_set({"polytope": records}, values)["polytope"]
    assert accuracy == (1.0, 2)  # c above a and above b
    consistency = ranking_by_set(by_consistency({"polytope": records}), values)["polytope"]
    assert consistency == (1.0, 2)  # a and c each above b
    # a score that puts the omitting output below the wrong one is wrong only by consistency
    values = {"polytope": [0.05, 0.1, 0.9]}
    assert ranking_by_set({"polytope": records}, values)["polytope"] == (1.0, 2)
    assert ranking_by_set(by_consistency({"polytope": records}), values)["polytope"] == (0.5, 2)


def test_ranking_table_shows_polytope_both_ways() -> None:
    from models.evaluation import format_tables

    ranking = {"all": (0.75, 8), "summeval": (0.8, 5), "polytope": (2 / 3, 3)}
    result = {
        "checkers": {"lexical": "lexical v1"},
        "arc_level": {"lexical": {"accuracy": 0.8, "f1_not_entailed": 0.5, "arcs": 10}},
        "xsumfaith_token": {"lexical": {"f1": 0.5, "tokens": 40}},
        "frank": {"lexical": {"balanced_accuracy_cv": 0.7, "partial_pearson": 0.2, "n": 9}},
        "summeval": {"lexical": {"balanced_accuracy_cv": 0.7, "n": 9}},
        "ranking": {"lexical": ranking},
        "ranking_consistency": {"lexical": {**ranking, "all": (0.9, 6), "polytope": (1.0, 1)}},
    }
    text = format_tables(result)
    header = next(line for line in text.splitlines() if line.startswith("checker  summeval"))
    row = text.splitlines()[text.splitlines().index(header) + 2]
    assert "polytope (3)" in header and "polytope, consistency errors (1)" in header
    assert "all so (6)" in header
    assert row.split() == ["lexical", "80.0", "66.7", "100.0", "90.0"]


def test_eval_says_where_the_ranking_is_lost() -> None:
    """``factdesk eval``'s loss table: one row per checker, over every summary set's sources."""
    from models.evaluation import format_tables, losses_by_place

    def record(doc: str, faithful: int) -> SimpleNamespace:
        return SimpleNamespace(dataset="d", document=doc, faithful=faithful)

    # one source text in both sets: its outputs are compared within each set only
    sets = {
        "summeval": [record("a", 1), record("a", 0)],
        "polytope": [record("a", 1), record("a", 0), record("a", 0)],
    }
    # summeval: lost at the top; polytope: the faithful output flagged, below one of two
    lost = losses_by_place(sets, {"summeval": [0.85, 0.9], "polytope": [0.3, 0.4, 0.1]})
    assert lost == {"both supported": 1 / 3, "faithful flagged": 1 / 3, "between": 0.0}
    text = format_tables({"checkers": {"lexical": "v1"}, "ranking_lost": {"lexical": lost}})
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("checker  both supported"))
    assert lines[lines.index(header) + 2].split() == ["lexical", "33.3", "33.3", "0.0"]
