"""Readers for the shared data folder (``../shared/data``) and fixed, seeded held-out splits.

Nothing is copied into the repository: every reader takes the data directory. Splits are by
document (or premise) id through a seeded hash, so they never change between runs and a
document's summaries are all on the same side.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from models.errors import InputError

SPLIT_SEED = "factdesk-2026"
DEV_FRACTION = 0.2

# File -> license, recorded in the model card for every file the bundled model used.
LICENSES = {
    "nli/snli_dev_from_esnli.tsv": "CC BY-SA 4.0 (SNLI)",
    "nli/snli_test_from_esnli.tsv": "CC BY-SA 4.0 (SNLI)",
    "nli/mnli_dev_matched_from_hans_repo.tsv": "MultiNLI (OANC, CC BY-SA 3.0 mix)",
    "nli/rte_glue_resplit/train.tsv": "PASCAL RTE, research use",
    "nli/msrp/msr-para-train.tsv": "Microsoft shared source (msrp/LICENCE.html)",
    "nli/paws_true_format.csv": "PAWS, Apache-2.0 style (Google)",
    "nli/wanli_train_sample.jsonl": "CC BY 4.0 (WANLI)",
    "nli/extra/fever_nli_binary.jsonl": "DocNLI BSD-3; FEVER text CC BY-SA 3.0",
    "nli/extra/conjnli_adversarial.jsonl": "MIT (ConjNLI)",
    "nli/extra/cad_snli_train.jsonl": "Apache-2.0 (counterfactual NLI); SNLI CC BY-SA 4.0",
    "nli/extra/fm2_devtest.jsonl": "Apache-2.0 (Fool Me Twice); Wikipedia CC BY-SA",
    "nli/extra/fever_symmetric.jsonl": "CC BY-SA 3.0 (FEVER-Symmetric)",
    "summaries/xsumfaith.jsonl": "annotations CC BY 4.0 (Maynez et al. 2020); BBC text research use",
    "summaries/cliff_error_types.jsonl": "as released in AggreFact (CLIFF, Cao & Wang 2021)",
    "summaries/goyal21_error_types.jsonl": "as released in AggreFact (Goyal & Durrett 2021)",
    "summaries/factcc_val.jsonl": "BSD-3 (FactCC)",
    "summaries/frank_valid.jsonl": "MIT (FRANK) - evaluation only",
    "summaries/summeval.jsonl": "MIT (SummEval) - evaluation only",
    "summaries/polytope.jsonl": "no license stated (Huang et al. 2020) - evaluation only",
}


def default_data_dir() -> Path:
    """``<repo>/../shared/data``."""
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"


def split_of(key: str, dev_fraction: float = DEV_FRACTION) -> str:
    """``"train"`` or ``"dev"`` for an id, fixed by a seeded hash."""
    digest = hashlib.sha1(f"{SPLIT_SEED}:{key}".encode()).digest()
    return "dev" if int.from_bytes(digest[:4], "big") / 2**32 < dev_fraction else "train"


@dataclass(frozen=True, slots=True)
class TextPair:
    """A premise/hypothesis pair. ``label``: entailment, neutral, contradiction (NLI) or
    paraphrase / not_paraphrase (MRPC, PAWS)."""

    source: str
    group: str
    premise: str
    hypothesis: str
    label: str


@dataclass(frozen=True, slots=True)
class SummaryRecord:
    """A source document, one output and its human labels.

    Attributes:
        dataset: file stem.
        doc_id: the document id the split is made on.
        system: the summariser.
        document: the source text.
        summary: the output text (normalised: see :func:`clean_summary`).
        faithful: 1 = no (majority) error, 0 = error, None = unknown.
        spans: per annotator, hallucinated character spans in ``summary`` (span datasets only).
        score: a graded human score where the file has one (FRANK Factuality, SummEval mean).
        extra: file-specific fields kept for evaluation (FRANK dataset, ...).
    """

    dataset: str
    doc_id: str
    system: str
    document: str
    summary: str
    faithful: int | None
    spans: tuple[tuple[tuple[int, int], ...], ...] | None = None
    score: float | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _jsonl(path: Path) -> Iterator[dict]:
    if not path.is_file():
        raise InputError("data file not found", path=str(path))
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"bad JSON: {exc}", path=str(path), line=n) from exc


def _tsv(path: Path) -> Iterator[dict]:
    if not path.is_file():
        raise InputError("data file not found", path=str(path))
    with path.open(encoding="utf-8-sig", newline="") as fh:
        yield from csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)


def read_pairs(data_dir: Path) -> list[TextPair]:
    """Every NLI and paraphrase pair of the bundled default (SICK is left out on purpose), and
    the extra pairs of ``nli/extra/`` (:func:`read_extra_pairs`)."""
    nli = data_dir / "nli"
    out: list[TextPair] = []
    for name in ("snli_dev_from_esnli.tsv", "snli_test_from_esnli.tsv"):
        for r in _tsv(nli / name):
            if r.get("label") in {"entailment", "neutral", "contradiction"}:
                out.append(
                    TextPair(f"nli/{name}", r["premise"], r["premise"], r["hypothesis"], r["label"])
                )
    for r in _tsv(nli / "mnli_dev_matched_from_hans_repo.tsv"):
        if r.get("gold_label") in {"entailment", "neutral", "contradiction"}:
            out.append(
                TextPair(
                    "nli/mnli_dev_matched_from_hans_repo.tsv",
                    r["premise"],
                    r["premise"],
                    r["hypothesis"],
                    r["gold_label"],
                )
            )
    for r in _tsv(nli / "rte_glue_resplit" / "train.tsv"):
        label = "entailment" if r["label"] == "entailment" else "neutral"
        out.append(
            TextPair(
                "nli/rte_glue_resplit/train.tsv",
                r["sentence1"],
                r["sentence1"],
                r["sentence2"],
                label,
            )
        )
    for r in _tsv(nli / "msrp" / "msr-para-train.tsv"):
        label = "paraphrase" if r["Quality"] == "1" else "not_paraphrase"
        out.append(
            TextPair(
                "nli/msrp/msr-para-train.tsv", r["#1 ID"], r["#1 String"], r["#2 String"], label
            )
        )
    with (nli / "paws_true_format.csv").open(encoding="utf-8", newline="") as fh:
        for r in csv.DictReader(fh):
            label = "paraphrase" if r["label"] == "1" else "not_paraphrase"
            out.append(
                TextPair(
                    "nli/paws_true_format.csv",
                    r["grounding"],
                    r["grounding"],
                    r["generated_text"],
                    label,
                )
            )
    for r in _jsonl(nli / "wanli_train_sample.jsonl"):
        if r.get("gold") in {"entailment", "neutral", "contradiction"}:
            out.append(
                TextPair(
                    "nli/wanli_train_sample.jsonl",
                    r["premise"],
                    r["premise"],
                    r["hypothesis"],
                    r["gold"],
                )
            )
    return out + read_extra_pairs(data_dir)


# The extra NLI files (``nli/extra/``); all share one JSON Lines layout.
EXTRA_NLI = (
    "fever_nli_binary.jsonl",
    "conjnli_adversarial.jsonl",
    "cad_snli_train.jsonl",
    "fm2_devtest.jsonl",
    "fever_symmetric.jsonl",
)
# Their labels in the three-way scheme the example builders use: a binary "not entailed" is
# read like RTE's, as "neutral" (the hypothesis is not supported; no arc is known to be wrong).
_EXTRA_LABELS = {
    "entailment": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "not_entailment": "neutral",
}

# Penn Treebank escapes and tokenisation spaces left in the FEVER texts, undone so the model
# reads text as editors paste it.
_PTB_WORDS = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}
_PTB_RULES = (
    (re.compile(r"``\s*"), '"'),
    (re.compile(r"\s*''"), '"'),
    (re.compile(r" -- "), " – "),
    (re.compile(r"([(\[{]) "), r"\1"),
    (re.compile(r" ([)\]},.;:!?%])"), r"\1"),
    (re.compile(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", re.IGNORECASE), r"\1"),
)


def detokenize(text: str) -> str:
    """Undo PTB-style tokenisation (``Paris , France -LRB- 2009 -RRB- .`` -> ``Paris, France
    (2009).``); text without it comes back unchanged."""
    for word, char in _PTB_WORDS.items():
        text = text.replace(word, char)
    for pattern, repl in _PTB_RULES:
        text = pattern.sub(repl, text)
    return text.strip()


def _components(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """For each (premise, hypothesis), a key shared by every pair linked to it through a common
    premise or hypothesis (the first premise of the group), so that minimal-edit variants of
    one item (counterfactual SNLI revises premise and hypothesis in turn) share a split."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for premise, hypothesis in pairs:
        a, b = find("p:" + premise), find("h:" + hypothesis)
        if a != b:
            parent[b] = a
    first: dict[str, str] = {}
    for premise, _ in pairs:
        first.setdefault(find("p:" + premise), premise)
    return [first[find("p:" + premise)] for premise, _ in pairs]


def read_extra_pairs(data_dir: Path) -> list[TextPair]:
    """The pairs of ``nli/extra/`` (FEVER-NLI, ConjNLI, counterfactual SNLI, Fool Me Twice,
    FEVER-Symmetric), detokenised, with labels read as :data:`_EXTRA_LABELS` says.

    The group (what the split is made on) is the premise, widened to every pair that shares a
    premise or a hypothesis with it, so near-duplicates never straddle train and dev; a pair
    whose text an earlier file holds on the other side is left out. A file that is not there
    is skipped (data folders from before these files were added).

    Raises:
        InputError: a row without premise, hypothesis or a known label, naming file and line.
    """
    out: list[TextPair] = []
    seen: dict[str, str] = {}  # text -> the split an earlier file put it on
    for name in EXTRA_NLI:
        path = data_dir / "nli" / "extra" / name
        if not path.is_file():
            continue
        source = f"nli/extra/{name}"
        rows = []
        for n, r in enumerate(_jsonl(path), 1):
            label = _EXTRA_LABELS.get(str(r.get("label", "")).strip().lower())
            premise = detokenize(str(r.get("premise") or ""))
            hypothesis = detokenize(str(r.get("hypothesis") or ""))
            if label is None or not premise or not hypothesis:
                raise InputError(
                    f"row needs premise, hypothesis and one of {sorted(_EXTRA_LABELS)}",
                    path=str(path),
                    line=n,
                )
            rows.append((premise, hypothesis, label))
        groups = _components([(p, h) for p, h, _ in rows])
        mine: dict[str, str] = {}
        for (p, h, label), g in zip(rows, groups, strict=True):
            side = split_of(source + g)
            # FEVER-Symmetric reuses FEVER claims: a text an earlier file put on the other
            # side is dropped here rather than shown to training and dev both.
            if seen.get(p, side) != side or seen.get(h, side) != side:
                continue
            out.append(TextPair(source, g, p, h, label))
            mine[p] = mine[h] = side
        seen.update(mine)
    return out


def clean_summary(
    text: str, spans: Sequence[tuple[int, int]] = ()
) -> tuple[str, list[tuple[int, int]]]:
    """Drop the stray backslashes some files keep before quotes, moving spans with the text."""
    keep = [
        i for i, ch in enumerate(text) if not (ch == "\\" and text[i + 1 : i + 2] in {"'", '"'})
    ]
    new_pos = {old: new for new, old in enumerate(keep)}
    new_pos[len(text)] = len(keep)

    def move(i: int) -> int:
        i = min(max(i, 0), len(text))
        while i not in new_pos:
            i += 1
        return new_pos[i]

    return "".join(text[i] for i in keep), [(move(a), move(b)) for a, b in spans]


def read_xsumfaith(data_dir: Path) -> list[SummaryRecord]:
    out = []
    for r in _jsonl(data_dir / "summaries" / "xsumfaith.jsonl"):
        # Offsets are 1-based with an inclusive end, counted on the text without the stray
        # backslashes (checked against each span's text).
        text, _ = clean_summary(r["summary"])
        spans = tuple(
            tuple((s["start"] - 1, s["end"] - 1) for s in r["hallucination_spans"][worker])
            for worker in sorted(r["hallucination_spans"])
        )
        out.append(
            SummaryRecord(
                "xsumfaith",
                str(r["bbcid"]),
                r["system"],
                r["document"],
                text,
                int(r["label_faithful_majority"]),
                tuple(spans),
            )
        )
    return out


def _word_spans(text: str, phrases: list[str]) -> list[tuple[int, int]]:
    spans = []
    low = text.lower()
    for phrase in phrases:
        at = low.find(phrase.lower().strip())
        if at >= 0 and phrase.strip():
            spans.append((at, at + len(phrase.strip())))
    return spans


def read_aggrefact_spans(data_dir: Path, name: str) -> list[SummaryRecord]:
    """CLIFF or Goyal'21 rows; ``annotated_span`` phrases become character spans."""
    out = []
    for r in _jsonl(data_dir / "summaries" / f"{name}.jsonl"):
        raw = r.get("annotated_span") or ""
        phrases: list[str] = []
        if raw.strip():
            try:
                value = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                value = [raw]
            stack = [value]
            while stack:
                v = stack.pop()
                if isinstance(v, str):
                    phrases.append(v)
                elif isinstance(v, (list, tuple)):
                    stack.extend(v)
        error = str(r.get("error_type") or "")
        correct = error.strip() in {"", "correct", "[]"}
        text = r["summ"]
        spans = _word_spans(text, phrases)
        if not correct and not spans:
            faithful, span_sets = 0, None  # an error without a locatable span: summary label only
        else:
            faithful, span_sets = (1 if correct else 0), (tuple(spans),)
        out.append(
            SummaryRecord(
                name,
                str(r["id"]),
                str(r.get("model_name", "")),
                r["doc"],
                text,
                faithful,
                span_sets,
            )
        )
    return out


def read_factcc(data_dir: Path) -> list[SummaryRecord]:
    return [
        SummaryRecord(
            "factcc_val", str(r["id"]), "claim", r["document"], r["claim"], int(r["label"])
        )
        for r in _jsonl(data_dir / "summaries" / "factcc_val.jsonl")
    ]


def read_frank(data_dir: Path) -> list[SummaryRecord]:
    return [
        SummaryRecord(
            "frank_valid",
            str(r["hash"]),
            str(r["model_name"]),
            r["article"],
            r["summary"],
            int(float(r["Factuality"]) >= 1.0),
            score=float(r["Factuality"]),
            extra={"dataset": str(r["dataset"])},
        )
        for r in _jsonl(data_dir / "summaries" / "frank_valid.jsonl")
    ]


def read_summeval(data_dir: Path) -> list[SummaryRecord]:
    return [
        SummaryRecord(
            "summeval",
            str(r["id"]),
            str(r["model_id"]),
            r["document"],
            r["summary"],
            int(r["true_label"]),
            score=float(r["mean_consistency_8_raters"]),
        )
        for r in _jsonl(data_dir / "summaries" / "summeval.jsonl")
    ]


#: Polytope's error subtypes that make an output say what its source does not (Huang et al.
#: 2020: a term or concept of the source misrepresented, content from outside it, a positive
#: turned negative or back). Its ``accuracy_label`` also counts an "Omission" and an "Addition"
#: (a source passage the reference summary leaves out): 757 of its 919 outputs labelled
#: inaccurate have no other error, and such an output can be wholly consistent with the source.
POLYTOPE_CONSISTENCY_ERRORS = frozenset(
    {"Inaccuracy_internal", "Inaccuracy_external", "Positive_Negative_Aspect"}
)


def read_polytope(data_dir: Path) -> list[SummaryRecord]:
    """Polytope's outputs labelled by ``accuracy_label`` (issue 27's ranking set), with
    ``extra["consistent"]`` ("1"/"0"): whether it has none of
    :data:`POLYTOPE_CONSISTENCY_ERRORS` (the label a consistency check is about)."""
    return [
        SummaryRecord(
            "polytope",
            str(r["ID"]),
            str(r["model"]),
            r["document"],
            r["summary"],
            int(r["accuracy_label"]),
            extra={"consistent": str(int(polytope_consistent(r.get("errors"))))},
        )
        for r in _jsonl(data_dir / "summaries" / "polytope.jsonl")
    ]


def polytope_consistent(errors: object) -> bool:
    """Whether a Polytope error log (a list of ``{"subtype": ...}``) holds no consistency error."""
    if not isinstance(errors, list):
        return True
    return not any(
        isinstance(e, dict) and e.get("subtype") in POLYTOPE_CONSISTENCY_ERRORS for e in errors
    )
