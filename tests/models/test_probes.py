import json
from collections import Counter
from pathlib import Path

import pytest

from models.errors import InputError
from models.probes import (
    BUNDLED_FILE,
    FAITHFUL_PHENOMENA,
    PHENOMENA,
    UNFAITHFUL_PHENOMENA,
    Probe,
    format_probe_table,
    load_probes,
    probe_table,
    score_probes,
)

GOOD = {
    "id": "p-1",
    "source": "The mayor opened the bridge.",
    "output": "The bridge was opened by the mayor.",
    "phenomenon": "paraphrase",
    "faithful": True,
    "note": "passive",
}


def write(tmp_path: Path, records: list) -> Path:
    path = tmp_path / "probes.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_bundled_set_loads_and_covers_every_phenomenon() -> None:
    probes = load_probes()
    assert BUNDLED_FILE.is_file() and BUNDLED_FILE.parent.name == "probes"
    assert len(probes) >= 72
    assert len({p.id for p in probes}) == len(probes)
    counts = Counter(p.phenomenon for p in probes)
    assert set(counts) == set(PHENOMENA)
    assert min(counts.values()) >= 8
    for p in probes:
        assert p.faithful == (p.phenomenon in FAITHFUL_PHENOMENA), p.id
        assert p.faithful != (p.phenomenon in UNFAITHFUL_PHENOMENA), p.id
        assert p.output not in p.source, p.id  # never a verbatim copy


def test_bundled_set_has_long_sources_and_multi_sentence_outputs() -> None:
    probes = load_probes()
    sentences = [p.source.count(". ") + 1 for p in {p.source: p for p in probes}.values()]
    assert sum(n >= 15 for n in sentences) >= 3
    assert any(p.output.count(". ") >= 1 for p in probes)


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("{not json", None, "not valid JSON"),
        ("[1, 2]", None, "not a JSON object"),
        ({**GOOD, "output": ""}, "output", "non-empty string"),
        ({k: v for k, v in GOOD.items() if k != "note"}, "note", "missing"),
        ({**GOOD, "faithful": "yes"}, "faithful", "true or false"),
        ({**GOOD, "phenomenon": "hedging"}, "phenomenon", "unknown phenomenon 'hedging'"),
        ({**GOOD, "faithful": False}, "faithful", "'paraphrase' pairs must have faithful = true"),
        ({**GOOD, "phenomenon": "role_swap"}, "faithful", "must have faithful = false"),
        (GOOD, "id", "duplicate id 'p-1' (first on line 1)"),
    ],
)
def test_malformed_line_names_file_line_and_field(
    tmp_path: Path, line: object, field: str | None, message: str
) -> None:
    path = write(tmp_path, [GOOD, "", line])
    with pytest.raises(InputError) as info:
        load_probes(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), 3, field)
    assert message in str(err)
    assert str(err).startswith(f"{path}, line 3")


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the probe file"):
        load_probes(tmp_path / "absent.jsonl")
    with pytest.raises(InputError, match="no probes"):
        load_probes(write(tmp_path, [""]))


def probe(i: int, phenomenon: str) -> Probe:
    faithful = phenomenon in FAITHFUL_PHENOMENA
    return Probe(f"p{i}", "src", "out", phenomenon, faithful, "")


def test_probe_table_rates_and_auc_by_hand() -> None:
    probes = [
        probe(0, "role_swap"),
        probe(1, "role_swap"),
        probe(2, "role_swap"),
        probe(3, "negation_added"),
        probe(4, "paraphrase"),
        probe(5, "paraphrase"),
        probe(6, "rounding"),
    ]
    scores = {
        # role_swap: 0.1 and 0.49 flagged, None not: 2/3; negation_added 0.5 not flagged: 0/1
        # paraphrase: 0.2 flagged: 1/2; rounding 0.9: 0/1
        "a": [0.1, 0.49, None, 0.5, 0.2, 0.8, 0.9],
        "b": [0.9, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1],
    }
    result = probe_table(scores, probes, threshold=0.5)
    a, b = result["checkers"]["a"], result["checkers"]["b"]
    assert list(result["phenomena"]) == ["role_swap", "negation_added", "paraphrase", "rounding"]
    assert result["phenomena"]["paraphrase"] == {"faithful": True, "n": 2, "measure": "false_alarm"}
    assert result["phenomena"]["role_swap"]["measure"] == "catch"
    assert a["phenomena"]["role_swap"] == {"n": 3, "flagged": 2, "not_checked": 1, "rate": 2 / 3}
    assert a["phenomena"]["negation_added"]["rate"] == 0.0
    assert a["phenomena"]["paraphrase"] == {"n": 2, "flagged": 1, "not_checked": 0, "rate": 0.5}
    assert a["phenomena"]["rounding"]["rate"] == 0.0
    assert a["catch"] == {"n": 4, "flagged": 2, "not_checked": 1, "rate": 0.5}
    assert a["false_alarm"] == {"n": 3, "flagged": 1, "not_checked": 0, "rate": 1 / 3}
    assert a["not_checked"] == 1
    # faithful 0.2, 0.8, 0.9 against unfaithful 0.1, 0.49, 0.5 (None at the threshold), 0.5:
    # 0.2 beats 0.1 only (1 of 4); 0.8 and 0.9 beat all four: 9 of 12
    assert a["auc"] == pytest.approx(9 / 12)
    assert b["catch"]["rate"] == 0.0 and b["false_alarm"]["rate"] == 1.0
    assert b["auc"] == 0.0
    ties = probe_table({"c": [0.5] * 7}, probes)["checkers"]["c"]
    assert ties["auc"] == 0.5 and ties["catch"]["flagged"] == 0


def test_probe_table_without_faithful_pairs_has_no_auc_and_rejects_wrong_lengths() -> None:
    probes = [probe(0, "role_swap"), probe(1, "negation_dropped")]
    result = probe_table({"a": [0.1, 0.9]}, probes)
    assert result["checkers"]["a"]["auc"] is None
    assert result["checkers"]["a"]["false_alarm"]["rate"] is None
    with pytest.raises(ValueError, match="1 scores for 2 probes"):
        probe_table({"a": [0.1]}, probes)


def test_format_probe_table_one_row_per_phenomenon_one_column_per_checker() -> None:
    probes = [probe(0, "role_swap"), probe(1, "role_swap"), probe(2, "fusion")]
    text = format_probe_table(
        probe_table({"lex": [0.1, None, 0.9], "dae": [0.9, 0.9, 0.2]}, probes)
    )
    lines = text.splitlines()
    header = lines[1].split()
    assert header == ["phenomenon", "measure", "lex", "dae"]
    row = {ln.split()[0]: ln for ln in lines[3:]}
    assert "50.0 (1/2, 1 not checked)" in row["role_swap"] and "0.0 (0/2)" in row["role_swap"]
    assert "false alarm" in row["fusion"] and "100.0 (1/1)" in row["fusion"]
    assert row["AUC"].split()[1:] == ["1.000", "0.000"]  # None sits at the threshold
    assert "3 pairs" in lines[0] and "< 0.5" in lines[0]


def test_score_probes_with_the_lexical_checker_and_spacy_parse() -> None:
    from models.parsing import parse_many
    from models.registry import load_checker

    probes = load_probes()
    picked = [
        next(p for p in probes if p.phenomenon == "unsupported_addition"),
        next(p for p in probes if p.phenomenon == "negation_added"),
        next(p for p in probes if p.phenomenon == "paraphrase"),
    ]
    parsed_texts: list[str] = []

    def parse(texts):  # type: ignore[no-untyped-def]
        parsed_texts.extend(texts)
        return parse_many(texts)

    scores = score_probes({"lexical": load_checker("lexical")}, picked, parse)
    assert list(scores) == ["lexical"] and len(scores["lexical"]) == 3
    assert all(s is not None and 0.0 <= s <= 1.0 for s in scores["lexical"])
    assert len(parsed_texts) == len(set(parsed_texts))  # each distinct text parsed once
    # an invented detail has arcs found nowhere in the source
    assert scores["lexical"][0] < 1.0
    table = probe_table(scores, picked)
    assert table["checkers"]["lexical"]["phenomena"]["paraphrase"]["n"] == 1


def test_score_probes_keeps_probe_order_and_rejects_a_missing_score() -> None:
    from models.checkers.base import PairScore
    from models.document import ParsedText

    probes = [probe(0, "role_swap"), probe(1, "fusion")]

    class Reversed:
        name, version, display_name, grain = "rev", "1", "reversed", "sentence"

        def __init__(self, drop: bool) -> None:
            self.drop = drop

        def score(self, batch, *, batch_size=16, progress=None, should_stop=None):  # type: ignore[no-untyped-def]
            out = [PairScore(p.key, "rev", "1", 0.25 if p.key == "p0" else None, ()) for p in batch]
            return out[::-1][: 1 if self.drop else None]

    def parse(texts):  # type: ignore[no-untyped-def]
        return [ParsedText(t, ()) for t in texts]

    assert score_probes({"rev": Reversed(False)}, probes, parse) == {"rev": [0.25, None]}
    with pytest.raises(ValueError, match="checker 'rev' returned no score for p0"):
        score_probes({"rev": Reversed(True)}, probes, parse)
