"""Where reviewers disagree, and the final label of every judged item.

An *item* is one target (the pair, a sentence, an arc) and aspect (support, AIS interpretable)
of a pair. Reviewers disagree on an item when their own judgments (role ``review``) give it
different labels. An adjudicator settles it with a judgment of role ``adjudicated``; that is the
item's *final label*. Without one, the final label is the reviewers' label when they all agree
(one reviewer alone included); an unsettled disagreement has no final label. Exports take the
final label and keep every reviewer's judgment beside it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import select

from app.store.project import Project
from app.store.schema import Judgment

#: Aspects reviewers can disagree on (a malformed-item flag is a note, not a label).
COMPARED_ASPECTS = ("support", "interpretable")


class JudgmentLike(Protocol):
    """What is read of a judgment: an ORM row or a plain result row of the judgments table."""

    @property
    def id(self) -> int: ...
    @property
    def target_key(self) -> str: ...
    @property
    def aspect(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def annotator(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def created_at(self) -> Any: ...


@dataclass(frozen=True)
class Final:
    """An item's final label and where it comes from."""

    label: str | None  # None: reviewers disagree and nobody adjudicated
    source: str  # "adjudicated", "agreed" (all reviewers), "single" (one reviewer), "disputed"
    judgment: Any  # the judgment the label is taken from (None when disputed)
    #: Every reviewer's own judgment of the item (role ``review``), by reviewer name: who said
    #: what, for a dispute above all.
    reviews: tuple[Any, ...] = ()


def final_labels(judgments: Iterable[JudgmentLike]) -> dict[tuple[str, str], Final]:
    """(target key, aspect) -> the final label of every judged item of one pair."""
    reviews: dict[tuple[str, str], list[JudgmentLike]] = defaultdict(list)
    adjudicated: dict[tuple[str, str], JudgmentLike] = {}
    for j in judgments:
        slot = (j.target_key, j.aspect)
        if j.role == "adjudicated":
            # Several adjudicators: the latest decision is the final one.
            held = adjudicated.get(slot)
            if held is None or (j.created_at, j.id) >= (held.created_at, held.id):
                adjudicated[slot] = j
        else:
            reviews[slot].append(j)
    out: dict[tuple[str, str], Final] = {}
    for slot in reviews.keys() | adjudicated.keys():
        votes = reviews.get(slot, [])
        said = tuple(sorted(votes, key=lambda j: (j.annotator, j.id)))
        if slot in adjudicated:
            held = adjudicated[slot]
            out[slot] = Final(held.label, "adjudicated", held, said)
        elif len({j.label for j in votes}) > 1:
            out[slot] = Final(None, "disputed", None, said)
        else:
            source = "single" if len(votes) == 1 else "agreed"
            out[slot] = Final(votes[0].label, source, votes[0], said)
    return out


@dataclass
class ItemVotes:
    """One item of a pair as the adjudicator sees it: each reviewer's judgment side by side."""

    target: str
    target_key: str
    aspect: str
    sentence_id: int | None
    arc_id: int | None
    reviews: dict[str, Judgment] = field(default_factory=dict)  # reviewer -> judgment
    adjudicated: Judgment | None = None

    @property
    def disagree(self) -> bool:
        return len({j.label for j in self.reviews.values()}) > 1

    def error_type_for(self, label: str) -> str | None:
        """The error type the reviewers who gave ``label`` agree on (None: none named, or they
        named different ones): an adjudicated label without a type of its own carries it."""
        types = {j.error_type for j in self.reviews.values() if j.label == label}
        return types.pop() if len(types) == 1 else None


def pair_items(project: Project, output_id: int) -> list[ItemVotes]:
    """The compared items of one pair judged by anyone, pair first, then in target order."""
    items: dict[tuple[str, str], ItemVotes] = {}
    for j in project.judgments(output_id):
        if j.aspect not in COMPARED_ASPECTS:
            continue
        item = items.setdefault(
            (j.target_key, j.aspect),
            ItemVotes(j.target, j.target_key, j.aspect, j.sentence_id, j.arc_id),
        )
        if j.role == "adjudicated":
            if item.adjudicated is None or j.created_at >= item.adjudicated.created_at:
                item.adjudicated = j
        else:
            item.reviews[j.annotator] = j
    order = {"pair": 0, "sentence": 1, "arc": 2}
    return sorted(
        items.values(),
        key=lambda i: (order[i.target], i.sentence_id or 0, i.arc_id or 0, i.aspect),
    )


def disagreeing_pairs(project: Project, *, unsettled_only: bool = True) -> set[int]:
    """Pairs with an item on which reviewers disagree (and, by default, nobody adjudicated)."""
    labels: dict[tuple[int, str, str], set[str]] = defaultdict(set)
    settled: set[tuple[int, str, str]] = set()
    with project.session() as s:
        rows = s.execute(
            select(
                Judgment.output_id,
                Judgment.target_key,
                Judgment.aspect,
                Judgment.role,
                Judgment.label,
            ).where(Judgment.aspect.in_(COMPARED_ASPECTS))
        )
        for oid, key, aspect, role, label in rows:
            if role == "adjudicated":
                settled.add((oid, key, aspect))
            else:
                labels[(oid, key, aspect)].add(label)
    return {
        item[0]
        for item, seen in labels.items()
        if len(seen) > 1 and not (unsettled_only and item in settled)
    }


@dataclass(frozen=True)
class FinalItem:
    """One judged item with its final label (see :func:`final_labels`), for counting."""

    output_id: int
    target: str  # "pair", "sentence", "arc"
    target_key: str
    aspect: str
    sentence_id: int | None
    arc_id: int | None
    label: str
    #: The error type of the final label: the adjudicator's, the one reviewer's, or the one all
    #: agreeing reviewers gave; None when none was given or agreeing reviewers named different
    #: ones (then :attr:`error_type_disputed`).
    error_type: str | None
    error_type_disputed: bool
    source: str  # "adjudicated", "agreed", "single"


@dataclass
class ProjectFinals:
    """The final labels of a project's judged items, one per item however many reviewed it."""

    items: list[FinalItem] = field(default_factory=list)
    #: Items left out: reviewers gave different labels and nobody adjudicated, by target.
    disputed: dict[str, int] = field(default_factory=dict)

    def of(self, target: str) -> list[FinalItem]:
        return [i for i in self.items if i.target == target]

    def left_out(self, *targets: str) -> int:
        """Disputed items (not counted anywhere) of these targets (all when none given)."""
        return sum(n for t, n in self.disputed.items() if not targets or t in targets)


def project_final_labels(project: Project, aspect: str = "support") -> ProjectFinals:
    """Every judged item of ``aspect`` in the project, with its final label (exports' rule).

    Statistics count items, not judgments: with two reviewers an item is counted once, under
    its adjudicated label, else the label the reviewers share; an item the reviewers judged
    differently and nobody adjudicated is left out (and counted in :attr:`ProjectFinals.disputed`
    so that a plot can say how many).
    """
    by_pair: dict[int, list[Any]] = defaultdict(list)
    with project.session() as s:
        for row in s.execute(
            select(
                Judgment.id,
                Judgment.output_id,
                Judgment.target,
                Judgment.target_key,
                Judgment.aspect,
                Judgment.sentence_id,
                Judgment.arc_id,
                Judgment.label,
                Judgment.error_type,
                Judgment.annotator,
                Judgment.role,
                Judgment.created_at,
            ).where(Judgment.aspect == aspect)
        ):
            by_pair[row.output_id].append(row)
    out = ProjectFinals()
    for oid, rows in by_pair.items():
        pair_finals(oid, rows, out)
    return out


def final_judgment_ids(project: Project, aspect: str = "support") -> set[int]:
    """Ids of the judgments that carry their item's final label, one per settled item: what
    learning from judgments reads, so that an item two reviewers judged counts once (under its
    adjudicated or agreed label) and an unsettled disagreement not at all. With one reviewer,
    every judgment of the aspect."""
    by_pair: dict[int, list[Any]] = defaultdict(list)
    with project.session() as s:
        for row in s.execute(
            select(
                Judgment.id,
                Judgment.output_id,
                Judgment.target_key,
                Judgment.aspect,
                Judgment.label,
                Judgment.annotator,
                Judgment.role,
                Judgment.created_at,
            ).where(Judgment.aspect == aspect)
        ):
            by_pair[row.output_id].append(row)
    return {
        final.judgment.id
        for rows in by_pair.values()
        for final in final_labels(rows).values()
        if final.judgment is not None
    }


def pair_finals(output_id: int, judgments: Iterable[Any], into: ProjectFinals) -> None:
    """Add one pair's judged items (all judgments of one aspect, every reviewer's) to ``into``.

    Each judgment needs what :class:`JudgmentLike` names plus ``target``, ``sentence_id``,
    ``arc_id`` and ``error_type`` (an ORM row or a result row of the judgments table).
    """
    rows = list(judgments)
    first = {(r.target_key, r.aspect): r for r in rows}
    for slot, final in final_labels(rows).items():
        r = first[slot]
        if final.label is None:
            into.disputed[r.target] = into.disputed.get(r.target, 0) + 1
            continue
        if final.source == "agreed":
            named = {
                j.error_type
                for j in rows
                if (j.target_key, j.aspect) == slot and j.role != "adjudicated"
            }
            error_type = next(iter(named)) if len(named) == 1 else None
            disputed_type = len(named) > 1
        else:
            error_type, disputed_type = final.judgment.error_type, False
        into.items.append(
            FinalItem(
                output_id,
                r.target,
                r.target_key,
                r.aspect,
                r.sentence_id,
                r.arc_id,
                final.label,
                error_type,
                disputed_type,
                final.source,
            )
        )
