"""Training and held-out examples: (evidence, output sentence, arcs, arc labels, support label).

Inputs are made exactly as at inference: texts are parsed with the pipeline's own
:func:`models.parsing.parse_many` (arcs from :mod:`models.arcs`), and summary evidence comes
from :func:`models.evidence.build_windows` with the model's token counter and the embedding
retriever. Parses are cached on disk (a pickle under the work directory) between runs.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import pickle
import random
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from models.checkers.multitask import arc_slots
from models.document import ParsedText, Sentence
from models.encoding import ArcSlot
from models.evidence import Retriever, build_windows
from models.training import labels as L
from models.training.data import (
    SummaryRecord,
    TextPair,
    read_aggrefact_spans,
    read_factcc,
    read_pairs,
    read_xsumfaith,
    split_of,
)

Log = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Example:
    """One model input with its labels (-1 = unknown).

    ``arc_known`` is the lexical baseline's verdict for each arc (same key in the evidence),
    kept so the baseline is measured on exactly the same arcs.
    """

    kind: str
    source: str
    split: str
    evidence: str
    sentence: str
    arcs: tuple[ArcSlot, ...]
    arc_y: tuple[int, ...]
    support: int
    arc_known: tuple[bool, ...]


@dataclass(frozen=True)
class Plan:
    """How many items of each kind to use (train side; dev gets a quarter of each).

    The pair counts are per NLI/paraphrase file (``fever`` ... ``fever_sym`` are the files of
    ``nli/extra/``); the flags switch document corruptions on (see :func:`document_corruptions`).
    """

    snli: int = 3500
    mnli: int = 3500
    rte: int = 1000
    mrpc: int = 2500
    paws: int = 3000
    fever: int = 4000
    conjnli: int = 2000
    cad: int = 2000
    fm2: int = 800
    fever_sym: int = 400
    corrupt_pairs: int = 5000
    doc_sentences: int = 2
    max_length: int = 256
    seed: int = 13
    splice: bool = False
    fuse: bool = True
    all_negations: bool = False
    role_swap: bool = True
    move_details: bool = True
    move_clauses: bool = True
    #: Yes/no question/answer items (training side only; half as many short answers beside),
    #: read as claims (:mod:`models.training.qa_data`); 0 leaves them out.
    qa: int = 3000

    def scaled(self, factor: float) -> Plan:
        f = max(factor, 0.0)
        return replace(
            self,
            snli=int(self.snli * f),
            mnli=int(self.mnli * f),
            rte=int(self.rte * f),
            mrpc=int(self.mrpc * f),
            paws=int(self.paws * f),
            fever=int(self.fever * f),
            conjnli=int(self.conjnli * f),
            cad=int(self.cad * f),
            fm2=int(self.fm2 * f),
            fever_sym=int(self.fever_sym * f),
            corrupt_pairs=int(self.corrupt_pairs * f),
            qa=int(self.qa * f),
        )


# Which Plan count each pair file draws on (WANLI: a fixed 100, as before the extra files).
PAIR_QUOTAS = {
    "nli/snli_dev_from_esnli.tsv": "snli",
    "nli/snli_test_from_esnli.tsv": "snli",
    "nli/mnli_dev_matched_from_hans_repo.tsv": "mnli",
    "nli/rte_glue_resplit/train.tsv": "rte",
    "nli/msrp/msr-para-train.tsv": "mrpc",
    "nli/paws_true_format.csv": "paws",
    "nli/wanli_train_sample.jsonl": "wanli",
    "nli/extra/fever_nli_binary.jsonl": "fever",
    "nli/extra/conjnli_adversarial.jsonl": "conjnli",
    "nli/extra/cad_snli_train.jsonl": "cad",
    "nli/extra/fm2_devtest.jsonl": "fm2",
    "nli/extra/fever_symmetric.jsonl": "fever_sym",
}


def write_pickle(path: Path, obj: Any) -> None:
    """Pickle ``obj`` to ``path`` atomically: a temporary file in the same folder, synced, then
    renamed over ``path``, so a killed run leaves the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_pickle(path: Path) -> Any | None:
    """What :func:`write_pickle` wrote to ``path``, or None when the file is missing or cannot be
    read whole (truncated by a killed run from before writes were atomic, or damaged): a cache
    to rebuild, never to load in part."""
    try:
        with path.open("rb") as fh:
            return pickle.load(fh)
    except FileNotFoundError:
        return None
    except Exception:  # a truncated pickle fails with EOFError, UnpicklingError, ValueError, ...
        return None


class ParseCache:
    """Parsed texts keyed by content hash, for one parser version (:func:`pipeline_version`),
    saved as one pickle. A file written by another version (a new way of cutting sentences) is
    parsed anew and replaced, so the file holds one version's parses and does not grow with
    each; an unreadable one is rebuilt."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._data: dict[str, ParsedText] = {}
        #: the parser version of ``_data`` (None: nothing read yet)
        self._parser: str | None = None
        #: the file existed but could not be read whole, so it is rebuilt rather than loaded
        self.discarded = False
        if path is not None and path.exists():
            data = read_pickle(path)
            if (
                isinstance(data, dict)
                and isinstance(data.get("parser"), str | None)
                and isinstance(data.get("texts"), dict)
            ):
                self._parser, self._data = data["parser"], data["texts"]
            else:
                self.discarded = True
        self._dirty = False

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    def parse(self, texts: Sequence[str], log: Log | None = None) -> list[ParsedText]:
        from models.parsing import parse_many, pipeline_version

        parser = pipeline_version()
        if parser != self._parser:
            self._dirty = self._dirty or bool(self._data)
            self._parser, self._data = parser, {}
        keys = [self._key(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._data}
        if todo:
            if log:
                log(f"parsing {len(todo)} texts")
            self._data.update(
                zip(todo, parse_many(list(todo.values()), batch_size=64), strict=True)
            )
            self._dirty = True
        return [self._data[k] for k in keys]

    def save(self) -> None:
        if self.path is not None and (self._dirty or self.discarded):
            write_pickle(self.path, {"parser": self._parser, "texts": self._data})
            self._dirty = self.discarded = False


def fingerprint(document: str) -> str:
    """A tokenisation- and case-proof identity for a source document."""
    return re.sub(r"[^a-z0-9]", "", document.lower())[:300]


def _example(
    kind: str,
    source: str,
    split: str,
    evidence: str,
    sentence: Sentence,
    arc_y: Sequence[int],
    support: int,
    known: set,
) -> Example | None:
    if support < 0 and all(y < 0 for y in arc_y):
        return None
    return Example(
        kind,
        source,
        split,
        evidence,
        sentence.text,
        arc_slots(sentence),
        tuple(arc_y),
        support,
        tuple(a.key in known for a in sentence.arcs),
    )


def _pick_pairs(
    pairs: Sequence[TextPair], plan: Plan, split: str, rng: random.Random
) -> list[TextPair]:
    """Each file's quota of pairs on ``split`` (both SNLI files share one quota, as before)."""
    quota = {key: (100 if key == "wanli" else getattr(plan, key)) for key in PAIR_QUOTAS.values()}
    if split == "dev":
        quota = {k: v // 4 for k, v in quota.items()}
    groups: dict[str, list[TextPair]] = {k: [] for k in quota}
    for p in pairs:
        key = PAIR_QUOTAS.get(p.source)
        if key is not None and split_of(p.source + p.group) == split:
            groups[key].append(p)
    chosen = []
    for key, n in quota.items():
        group = groups[key]
        rng.shuffle(group)
        chosen.extend(group[:n])
    return chosen


def pair_examples(
    pairs: Sequence[TextPair],
    cache: ParseCache,
    plan: Plan,
    split: str,
    rng: random.Random,
    log: Log | None = None,
) -> list[Example]:
    """NLI/paraphrase examples, their corruptions and span deletions."""
    chosen = _pick_pairs(pairs, plan, split, rng)
    prem = cache.parse([p.premise for p in chosen], log)
    hyp = cache.parse([p.hypothesis for p in chosen], log)
    pool = L.word_pool(prem + hyp, L.SWAP_POS + L.ENTITY_POS, seed=plan.seed)
    out: list[Example] = []
    bases = []
    for p, pp, hp in zip(chosen, prem, hyp, strict=True):
        positive = p.label in {"entailment", "paraphrase"}
        para = p.label == "paraphrase"
        known = L.arc_keys(pp)
        for s in hp.sentences:
            if positive:
                y = L.pair_labels(pp, s, paraphrase=para)
                support = 1
            else:
                y = [-1] * len(s.arcs)
                support = 0 if len(hp.sentences) == 1 else -1
            ex = _example("pair", p.source, split, p.premise, s, y, support, known)
            if ex:
                out.append(ex)
        if positive and len(hp.sentences) == 1 and hp.sentences[0].arcs:
            bases.append((p, pp, hp))
    rng.shuffle(bases)
    n_corrupt = plan.corrupt_pairs if split == "train" else plan.corrupt_pairs // 4
    edits: list[tuple[str, str, TextPair, ParsedText, ParsedText, list]] = []
    for n, (p, pp, hp) in enumerate(bases[:n_corrupt]):
        s = hp.sentences[0]
        local: dict[str, list[str]] = {"PROPN": [], "NUM": []}
        for ps in pp.sentences:
            for t in ps.tokens:
                if t.pos in local:
                    local[t.pos].append(t.text)
        kind = ("swap", "entity", "negation", "deletion")[n % 4]
        if kind == "deletion":
            reduced = L.delete_span(pp, s, rng)
            if reduced:
                edits.append(("deletion", reduced, p, pp, hp, []))
            continue
        res: tuple[str, list[L.Span]] | None = None
        if kind == "entity":
            # Prefer a relation error when the pair has the material: names trading roles, a
            # name or a number, date or place of the premise put in the wrong slot.
            if plan.role_swap:
                res = L.swap_roles(s, rng) or L.borrow_entity(s, pp.sentences, rng)
                kind = "role" if res is not None else kind
            if res is None and plan.move_details:
                res = L.move_detail(s, pp.sentences, rng)
                kind = "moved" if res is not None else kind
            if res is None:
                res = L.swap_entity(s, {k: v or pool.get(k, []) for k, v in local.items()}, rng)
        elif kind == "negation":
            res = L.negate(s)
        else:
            res = L.swap_word(s, pool, rng)
        if res is None:
            res = L.swap_word(s, pool, rng)
            kind = "swap"
        if res is not None:
            edits.append((kind, res[0], p, pp, hp, res[1]))
    parsed = cache.parse([e[1] for e in edits], log)
    for (kind, text, p, pp, hp, changed), ep in zip(edits, parsed, strict=True):
        if kind == "deletion":
            s = hp.sentences[0]
            y = L.deletion_labels(s, pp, ep)
            if 0 not in y:
                continue
            ex = _example("deletion", p.source, split, text, s, y, 0, L.arc_keys(ep))
        else:
            if len(ep.sentences) != 1:
                continue
            s = ep.sentences[0]
            y = L.edit_labels(
                s,
                changed,
                L.arc_keys(pp),
                all_supported=p.label == "paraphrase",
                relation=kind in {"role", "moved"},
            )
            if 0 not in y:
                continue
            ex = _example(kind, p.source, split, p.premise, s, y, 0, L.arc_keys(pp))
        if ex:
            out.append(ex)
    return out


def summary_examples(
    records: Sequence[SummaryRecord],
    cache: ParseCache,
    split: str,
    *,
    max_length: int,
    count_tokens: Callable[[str], int],
    retriever: Retriever | None,
    log: Log | None = None,
) -> list[Example]:
    """Summary sentences with human span labels (arcs) and summary labels (support)."""
    chosen = [r for r in records if split_of(r.doc_id) == split]
    docs = cache.parse([r.document for r in chosen], log)
    outs = cache.parse([r.summary for r in chosen], log)
    out: list[Example] = []
    for r, doc, summ in zip(chosen, docs, outs, strict=True):
        windows = build_windows(
            doc,
            summ.sentences,
            max_tokens=max_length,
            count_tokens=count_tokens,
            retriever=retriever,
        )
        for s, ev in zip(summ.sentences, windows, strict=True):
            if ev.not_checked is not None:
                continue
            known = {a.key for i in ev.sentence_indices for a in doc.sentences[i].arcs}
            if r.spans is not None:
                majority = 2 if len(r.spans) >= 3 else 1
                y = L.span_labels(s, r.spans, majority)
                marked = L.majority_chars(r.spans, majority)
                touched = any(L._overlaps((s.start, s.end), m) for m in marked)
                anyspan = any(L._overlaps((s.start, s.end), m) for w in r.spans for m in w)
                support = 0 if touched else (1 if not anyspan else -1)
            else:
                y = [-1] * len(s.arcs)
                label = r.faithful if (len(summ.sentences) == 1 or r.faithful == 1) else -1
                support = -1 if label is None else label
            ex = _example("summary", r.dataset, split, ev.text, s, y, support, known)
            if ex:
                out.append(ex)
    return out


def document_corruptions(
    records: Sequence[SummaryRecord],
    cache: ParseCache,
    split: str,
    *,
    per_doc: int,
    max_length: int,
    count_tokens: Callable[[str], int],
    retriever: Retriever | None,
    rng: random.Random,
    splice_docs: bool = False,
    fuse_docs: bool = False,
    all_negations: bool = False,
    role_swaps: bool = False,
    move_details: bool = False,
    move_clauses: bool = False,
    log: Log | None = None,
) -> list[Example]:
    """Corrupt real source sentences, and keep each one (as written or compressed) as a positive.

    With ``splice_docs`` also join one sentence's subject to another's predicate (negatives);
    with ``fuse_docs`` also fuse each one with the next source sentence (positives supported by
    two sentences); with ``all_negations`` every negated sentence of the document, not only the
    sampled ones, yields its un-negated twin (negatives). Relations rather than words:
    ``role_swaps`` makes two names of the sentence trade roles, or a name from another source
    sentence take one (negatives); ``move_details`` puts a number, date or place of another
    source sentence in (negatives); ``move_clauses`` moves a prepositional phrase to the front
    or the end (positives).

    Evidence is the retrieved window around the original sentence.
    """
    seen, docs = set(), []
    for r in records:
        if split_of(r.doc_id) == split and r.doc_id not in seen:
            seen.add(r.doc_id)
            docs.append(r.document)
    parsed = cache.parse(docs, log)
    pool = L.word_pool(parsed, L.SWAP_POS + L.ENTITY_POS, seed=7)
    # (kind, document, (text, changed spans), source sentences the window must hold)
    edits: list[tuple[str, ParsedText, tuple[str, list[L.Span]], tuple[int, ...]]] = []
    turn = itertools.count()
    for doc in parsed:
        cands = [s for s in doc.sentences if 3 <= len(s.arcs) and len(s.tokens) <= 40]
        rng.shuffle(cands)
        local = {
            "PROPN": [t.text for s in doc.sentences for t in s.tokens if t.pos == "PROPN"],
            "NUM": [t.text for s in doc.sentences for t in s.tokens if t.pos == "NUM"],
        }
        for n, s in enumerate(cands[:per_doc]):
            kind = ("entity", "swap", "negation")[next(turn) % 3]
            res = (
                L.swap_entity(s, local, rng)
                if kind == "entity"
                else L.negate(s)
                if kind == "negation"
                else L.swap_word(s, pool, rng)
            )
            if res is None:
                kind, res = "swap", L.swap_word(s, pool, rng)
            if res is not None:
                edits.append((kind, doc, res, (s.index,)))
            # Every negated source sentence also yields its un-negated twin (a removed `neg`
            # leaves no arc behind; the negated word's other arcs carry the error).
            dropped = L.drop_negation(s) if kind != "negation" else None
            if dropped is not None:
                edits.append(("negation", doc, dropped, (s.index,)))
            # A supported counterpart for every corruption: the sentence as written or
            # compressed (one optional modifier removed), over the same kind of window.
            short = L.compress(s, rng) if n % 2 == 0 else None
            edits.append(("compress" if short else "copy", doc, (short or s.text, []), (s.index,)))
            if splice_docs and n + 1 < len(cands):
                joined = L.splice(cands[n + 1], s)
                if joined is not None:
                    edits.append(("splice", doc, joined, (s.index,)))
            after = doc.sentences[s.index + 1] if s.index + 1 < len(doc.sentences) else None
            # Relation errors: every word is in the source, the arcs that tie them are not.
            role = L.swap_roles(s, rng) if role_swaps else None
            if role_swaps and role is None:
                role = L.borrow_entity(s, doc.sentences, rng)
            if role is not None:
                edits.append(("role", doc, role, (s.index,)))
            moved = L.move_detail(s, doc.sentences, rng) if move_details else None
            if moved is not None and (role is None or moved[0] != role[0]):
                edits.append(("moved", doc, moved, (s.index,)))
            clause = L.move_clause(s) if move_clauses else None
            if clause is not None:
                edits.append(("clause", doc, (clause, []), (s.index,)))
            if fuse_docs and after is not None and len(s.tokens) + len(after.tokens) <= 50:
                fused = L.fuse(s, after)
                if fused is not None:
                    edits.append(("fuse", doc, (fused, []), (s.index, after.index)))
        if all_negations:
            sampled = {s.index for s in cands[:per_doc]}
            for s in doc.sentences:
                dropped = None if s.index in sampled else L.drop_negation(s)
                if dropped is not None:
                    edits.append(("negation", doc, dropped, (s.index,)))
    parsed_edits = cache.parse([e[2][0] for e in edits], log)
    out = []
    for (kind, doc, (_, changed), needed), ep in zip(edits, parsed_edits, strict=True):
        if len(ep.sentences) != 1:
            continue
        hyp = ep.sentences[0]
        ev = build_windows(
            doc, [hyp], max_tokens=max_length, count_tokens=count_tokens, retriever=retriever
        )[0]
        if ev.not_checked is not None or not set(needed) <= set(ev.sentence_indices):
            continue
        known = {a.key for i in ev.sentence_indices for a in doc.sentences[i].arcs}
        if kind in {"copy", "compress", "fuse", "clause"}:
            y, support = [1] * len(hyp.arcs), 1
        elif kind == "splice":
            # Every piece is in the source; the arcs that are not (the new subject) are wrong.
            y, support = [1 if a.key in known else 0 for a in hyp.arcs], 0
            if 0 not in y:
                continue
        else:
            relation = kind in {"role", "moved"}
            y = L.edit_labels(hyp, changed, known, all_supported=True, relation=relation)
            support = 0
            if 0 not in y:
                continue
        ex = _example(f"doc-{kind}", "summaries/documents", split, ev.text, hyp, y, support, known)
        if ex:
            out.append(ex)
    return out


def span_records(data_dir: Path) -> list[SummaryRecord]:
    """Summary files used for training: span-labelled sets and FactCC claims."""
    return (
        read_xsumfaith(data_dir)
        + read_aggrefact_spans(data_dir, "cliff_error_types")
        + read_aggrefact_spans(data_dir, "goyal21_error_types")
        + read_factcc(data_dir)
    )


def build_all(
    data_dir: Path,
    cache: ParseCache,
    plan: Plan,
    *,
    count_tokens: Callable[[str], int],
    retriever: Retriever | None,
    log: Log | None = None,
    splits: Sequence[str] = ("train", "dev"),
) -> dict[str, list[Example]]:
    """Every example of the ``splits`` asked for (``train`` and ``dev`` by default).

    Each split draws from its own seeded generator, so the dev examples are the same whether or
    not the training examples are built too (the evaluation builds only ``dev``).
    """
    pairs = read_pairs(data_dir)
    records = span_records(data_dir)
    out = {}
    for split in splits:
        rng = random.Random(f"{plan.seed}:{split}")
        ex = pair_examples(pairs, cache, plan, split, rng, log)
        ex += summary_examples(
            records,
            cache,
            split,
            max_length=plan.max_length,
            count_tokens=count_tokens,
            retriever=retriever,
            log=log,
        )
        ex += document_corruptions(
            records,
            cache,
            split,
            per_doc=plan.doc_sentences,
            max_length=plan.max_length,
            count_tokens=count_tokens,
            retriever=retriever,
            rng=rng,
            splice_docs=plan.splice,
            fuse_docs=plan.fuse,
            all_negations=plan.all_negations,
            role_swaps=plan.role_swap,
            move_details=plan.move_details,
            move_clauses=plan.move_clauses,
            log=log,
        )
        if split == "train" and plan.qa:
            # Dev QA items are never examples: the evaluation's QA row measures on them.
            from models.training.qa_data import build_items, qa_examples

            items = build_items(pairs, split, yes_no=plan.qa, short=plan.qa // 2, seed=plan.seed)
            ex += qa_examples(items, cache, log)
        cache.save()
        out[split] = ex
    return out


def training_fingerprints(data_dir: Path) -> set[str]:
    """Fingerprints of every source document on the training side (to keep eval held out)."""
    return {
        fingerprint(r.document) for r in span_records(data_dir) if split_of(r.doc_id) == "train"
    }
