"""Sentence support from an NLI sequence classifier: the bundled three-way model or a user's.

The label mapping is read from the model's ``id2label``. Each output sentence is split into its
claims, and each claim is judged against its evidence windows (premise = evidence, hypothesis =
the claim, or the sentence's claim when an answer is read with its question, see
:mod:`models.claims`); a claim's support is the margin of entailment over contradiction, less
the contradiction the model reads into the claim with no evidence at all. A "No."
is judged by the contradiction of the claim it denies when the model is three-way.

Two runtimes: the bundled model (``resources/models/nli``, trained by
:mod:`models.training.nli_model`: all-mpnet-base-v2 with a three-way head, int8 ONNX; the fast
path's ``nli_fast`` on all-MiniLM-L6-v2) runs through onnxruntime with the ``tokenizers``
package, without torch; a user's Hugging Face directory runs through torch (CUDA when
available, else CPU), imported only when such a checker is loaded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from models import nli_recent
from models.arc_runtime import heads_on
from models.checkers.base import (
    QA_REVISION,
    Grain,
    PairInput,
    PairScore,
    Progress,
    SentenceScore,
    ShouldStop,
    check_stop,
    pair_score,
    skipped_sentence,
)
from models.checkers.multitask import reading
from models.claim_split import as_written, described_claims, split_claims
from models.derived_figures import read_against
from models.document import ParsedText, Sentence
from models.errors import ModelLoadError, ModelNotFoundError
from models.evidence import (
    CONTRADICTED_BY,
    SHOWN,
    Evidence,
    LexicalRetriever,
    Retriever,
    build_windows,
    clipped,
    retrieval_revision,
)
from models.figures import Restated
from models.readable import READ_REVISION, readable
from models.resources import resources_dir
from models.runtime import ALONE_REVISION, DevicePref, onnx_model, torch_device
from models.unknown_words import placeholder_note, placeholders

if TYPE_CHECKING:
    from models.arc_runtime import ArcSupportRunner, Job

BUNDLED_DIR = resources_dir() / "models" / "nli"
#: The fast path: a MiniLM-L6 NLI model trained with the same command (``--base minilm``), for
#: CPUs where the MPNet-base model is too slow (``nli-fast``; not a default).
FAST_DIR = resources_dir() / "models" / "nli_fast"
#: ``kind`` in the config of a model exported by :mod:`models.training.nli_model`.
KIND = "factdesk-nli"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
#: Part of the version: outputs are judged claim by claim against joined evidence (a split whose
#: claims the sentence itself does not entail is not made; clauses a semicolon joins are claims
#: of their own; what an appositive says of its noun, "X is Y", is read as well and counts only
#: where the source contradicts it; an event dated by an interval from the sentence's year, "in
#: 1968, four years after the station closed", is a claim with that year, "the station closed in
#: 1964"; a verb in a finite form of its own borrows the subject but no auxiliary, "is bidding
#: … and has a title shot" -> "has a title shot"; a verb without a subject after a reported
#: clause that has one, "Musk says the rocket landed, but tipped over", or right after an
#: adverbial clause that has one, "lapsed once Lisse had taken over Corvo and declined to honour
#: it", is not split off, since the parse cannot tell whose it is);
#: decades and centuries are read as the year the source
#: states ("in the 1990s" -> "in 1996"), a decade of life as the age it states ("a man in his
#: thirties" -> "a man aged 34"), hedged figures as the source states them ("about 6,400" -> "6,412";
#: a share that names what it counts, "one bud in seven" -> "15 percent of buds"; a duration in
#: another unit of time, "in under three weeks" -> "in 19 days", "more than a week" -> "nine days"),
#: comparisons that two source figures bear out without their number ("two and a half times as
#: many" for 186 against 74 -> "more"; not where the source sentence holds a figure as near that
#: the hedge does not hold for; the side of a comparison that names no "than" taken from the
#: source's own, "41 days, compared with 27"), and each claim against a narrow and a wide window
#: (:data:`WINDOW_SIZES`), as entailed as its best-entailing window and as contradicted as its
#: most-contradicting one, less the contradiction it reads with no evidence at all
#: (:meth:`NLISentenceChecker._debiased`); a claim cut from its sentence is read with a full
#: stop (:func:`_as_statement`); a pound sign a tokenizer wrote "#" is read as "£" where the
#: source writes its figures with "£" (:mod:`models.lost_pound`); a figure, year or comparison is
#: restated from the claim's evidence windows first, from the rest of the source only where they
#: state none, and "over" or "under" the very figure the source states is left as written, a
#: preposition and not a bound (claims22); a relative clause on a noun that renames another
#: is a claim about that one ("Knox was someone who read the Bible" -> "Knox read the Bible"),
#: and a coordinated verb with its own object takes no passive auxiliary ("was courted … but
#: chose Arsenal" -> "chose Arsenal") (claims23); a "which" clause after a comma and a phrase
#: of its noun stays in its sentence's claim ("accused officials of corruption, which led to a
#: comeback": not "officials of corruption led to a comeback") (claims24); a clause that only
#: says which ones its noun means is no claim of its own ("every worker who applies", "anyone
#: who saw her", "Children who share iPads do better", "people who have autism": not "anyone saw
#: her"), and a relative clause's claim takes its noun as it stands before the clause ("suspects
#: the trainee, who is unemployed, of stealing": not "the trainee is unemployed of stealing")
#: (claims26; "claims25" was the first without "people" or the noun's cut). ("claims13" and
#: "claims14" named experiments that were not kept, whose bench caches may still exist; so did
#: "claims18", which also read vague counts, "a few hundred", as ranges.)
CLAIM_REVISION = "claims26"
#: The evidence windows each claim is read against, in source sentences: the single most
#: relevant one and the five most relevant, joined in source order (capped by the model input);
#: see :meth:`NLISentenceChecker._reading` for how the readings combine. One wide window of a long source (a dozen
#: sentences) reads worse than either: the model was trained on premises of one to a few
#: sentences, and a claim that one sentence states is lost in a long one, while a claim fused
#: from several needs them together. Measured on the training-side summaries, the probe set and
#: the demo (pair AUC of the nli score): one budget-filling window 0.774 / 0.586 / 0.562,
#: windows of 1 and 5 sentences 0.798 / 0.650 / 0.714, at about 80% of the tokens.
WINDOW_SIZES = (1, 5)
#: The premise a claim is also read against to see what the model reads into the claim alone
#: (:meth:`NLISentenceChecker._debiased`).
NO_EVIDENCE = ""


def bundled_available(path: Path = BUNDLED_DIR) -> bool:
    """Whether the bundled three-way model's files are installed."""
    return all((path / f).is_file() for f in (MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE))


def is_onnx_dir(path: Path) -> bool:
    """Whether a directory holds an exported model of ours (else: a Hugging Face directory)."""
    if not bundled_available(path):
        return False
    try:
        config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    return isinstance(config, dict) and config.get("kind") == KIND


def entailment_index(id2label: dict[Any, str]) -> int:
    """Index of the entailment class in a model's ``id2label``.

    Raises:
        ModelLoadError: when no label names entailment (or support).
    """
    for idx, label in id2label.items():
        name = str(label).lower()
        if "entail" in name and not name.startswith(("not", "non")):
            return int(idx)
    for idx, label in id2label.items():
        if str(label).lower() in {"supported", "support", "consistent", "faithful"}:
            return int(idx)
    raise ModelLoadError(
        f"The model's id2label {dict(id2label)} names no entailment class; "
        "expected a label containing 'entail'."
    )


def contradiction_index(id2label: dict[Any, str]) -> int | None:
    """Index of the contradiction class in a model's ``id2label``; None for two-way models."""
    for idx, label in id2label.items():
        if "contradict" in str(label).lower():
            return int(idx)
    return None


def _claims_revision(read_alone: bool) -> str:
    """The claim-reading part of a checker's version: its contradiction read less the claim's
    own with no evidence, or (``read_alone`` off) as the windows read it."""
    return CLAIM_REVISION if read_alone else f"{CLAIM_REVISION}-plain"


def neutral_index(id2label: dict[Any, str], entail: int, contradict: int | None) -> int | None:
    """Index of the third class of a three-way model (neutral), None for other models."""
    rest = [int(i) for i in id2label if int(i) not in (entail, contradict)]
    return rest[0] if contradict is not None and len(id2label) == 3 and len(rest) == 1 else None


class OnnxNLI:
    """An exported NLI classifier (:mod:`models.training.nli_model`) run by onnxruntime.

    The graph takes ``input_ids``, ``attention_mask`` and ``token_type_ids`` and returns the
    class probabilities ``probs``; the config names the classes (``id2label``), the input length
    (``max_length``) and the version (the ONNX file's content hash).
    """

    def __init__(self, model_dir: str | Path, device: DevicePref = "auto") -> None:
        from models.encoding import TokenCounter, shared_tokenizer

        path = Path(model_dir)
        if not bundled_available(path):
            raise ModelNotFoundError(
                f"{path}: no {MODEL_FILE}, {TOKENIZER_FILE} and {CONFIG_FILE} here."
            )
        try:
            config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
            self.id2label = {int(k): str(v) for k, v in config["id2label"].items()}
            self.max_length = int(config["max_length"])
            self.version = str(config["version"])
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ModelLoadError(
                f"{path / CONFIG_FILE}: not an NLI model config (needs id2label, max_length, "
                f"version): {exc}"
            ) from exc
        # One tokenizer counts (untruncated, so a sentence too long for the model is reported,
        # not cut), one encodes pairs for the model, truncated to its input length. Both before
        # the session, which may still be being built (models.runtime.sessions_ahead).
        self._counter = TokenCounter(shared_tokenizer(path / TOKENIZER_FILE))
        self._tokenizer = shared_tokenizer(path / TOKENIZER_FILE, self.max_length)
        self.session, choice = onnx_model(path, device, MODEL_FILE)
        self.runs_on = choice.runs_on  # device and precision, recorded with each run
        self._inputs = {i.name for i in self.session.get_inputs()}
        # The first output: a graph shared with the arc/support heads has theirs after it, and
        # asking for this one alone keeps onnxruntime from running the heads.
        self._output = self.session.get_outputs()[0].name

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    def predict(
        self, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int = 16
    ) -> np.ndarray:
        """Class probabilities, one row per (premise, hypothesis), columns as ``id2label``.

        The model reads each text without a word tokenizer's marks (:mod:`models.readable`), as
        the app reads every text, held-out benchmarks included. Each pair runs on its own: a
        graph quantised dynamically (exports before weight-only int8,
        :func:`models.training.export.weight_only`) scales activations over the whole input
        tensor, so a pair batched with others (and padded to their length) would score
        differently from the same pair alone. ``batch_size`` is kept for the callers' stop and
        progress steps; on a CPU one unpadded pair at a time costs no more than padded batches.
        """
        premises = [readable(t) for t in premises]
        hypotheses = [readable(t) for t in hypotheses]
        n = len(premises)
        out = np.zeros((n, len(self.id2label)), np.float32)
        for i in range(n):
            kept = nli_recent.recall(self.version, premises[i], hypotheses[i])
            if kept is not None:
                out[i] = kept
                continue
            e = self._tokenizer.encode(premises[i], hypotheses[i])
            ids = np.asarray([e.ids], np.int64)
            feed = {
                "input_ids": ids,
                "attention_mask": np.ones_like(ids),
                "token_type_ids": np.asarray([e.type_ids], np.int64),
            }
            feed = {k: v for k, v in feed.items() if k in self._inputs}
            out[i] = self.session.run([self._output], feed)[0][0]
            nli_recent.remember(self.version, premises[i], hypotheses[i], out[i])
        return out


class NLISentenceChecker:
    """Sentence-level checker over an NLI classifier: the bundled ONNX model (``model_dir``
    None), an exported one of ours, or a local Hugging Face sequence-classification directory."""

    display_name = "claims vs source (NLI)"
    grain: Grain = "sentence"

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        device: DevicePref = "auto",
        max_tokens: int = 512,
        retriever: Retriever | None = None,
        name: str | None = None,
        display_name: str | None = None,
        read_alone: bool = True,
    ) -> None:
        """``name`` and ``display_name`` name a bundled model other than ``nli`` (``nli-fast``);
        by default a user's directory is ``nli:FOLDER``. ``read_alone``: each claim is also read
        with no evidence and that contradiction taken off its readings (:meth:`_debiased`;
        three-way models). The bundled MPNet model reads the held-out summaries better with it,
        the fast path's MiniLM model worse (docs/history.md), which is read without."""
        path = Path(model_dir) if model_dir is not None else BUNDLED_DIR
        if display_name is not None:
            self.display_name = display_name
        if not (path / "config.json").is_file():
            raise ModelNotFoundError(f"{path}: not a model directory (no config.json).")
        self._retriever = retriever
        self._onnx: OnnxNLI | None = None
        #: The arc/support heads in this model's graph (bundled): see :meth:`_shared`.
        self._heads: ArcSupportRunner | None = None
        if is_onnx_dir(path):
            self._onnx = OnnxNLI(path, device)
            heads = heads_on(path / MODEL_FILE, device)
            # one pass serves both only when both read the very same session
            if heads is not None and heads.runs_session(self._onnx.session):
                self._heads = heads
            self._classes(self._onnx.id2label, read_alone)
            self.max_tokens = min(max_tokens, self._onnx.max_length)
            self.runs_on = self._onnx.runs_on
            bundled = model_dir is None
            self.name = name or ("nli" if bundled else f"nli:{path.name}")
            self.version = (
                f"{self._onnx.version}+{QA_REVISION}+{_claims_revision(read_alone)}"
                f"+{ALONE_REVISION}+{READ_REVISION}{retrieval_revision(retriever)}"
            )
            return
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ModelLoadError(
                "Loading a Hugging Face model directory needs torch and transformers: "
                "pip install 'factdesk[torch]'."
            ) from exc
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            self._model = AutoModelForSequenceClassification.from_pretrained(
                str(path), local_files_only=True
            )
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"{path}: cannot load the model: {exc}") from exc
        self._torch = torch
        self._device = torch_device(device)
        self._model.to(self._device).eval()
        self.runs_on = f"{self._device} fp32 (torch)"
        #: Pairs read together: one at a time on a CPU, as fast there and the same in every
        #: run; on a GPU, where one pair is too little work, :data:`GPU_BATCH` of similar length.
        self.torch_batch = GPU_BATCH if self._device.startswith("cuda") else 1
        self._classes(self._model.config.id2label, read_alone)
        limit = getattr(self._tokenizer, "model_max_length", max_tokens) or max_tokens
        limit = min(limit, max_tokens, getattr(self._model.config, "max_position_embeddings", 512))
        self.max_tokens = int(limit)
        self.name = name or f"nli:{path.name}"
        self.version = (
            f"{path.name}@{_fingerprint(path)}+{QA_REVISION}+{_claims_revision(read_alone)}"
            f"+{READ_REVISION}{retrieval_revision(retriever)}"
        )

    def _classes(self, id2label: dict[Any, str], read_alone: bool) -> None:
        """The model's entailment, contradiction and (``read_alone``, three-way models: the
        no-evidence reading is taken off, :meth:`_debiased`) neutral columns."""
        self._entail = entailment_index(id2label)
        self._contradict = contradiction_index(id2label)
        self._neutral = (
            neutral_index(id2label, self._entail, self._contradict) if read_alone else None
        )

    def count_tokens(self, text: str) -> int:
        if self._onnx is not None:
            return self._onnx.count_tokens(text)
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def score(
        self,
        batch: Sequence[PairInput],
        *,
        batch_size: int = 16,
        progress: Progress | None = None,
        should_stop: ShouldStop | None = None,
    ) -> list[PairScore]:
        """Judge every claim of every output sentence against its joined evidence.

        Each checkable sentence is split into claims (:func:`models.claim_split.split_claims`),
        each claim's comparisons and hedged figures are read as the source's figures bear them
        out (:func:`models.derived_figures.read_figures`), and each claim is read against its own
        evidence windows (:data:`WINDOW_SIZES`: the source sentences ranked most relevant to it,
        joined in source order), one model call each; a claim is as entailed as its
        best-entailing window and as contradicted as its most-contradicting one, less the
        contradiction the model reads into it with no evidence (:meth:`_debiased`: one more,
        short, model call per claim of a three-way model; :meth:`_reading`,
        :func:`support_margin`). A sentence scores its weakest claim; a flagged
        sentence says why in its ``detail``: which claim, and "contradicted by source sentence
        k" (the most relevant window sentence that contradicts it read alone, quoted) or "not
        found in the source", and how its figures were read when they were restated; a flagged
        "No" names the claim it denies and whether the source reads as saying it or only does
        not say otherwise.
        """
        plans = [self._plan(item) for item in batch]
        # per claim: its windows, then (three-way models) the claim with no evidence (w = -1),
        # then for a "No" the claim it denies against the answer's own explanation (w = -2)
        alone = [-1] if self._neutral is not None else []
        jobs = [
            (p, u, w)
            for p, plan in enumerate(plans)
            for u in range(len(plan.units))
            for w in [
                *range(len(plan.windows[u])),
                *alone,
                *([EXPLANATION] if u in plan.explained else []),
            ]
        ]
        shared = {
            (p, u, w): job
            for p, item in enumerate(batch)
            for (u, w), job in self._shared(item, plans[p]).items()
        }
        got: dict[tuple[int, int, int], np.ndarray] = {}
        for lo in range(0, len(jobs), batch_size):
            check_stop(should_stop)
            chunk = jobs[lo : lo + batch_size]
            if self._heads is not None:
                # the arc/support pass over these inputs gives their probabilities too
                self._heads.predict([shared[key] for key in chunk if key in shared])
            premises = [_premise(plans[p], u, w) for p, u, w in chunk]
            hypotheses = [plans[p].read[u].text for p, u, _ in chunk]
            for key, row in zip(chunk, self._probs(premises, hypotheses), strict=True):
                got[key] = row
            if progress is not None:
                # in pairs, like every checker: jobs go pair by pair, so the pairs before the
                # next job's pair are done
                hi = lo + batch_size
                progress(jobs[hi][0] if hi < len(jobs) else len(batch), len(batch))
        return [
            self._result(
                item,
                plans[p],
                [
                    [
                        self._debiased(got[(p, u, w)], got.get((p, u, -1)))
                        for w in range(len(plans[p].windows[u]))
                    ]
                    for u in range(len(plans[p].units))
                ],
                [got.get((p, u, -1)) for u in range(len(plans[p].units))],
                {
                    u: self._debiased(got[(p, u, EXPLANATION)], got.get((p, u, -1)))
                    for u in plans[p].explained
                },
            )
            for p, item in enumerate(batch)
        ]

    def readings(self, item: PairInput) -> list[ClaimReading]:
        """What :meth:`score` would read for a pair, without reading it against the source (the
        model only checks how sentences split, :meth:`_claims`): per claim, its sentence, the
        claim, the text the model reads for it and its evidence windows' texts (narrowest first;
        both as the model reads them, :mod:`models.readable`). Training code builds in-domain
        pairs from it (:mod:`models.training.summary_nli`), so they are read as the app reads
        them. What an appositive says (read only for a contradiction) is left out."""
        plan = self._plan(item)
        return [
            ClaimReading(
                plan.owners[u],
                claim,
                readable(plan.read[u].text),
                tuple(readable(w.text) for w in plan.windows[u]),
                plan.owners[u] in plan.denies,
            )
            for u, claim in enumerate(plan.units)
            if u not in plan.described
        ]

    def _claims(
        self, item: PairInput, windows: Sequence[Evidence]
    ) -> tuple[dict[int, tuple[Sentence, ...]], dict[int, tuple[Sentence, ...]]]:
        """The claims of each checkable output sentence that makes several, and what its
        appositives say of their nouns (:func:`models.claim_split.described_claims`), both by
        sentence index.

        A split is kept only when the model reads every claim as entailed by its own sentence:
        the rules read the parse, and a misparsed sentence can give a claim it does not make
        ("Orlando have a big fanbase and Kaka is the captain" -> "Orlando is the captain"; "the
        beneficiary of the timepiece, which ranges in price …" -> "the beneficiary ranges in
        price …"), which the source would then contradict. Such a sentence is read whole. A
        split too long to read beside its sentence in one model input is kept unchecked.

        A description is read beside the sentence's claims and counts only where the source
        contradicts it ("towie crawford, 32, …" -> "towie crawford is 32", where the source's
        Crawford of 32 is Lizzi), so one the source words otherwise costs nothing. It is kept
        only where its own sentence entails it, as a split claim is, and where both fit in one
        model input. Both guards are read in one model call.
        """
        split: dict[int, tuple[Sentence, ...]] = {}
        described: dict[int, tuple[Sentence, ...]] = {}
        for s, ev in zip(item.output.sentences, windows, strict=True):
            if ev.not_checked is None and item.checkable(s) and item.claim(s.index) is None:
                claims = split_claims(item.judged[s.index], item.source.text)
                if len(claims) > 1:
                    split[s.index] = claims
                if found := described_claims(item.judged[s.index]):
                    described[s.index] = found

        def fit(group: dict[int, tuple[Sentence, ...]]) -> dict[int, tuple[Sentence, ...]]:
            return {
                k: claims
                for k, claims in group.items()
                if self.count_tokens(item.judged[k].text)
                + max(self.count_tokens(c.text) for c in claims)
                + 4
                <= self.max_tokens
            }

        fits, described = fit(split), fit(described)
        # a split claim is guarded by its own words (a dated event without the year the
        # sentence's arithmetic gives it); a description by the statement it makes
        pairs = [
            *((item.judged[k].text, as_written(c)) for k, claims in fits.items() for c in claims),
            *((item.judged[k].text, c.text) for k, claims in described.items() for c in claims),
        ]
        if not pairs:
            return split, {}
        rows = iter(self._probs([p for p, _ in pairs], [h for _, h in pairs]))
        # every claim's row is read (a list, not a generator), so the rows stay aligned
        entailed = {
            k: all([int(np.argmax(next(rows))) == self._entail for _ in claims])
            for k, claims in fits.items()
        }
        kept = {
            k: tuple(c for c in claims if int(np.argmax(next(rows))) == self._entail)
            for k, claims in described.items()
        }
        return (
            {k: claims for k, claims in split.items() if entailed.get(k, True)},
            {k: claims for k, claims in kept.items() if claims},
        )

    def _plan(self, item: PairInput) -> _Plan:
        """The claims of a pair's checkable sentences and an evidence window for each."""
        judged = item.judged
        sentence_windows = build_windows(
            item.source,
            judged,
            max_tokens=self.max_tokens,
            count_tokens=self.count_tokens,
            retriever=self._retriever,
        )
        split, described = self._claims(item, sentence_windows)
        units: list[Sentence] = []
        owners: list[int] = []
        denies: set[int] = set()
        marked: set[int] = set()
        for s, ev in zip(item.output.sentences, sentence_windows, strict=True):
            if ev.not_checked is not None or not item.checkable(s):
                continue
            claim = item.claim(s.index)
            if claim is not None and claim.denies is not None:
                units.append(claim.denies)
                denies.add(s.index)
            elif claim is not None:
                units.append(judged[s.index])
            else:
                units.extend(split.get(s.index, (judged[s.index],)))
                extra = described.get(s.index, ())
                marked.update(range(len(units), len(units) + len(extra)))
                units.extend(extra)
            owners += [s.index] * (len(units) - len(owners))
        # one ranking of the source for every window size (the embedding retriever runs once)
        retriever = _RankOnce(self._retriever or LexicalRetriever())
        ladder = [
            build_windows(
                item.source,
                units,
                max_tokens=self.max_tokens,
                count_tokens=self.count_tokens,
                retriever=retriever,
                size=size,
            )
            for size in WINDOW_SIZES
        ]
        windows = [
            tuple(w for w in rungs if w.not_checked is None) for rungs in zip(*ladder, strict=True)
        ]
        checkable = [bool(w) for w in windows]
        kept = [u for u, ok in zip(units, checkable, strict=True) if ok]
        kept_at = [u for u, ok in enumerate(checkable) if ok]
        source_texts = [s.text for s in item.source.sentences]
        kept_owners = [o for o, ok in zip(owners, checkable, strict=True) if ok]
        kept_windows = [w for w in windows if w]
        return _Plan(
            sentence_windows,
            kept,
            kept_owners,
            kept_windows,
            denies,
            [
                _as_statement(read_against(u.text, source_texts, _read_sentences(rungs)))
                for u, rungs in zip(kept, kept_windows, strict=True)
            ],
            frozenset(k for k, u in enumerate(kept_at) if u in marked),
            *_explanations(item, kept_owners, denies),
        )

    def _shared(self, item: PairInput, plan: _Plan) -> dict[tuple[int, int], Job]:
        """The readings (claim, window) that are also the arc/support model's input, each with
        that input: a one-claim sentence, read as the heads read it (:func:`models.checkers.
        multitask.reading`: its figures rewritten as here), against the window the heads read
        for it (the bundled heads sit in this model's graph and read the same number of most
        relevant sentences as the widest window). One pass then serves the NLI, DAE and support
        checkers: whichever runs first computes it, the others find it kept
        (:mod:`models.nli_recent`, the runner's cache). Empty without heads in the graph."""
        if self._heads is None:
            return {}
        windows = self._heads.windows(item, self._retriever)
        out: dict[tuple[int, int], Job] = {}
        for u, unit in enumerate(plan.units):
            s = plan.owners[u]
            sentence = item.output.sentences[s]
            if unit is not sentence or item.claim(s) is not None:
                continue
            job = reading(item, sentence, windows[s]).job
            if job[1] != plan.read[u].text:
                continue
            for w, window in enumerate(plan.windows[u]):
                if window.text == job[0]:
                    out[(u, w)] = job
        return out

    def _result(
        self,
        item: PairInput,
        plan: _Plan,
        probs: list[list[np.ndarray]],
        alone: Sequence[np.ndarray | None],
        explained: dict[int, np.ndarray],
    ) -> PairScore:
        """Sentence scores from each claim's readings, one per evidence window (debiased),
        ``alone``: each claim's reading with no evidence (None for a two-way model), and
        ``explained``: per claim a "No" denies, its reading against the answer's explanation
        (debiased)."""
        scored: dict[int, SentenceScore] = {}
        # the answer's other sentences first: a "No" may stand on its explanation
        for s, ev in sorted(
            zip(item.output.sentences, plan.sentence_windows, strict=True),
            key=lambda pair: pair[0].index in plan.denies,
        ):
            mine = [u for u, owner in enumerate(plan.owners) if owner == s.index]
            if not mine:
                scored[s.index] = skipped_sentence(s.index, ev, s)
                continue
            if s.index in plan.denies:
                value, row = self._denial(plan, mine[0], probs[mine[0]], explained, scored)
                detail = None if value >= 0.5 else self._why_denied(plan, mine[0], row)
                scored[s.index] = SentenceScore(
                    s.index, value, None, ev.sentence_indices, ev.omitted, None, detail
                )
                continue
            readings = [self._reading(probs[u]) for u in mine]
            # a description counts where the source contradicts it
            counted = [
                k
                for k, u in enumerate(mine)
                if u not in plan.described or self._contradicts(readings[k][1])
            ] or list(range(len(mine)))
            value, k = min((readings[k][0], k) for k in counted)
            read = [mine[c] for c in counted]
            used = sorted({i for u in read for w in plan.windows[u] for i in w.sentence_indices})
            omitted = max(w.omitted for u in read for w in plan.windows[u])
            detail = None
            if value < 0.5:
                detail = self._why(item, plan, mine[k], readings[k][1], len(read), alone[mine[k]])
            scored[s.index] = SentenceScore(
                s.index, value, None, tuple(used), omitted, None, detail
            )
        return pair_score(item.key, self, [scored[s.index] for s in item.output.sentences])

    def _denial(
        self,
        plan: _Plan,
        unit: int,
        rows: Sequence[np.ndarray],
        explained: dict[int, np.ndarray],
        scored: dict[int, SentenceScore],
    ) -> tuple[float, np.ndarray]:
        """A "No"'s support and the reading that decides it.

        It is supported when the evidence contradicts what it denies (a two-way model: when it
        does not entail it), read across its windows as a claim is. An answer that says why
        ("No. Only vehicles have to be booked ahead; foot passengers buy their tickets on the
        day.") also supports it as far as its explanation contradicts the denied claim and the
        source supports the explanation (its sentences' scores, read before): if the source
        says E and E rules the claim out, the source rules it out. The model misses the
        contradiction in the source where the denied claim shares its words ("need to book in
        advance" against "must be booked … in advance, but foot passengers … can buy tickets
        on the day": entailed), and reads it in the answer's plainer words. The reading
        returned is always the source's: a flag says what the source reads."""
        value, row = self._reading(rows, deny=True)
        reading = explained.get(unit)
        if reading is None or self._contradict is None:
            return value, row
        entail, contra = self._entail_contra(reading)
        backed = min(
            (scored[k].score for k in plan.explaining if scored[k].score is not None),
            default=0.0,
        )
        chained = min(support_margin(float(contra or 0.0), entail), backed)
        # the source's own reading stays the one a flag explains
        return max(value, chained), row

    def _reading(self, rows: Sequence[np.ndarray], deny: bool = False) -> tuple[float, np.ndarray]:
        """A claim's support from its readings, one per evidence window, and the reading that
        decides it.

        The claim is as entailed as its best-entailing window and as contradicted as its
        most-contradicting one: support = :func:`support_margin` of the two. A narrow window
        that lacks what contradicts the claim reads "neutral", and must not outvote a wider one
        that holds it; a wide window that buries the one sentence stating the claim must not
        outvote the narrow one either. Measured with the shipped model
        (``tests/benchmarks/bench_evidence_windows.py``) on the training-side summaries (pair
        AUC 0.803 against 0.804 for the best window's margin, within noise) and the probe set
        (0.799 against 0.712). ``deny``: the reading of a "No" (support = contradiction over
        entailment). A two-way model (no contradiction class) reads 1 - P(entailment) for a
        "No" and P(entailment) for a claim, at its best window.
        """
        pairs = [self._entail_contra(r) for r in rows]
        best_e = max(range(len(rows)), key=lambda w: pairs[w][0])
        entail = pairs[best_e][0]
        if self._contradict is None:
            return (1.0 - entail if deny else entail), rows[best_e]
        most_c = max(range(len(rows)), key=lambda w: pairs[w][1] or 0.0)
        contra = float(pairs[most_c][1] or 0.0)
        value = support_margin(contra, entail) if deny else support_margin(entail, contra)
        return value, rows[most_c] if contra > entail else rows[best_e]

    def _entail_contra(self, row: np.ndarray) -> tuple[float, float | None]:
        entail = float(row[self._entail])
        contra = None if self._contradict is None else float(row[self._contradict])
        return entail, contra

    def _why(
        self,
        item: PairInput,
        plan: _Plan,
        unit: int,
        row: np.ndarray,
        claims: int,
        alone: np.ndarray | None,
    ) -> str:
        """Words for a flagged claim: which one, and what the source does with it (``row``: the
        reading that decided it, see :meth:`_reading`; ``alone``: the claim's reading with no
        evidence, which each source sentence's reading is debiased by)."""
        claim = plan.units[unit]
        window = plan.windows[unit][-1]
        # which claim, unless it is the sentence itself (beside a contradicted description)
        whole = claim is item.judged[plan.owners[unit]]
        which = f"claim “{claim.text}”: " if claims > 1 and not whole else ""
        read = plan.read[unit]
        notes = []
        unknown = placeholder_note(
            placeholders(claim.text, [t.text for t in item.source.sentences])
        )
        if unknown:
            notes.append(unknown)
        if read.compared:
            held = ", ".join(f"“{said}” ({basis})" for said, basis in read.compared)
            notes.append(f"its comparisons hold on the source's figures: {held}")
        if read.changes:
            read_as = ", ".join(f"“{said}” as {stated}" for said, stated in read.changes)
            notes.append(f"its figures read as the source states them: {read_as}")
        note = f" ({'; '.join(notes)})" if notes else ""
        if self._contradicts(row):
            # The most relevant source sentence of the window that, read alone, contradicts the
            # claim; a quote that does not contradict it would mislead the editor. Read one at
            # a time, most relevant first: the first is usually the narrowest window's reading
            # (kept), and the reading stops there when it contradicts.
            for k in list(window.ranked or window.sentence_indices)[:SHOWN]:
                text = item.source.sentences[k].text
                (row_k,) = self._probs([text], [plan.read[unit].text])
                if int(np.argmax(self._debiased(row_k, alone))) == self._contradict:
                    return f"{which}{CONTRADICTED_BY} {k + 1}: “{clipped(text)}”{note}"
            return (
                f"{which}contradicted by the source read as a whole (no one sentence alone){note}"
            )
        return f"{which}not found in the source{note}"

    def _debiased(self, row: np.ndarray, alone: np.ndarray | None) -> np.ndarray:
        """A reading less the contradiction the model reads into the claim with no evidence
        (``alone``), moved to neutral; unchanged without that reading (a two-way model).

        The model reads some claims as contradicted whatever the premise: negated or
        restrictive wording ("works without any online service", "children never got the
        jab", "Only vehicles have to be booked", "stayed single") draws contradiction from
        sentences that do not bear on the claim, a bias of the training data in which such
        hypotheses were mostly contradictions. Read with no premise, such a claim gets
        P(contradiction) 0.4-0.7 where most claims get about 0.1 (357 claims of the probe set
        and the demo: mean 0.12, 9.5% above 0.3). Taking that much off each window's reading
        leaves what the evidence adds: a source that does contradict the claim still reads far
        above it ("The new version does not add offline editing": 0.96 against 0.52 alone).
        """
        if alone is None or self._neutral is None or self._contradict is None:
            return row
        cut = min(float(row[self._contradict]), float(alone[self._contradict]))
        out = np.array(row, dtype=np.float32, copy=True)
        out[self._contradict] -= cut
        out[self._neutral] += cut
        return out

    def _contradicts(self, row: np.ndarray) -> bool:
        """Whether a reading says the source contradicts the claim (contradiction its most
        likely class; never for a two-way model)."""
        entail, contra = self._entail_contra(row)
        neutral = 1.0 - entail - (contra or 0.0)
        return contra is not None and contra >= max(entail, neutral)

    def _why_denied(self, plan: _Plan, unit: int, row: np.ndarray) -> str:
        """Words for a flagged "No": what it denies, and whether the source reads as saying that
        or only does not say otherwise (``row``: the reading that decided it)."""
        denied = f"the “No” denies “{clipped(plan.units[unit].text)}”"
        entail, contra = self._entail_contra(row)
        neutral = 1.0 - entail - (contra or 0.0)
        if entail >= max(neutral, contra or 0.0):
            return f"{denied}, but the source reads as saying it"
        return f"{denied}, but the source does not say otherwise"

    def _probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Class probabilities of (premise, hypothesis) pairs, columns as the model's labels;
        the model reads each text without a word tokenizer's marks (:mod:`models.readable`).

        A Hugging Face directory (torch) reads :attr:`torch_batch` pairs at a time, pairs of
        similar length together, padded. On an H200 a pair's probabilities moved by at most 2e-6
        with its batch and the GPU read 11 times as many pairs a second as one at a time
        (``tests/benchmarks/bench_torch_device.py``: 2,464 against 223)."""
        if self._onnx is not None:
            return self._onnx.predict(premises, hypotheses)
        premises = [readable(t) for t in premises]
        hypotheses = [readable(t) for t in hypotheses]
        torch = self._torch
        out = np.zeros((len(premises), len(self._model.config.id2label)), np.float32)
        order = sorted(range(len(premises)), key=lambda i: len(premises[i]) + len(hypotheses[i]))
        for lo in range(0, len(order), self.torch_batch):
            some = order[lo : lo + self.torch_batch]
            enc = self._tokenizer(
                [premises[i] for i in some],
                [hypotheses[i] for i in some],
                truncation="only_first",
                max_length=self.max_tokens,
                padding=True,
                return_tensors="pt",
            ).to(self._device)
            with torch.inference_mode():
                logits = self._model(**enc).logits
            out[some] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
        return out


#: Pairs a Hugging Face model on a GPU reads at a time (:meth:`NLISentenceChecker._probs`).
GPU_BATCH = 32

#: What ends a statement: a claim cut from a sentence that ends otherwise gets a full stop.
_ENDS = frozenset(".!?\"”’')")


def _read_sentences(rungs: Sequence[Evidence]) -> set[int]:
    """The source sentences a claim is read against, over all its evidence windows."""
    return {i for w in rungs for i in w.sentence_indices}


def _as_statement(read: Restated) -> Restated:
    """A claim as the model reads it: ending on a full stop, as the hypotheses it was trained on
    do (a claim cut from its sentence has none)."""
    text = read.text.rstrip()
    if not text or text[-1] in _ENDS:
        return read
    return replace(read, text=text + ".")


def support_margin(entail: float, contra: float) -> float:
    """A claim's support from P(entailment) and P(contradiction), in [0, 1].

    P(entailment) alone saturates on near-copies: a faithful and a subtly wrong sentence both get
    about 0.9, but the wrong one draws contradiction mass. The margin x = P(e) - P(c) ranks them
    apart; it is mapped piecewise-linearly so that 0.5 stays the flag threshold (x = 0.47) and
    claims the source contradicts (x < 0) still keep their order below 0.05:
    [-1, 0] -> [0, 0.05], [0, 1] -> [0.05, 1].
    """
    x = entail - contra
    return 0.05 * (1.0 + x) if x < 0 else 0.05 + 0.95 * x


@dataclass(frozen=True, slots=True)
class ClaimReading:
    """One claim as the checker reads it (:meth:`NLISentenceChecker.readings`)."""

    sentence: int
    claim: Sentence
    hypothesis: str
    windows: tuple[str, ...]  # narrowest first (see WINDOW_SIZES)
    denies: bool


@dataclass(frozen=True, slots=True)
class _Plan:
    """What one pair's scoring reads: windows per output sentence (shown), the claims judged,
    the sentence each claim belongs to, each claim's windows, the sentences that deny, and the
    text the model reads for each claim (its comparisons and hedged figures as the source's
    figures bear them out, see :func:`models.derived_figures.read_figures`), and which claims
    are what an appositive says, which count only where the source contradicts them."""

    sentence_windows: list[Evidence]
    units: list[Sentence]
    owners: list[int]
    windows: list[tuple[Evidence, ...]]  # per claim, narrowest first (see WINDOW_SIZES)
    denies: set[int]
    read: list[Restated]
    described: frozenset[int] = frozenset()  # claims that count only when contradicted
    #: per "No" (its claim's index), the answer's other checked sentences, joined ...
    explained: dict[int, str] = field(default_factory=dict)
    #: ... and those sentences' indices
    explaining: tuple[int, ...] = ()


#: The reading of what a "No" denies against the answer's own explanation (window index).
EXPLANATION = -2


def _premise(plan: _Plan, unit: int, w: int) -> str:
    """What a reading's premise is: a window (w >= 0), no evidence (-1), or the explanation of
    a "No" (:data:`EXPLANATION`)."""
    if w >= 0:
        return plan.windows[unit][w].text
    return NO_EVIDENCE if w == -1 else plan.explained[unit]


def _explanations(
    item: PairInput, owners: Sequence[int], denies: set[int]
) -> tuple[dict[int, str], tuple[int, ...]]:
    """Per claim that a "No" denies, the answer's other sentences that are checked (a "No"
    followed by why: "No. Only vehicles have to be booked ahead; foot passengers buy their
    tickets on the day."), joined in their order, and those sentences; none where the answer is
    a bare "No"."""
    checked = tuple(sorted(set(owners) - denies))
    if not checked or not denies:
        return {}, ()
    text = " ".join(item.output.sentences[k].text.strip() for k in checked)
    return {u: text for u, owner in enumerate(owners) if owner in denies}, checked


class _RankOnce:
    """A retriever that ranks one pair's source once for every window size built from it."""

    def __init__(self, retriever: Retriever) -> None:
        self.name = retriever.name
        self._retriever = retriever
        self._ranks: list[list[float]] | None = None

    def rank(self, source: ParsedText, sentences: Sequence[Sentence]) -> list[list[float]]:
        if self._ranks is None:
            self._ranks = self._retriever.rank(source, sentences)
        return self._ranks


def _fingerprint(path: Path) -> str:
    """A short content hash of a model directory's weights and configs, so a re-trained model
    re-scores and a copied one (new mtimes, same bytes) does not."""
    import hashlib

    digest = hashlib.sha1()
    for f in sorted(path.glob("*")):
        if f.is_file() and f.suffix in {".bin", ".safetensors", ".onnx", ".json"}:
            digest.update(f"{f.name}:{f.stat().st_size}:".encode())
            with f.open("rb") as fh:
                digest.update(hashlib.file_digest(fh, "sha1").digest())
    return digest.hexdigest()[:10]
