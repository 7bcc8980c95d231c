"""A "next most useful" order of the pairs, each with why it is next (issue 14, item 3).

The order puts first the pairs whose judgment teaches the most and finds errors soonest:

- **likely unsupported**: the lower the shown checker's score below the threshold, the likelier
  an error the editor wants to catch;
- **least certain**: a score near the threshold, where the model is as likely wrong as right;
- **arc and sentence checkers disagree** on a sentence (the arc model flags an arc of a sentence
  the sentence checker finds supported, or the reverse);
- **editor and model disagree**: a judgment the model's flag contradicts (the disagreement
  filter lists these; they are worth a second look and are what calibration learns from);
- **a conflict with the source**: the question-based check finds the source answering a name
  or figure otherwise, whichever checker is shown (weighted as a likely error).

Pairs already done come last. Other orderings plug in as *providers*: a function of the project
returning ``{output_id: (priority, reason)}``, whose priority is added and whose reason is shown
(:func:`register_provider`), so that, say, "unfamiliar entities first" can join later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select

from app.store.project import Project
from app.store.schema import (
    Judgment,
    Output,
    PairScoreRow,
    SentenceRow,
    SentenceScoreRow,
)

Provider = Callable[[Project], dict[int, tuple[float, str]]]
#: Extra priorities by name (see :func:`register_provider`).
PROVIDERS: dict[str, Provider] = {}
#: Weights of the built-in signals (priorities are in [0, 1] before weighting).
W_UNSUPPORTED = 0.6
W_UNCERTAIN = 0.4
W_CHECKERS_DISAGREE = 0.3
W_CONFLICT = 0.6
#: The arc checker and the sentence checker whose disagreement counts.
ARC_CHECKER, SENTENCE_CHECKER = "dae", "support"


def register_provider(name: str, provider: Provider) -> None:
    """Add (or replace) an extra priority: ``provider(project) -> {output_id: (p, reason)}``."""
    PROVIDERS[name] = provider


@dataclass(frozen=True)
class Signals:
    """What the queue knows of one pair."""

    output_id: int
    score: float | None  # the shown checker's pair score (lowest sentence)
    done: bool = False  # the editor has finished the pair
    disagreeing_sentences: tuple[int, ...] = ()  # 1-based, arc vs sentence checker
    editor_disagrees: str | None = None  # what the editor and the model disagree on
    conflicts: int = 0  # sentences the question-based check finds in conflict with the source


@dataclass(frozen=True)
class QueueItem:
    output_id: int
    priority: float
    reason: str
    done: bool = False
    reasons: tuple[str, ...] = field(default=())


def rank(
    signals: Iterable[Signals],
    threshold: float,
    extra: Sequence[dict[int, tuple[float, str]]] = (),
) -> list[QueueItem]:
    """The queue: not-done pairs by priority (highest first; ties in import order), then done.

    Args:
        signals: one per pair, in import order.
        threshold: the shown checker's threshold (calibrated when there is one).
        extra: the providers' priorities.
    """
    items = []
    for order, sig in enumerate(signals):
        parts: list[tuple[float, str]] = []
        if sig.score is not None:
            s = float(sig.score)
            if s < threshold:
                below = (threshold - s) / max(threshold, 1e-6)
                parts.append((W_UNSUPPORTED * (0.5 + 0.5 * below), f"likely unsupported ({s:.2f})"))
            near = 1.0 - min(1.0, abs(s - threshold) / 0.25)
            if near > 0:
                parts.append(
                    (
                        W_UNCERTAIN * near,
                        f"uncertain: {s:.2f} is near the threshold {threshold:.2f}",
                    )
                )
        else:
            parts.append((0.05, "not scored yet"))
        if sig.disagreeing_sentences:
            which = ", ".join(str(n) for n in sig.disagreeing_sentences[:3])
            parts.append(
                (
                    W_CHECKERS_DISAGREE,
                    f"arc and sentence checkers disagree on sentence {which}",
                )
            )
        if sig.conflicts:
            n = sig.conflicts
            parts.append(
                (
                    W_CONFLICT,
                    f"the source answers otherwise in {n} sentence{'s' if n > 1 else ''} "
                    "(question-based check)",
                )
            )
        if sig.editor_disagrees:
            parts.append((0.2, f"you and the model disagree: {sig.editor_disagrees}"))
        for provided in extra:
            if sig.output_id in provided:
                p, why = provided[sig.output_id]
                parts.append((float(p), why))
        parts.sort(key=lambda x: -x[0])
        priority = sum(p for p, _ in parts)
        reasons = tuple(r for _, r in parts)
        reason = "; ".join(reasons) if reasons else "nothing stands out"
        if sig.done:
            reason = "done; " + reason
        items.append(
            (
                sig.done,
                -priority,
                order,
                QueueItem(sig.output_id, priority, reason, sig.done, reasons),
            )
        )
    items.sort(key=lambda t: t[:3])
    return [t[3] for t in items]


# ---------------------------------------------------------------------- the project
def project_signals(
    project: Project, checker: str | None, version: str | None, threshold: float
) -> list[Signals]:
    """The queue's signals of every pair of the project, in import order."""
    versions = project.current_versions()
    with project.session() as s:
        ids = list(s.scalars(select(Output.id).order_by(Output.id)))
        scores: dict[int, float | None] = {}
        if checker and version:
            scores = dict(
                s.execute(
                    select(PairScoreRow.output_id, PairScoreRow.score).where(
                        PairScoreRow.checker == checker, PairScoreRow.version == version
                    )
                ).all()
            )
        # Arc checker vs sentence checker, per sentence.
        arc_v, sent_v = versions.get(ARC_CHECKER), versions.get(SENTENCE_CHECKER)
        disagree: dict[int, list[int]] = {}
        if arc_v and sent_v:
            arcs = {
                sid: ma
                for sid, ma in s.execute(
                    select(SentenceScoreRow.sentence_id, SentenceScoreRow.min_arc).where(
                        SentenceScoreRow.checker == ARC_CHECKER,
                        SentenceScoreRow.version == arc_v,
                        SentenceScoreRow.min_arc.is_not(None),
                    )
                )
            }
            for sid, oid, idx, sc in s.execute(
                select(
                    SentenceScoreRow.sentence_id,
                    SentenceRow.output_id,
                    SentenceRow.idx,
                    SentenceScoreRow.score,
                )
                .join(SentenceRow, SentenceRow.id == SentenceScoreRow.sentence_id)
                .where(
                    SentenceScoreRow.checker == SENTENCE_CHECKER,
                    SentenceScoreRow.version == sent_v,
                    SentenceScoreRow.score.is_not(None),
                )
                .order_by(SentenceRow.output_id, SentenceRow.idx)
            ):
                ma = arcs.get(sid)
                if ma is None or oid is None or sc is None:
                    continue
                if (ma < 0.5) != (sc < 0.5):
                    disagree.setdefault(oid, []).append(idx + 1)
        judged = s.execute(
            select(Judgment.output_id, Judgment.target, Judgment.sentence_id, Judgment.label).where(
                Judgment.aspect.in_(("support", "flag"))
            )
        ).all()
        sent_scores: dict[int, float | None] = {}
        if checker and version:
            from app.store.queries import sentence_scores

            sids = [sid for _o, t, sid, _l in judged if t == "sentence" and sid is not None]
            sent_scores = sentence_scores(s, checker, version, sids)
    from app.store.queries import list_rows

    rows = list_rows(project, None, None, threshold)
    done = {lr.row.output_id for lr in rows if lr.status in ("done", "flagged")}
    conflicts = {lr.row.output_id: len(lr.conflicts or ()) for lr in rows}
    editor: dict[int, str] = {}
    for oid, target, judged_sid, label in judged:
        if label not in ("supported", "unsupported"):
            continue
        score = scores.get(oid) if target == "pair" else sent_scores.get(judged_sid or -1)
        if score is None or target == "arc":
            continue
        model_says = "supported" if score >= threshold else "unsupported"
        if model_says != label:
            editor[oid] = f"{target} judged {label}, model {score:.2f}"
    return [
        Signals(
            oid,
            scores.get(oid),
            oid in done,
            tuple(disagree.get(oid, ())),
            editor.get(oid),
            conflicts.get(oid, 0),
        )
        for oid in ids
    ]


def queue(
    project: Project,
    checker: str | None,
    version: str | None,
    threshold: float,
    providers: Iterable[Provider] | None = None,
) -> list[QueueItem]:
    """The project's pairs in "next most useful" order."""
    extra = [p(project) for p in (PROVIDERS.values() if providers is None else providers)]
    return rank(project_signals(project, checker, version, threshold), threshold, extra)


def disagreements(items: Iterable[QueueItem]) -> list[QueueItem]:
    """The disagreement filter: pairs where the editor and the model disagree."""
    return [i for i in items if any(r.startswith("you and the model") for r in i.reasons)]
