"""Judgment keys and values, and the undo history rebuilt from the audit log."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Target = Literal["pair", "sentence", "arc"]
Aspect = Literal["support", "interpretable", "flag"]
#: A reviewer's own decision, or an adjudicator's final word where reviewers disagree.
Role = Literal["review", "adjudicated"]
ROLES: tuple[Role, ...] = ("review", "adjudicated")

SUPPORT_LABELS = ("supported", "unsupported")
INTERPRETABLE_LABELS = ("yes", "no")
FLAG_LABELS = ("malformed",)
DECISIONS = ("accept", "reject", "relabel")

DEFAULT_TAXONOMY = [
    {"key": "predicate", "name": "Predicate error", "group": "FRANK semantic frame"},
    {"key": "entity", "name": "Entity error", "group": "FRANK semantic frame"},
    {"key": "circumstance", "name": "Circumstance error", "group": "FRANK semantic frame"},
    {"key": "coreference", "name": "Coreference error", "group": "FRANK discourse"},
    {"key": "discourse_link", "name": "Discourse link error", "group": "FRANK discourse"},
    {"key": "out_of_article", "name": "Out of article", "group": "FRANK content verifiability"},
    {"key": "grammar", "name": "Grammatical error", "group": "FRANK content verifiability"},
    {"key": "other", "name": "Other", "group": "FRANK"},
    {"key": "intrinsic", "name": "Intrinsic (misrepresents the source)", "group": "origin"},
    {"key": "extrinsic", "name": "Extrinsic (not in the source)", "group": "origin"},
    {
        "key": "nonfactual",
        "name": "Nonfactual (plausible, not true of the entity)",
        "group": "kind",
    },
    {"key": "incongruous", "name": "Incongruous (true, but out of place)", "group": "kind"},
]


@dataclass(frozen=True, slots=True)
class JudgmentKey:
    """What a judgment is about: a pair, one of its sentences or arcs, an aspect, and a role.

    The reviewer is not part of the key: a project writes and undoes the judgments of its
    :attr:`~app.store.project.Project.annotator` only.
    """

    output_id: int
    target: Target = "pair"
    sentence_id: int | None = None
    arc_id: int | None = None
    aspect: Aspect = "support"
    role: Role = "review"

    @property
    def target_key(self) -> str:
        if self.target == "arc":
            return f"arc:{self.arc_id}"
        if self.target == "sentence":
            return f"sentence:{self.sentence_id}"
        return "pair"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JudgmentKey:
        return cls(**data)


@dataclass(frozen=True, slots=True)
class JudgmentValue:
    """A decision. ``label`` is the resolved label; ``decision`` how it was reached."""

    label: str
    decision: str | None = None
    error_type: str | None = None
    note: str | None = None
    model_visible: bool = True
    model_score: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> JudgmentValue | None:
        return None if data is None else cls(**data)


@dataclass(frozen=True, slots=True)
class Change:
    """One undoable change: ``key`` went from ``before`` to ``after`` (audit entry ``entry``)."""

    entry: int
    key: JudgmentKey
    before: JudgmentValue | None
    after: JudgmentValue | None

    def describe(self) -> str:
        what: str = self.key.target if self.key.aspect == "support" else self.key.aspect
        if self.key.role == "adjudicated":
            what = f"adjudicated {what}"
        if self.after is None:
            return f"clear {what} judgment"
        return f"{what}: {self.after.label}"


def rebuild_stacks(
    entries: list[tuple[int, str, dict, dict | None, dict | None, int | None]],
) -> tuple[list[Change], list[Change]]:
    """Replay the audit log into (undo stack, redo stack), oldest first.

    Args:
        entries: (id, action, key, before, after, ref) in log order.
    """
    by_id: dict[int, Change] = {}
    undo: list[Change] = []
    redo: list[Change] = []
    for entry_id, action, key, before, after, ref in entries:
        if action == "set":
            change = Change(
                entry_id,
                JudgmentKey.from_json(key),
                JudgmentValue.from_json(before),
                JudgmentValue.from_json(after),
            )
            by_id[entry_id] = change
            undo.append(change)
            redo.clear()
        elif action == "undo" and undo and undo[-1].entry == ref:
            redo.append(undo.pop())
        elif action == "redo" and redo and redo[-1].entry == ref:
            undo.append(redo.pop())
    return undo, redo
