"""The probe set: hard cases written for FactDesk, and how each checker fares on them.

``resources/probes/probe_pairs.jsonl`` holds source/output pairs that test what a checker reads
rather than which words it finds: unfaithful outputs that reuse the source's own words (two
entities swap roles, a number or date moves to another event, a negation is dropped or added,
an extrinsic detail is added) and faithful outputs that share few words with the source
(paraphrase, compression, fusion of distant sentences, rounded figures).

:func:`probe_table` reports, per checker and phenomenon, the share of pairs flagged at a
threshold: for an unfaithful phenomenon that is the catch rate, for a faithful one the false-alarm
rate; and the AUC over all pairs. :func:`score_probes` scores the pairs through the checker
interface; :func:`format_probe_table` prints the table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.checkers.base import Checker, PairInput
from models.document import ParsedText
from models.errors import InputError
from models.resources import resources_dir

BUNDLED_FILE = resources_dir() / "probes" / "probe_pairs.jsonl"
DEFAULT_THRESHOLD = 0.5

#: Phenomena whose pairs are all unfaithful (a checker should flag them) ...
UNFAITHFUL_PHENOMENA = (
    "role_swap",
    "wrong_event_number",
    "negation_dropped",
    "negation_added",
    "unsupported_addition",
)
#: ... and those whose pairs are all faithful (a flag is a false alarm).
FAITHFUL_PHENOMENA = ("paraphrase", "compression", "fusion", "rounding")
PHENOMENA = UNFAITHFUL_PHENOMENA + FAITHFUL_PHENOMENA

_TEXT_FIELDS = ("id", "source", "output", "phenomenon", "note")

Parse = Callable[[Sequence[str]], Sequence[ParsedText]]


@dataclass(frozen=True, slots=True)
class Probe:
    """One hand-written pair with its phenomenon and reference label."""

    id: str
    source: str
    output: str
    phenomenon: str
    faithful: bool
    note: str


def load_probes(path: str | Path | None = None) -> list[Probe]:
    """Read and validate a probe file (JSON Lines); the bundled set by default.

    Raises:
        InputError: naming the file, the line and the field, for an unreadable file, a line that
            is not a JSON object, a missing or empty field, an unknown phenomenon, a ``faithful``
            label that contradicts the phenomenon, a repeated id, or a file with no probes.
    """
    file = Path(path) if path is not None else BUNDLED_FILE
    where = str(file)
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the probe file: {exc}", path=where) from exc
    probes: list[Probe] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        probe = _probe(line, where, number)
        if probe.id in seen:
            raise InputError(
                f"duplicate id {probe.id!r} (first on line {seen[probe.id]})",
                path=where,
                line=number,
                field="id",
            )
        seen[probe.id] = number
        probes.append(probe)
    if not probes:
        raise InputError("no probes in the file", path=where)
    return probes


def _probe(line: str, where: str, number: int) -> Probe:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", path=where, line=number) from exc
    if not isinstance(record, dict):
        raise InputError("not a JSON object", path=where, line=number)
    for name in _TEXT_FIELDS:
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            problem = "missing" if name not in record else "must be a non-empty string"
            raise InputError(problem, path=where, line=number, field=name)
    faithful = record.get("faithful")
    if not isinstance(faithful, bool):
        problem = "missing" if "faithful" not in record else "must be true or false"
        raise InputError(problem, path=where, line=number, field="faithful")
    phenomenon = record["phenomenon"]
    if phenomenon not in PHENOMENA:
        raise InputError(
            f"unknown phenomenon {phenomenon!r}; known: {', '.join(PHENOMENA)}",
            path=where,
            line=number,
            field="phenomenon",
        )
    if faithful != (phenomenon in FAITHFUL_PHENOMENA):
        raise InputError(
            f"{phenomenon!r} pairs must have faithful = {str(not faithful).lower()}",
            path=where,
            line=number,
            field="faithful",
        )
    return Probe(
        id=record["id"],
        source=record["source"],
        output=record["output"],
        phenomenon=phenomenon,
        faithful=faithful,
        note=record["note"],
    )


def score_probes(
    checkers: Mapping[str, Checker],
    probes: Sequence[Probe],
    parse: Parse,
    *,
    batch_size: int = 16,
    progress: Callable[[str], None] | None = None,
) -> dict[str, list[float | None]]:
    """Pair scores of each checker, in the order of ``probes`` (None: not checked).

    Args:
        checkers: the checkers by name.
        probes: the pairs to score.
        parse: turns texts into parsed texts in the same order (:func:`models.parsing.parse_many`
            or a parse cache's ``parse``); each distinct text is parsed once.
        batch_size: passed to each checker.
        progress: called with a line after each checker.
    """
    texts = list(dict.fromkeys(t for p in probes for t in (p.source, p.output)))
    parsed = dict(zip(texts, parse(texts), strict=True))
    batch = [PairInput(p.id, parsed[p.source], parsed[p.output]) for p in probes]
    scores: dict[str, list[float | None]] = {}
    for name, checker in checkers.items():
        by_key: dict[object, float | None] = {
            r.key: None if r.score is None else float(r.score)
            for r in checker.score(batch, batch_size=batch_size)
        }
        missing = [p.id for p in probes if p.id not in by_key]
        if missing:
            raise ValueError(f"checker {name!r} returned no score for {', '.join(missing[:5])}")
        scores[name] = [by_key[p.id] for p in probes]
        if progress is not None:
            progress(f"probes: {name} scored {len(batch)} pairs")
    return scores


def probe_table(
    pair_scores: Mapping[str, Sequence[float | None]],
    probes: Sequence[Probe],
    threshold: float = DEFAULT_THRESHOLD,
) -> dict[str, Any]:
    """Flag rates per checker and phenomenon, and each checker's AUC.

    A pair is flagged when its score is below ``threshold``. For an unfaithful phenomenon the
    share flagged is the catch rate, for a faithful one the false-alarm rate. A None score (the
    checker could not check the pair) is not a flag; such pairs are counted in ``not_checked``.
    The AUC is the chance that a faithful pair scores above an unfaithful one (ties count half),
    over all pairs, with a None score placed at the threshold (neither flagged nor trusted).

    Returns:
        ``{"threshold", "pairs", "phenomena": {name: {"faithful", "n", "measure"}},
        "checkers": {name: {"phenomena": {name: {"n", "flagged", "not_checked", "rate"}},
        "catch": {...}, "false_alarm": {...}, "auc", "not_checked"}}}``; phenomena in a fixed
        order, only those present; rates and AUC are None when there is nothing to measure.

    Raises:
        ValueError: when a checker has not exactly one score per probe.
    """
    present = [ph for ph in PHENOMENA if any(p.phenomenon == ph for p in probes)]
    phenomena = {
        ph: {
            "faithful": ph in FAITHFUL_PHENOMENA,
            "n": sum(p.phenomenon == ph for p in probes),
            "measure": "false_alarm" if ph in FAITHFUL_PHENOMENA else "catch",
        }
        for ph in present
    }
    checkers: dict[str, Any] = {}
    for name, scores in pair_scores.items():
        if len(scores) != len(probes):
            raise ValueError(f"checker {name!r}: {len(scores)} scores for {len(probes)} probes")
        pairs = list(zip(scores, probes, strict=True))
        ranked = [(threshold if s is None else s, p.faithful) for s, p in pairs]
        checkers[name] = {
            "phenomena": {
                ph: _rate([s for s, p in pairs if p.phenomenon == ph], threshold) for ph in present
            },
            "catch": _rate([s for s, p in pairs if not p.faithful], threshold),
            "false_alarm": _rate([s for s, p in pairs if p.faithful], threshold),
            "auc": _auc(
                [v for v, faithful in ranked if faithful],
                [v for v, faithful in ranked if not faithful],
            ),
            "not_checked": sum(s is None for s in scores),
        }
    return {
        "threshold": threshold,
        "pairs": len(probes),
        "phenomena": phenomena,
        "checkers": checkers,
    }


def _rate(scores: Sequence[float | None], threshold: float) -> dict[str, Any]:
    flagged = sum(s is not None and s < threshold for s in scores)
    return {
        "n": len(scores),
        "flagged": flagged,
        "not_checked": sum(s is None for s in scores),
        "rate": flagged / len(scores) if scores else None,
    }


def _auc(faithful: Sequence[float], unfaithful: Sequence[float]) -> float | None:
    if not faithful or not unfaithful:
        return None
    wins = sum((f > u) + 0.5 * (f == u) for f in faithful for u in unfaithful)
    return wins / (len(faithful) * len(unfaithful))


def format_probe_table(result: Mapping[str, Any]) -> str:
    """The probe result as a plain-text table: one row per phenomenon, one column per checker.

    A cell reads ``rate% (flagged/n)``, with ``, k not checked`` when the checker could not check
    k of the pairs.
    """
    names = list(result["checkers"])
    cols = ["phenomenon", "measure", *names]

    def cell(rate: Mapping[str, Any]) -> str:
        if rate["rate"] is None:
            return "—"
        text = f"{100 * rate['rate']:.1f} ({rate['flagged']}/{rate['n']}"
        if rate["not_checked"]:
            text += f", {rate['not_checked']} not checked"
        return text + ")"

    rows = []
    for ph, meta in result["phenomena"].items():
        measure = "false alarm" if meta["measure"] == "false_alarm" else "catch"
        rows.append([ph, measure, *(cell(result["checkers"][n]["phenomena"][ph]) for n in names)])
    rows.append(["all unfaithful", "catch", *(cell(result["checkers"][n]["catch"]) for n in names)])
    rows.append(
        [
            "all faithful",
            "false alarm",
            *(cell(result["checkers"][n]["false_alarm"]) for n in names),
        ]
    )
    aucs = [result["checkers"][n]["auc"] for n in names]
    rows.append(["AUC", "", *("—" if a is None else f"{a:.3f}" for a in aucs)])

    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = [
        f"Probe set ({result['pairs']} pairs): % flagged (pair score < {result['threshold']:g}); "
        "catch rate for unfaithful phenomena, false-alarm rate for faithful ones",
        "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)),
        "  ".join("-" * w for w in widths),
    ]
    lines.extend("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows)
    lines.append("A pair a checker could not check counts as not flagged.")
    return "\n".join(lines)
