"""Content dependency arcs, as the DAE paper defines them.

Every arc head -> child of a sentence is kept except function-word arcs (punct, det, case, aux,
auxpass, cop, mark, dep) and the root's self-arc. A preposition and its object are collapsed into
one ``prep_<word>`` arc from the preposition's head to its object, as enhanced dependencies do,
so "mayor of Paris" gives ``mayor -prep_of-> Paris``. There is no cap on the number of arcs.
"""

from __future__ import annotations

from collections.abc import Sequence

from models.document import Arc, Token

# Tokens that carry no content even when the parser attaches them with a content label
# (spaCy splits "e-bike" into three tokens and may attach the hyphen as an attribute).
EXCLUDED_POS = frozenset({"PUNCT", "SPACE"})
EXCLUDED_LABELS = frozenset(
    {"punct", "det", "case", "aux", "auxpass", "cop", "mark", "dep", "ROOT"}
)
# spaCy's English labels for a preposition attached to its head, and for its object.
PREPOSITION_LABELS = frozenset({"prep", "agent"})
PREPOSITION_OBJECT_LABELS = frozenset({"pobj", "pcomp"})


def extract_arcs(tokens: Sequence[Token], sentence: int = 0) -> tuple[Arc, ...]:
    """Return the content arcs of one sentence.

    Args:
        tokens: the sentence's tokens; ``Token.head`` indexes into this sequence.
        sentence: index of the sentence in its text, stored on each arc.

    Returns:
        Arcs ordered by child position.
    """
    objects: dict[int, list[int]] = {}
    for tok in tokens:
        if tok.dep in PREPOSITION_OBJECT_LABELS and tok.head != tok.i:
            objects.setdefault(tok.head, []).append(tok.i)

    arcs: list[Arc] = []
    for tok in tokens:
        if tok.head == tok.i or tok.dep in EXCLUDED_LABELS or tok.pos in EXCLUDED_POS:
            continue
        if tokens[tok.head].pos in EXCLUDED_POS:
            continue
        head = tokens[tok.head]
        if tok.dep in PREPOSITION_LABELS and tok.i in objects:
            # The preposition itself becomes the arc label; its objects carry the arcs.
            continue
        if tok.dep in PREPOSITION_OBJECT_LABELS and head.dep in PREPOSITION_LABELS:
            if head.head == head.i:
                continue
            governor = tokens[head.head]
            arcs.append(_arc(sentence, governor, tok, f"prep_{head.text.lower()}", via=head.i))
            continue
        arcs.append(_arc(sentence, head, tok, tok.dep))
    arcs.sort(key=lambda a: (a.child, a.head))
    return tuple(arcs)


def _arc(sentence: int, head: Token, child: Token, label: str, via: int | None = None) -> Arc:
    return Arc(
        sentence=sentence,
        head=head.i,
        child=child.i,
        label=label,
        head_start=head.start,
        head_end=head.end,
        child_start=child.start,
        child_end=child.end,
        head_text=head.text,
        child_text=child.text,
        head_lemma=head.lemma,
        child_lemma=child.lemma,
        via=via,
    )
