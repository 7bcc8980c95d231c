"""Agreement figures against hand computations, and Krippendorff's alpha against his paper."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from app.cli import main
from app.io.importer import import_file
from app.review.agreement import agreement, agreement_of, krippendorff_alpha
from app.store import Project

S, U = "supported", "unsupported"
# Eight pairs judged at pair level; carol judged the first four only (missing data).
ALICE = [S, S, S, S, U, U, U, S]
BOB = [S, S, S, U, U, U, S, S]
CAROL = [S, S, U, S]
MODEL = [0.9, 0.8, 0.3, 0.2, 0.1, 0.7, 0.6, 0.95]  # at 0.5: S S U U U S S S
# AIS stage 1 on the first five pairs.
ALICE_AIS = ["yes", "yes", "yes", "yes", "no"]
BOB_AIS = ["yes", "yes", "yes", "no", "no"]


def _judgment(who: str, label: str, aspect: str = "support") -> dict[str, object]:
    return {"target": "pair", "aspect": aspect, "label": label, "annotator": who}


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    records = []
    for n in range(8):
        judgments = [_judgment("alice", ALICE[n]), _judgment("bob", BOB[n])]
        if n < len(CAROL):
            judgments.append(_judgment("carol", CAROL[n]))
        if n < 5:
            judgments.append(_judgment("alice", ALICE_AIS[n], "interpretable"))
            judgments.append(_judgment("bob", BOB_AIS[n], "interpretable"))
        records.append(
            {
                "id": f"p{n}",
                "source": f"Source text number {n}.",
                "output": f"Output text number {n}.",
                "system": "s",
                "checkers": {"m": {"version": "1", "grain": "sentence", "score": MODEL[n]}},
                "judgments": judgments,
            }
        )
    src = tmp_path / "judged.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    path = tmp_path / "judged.factdesk"
    with Project.create(path) as p:
        import_file(p, src)
    return path


def test_figures_match_a_hand_computation(judged: Path) -> None:
    with Project.open(judged) as p:
        result = agreement(p, threshold=0.5)
    assert result["checker"] == "m" and result["reviewers"] == ["alice", "bob", "carol"]
    pair = result["sections"]["pair"]
    assert pair["items"] == pair["items_judged_by_several"] == 8
    # All reviewers agree on pairs 0, 1, 4, 5, 7.
    assert pair["raw_agreement"] == pytest.approx(5 / 8)
    # Coincidences: o_SS 10, o_UU 4, o_SU = o_US 3; n_S 13, n_U 7, n 20:
    # alpha = 1 - (n - 1) (o_SU + o_US) / (2 n_S n_U) = 1 - 19 * 6 / 182 = 34/91.
    assert pair["krippendorff_alpha"] == pytest.approx(34 / 91)
    ab, ac, bc = pair["pairs"]
    assert (ab["a"], ab["b"], ab["n"]) == ("alice", "bob", 8)
    # p_o = 6/8; p_e = (5/8)^2 + (3/8)^2 = 34/64; kappa = (48/64 - 34/64) / (30/64) = 7/15.
    assert ab["raw_agreement"] == pytest.approx(0.75)
    assert ab["cohen_kappa"] == pytest.approx(7 / 15)
    assert ab["confusion"] == [[4, 1], [1, 2]]
    # alice said "supported" on all four of carol's pairs: p_o = p_e = 3/4, kappa 0.
    assert (ac["n"], ac["raw_agreement"], ac["cohen_kappa"]) == (4, 0.75, pytest.approx(0.0))
    assert ac["confusion"] == [[3, 1], [0, 0]]
    assert bc["n"] == 4
    # Each reviewer vs the model at 0.5 (S S U U U S S S): alice agrees on 4 of 8,
    # p_e = 34/64, kappa = (32/64 - 34/64) / (30/64) = -1/15.
    alice_model = pair["vs_model"][0]
    assert alice_model["reviewer"] == "alice" and alice_model["n"] == 8
    assert alice_model["raw_agreement"] == pytest.approx(0.5)
    assert alice_model["cohen_kappa"] == pytest.approx(-1 / 15)
    assert alice_model["confusion"] == [[3, 2], [2, 1]]
    # AIS stage 1: 4 of 5 agree; p_e = 4/5 * 3/5 + 1/5 * 2/5 = 14/25; kappa = 6/11.
    stage1 = result["sections"]["ais_stage1_interpretable"]
    assert stage1["labels"] == ["yes", "no"] and stage1["vs_model"] == []
    assert stage1["pairs"][0]["raw_agreement"] == pytest.approx(0.8)
    assert stage1["pairs"][0]["cohen_kappa"] == pytest.approx(6 / 11)
    # Two reviewers, no missing data: alpha = 1 - (n-1) D / E = 1 - 9 * 2 / (2 * 7 * 3) = 4/7.
    assert stage1["krippendorff_alpha"] == pytest.approx(4 / 7)
    # AIS stage 2: pairs each found interpretable (alice 0-3, bob 0-2): all "supported" on the
    # three both judged: full raw agreement, kappa and alpha undefined.
    stage2 = result["sections"]["ais_stage2_supported"]
    assert stage2["items"] == 4 and stage2["items_judged_by_several"] == 3
    assert stage2["raw_agreement"] == 1.0
    assert stage2["pairs"][0]["cohen_kappa"] is None and stage2["krippendorff_alpha"] is None
    assert result["sections"]["sentence"]["items"] == 0


def test_the_cli_prints_the_figures(judged: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", str(judged), "--json", "--threshold", "0.25"]) == 0
    data = json.loads(capsys.readouterr().out)
    # At 0.25 the model says "supported" on pair 2 too: alice agrees on 5 of 8.
    assert data["sections"]["pair"]["vs_model"][0]["raw_agreement"] == pytest.approx(5 / 8)
    assert main(["agreement", str(judged)]) == 0
    text = capsys.readouterr().out
    assert "alice vs bob: n 8, agreement 0.750, Cohen's kappa 0.467" in text
    assert "Krippendorff's alpha 0.374" in text
    assert main(["agreement", str(judged), "--checker", "nope"]) == 2
    assert "no scores from checker 'nope'" in capsys.readouterr().err


def test_alpha_matches_krippendorffs_published_example() -> None:
    """Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
    observers, twelve units, nominal values 1-5 with missing data; published alpha = 0.743."""
    rows = {
        "A": "1 2 3 3 2 1 4 1 2 . . .",
        "B": "1 2 3 3 2 2 4 1 2 5 . 3",
        "C": ". 3 3 3 2 3 4 2 2 5 1 .",
        "D": "1 2 3 3 2 4 4 1 2 5 1 .",
    }
    ratings: dict[tuple[int, str], dict[str, str]] = {}
    for who, row in rows.items():
        for unit, value in enumerate(row.split()):
            if value != ".":
                ratings.setdefault((unit, "pair"), {})[who] = value
    labels = ("1", "2", "3", "4", "5")
    alpha = krippendorff_alpha(ratings, sorted(rows), labels)
    assert alpha is not None and round(alpha, 3) == 0.743
    # His computation by hand: the coincidence matrix o_ck (each unit's m values give m(m-1)
    # ordered pairs, each weighted 1/(m-1)), n = 40 pairable values, and
    # alpha = 1 - (n - 1) * sum(o_ck, c != k) / sum(n_c n_k, c != k).
    coincide: dict[tuple[str, str], float] = {}
    for votes in ratings.values():
        values = list(votes.values())
        m = len(values)
        if m < 2:
            continue
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    coincide[(c, k)] = coincide.get((c, k), 0.0) + 1 / (m - 1)
    n_c = {c: sum(v for (a, _b), v in coincide.items() if a == c) for c in labels}
    n = sum(n_c.values())
    assert n == 40
    disagree = sum(v for (a, b), v in coincide.items() if a != b)
    expected = sum(n_c[a] * n_c[b] for a in labels for b in labels if a != b)
    assert alpha == pytest.approx(1 - (n - 1) * disagree / expected)
    assert not math.isnan(alpha)


def test_undefined_figures_are_none() -> None:
    sec = agreement_of({(1, "pair"): {"a": S}}, (S, U), {})
    assert sec["raw_agreement"] is None and sec["krippendorff_alpha"] is None
    assert sec["vs_model"] == [
        {
            "reviewer": "a",
            "n": 0,
            "raw_agreement": None,
            "cohen_kappa": None,
            "confusion": [[0, 0], [0, 0]],
        }
    ]


def test_the_audit_report_has_a_reviewer_agreement_section(judged: Path) -> None:
    from app.audit.report import render

    with Project.open(judged) as p:
        text = render(p)
        figures = agreement(p)["sections"]["pair"]
    assert '<section id="reviewers">' in text
    assert "alice / bob" in text and "alice / model" in text
    kappa = next(x for x in figures["pairs"] if (x["a"], x["b"]) == ("alice", "bob"))
    assert f"{kappa['cohen_kappa']:.3f}" in text
    assert f"{figures['krippendorff_alpha']:.3f}" in text
