"""Parsed text as small frozen values with character offsets into the original string."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Token:
    """One word of a parsed text.

    Attributes:
        i: index of the token within its sentence.
        start: character offset of the first character in the whole text.
        end: character offset one past the last character.
        text: the surface form.
        lemma: lower-cased lemma.
        pos: universal part-of-speech tag.
        dep: dependency label to the head.
        head: index (within the sentence) of the head token; the root points to itself.
    """

    i: int
    start: int
    end: int
    text: str
    lemma: str
    pos: str
    dep: str
    head: int


@dataclass(frozen=True, slots=True)
class Arc:
    """A content dependency arc head -> child inside one sentence.

    ``head`` and ``child`` are token indices within the sentence. For a collapsed preposition
    (``prep_of``) the child is the preposition's object and ``via`` the preposition's index.
    """

    sentence: int
    head: int
    child: int
    label: str
    head_start: int
    head_end: int
    child_start: int
    child_end: int
    head_text: str
    child_text: str
    head_lemma: str
    child_lemma: str
    via: int | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """Lemma-level identity used by the lexical baseline."""
        return (self.head_lemma, self.label, self.child_lemma)


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence: offsets into the whole text, its tokens and content arcs."""

    index: int
    start: int
    end: int
    text: str
    tokens: tuple[Token, ...]
    arcs: tuple[Arc, ...]


@dataclass(frozen=True, slots=True)
class ParsedText:
    """A text split into sentences, each parsed and with its content arcs."""

    text: str
    sentences: tuple[Sentence, ...]

    @property
    def arcs(self) -> tuple[Arc, ...]:
        return tuple(a for s in self.sentences for a in s.arcs)
