"""Alignment checker: output words with no close counterpart in the source.

BERTScore-style precision (see :mod:`models.aligner`): each output word-piece's best cosine to
any source word-piece. A sentence's support is the (idf-weighted) mean over its pieces, mapped to
[0, 1] by a calibration fitted on training-side data; a word's score is the mean over its pieces,
mapped by the word calibration; an arc is as supported as the weaker of its two words, so the
words an editor should look at are the ones the arc views and exports already mark. Evidence is
the source sentences holding the best matches of the sentence's pieces, ranked by how much of
the sentence they account for. No training, CPU only. An answer sentence with a claim
(:mod:`models.claims`) is scored on the claim's pieces (encoded on their own); its words take
their similarity from the claim where the claim copies them.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.aligner import BUNDLED_DIR, Encoded, SourceCache, TokenEncoder, best_matches, calibrate
from models.checkers.base import (
    QA_REVISION,
    ArcScore,
    Grain,
    OnePairAtATime,
    PairInput,
    PairScore,
    SentenceScore,
    has_content,
    pair_score,
    skipped_sentence,
)
from models.claims import Claim
from models.document import ParsedText, Sentence
from models.evidence import Evidence
from models.runtime import ALONE_REVISION, DevicePref

#: Source sentences shown as evidence for one output sentence.
EVIDENCE_SENTENCES = 3


# Results of recent pairs, shared by every instance: the combined checker and a separate "align"
# run in the same analysis read the same pairs, and must not encode them twice.
_RESULTS: OrderedDict[tuple[str, str, str, str, str], PairScore] = OrderedDict()
_RESULTS_SIZE = 4096
_LOCK = threading.Lock()
_SOURCES = SourceCache()


@functools.cache
def shared_encoder(path: str, device: DevicePref) -> TokenEncoder:
    """One loaded aligner model per (directory, device), shared by every checker instance."""
    return TokenEncoder(path, device=device)


def _content_piece(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _sentence_of(starts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Index of the sentence (by sorted start offsets) holding each piece."""
    return np.searchsorted(starts, offsets[:, 0], side="right") - 1


@dataclass(frozen=True, slots=True)
class RawSentence:
    """One output sentence before calibration (``precision`` None: not checked)."""

    precision: float | None
    words: tuple[float, ...]
    evidence: Evidence


class AlignChecker(OnePairAtATime):
    """Word alignment to the source on a middle layer of all-MiniLM-L6-v2."""

    name = "align"
    display_name = "alignment (word match)"
    grain: Grain = "arc"
    batch_size = 16

    def __init__(self, model_dir: str | Path | None = None, *, device: DevicePref = "auto") -> None:
        path = Path(model_dir) if model_dir is not None else BUNDLED_DIR
        self._encoder = shared_encoder(str(path.resolve()), device)
        cfg = self._encoder.config
        self.version = f"{self._encoder.version}+{QA_REVISION}+{ALONE_REVISION}"
        self.runs_on: str = self._encoder.runs_on
        if path.resolve() != BUNDLED_DIR.resolve():
            self.name = f"align:{path.name}"
        self._sentence_cal = (float(cfg["sentence_scale"]), float(cfg["sentence_centre"]))
        self._word_cal = (float(cfg["word_scale"]), float(cfg["word_centre"]))
        self._sources = _SOURCES

    def score_one(self, item: PairInput) -> PairScore:
        """One pair, from the cache of results when the same texts were scored before."""
        key = (self.name, self.version, item.source.text, item.output.text, item.question or "")
        with _LOCK:
            hit = _RESULTS.get(key)
        if hit is None:
            hit = self._score_one(item)
            with _LOCK:
                _RESULTS[key] = hit
                while len(_RESULTS) > _RESULTS_SIZE:
                    _RESULTS.popitem(last=False)
        if hit.key != item.key:
            hit = PairScore(item.key, hit.checker, hit.version, hit.score, hit.sentences, hit.arcs)
        return hit

    def raw(self, item: PairInput) -> list[RawSentence]:
        """Uncalibrated values per output sentence: precision, word similarities, evidence.

        The calibration fit (:mod:`models.training.aligner`) reads these; scoring maps them.
        """
        src, out = item.source, item.output
        if not src.sentences:
            missing = Evidence((), "", 0, "the source has no text")
            return [RawSentence(None, (), missing) for _ in out.sentences]
        enc = self._encoder
        source = self._sources.get(src.text, enc)
        output = enc.encode(out.text)
        sims, best = best_matches(output, source)
        weights = enc.weights(output.ids)
        src_starts = np.asarray([s.start for s in src.sentences])
        src_sentence = _sentence_of(src_starts, source.offsets)[best]
        out_starts = np.asarray([s.start for s in out.sentences])
        out_sentence = _sentence_of(out_starts, output.offsets)
        content = np.asarray(
            [_content_piece(out.text[a:b]) for a, b in output.offsets.tolist()], bool
        )
        result = []
        for n, s in enumerate(out.sentences):
            claim = item.claim(s.index)
            if claim is not None:
                result.append(self._raw_claim(src, source, s, claim, output, sims))
                continue
            mine = np.nonzero((out_sentence == n) & content)[0]
            evidence = self._evidence(src, mine, src_sentence, weights)
            if not has_content(s) or len(mine) == 0:
                result.append(RawSentence(None, (), evidence))
                continue
            w = weights[mine]
            precision = float((sims[mine] * w).sum() / max(float(w.sum()), 1e-9))
            words = []
            for t in s.tokens:
                inside = (output.offsets[:, 0] < t.end) & (output.offsets[:, 1] > t.start)
                words.append(float(sims[inside].mean()) if inside.any() else 1.0)
            result.append(RawSentence(precision, tuple(words), evidence))
        return result

    def _raw_claim(
        self,
        src: ParsedText,
        source: Encoded,
        sentence: Sentence,
        claim: Claim,
        output: Encoded,
        sims: np.ndarray,
    ) -> RawSentence:
        """A sentence read as its claim: precision over the claim's pieces; each word's
        similarity from the claim where the claim copies it, else from the answer as written."""
        enc = self._encoder
        encoded = enc.encode(claim.text)
        claim_sims, claim_best = best_matches(encoded, source)
        weights = enc.weights(encoded.ids)
        src_starts = np.asarray([s.start for s in src.sentences])
        src_sentence = _sentence_of(src_starts, source.offsets)[claim_best]
        content = np.asarray(
            [_content_piece(claim.text[a:b]) for a, b in encoded.offsets.tolist()], bool
        )
        mine = np.nonzero(content)[0]
        evidence = self._evidence(src, mine, src_sentence, weights)
        if not has_content(claim.parsed) or len(mine) == 0:
            return RawSentence(None, (), evidence)
        w = weights[mine]
        precision = float((claim_sims[mine] * w).sum() / max(float(w.sum()), 1e-9))
        words = []
        off = sentence.start
        for t in sentence.tokens:
            there = claim.locate(t.start - off, t.end - off)
            if there is not None:
                offs, values = encoded.offsets, claim_sims
                a, b = there
            else:
                offs, values = output.offsets, sims
                a, b = t.start, t.end
            inside = (offs[:, 0] < b) & (offs[:, 1] > a)
            words.append(float(values[inside].mean()) if inside.any() else 1.0)
        return RawSentence(precision, tuple(words), evidence)

    def _score_one(self, item: PairInput) -> PairScore:
        sentences: list[SentenceScore] = []
        arcs: list[ArcScore] = []
        for s, raw in zip(item.output.sentences, self.raw(item), strict=True):
            if raw.precision is None:
                sentences.append(skipped_sentence(s.index, raw.evidence, s))
                continue
            words = calibrate(np.asarray(raw.words), *self._word_cal).tolist()
            values = [min(words[a.head], words[a.child]) for a in s.arcs]
            arcs.extend(ArcScore(s.index, k, v) for k, v in enumerate(values))
            sentences.append(
                SentenceScore(
                    s.index,
                    float(calibrate(raw.precision, *self._sentence_cal)),
                    min(values) if values else None,
                    raw.evidence.sentence_indices,
                )
            )
        return pair_score(item.key, self, sentences, arcs)

    @staticmethod
    def _evidence(
        src: ParsedText, pieces: np.ndarray, src_sentence: np.ndarray, weights: np.ndarray
    ) -> Evidence:
        """The source sentences holding the best matches, most weight first, top few."""
        if len(pieces) == 0:
            return Evidence((0,), src.sentences[0].text)
        mass: dict[int, float] = {}
        for p in pieces.tolist():
            k = int(src_sentence[p])
            mass[k] = mass.get(k, 0.0) + float(weights[p])
        ranked = sorted(mass, key=lambda k: (-mass[k], k))[:EVIDENCE_SENTENCES]
        chosen = tuple(sorted(ranked))
        return Evidence(chosen, " ".join(src.sentences[i].text for i in chosen))
