"""Read queries the window needs beyond the ``Project`` API (built on its public session).

``list_rows`` is ``Project.pair_rows`` restricted to some pairs (so a judgment or an analysis
chunk refreshes only its rows) and extended with what the list's filters need.
"""

from __future__ import annotations

import unicodedata
import weakref
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import QueryableAttribute

from app.review.adjudication import project_final_labels
from app.store.findings import QUESTIONS, conflict_words, conflicts
from app.store.project import PairRow, Project
from app.store.schema import (
    Judgment,
    Output,
    SentenceRow,
    SentenceScoreRow,
    Source,
)
from models.checkers.questions import CONFLICT_MARK

STATUSES = ("unjudged", "in progress", "done", "flagged")


@dataclass(frozen=True, slots=True)
class ListRow:
    """A pair-list row: the store's :class:`PairRow` plus what filtering needs."""

    row: PairRow
    sentences: int
    labels: frozenset[str]
    error_types: frozenset[str]
    arcs_judged: int = 0
    interpretable: str | None = None  # "yes" / "no" from AIS stage one, None when not asked
    #: What the question-based check finds the source answering otherwise, one entry per
    #: sentence ("sentence 1: the output says …"); None when that check has not run.
    conflicts: tuple[str, ...] | None = None

    @property
    def status(self) -> str:
        """Every kind of decision counts: sentences, the pair, arcs, AIS interpretability."""
        r = self.row
        if r.flagged:
            return "flagged"
        if r.pair_label is not None or (self.sentences and r.judged >= self.sentences):
            return "done"
        if self.interpretable == "no":
            return "done"  # not interpretable: attribution is not rated, the pair is finished
        if r.judged or self.arcs_judged or self.interpretable is not None:
            return "in progress"
        return "unjudged"

    def has_status(self, wanted: str) -> bool:
        """Whether the status filter ``wanted`` keeps this pair: "unjudged" keeps every pair
        with something left to judge (a pair in progress still has unjudged sentences)."""
        if wanted == "unjudged":
            return self.status in ("unjudged", "in progress")
        return self.status == wanted

    def progress_text(self) -> str:
        """What has been decided on this pair, for the status tooltip."""
        r = self.row
        parts = [f"{r.judged} of {self.sentences} sentences judged"]
        if self.arcs_judged:
            parts.append(f"{self.arcs_judged} arcs judged")
        if r.pair_label:
            parts.append(f"pair: {r.pair_label}")
        if self.interpretable is not None:
            parts.append(f"interpretable: {self.interpretable}")
        return "; ".join(parts)


def list_rows(
    project: Project,
    checker: str | None,
    version: str | None,
    threshold: float,
    ids: Sequence[int] | None = None,
) -> list[ListRow]:
    """Rows for ``ids`` (all pairs when None), in import order."""

    def only(col: QueryableAttribute[Any]) -> list[ColumnElement[bool]]:
        return [] if ids is None else [col.in_(list(ids))]

    rows = project.pair_rows(checker, version, threshold, ids)
    own = project.own_judgments()  # the list shows the window's reviewer's own decisions
    with project.session() as s:
        n_sent = dict(
            s.execute(
                select(SentenceRow.output_id, func.count(SentenceRow.id))
                .where(SentenceRow.output_id.is_not(None), *only(SentenceRow.output_id))
                .group_by(SentenceRow.output_id)
            ).all()
        )
        labels: dict[int, set[str]] = defaultdict(set)
        errors: dict[int, set[str]] = defaultdict(set)
        for oid, label, err in s.execute(
            select(Judgment.output_id, Judgment.label, Judgment.error_type).where(
                Judgment.aspect == "support", *own, *only(Judgment.output_id)
            )
        ):
            labels[oid].add(label)
            if err:
                errors[oid].add(err)
        arcs = dict(
            s.execute(
                select(Judgment.output_id, func.count(Judgment.id))
                .where(
                    Judgment.aspect == "support",
                    Judgment.target == "arc",
                    *own,
                    *only(Judgment.output_id),
                )
                .group_by(Judgment.output_id)
            ).all()
        )
        interpretable = dict(
            s.execute(
                select(Judgment.output_id, Judgment.label).where(
                    Judgment.aspect == "interpretable", *own, *only(Judgment.output_id)
                )
            ).all()
        )
        conflicts = _conflicts(s, project, only(SentenceRow.output_id))
    return [
        ListRow(
            r,
            n_sent.get(r.output_id, 0),
            frozenset(labels.get(r.output_id, ())),
            frozenset(errors.get(r.output_id, ())),
            arcs.get(r.output_id, 0),
            interpretable.get(r.output_id),
            None if conflicts is None else tuple(conflicts.get(r.output_id, ())),
        )
        for r in rows
    ]


def _conflicts(
    s: Any, project: Project, where: list[ColumnElement[bool]]
) -> dict[int, list[str]] | None:
    """Output id -> its question-check conflicts in words, by sentence (None: not run).

    Whichever checker is shown: a name or figure the source answers otherwise is the
    strongest evidence there is (issue 25). Only sentences whose detail holds a conflict mark
    are read.
    """
    version = project.current_versions().get(QUESTIONS)
    if version is None:
        return None
    out: dict[int, list[str]] = defaultdict(list)
    for oid, idx, detail in s.execute(
        select(SentenceRow.output_id, SentenceRow.idx, SentenceScoreRow.detail)
        .join(SentenceRow, SentenceRow.id == SentenceScoreRow.sentence_id)
        .where(
            SentenceScoreRow.checker == QUESTIONS,
            SentenceScoreRow.version == version,
            SentenceScoreRow.detail.contains(CONFLICT_MARK),
            *where,
        )
        .order_by(SentenceRow.output_id, SentenceRow.idx)
    ):
        found = conflicts(detail)
        if found:
            words = "; ".join(conflict_words(c) for c in found)
            out[oid].append(f"sentence {idx + 1}: {words}")
    return out


def fold(text: str) -> str:
    """Text as the search compares it: Unicode-normalised and case-folded.

    ``casefold`` rather than ``lower``, so that "STRASSE" finds "straße"; NFKC on both sides, so
    that a decomposed "é" (e + combining accent) finds a composed one.
    """
    if text.isascii():  # most text: ASCII is its own normal form, and lower() is casefold()
        return text.lower()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """Folded texts of one project's pairs, built on first search and kept while valid.

    SQL ``LIKE`` would treat ``%`` and ``_`` as wildcards and folds ASCII case only; a scan in
    Python over folded copies is exact, folds every script, and reads the database once instead
    of on every keystroke. Sources are stored once, however many outputs share them.
    """

    stamp: tuple[int, int, int, int]
    outputs: list[tuple[int, int, str, str]]  # (output id, source id, folded id, folded text)
    sources: dict[int, str]  # source id -> folded text

    def search(self, text: str) -> set[int]:
        needle = fold(text)
        in_source = {sid for sid, folded in self.sources.items() if needle in folded}
        return {
            oid
            for oid, sid, ext, out in self.outputs
            if sid in in_source or needle in out or needle in ext
        }


_INDEXES: weakref.WeakKeyDictionary[Project, SearchIndex] = weakref.WeakKeyDictionary()


def _stamp(project: Project) -> tuple[int, int, int, int]:
    """Changes whenever pairs are added or removed (pair text is never edited in place)."""
    with project.session() as s:
        n_out, max_out = s.execute(select(func.count(Output.id), func.max(Output.id))).one()
        n_src, max_src = s.execute(select(func.count(Source.id), func.max(Source.id))).one()
    return (n_out, max_out or 0, n_src, max_src or 0)


def _build(project: Project) -> SearchIndex:
    stamp = _stamp(project)
    with project.session() as s:
        sources = {sid: fold(text) for sid, text in s.execute(select(Source.id, Source.text))}
        outputs = [
            (oid, sid, fold(ext), fold(text))
            for oid, sid, ext, text in s.execute(
                select(Output.id, Output.source_id, Output.external_id, Output.text)
            )
        ]
    return SearchIndex(stamp, outputs, sources)


def search_index(project: Project) -> SearchIndex:
    """The project's search index, (re)built when its pairs changed since it was built.

    Building reads and folds every text once: 0.2-0.5 s for 10,000 pairs with 3,000-character
    ASCII sources, 1-2 s when every text holds non-ASCII letters (``casefold`` is slower
    there). A later search checks two counts in SQL and scans the folded strings in memory:
    10-90 ms for those 10,000 pairs (SQL ``LIKE`` took 100-300 ms per keystroke). To keep even
    the first search off the GUI thread, build it in a worker (:func:`build_search_index`) and
    hand it over with :func:`use_search_index`.
    """
    stamp = _stamp(project)
    index = _INDEXES.get(project)
    if index is None or index.stamp != stamp:
        index = _build(project)
        _INDEXES[project] = index
    return index


def build_search_index(path: str, _ctx: object = None) -> SearchIndex:
    """A job function: the search index of the project at ``path``, from its own connection."""
    with Project.open(path) as project:
        return _build(project)


def use_search_index(project: Project, index: SearchIndex) -> None:
    """Adopt an index built elsewhere; a stale one is rebuilt on the next search as usual."""
    _INDEXES[project] = index


def search_ids(project: Project, text: str) -> set[int]:
    """Pairs whose output, source or id contains ``text``, literally and ignoring case.

    Every character matches itself (``%`` and ``_`` are not wildcards) and case is folded for
    every script ("é" finds "Émile", "strasse" finds "Straße").
    """
    if not text:
        return set(project.output_ids())
    return search_index(project).search(text)


@dataclass(frozen=True)
class JudgedScores:
    """Sentence-level support decisions, one per sentence, with the shown checker's score."""

    rows: list[tuple[str, float | None, str | None, str | None]]  # label, score, error, system
    left_out: int  # sentences the reviewers judged differently and nobody adjudicated


def sentence_judgment_scores(project: Project, checker: str, version: str) -> JudgedScores:
    """(final label, model score, error type, system) for every judged output sentence.

    One row per sentence however many reviewers judged it: its final label (adjudicated, else
    the reviewers' common label, :func:`app.review.adjudication.project_final_labels`); sentences the
    reviewers disagree on without an adjudication are left out and counted.
    """
    finals = project_final_labels(project)
    items = finals.of("sentence")
    sids = [i.sentence_id for i in items if i.sentence_id is not None]
    with project.session() as s:
        scores = sentence_scores(s, checker, version, sids)
        systems = _systems(s, {i.output_id for i in items})
    rows = [
        (
            i.label,
            scores.get(i.sentence_id) if i.sentence_id is not None else None,
            i.error_type,
            systems.get(i.output_id),
        )
        for i in items
    ]
    return JudgedScores(rows, finals.left_out("sentence"))


@dataclass(frozen=True)
class ErrorCounts:
    """Error types of judged items by system, each item counted once."""

    rows: list[tuple[str | None, str, int]]  # system, error type, items
    #: Items left out: reviewers disagree on the label (not adjudicated) or on the error type.
    left_out: int


def error_types_by_system(project: Project) -> ErrorCounts:
    """Items (pairs, sentences, arcs) whose final decision names an error type, by system."""
    finals = project_final_labels(project)
    counts: defaultdict[tuple[str | None, str], int] = defaultdict(int)
    with project.session() as s:
        systems = _systems(s, {i.output_id for i in finals.items})
    for i in finals.items:
        if i.error_type:
            counts[(systems.get(i.output_id), i.error_type)] += 1
    left_out = finals.left_out() + sum(i.error_type_disputed for i in finals.items)
    return ErrorCounts([(sy, e, n) for (sy, e), n in counts.items()], left_out)


def _systems(s: Any, output_ids: set[int]) -> dict[int, str | None]:
    ids = sorted(output_ids)
    out: dict[int, str | None] = {}
    for k in range(0, len(ids), 5000):
        out.update(
            s.execute(
                select(Output.id, Output.system).where(Output.id.in_(ids[k : k + 5000]))
            ).all()
        )
    return out


def pair_score_values(project: Project, checker: str, version: str) -> list[float]:
    return [v for v in project.pair_scores(checker, version).values() if v is not None]


def sentence_scores(
    s: Any, checker: str, version: str, sids: Sequence[int]
) -> dict[int, float | None]:
    """{sentence id: score} of one checker version for these sentences (read in slices, so a
    long list stays under SQLite's variable limit)."""
    out: dict[int, float | None] = {}
    for k in range(0, len(sids), 5000):
        out.update(
            s.execute(
                select(SentenceScoreRow.sentence_id, SentenceScoreRow.score).where(
                    SentenceScoreRow.checker == checker,
                    SentenceScoreRow.version == version,
                    SentenceScoreRow.sentence_id.in_(sids[k : k + 5000]),
                )
            ).all()
        )
    return out
