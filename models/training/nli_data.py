"""Which NLI files train the bundled NLI model, which are held out, and how they are split.

Data choices are code: :data:`NLI_FILES` names every file of ``../shared/data/nli`` with its
licence, its label scheme and its role:

* ``train``: its training side is trained on (its licence allows a bundled model). A slice of
  each file (:func:`split` = ``dev``) is held out as the development set the checkpoints are
  judged on;
* ``benchmark``: never trained on, reported in the card (MultiNLI dev-matched, SNLI test);
* ``eval``: never trained on because of its licence (SICK, ANLI: non-commercial), reported.

Three-way files keep entailment / neutral / contradiction; two-way files (FEVER-NLI binary, RTE,
MED, PAWS) only say entailed or not, and are trained with a two-way loss on the same head
(:data:`NOT_ENTAILED`). Premises of several sentences (FEVER evidence sets, VitaminC, New
Protocols) are part of the mix on purpose: a summary sentence fuses several source sentences.

Files that the QA builder (:mod:`models.training.qa_data`) also reads keep its split
(:func:`qa_dev_premises`: 20% of its premise groups), so no held-out QA item is ever trained on;
the other files hold out 5% of their premises. The evaluation also drops any QA item whose
passage is a premise of the mix (:func:`trained_premises`), whatever split made it.
"""

from __future__ import annotations

import csv
import json
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from models.errors import InputError
from models.training.data import detokenize, split_of

LABELS = ("entailment", "neutral", "contradiction")
#: The label of a two-way file's negative class: "not entailed" (neutral or contradiction).
NOT_ENTAILED = "not_entailment"
#: Dev share of a file's premises (files not read by the QA builder).
DEV_FRACTION = 0.05
#: Files the QA builder reads: they keep its 20% split.
QA_SPLIT_FILES = frozenset(
    {
        "nli/snli_dev_from_esnli.tsv",
        "nli/rte_glue_resplit/train.tsv",
        "nli/paws_true_format.csv",
        "nli/wanli_train_sample.jsonl",
        "nli/extra/fever_nli_binary.jsonl",
        "nli/extra/conjnli_adversarial.jsonl",
        "nli/extra/cad_snli_train.jsonl",
        "nli/extra/fm2_devtest.jsonl",
        "nli/extra/fever_symmetric.jsonl",
    }
)


@dataclass(frozen=True, slots=True)
class NliFile:
    """One file of the NLI folder.

    Attributes:
        path: relative to the data folder.
        family: what the dev slice and the report group it under.
        role: ``train``, ``benchmark`` (never trained, reported) or ``eval`` (licence: never
            trained, reported).
        license: as the data README states it; written into the model card.
        cap: at most this many training-side pairs in the default mix (None = the whole file).
        multi_sentence: whether its premises are evidence sets of several sentences.
    """

    path: str
    family: str
    role: str
    license: str
    cap: int | None = None
    multi_sentence: bool = False


NLI_FILES: tuple[NliFile, ...] = (
    # MultiNLI genres (magazine, fiction, government, telephone, travel ...): whole
    NliFile(
        "nli/extra2/lingnli.jsonl",
        "mnli-genre",
        "train",
        "no license stated (LingNLI research release); premises MultiNLI",
    ),
    NliFile(
        "nli/extra2/taxinli_mnli_train_and_mismatched.jsonl",
        "mnli-genre",
        "train",
        "Computational Use of Data Agreement v1.0 (TaxiNLI); text MultiNLI",
    ),
    NliFile(
        "nli/extra2/mnli_dev_mismatched_hard.jsonl",
        "mnli-genre",
        "train",
        "MultiNLI (OANC, CC BY-SA 3.0 mix)",
    ),
    NliFile(
        "nli/extra2/syntactic_augmentation_mnli.jsonl",
        "mnli-genre",
        "train",
        "MIT (Min et al. 2020); text MultiNLI",
        cap=4000,
    ),
    NliFile(
        "nli/extra2/esxnli_en.jsonl",
        "mnli-genre",
        "train",
        "no license stated (esXNLI); Meta4XNLI Apache-2.0",
    ),
    # claims against evidence sets of several sentences
    NliFile(
        "nli/extra3/fever_train_evidence.jsonl",
        "evidence",
        "train",
        "FEVER CC BY-SA 3.0",
        cap=9000,
        multi_sentence=True,
    ),
    NliFile(
        "nli/extra2/vitaminc_real_test.jsonl",
        "evidence",
        "train",
        "CC BY-SA 3.0 (VitaminC)",
        cap=5000,
        multi_sentence=True,
    ),
    NliFile(
        "nli/extra2/vitaminc_synthetic_test.jsonl",
        "evidence",
        "train",
        "CC BY-SA 3.0 (VitaminC)",
        cap=2000,
        multi_sentence=True,
    ),
    NliFile(
        "nli/extra2/newprotocols_wikipedia.jsonl",
        "evidence",
        "train",
        "Wikipedia text CC BY-SA 3.0 / GFDL (New Protocols)",
        cap=6000,
        multi_sentence=True,
    ),
    NliFile(
        "nli/extra/fever_nli_binary.jsonl",
        "evidence",
        "train",
        "DocNLI BSD-3; FEVER text CC BY-SA 3.0",
        cap=3000,
        multi_sentence=True,
    ),
    NliFile(
        "nli/extra/fm2_devtest.jsonl",
        "evidence",
        "train",
        "Apache-2.0 (Fool Me Twice); Wikipedia CC BY-SA",
    ),
    NliFile(
        "nli/extra/fever_symmetric.jsonl", "evidence", "train", "CC BY-SA 3.0 (FEVER-Symmetric)"
    ),
    NliFile("nli/extra2/fever_adversarial.jsonl", "evidence", "train", "FEVER CC BY-SA 3.0"),
    # minimal edits, negation, monotonicity, word order
    NliFile("nli/snli_dev_from_esnli.tsv", "snli-style", "train", "CC BY-SA 4.0 (SNLI)", cap=3000),
    NliFile(
        "nli/extra/cad_snli_train.jsonl",
        "snli-style",
        "train",
        "Apache-2.0 (counterfactual NLI); SNLI CC BY-SA 4.0",
        cap=2000,
    ),
    NliFile(
        "nli/extra2/cad_snli_devtest.jsonl",
        "snli-style",
        "train",
        "Apache-2.0 (counterfactual NLI); SNLI CC BY-SA 4.0",
        cap=600,
    ),
    NliFile(
        "nli/extra/conjnli_adversarial.jsonl", "minimal-edit", "train", "MIT (ConjNLI)", cap=1500
    ),
    NliFile(
        "nli/extra2/breaking_nli.jsonl",
        "minimal-edit",
        "train",
        "no license stated (Breaking NLI); SNLI CC BY-SA 4.0",
        cap=1000,
    ),
    NliFile(
        "nli/extra2/scone_negation.jsonl", "minimal-edit", "train", "CC0 1.0 (ScoNe-NLI)", cap=1200
    ),
    NliFile(
        "nli/extra2/monli_pmonli.jsonl",
        "minimal-edit",
        "train",
        "no license stated (MoNLI)",
        cap=500,
    ),
    NliFile(
        "nli/extra2/med_monotonicity.jsonl", "minimal-edit", "train", "CC BY-SA 4.0 (MED)", cap=1000
    ),
    NliFile(
        "nli/extra2/nope_presupposition.jsonl",
        "minimal-edit",
        "train",
        "no license stated (NOPE)",
        cap=600,
    ),
    NliFile("nli/wanli_train_sample.jsonl", "minimal-edit", "train", "CC BY 4.0 (WANLI)"),
    NliFile("nli/rte_glue_resplit/train.tsv", "minimal-edit", "train", "PASCAL RTE, research use"),
    NliFile(
        "nli/paws_true_format.csv",
        "minimal-edit",
        "train",
        "PAWS, Apache-2.0 style (Google)",
        cap=3000,
    ),
    # never trained on
    NliFile(
        "nli/mnli_dev_matched_from_hans_repo.tsv",
        "mnli-matched",
        "benchmark",
        "MultiNLI (OANC, CC BY-SA 3.0 mix)",
    ),
    NliFile("nli/snli_test_from_esnli.tsv", "snli-test", "benchmark", "CC BY-SA 4.0 (SNLI)"),
    NliFile(
        "nli/extra2/anli_test_r1r2r3.jsonl", "anli", "eval", "CC BY-NC 4.0 (ANLI): non-commercial"
    ),
    NliFile(
        "nli/sick2014/SICK_test_annotated.txt",
        "sick",
        "eval",
        "CC BY-NC-SA 3.0 (SICK): non-commercial",
    ),
)
FILES_BY_PATH = {f.path: f for f in NLI_FILES}
BENCHMARK_MNLI = "nli/mnli_dev_matched_from_hans_repo.tsv"
BENCHMARK_SNLI = "nli/snli_test_from_esnli.tsv"
ANLI = "nli/extra2/anli_test_r1r2r3.jsonl"


@dataclass(frozen=True, slots=True)
class NliPair:
    """A premise/hypothesis pair with its file and label (three-way or :data:`NOT_ENTAILED`)."""

    path: str
    premise: str
    hypothesis: str
    label: str


def _label(raw: object, where: str) -> str:
    name = str(raw).strip().lower()
    if name in LABELS:
        return name
    if name in {"not_entailment", "not entailment", "non-entailment", "not_entailed"}:
        return NOT_ENTAILED
    raise InputError(f"unknown label {raw!r}", path=where)


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    if not path.is_file():
        raise InputError("data file not found", path=str(path))
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        yield n, json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise InputError(f"bad JSON: {exc}", path=str(path), line=n) from exc
        return
    delimiter = "," if path.suffix == ".csv" else "\t"
    quoting = csv.QUOTE_MINIMAL if path.suffix == ".csv" else csv.QUOTE_NONE
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for n, row in enumerate(csv.DictReader(fh, delimiter=delimiter, quoting=quoting), 2):
            yield n, row


def read_file(data_dir: Path, spec: NliFile) -> list[NliPair]:
    """Every labelled pair of one file, text detokenised; rows without a gold label are skipped.

    Raises:
        InputError: the file is missing, or a row has an unknown label (file and line named).
    """
    path = data_dir / spec.path
    out: list[NliPair] = []
    for n, row in _rows(path):
        where = f"{path}:{n}"
        if spec.path.endswith("paws_true_format.csv"):
            premise, hyp = row["grounding"], row["generated_text"]
            label = "entailment" if row["label"] == "1" else NOT_ENTAILED
        elif spec.path.endswith("rte_glue_resplit/train.tsv"):
            premise, hyp = row["sentence1"], row["sentence2"]
            label = _label(row["label"], where)
        elif spec.path.endswith("SICK_test_annotated.txt"):
            premise, hyp = row["sentence_A"], row["sentence_B"]
            label = _label(row["entailment_judgment"], where)
        elif path.suffix == ".tsv":
            raw = row.get("gold_label") or row.get("label")
            if raw not in LABELS:
                continue  # SNLI/MNLI rows without a majority label
            premise, hyp, label = row["premise"], row["hypothesis"], str(raw)
        else:
            raw = row.get("label", row.get("gold"))
            if raw is None or str(raw).strip() in {"", "-"}:
                continue
            premise, hyp = row["premise"], row["hypothesis"]
            label = _label(raw, where)
        premise, hyp = detokenize(str(premise)), detokenize(str(hyp))
        if premise and hyp:
            out.append(NliPair(spec.path, premise, hyp, label))
    return out


def split(pair: NliPair, qa_dev: frozenset[tuple[str, str]] = frozenset()) -> str:
    """``train`` or ``dev`` for a pair of a ``train`` file, by its premise (fixed by a hash).

    A file the QA builder reads is split as the QA builder splits it: ``qa_dev``
    (:func:`qa_dev_premises`) holds its held-out (file, premise) keys.
    """
    if pair.path in QA_SPLIT_FILES:
        return "dev" if (pair.path, pair.premise) in qa_dev else "train"
    return split_of(pair.path + pair.premise, DEV_FRACTION)


def qa_dev_premises(data_dir: Path) -> frozenset[tuple[str, str]]:
    """(file, detokenised premise) of every pair the QA builder holds out (its ``dev`` side:
    :func:`models.training.data.split_of` on file + group, where a group widens a premise to
    every pair sharing a premise or hypothesis with it)."""
    from models.training.data import read_pairs

    return frozenset(
        (p.source, detokenize(p.premise))
        for p in read_pairs(data_dir)
        if split_of(p.source + p.group) == "dev"
    )


#: The bundled model's mix: caps scaled by 100, i.e. every training-side pair of every file (the
#: caps size a CPU run that sees only part of the mix; a smaller scale samples a subset of it).
BUNDLED_SCALE = 100.0


def trained_premises(
    data_dir: Path, seed: int = 13, scale: float = BUNDLED_SCALE
) -> frozenset[str]:
    """Every premise of the training mix (what a held-out evaluation must not contain)."""
    train, _ = training_mix(data_dir, seed=seed, scale=scale)
    return frozenset(p.premise for p in train)


def training_mix(
    data_dir: Path,
    *,
    seed: int = 13,
    scale: float = BUNDLED_SCALE,
    files: Sequence[NliFile] = NLI_FILES,
) -> tuple[list[NliPair], list[NliPair]]:
    """The training pairs and the dev slice of every ``train`` file.

    Each file contributes its training side, sampled (seeded) down to ``cap * scale`` where it
    has a cap; the dev slice holds up to 120 dev-side pairs of each file. Files of role
    ``benchmark`` or ``eval`` contribute nothing.

    Returns:
        (training pairs in a seeded random order, dev pairs).
    """
    rng = random.Random(seed)
    qa_dev = qa_dev_premises(data_dir)
    # a premise of a benchmark (SNLI dev and test share a few captions) never trains
    benchmark = {
        p.premise for spec in files if spec.role == "benchmark" for p in read_file(data_dir, spec)
    }
    train: list[NliPair] = []
    dev: list[NliPair] = []
    for spec in files:
        if spec.role != "train":
            continue
        pairs = read_file(data_dir, spec)
        side = [p for p in pairs if split(p, qa_dev) == "train" and p.premise not in benchmark]
        held = [p for p in pairs if split(p, qa_dev) == "dev"]
        if spec.cap is not None and len(side) > spec.cap * scale:
            side = rng.sample(side, max(1, round(spec.cap * scale)))
        train += side
        dev += rng.sample(held, min(120, len(held)))
    rng.shuffle(train)
    # a premise several files share (MultiNLI's, in LingNLI and TaxiNLI) stays on one side
    seen = {p.premise for p in train}
    return train, [p for p in dev if p.premise not in seen]


#: Word-pieces per word of English text, to fit a padded premise in the model input without a
#: tokenizer (a padded premise that ran past the input would lose its own sentence).
PIECES_PER_WORD = 1.4


def pad_premises(
    pairs: Sequence[NliPair],
    *,
    share: float,
    most: int = 6,
    max_length: int = 256,
    seed: int = 13,
) -> list[NliPair]:
    """``pairs`` with a ``share`` of their premises read inside unrelated text, label kept.

    The app reads each claim against a window of several source sentences, most of which say
    nothing about it; a model trained on one-sentence premises loses its way there (MultiNLI
    dev-matched with four unrelated premises around each one: 71.5% against 83.5% alone, the
    bundled model). A padded pair keeps its premise whole and puts 1 to ``most`` other premises
    of the same family (drawn from ``pairs``, so nothing held out enters) before and after it,
    as many as fit ``max_length`` word-pieces (:data:`PIECES_PER_WORD`); its label holds, since
    the added text is about something else. The order of ``pairs`` is kept.
    """
    rng = random.Random(seed)
    family = {spec.path: spec.family for spec in NLI_FILES}
    pools: dict[str, list[str]] = {}
    for p in pairs:
        pools.setdefault(family.get(p.path, p.path), []).append(p.premise)
    out = []
    for p in pairs:
        pool = pools[family.get(p.path, p.path)]
        if rng.random() >= share or len(pool) < 2:
            out.append(p)
            continue
        budget = max_length / PIECES_PER_WORD - 4 - len(p.hypothesis.split())
        words = len(p.premise.split())
        added: list[str] = []
        for _ in range(rng.randint(1, most)):
            other = pool[rng.randrange(len(pool))]
            n = len(other.split())
            if other == p.premise or words + n > budget:
                continue
            added.append(other)
            words += n
        if not added:
            out.append(p)
            continue
        cut = rng.randint(0, len(added))
        premise = " ".join([*added[:cut], p.premise, *added[cut:]])
        out.append(NliPair(p.path, premise, p.hypothesis, p.label))
    return out


def held_out(data_dir: Path, path: str, n: int | None = None, seed: int = 13) -> list[NliPair]:
    """Pairs of a ``benchmark`` or ``eval`` file (a seeded sample of ``n`` when given)."""
    spec = FILES_BY_PATH[path]
    if spec.role == "train":
        raise ValueError(f"{path} is a training file: its held-out pairs come from split()")
    pairs = [p for p in read_file(data_dir, spec) if p.label in LABELS]
    if n is not None and len(pairs) > n:
        pairs = random.Random(seed).sample(pairs, n)
    return pairs


def describe_mix(pairs: Sequence[NliPair]) -> dict[str, dict[str, int]]:
    """Per file, how many pairs of each label (for the log and the card)."""
    out: dict[str, Counter[str]] = {}
    for p in pairs:
        out.setdefault(p.path, Counter())[p.label] += 1
    return {k: dict(v) for k, v in sorted(out.items())}


def write_mix(
    path: Path,
    train: Sequence[NliPair],
    dev: Sequence[NliPair],
    benchmarks: dict[str, Sequence[NliPair]],
) -> int:
    """Write a training mix, its dev slice and held-out sets as one xz-compressed JSON-lines
    file (to carry to a machine without the shared data folder); returns its size in bytes.

    Each line is ``{"set": "train"|"dev"|<held-out file>, "path", "premise", "hypothesis",
    "label"}``; the training order is kept.
    """
    import lzma

    tmp = path.with_name(path.name + ".tmp")
    with lzma.open(tmp, "wt", encoding="utf-8", preset=6) as fh:
        for name, pairs in (("train", train), ("dev", dev), *benchmarks.items()):
            for p in pairs:
                row = {"set": name, "path": p.path, "premise": p.premise}
                row |= {"hypothesis": p.hypothesis, "label": p.label}
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path.stat().st_size


def read_mix(path: Path) -> dict[str, list[NliPair]]:
    """The sets of a :func:`write_mix` file by name (``train``, ``dev``, held-out files).

    Raises:
        InputError: the file is missing or a line is not a mix row (line named).
    """
    import lzma

    if not path.is_file():
        raise InputError("mix file not found", path=str(path))
    sets: dict[str, list[NliPair]] = {}
    with lzma.open(path, "rt", encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try:
                row = json.loads(line)
                pair = NliPair(row["path"], row["premise"], row["hypothesis"], row["label"])
                sets.setdefault(row["set"], []).append(pair)
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise InputError(f"not a mix row: {exc}", path=str(path), line=n) from exc
    return sets
