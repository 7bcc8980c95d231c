"""A FactDesk project: one SQLite file and the operations every front end shares.

Each user decision is its own committed transaction; imports and analysis results are written
in batches inside transactions, so a crash leaves the file consistent.
"""

from __future__ import annotations

import getpass
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, cast

from sqlalchemy import ColumnElement, Engine, delete, func, insert, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import QueryableAttribute, Session, sessionmaker

from app.store import db
from app.store.db import SUFFIX, describe_sqlite_error
from app.store.judging import (
    DEFAULT_TAXONOMY,
    Change,
    JudgmentKey,
    JudgmentValue,
    rebuild_stacks,
)
from app.store.schema import (
    ArcRow,
    ArcScoreRow,
    AuditEntry,
    Calibration,
    Judgment,
    Output,
    PairScoreRow,
    ProjectModel,
    Run,
    SentenceRow,
    SentenceScoreRow,
    Setting,
    Source,
)
from app.terminal import bad_character, shown
from models.errors import ProjectError


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def check_reviewer(name: str) -> str:
    """A reviewer's name as stored: stripped; refused when empty or on several lines.

    Raises:
        ProjectError: for an empty name or one with a line break or control character.
    """
    clean = name.strip()
    if not clean:
        raise ProjectError("The reviewer name is empty: give the name your judgments go under.")
    bad = bad_character(clean)
    if bad is not None:
        raise ProjectError(
            f"The reviewer name '{shown(clean)}' has a line break or control character ({bad})."
        )
    if len(clean) > 200:
        raise ProjectError(f"The reviewer name is {len(clean)} characters long; 200 at most.")
    return clean


def default_annotator() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name on some systems; any fallback will do
        return "annotator"


@dataclass(frozen=True, slots=True)
class PairRow:
    """One line of the pair list: cheap to build for every pair of a large project."""

    output_id: int
    external_id: str
    system: str | None
    lowest_support: float | None
    flagged_arcs: int
    judged: int
    flagged: bool
    pair_label: str | None
    #: Why the shown checker left the pair unscored as a whole (not in English, too long to
    #: parse), when it did.
    not_checked: str | None = None


class Project:
    """An open project file. Use :meth:`create` or :meth:`open`; close with :meth:`close`."""

    def __init__(self, path: Path, engine: Engine, *, read_only: bool = False) -> None:
        self.path = path
        self.engine = engine
        self.read_only = read_only
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        # The reviewer whose judgments this object writes, shows and undoes (see
        # :meth:`set_annotator`); other reviewers' judgments in the file are left alone.
        self.annotator = default_annotator()
        self._closed = False

    def set_annotator(self, name: str) -> None:
        """Judge as this reviewer from now on (name checked by :func:`check_reviewer`)."""
        self.annotator = check_reviewer(name)

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def create(cls, path: str | Path) -> Project:
        """Create a new project file; refuses to overwrite an existing file.

        The file appears under its name only when complete (see :func:`app.store.db.create`).
        """
        path = Path(path)
        if path.name in ("", "..") or path.is_dir():
            raise ProjectError(
                f"{path}: is a folder; give a file name for the new project, "
                f"e.g. {path / ('review' + SUFFIX)}"
            )
        if path.suffix != SUFFIX:
            path = path.with_name(path.name + SUFFIX) if not path.suffix else path
        if path.exists() or path.is_symlink():
            raise ProjectError(f"{path}: already exists; open it instead.")
        if not path.parent.exists():
            raise ProjectError(f"{path.parent}: no such folder; create it first, or give another.")
        settings = {"taxonomy": DEFAULT_TAXONOMY, "created_at": now().isoformat()}
        try:
            engine = db.create(path, settings)
        except DBAPIError as exc:
            _reraise(path, exc)
        return cls(path, engine)

    @classmethod
    def open(cls, path: str | Path) -> Project:
        """Open an existing project, applying migrations; foreign and newer files are refused.

        Opening a file this process already has open shares its engine (one connection owner
        per process; see :mod:`app.store.db`).
        """
        path = Path(path)
        if not path.is_file():
            raise ProjectError(
                f"{path}: no such project file; check the name, or create one with 'factdesk new'."
            )
        try:
            engine, read_only = db.acquire(path)
        except DBAPIError as exc:
            _reraise(path, exc)
        return cls(path, engine, read_only=read_only)

    def close(self) -> None:
        """Give the file back; the last Project of the file in this process closes the engine."""
        if not self._closed:
            self._closed = True
            db.release(self.engine)

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session whose work is committed as one transaction, or rolled back on error.

        SQLite errors a user can act on (locked, disk full, read-only, damaged) come out as a
        :class:`ProjectError` with a one-line reason.
        """
        try:
            with self._sessions() as s, s.begin():
                yield s
        except DBAPIError as exc:
            _reraise(self.path, exc)

    @contextmanager
    def write_session(self) -> Iterator[Session]:
        """A session that holds the write lock from its first statement.

        Reads in it see the latest commit and nobody else can write until it ends, so a check
        followed by a write (claiming an analysis run) is one atomic step across processes.
        """
        with self.session() as s:
            # A write as the first statement makes SQLite take the write lock (waiting for it,
            # like BEGIN IMMEDIATE) before anything is read.
            s.execute(update(Setting).where(Setting.key.is_(None)).values(value=None))
            yield s

    def refuse_output(self, out: str | Path, *, action: str = "write") -> None:
        """Refuse an output path that is this project or its -wal/-shm (links resolved)."""
        db.refuse_project_output(
            self.path, Path(out), action=action, also=db.claimed_name(self.engine)
        )

    # ------------------------------------------------------------------ settings
    def get_setting(self, key: str, default: Any = None) -> Any:
        with self.session() as s:
            row = s.get(Setting, key)
            return default if row is None else row.value

    def set_setting(self, key: str, value: Any) -> None:
        with self.session() as s:
            s.merge(Setting(key=key, value=value))

    def taxonomy(self) -> list[dict[str, str]]:
        return list(self.get_setting("taxonomy", DEFAULT_TAXONOMY))

    # ------------------------------------------------------------------ pairs
    def count_pairs(self) -> int:
        with self.session() as s:
            return s.scalar(select(func.count(Output.id))) or 0

    def systems(self) -> list[str]:
        with self.session() as s:
            rows = s.scalars(select(Output.system).distinct().order_by(Output.system))
            return [r for r in rows if r]

    def output_ids(self) -> list[int]:
        """Every pair's output id, in import order."""
        with self.session() as s:
            # Core rows, not ORM scalars: a third faster on 100,000 pairs.
            # Straight from SQLite's cursor: SQLAlchemy's row handling is most of the time for
            # 100,000 ids (what opening a large project waits for).
            # SQLite's own errors here are said as the session's are (damaged file, lock...).
            cursor = s.connection().connection.cursor()
            try:
                cursor.execute("SELECT id FROM outputs ORDER BY id")
                return [oid for (oid,) in cursor.fetchall()]
            except sqlite3.Error as exc:
                _reraise(self.path, exc)
            finally:
                cursor.close()

    def calibrated(self, checker: str, version: str) -> bool:
        """Whether a calibration is stored for this checker version (read without the fitting
        code, which needs numpy: opening a project does not load it for nothing)."""
        with self.session() as s:
            return (
                s.scalar(
                    select(Calibration.id)
                    .where(Calibration.checker == checker, Calibration.version == version)
                    .limit(1)
                )
                is not None
            )

    def adapted(self) -> bool:
        """Whether the project holds a model adapted to its judgments (``project_models``)."""
        with self.session() as s:
            return s.scalar(select(ProjectModel.id).limit(1)) is not None

    def pairs_stamp(self) -> tuple[int, int]:
        """(number of pairs, highest output id): changes whenever pairs are added or removed."""
        with self.session() as s:
            n, top = s.execute(select(func.count(Output.id), func.max(Output.id))).one()
        return int(n), int(top or 0)

    def pair(self, output_id: int) -> tuple[Output, Source]:
        with self.session() as s:
            out = s.get(Output, output_id)
            if out is None:
                raise ProjectError(f"No pair with internal id {output_id}.")
            src = s.get(Source, out.source_id)
            assert src is not None
            return out, src

    def sentences(
        self, *, output_id: int | None = None, source_id: int | None = None
    ) -> list[SentenceRow]:
        with self.session() as s:
            q = select(SentenceRow).order_by(SentenceRow.idx)
            if output_id is not None:
                q = q.where(SentenceRow.output_id == output_id)
            else:
                q = q.where(SentenceRow.source_id == source_id)
            return list(s.scalars(q))

    def arcs(self, sentence_ids: Sequence[int]) -> list[ArcRow]:
        with self.session() as s:
            q = (
                select(ArcRow)
                .where(ArcRow.sentence_id.in_(sentence_ids))
                .order_by(ArcRow.sentence_id, ArcRow.idx)
            )
            return list(s.scalars(q))

    # ------------------------------------------------------------------ scores
    def current_versions(self) -> dict[str, str]:
        """Checker name -> the version of its most recent run (the one shown)."""
        with self.session() as s:
            rows = s.execute(select(Run.checker, Run.version).order_by(Run.id)).all()
        return {checker: version for checker, version in rows}

    def runs_on(self, checker: str, version: str) -> dict[str, int]:
        """Where a checker version's stored pair scores were computed: {"cpu int8": pairs}.

        Read from the runs that wrote them ("unrecorded" for runs from before it was kept, or
        restored from an export without it; "cpu, adapted to this project" for the re-scoring
        runs of a project model from before it was kept)."""
        with self.session() as s:
            runs = s.scalars(
                select(Run.settings).where(Run.checker == checker, Run.version == version)
            ).all()
            where = {str((st or {}).get("runs_on") or "unrecorded") for st in runs}
            if len(where) == 1:
                # Every run of this version ran in one place: count its scores in the
                # (checker, version, output) index, not score by score through their runs.
                n = s.scalar(
                    select(func.count())
                    .select_from(PairScoreRow)
                    .where(PairScoreRow.checker == checker, PairScoreRow.version == version)
                )
                return {where.pop(): int(n)} if n else {}
            rows = s.execute(
                select(Run.settings, func.count(PairScoreRow.id))
                .join(PairScoreRow, PairScoreRow.run_id == Run.id)
                .where(PairScoreRow.checker == checker, PairScoreRow.version == version)
                .group_by(Run.id)
            ).all()
        places: dict[str, int] = {}
        for settings, n in rows:
            settings = settings or {}
            recorded = settings.get("runs_on")
            if not recorded and settings.get("project_model"):
                recorded = "cpu, adapted to this project"
            where = str(recorded or "unrecorded")
            places[where] = places.get(where, 0) + n
        return places

    def checker_names(self) -> dict[str, str]:
        """Checker name -> display name, for checkers with at least one run."""
        with self.session() as s:
            rows = s.execute(select(Run.checker, Run.display_name).order_by(Run.id)).all()
        return {c: d for c, d in rows}

    def checker_grains(self) -> dict[str, str]:
        """Checker name -> grain ("arc" or "sentence") of its latest run."""
        with self.session() as s:
            rows = s.execute(select(Run.checker, Run.grain).order_by(Run.id)).all()
        return {c: g for c, g in rows}

    def sentence_scores(
        self, checker: str, version: str, sentence_ids: Sequence[int]
    ) -> dict[int, SentenceScoreRow]:
        with self.session() as s:
            q = select(SentenceScoreRow).where(
                SentenceScoreRow.checker == checker,
                SentenceScoreRow.version == version,
                SentenceScoreRow.sentence_id.in_(sentence_ids),
            )
            return {r.sentence_id: r for r in s.scalars(q)}

    def arc_scores(self, checker: str, version: str, arc_ids: Sequence[int]) -> dict[int, float]:
        with self.session() as s:
            q = select(ArcScoreRow.arc_id, ArcScoreRow.score).where(
                ArcScoreRow.checker == checker,
                ArcScoreRow.version == version,
                ArcScoreRow.arc_id.in_(arc_ids),
            )
            return {a: sc for a, sc in s.execute(q)}

    def pair_scores(self, checker: str, version: str) -> dict[int, float | None]:
        with self.session() as s:
            q = select(PairScoreRow.output_id, PairScoreRow.score).where(
                PairScoreRow.checker == checker, PairScoreRow.version == version
            )
            return {o: sc for o, sc in s.execute(q)}

    def pair_rows(
        self,
        checker: str | None = None,
        version: str | None = None,
        threshold: float = 0.5,
        ids: Sequence[int] | None = None,
    ) -> list[PairRow]:
        """Pairs with their list columns, in import order: a handful of grouped queries.

        ``ids`` restricts the rows to those pairs (all pairs when None), so that a judgment or
        an analysis chunk refreshes only its rows.
        """

        def only(col: QueryableAttribute[Any]) -> list[ColumnElement[bool]]:
            return [] if ids is None else [col.in_(list(ids))]

        with self.session() as s:
            base = s.execute(
                select(Output.id, Output.external_id, Output.system)
                .where(*only(Output.id))
                .order_by(Output.id)
            ).all()
            lowest: dict[int, float | None] = {}
            left_out: dict[int, str] = {}
            flagged_arcs: dict[int, int] = {}
            if checker and version:
                for oid, score, reason in s.execute(
                    select(PairScoreRow.output_id, PairScoreRow.score, PairScoreRow.reason).where(
                        PairScoreRow.checker == checker,
                        PairScoreRow.version == version,
                        *only(PairScoreRow.output_id),
                    )
                ):
                    lowest[oid] = score
                    if score is None and reason:
                        left_out[oid] = reason
                # Arcs belong to output sentences only, so the joined output_id is never NULL.
                flagged_arcs = dict(
                    cast(
                        "Sequence[tuple[int, int]]",
                        s.execute(
                            select(SentenceRow.output_id, func.count(ArcScoreRow.id))
                            .join(ArcRow, ArcRow.sentence_id == SentenceRow.id)
                            .join(ArcScoreRow, ArcScoreRow.arc_id == ArcRow.id)
                            .where(
                                ArcScoreRow.checker == checker,
                                ArcScoreRow.version == version,
                                ArcScoreRow.score < threshold,
                                *self._arcs_of(ids),
                            )
                            .group_by(SentenceRow.output_id)
                        ).all(),
                    )
                )
            own = self.own_judgments()
            # Sentences with a support judgment (what "done" is measured against).
            judged = dict(
                s.execute(
                    select(Judgment.output_id, func.count(Judgment.id))
                    .where(
                        Judgment.aspect == "support",
                        Judgment.target == "sentence",
                        *own,
                        *only(Judgment.output_id),
                    )
                    .group_by(Judgment.output_id)
                ).all()
            )
            flags = set(
                s.scalars(
                    select(Judgment.output_id).where(
                        Judgment.aspect == "flag", *own, *only(Judgment.output_id)
                    )
                )
            )
            pair_labels = dict(
                s.execute(
                    select(Judgment.output_id, Judgment.label).where(
                        Judgment.aspect == "support",
                        Judgment.target == "pair",
                        *own,
                        *only(Judgment.output_id),
                    )
                ).all()
            )
        return [
            PairRow(
                oid,
                ext,
                system,
                lowest.get(oid),
                flagged_arcs.get(oid, 0),
                judged.get(oid, 0),
                oid in flags,
                pair_labels.get(oid),
                left_out.get(oid),
            )
            for oid, ext, system in base
        ]

    @staticmethod
    def _arcs_of(ids: Sequence[int] | None) -> list[ColumnElement[bool]]:
        """Arc scores of these pairs only (all when None), read from the pairs' arcs.

        As a subquery, so that SQLite looks up the scores of those arcs in the
        (checker, version, arc) index instead of scanning every arc score of the checker and
        keeping those of the pairs: a page of 500 rows of a 100,000-pair project in
        milliseconds, not a second.
        """
        if ids is None:
            return []
        arcs = (
            select(ArcRow.id)
            .join(SentenceRow, SentenceRow.id == ArcRow.sentence_id)
            .where(SentenceRow.output_id.in_(list(ids)))
        )
        return [ArcScoreRow.arc_id.in_(arcs)]

    # ------------------------------------------------------------------ judgments
    def own_judgments(self) -> list[ColumnElement[bool]]:
        """Conditions that select this reviewer's own review judgments (what the window shows)."""
        return [Judgment.annotator == self.annotator, Judgment.role == "review"]

    def judgments(self, output_id: int, *, own: bool = False) -> list[Judgment]:
        """A pair's judgments by every reviewer; ``own``: this reviewer's, in every role."""
        with self.session() as s:
            q = select(Judgment).where(Judgment.output_id == output_id).order_by(Judgment.id)
            if own:
                q = q.where(Judgment.annotator == self.annotator)
            return list(s.scalars(q))

    def reviewers(self) -> list[str]:
        """Everyone with a review judgment in this project, sorted."""
        with self.session() as s:
            q = select(Judgment.annotator).where(Judgment.role == "review").distinct()
            return sorted(s.scalars(q))

    def judgment(self, key: JudgmentKey) -> JudgmentValue | None:
        with self.session() as s:
            row = self._find_judgment(s, key)
            return None if row is None else _value_of(row)

    def judge(self, key: JudgmentKey, value: JudgmentValue | None) -> Change:
        """Record a decision (or clear it with None) in its own committed transaction."""
        with self.session() as s:
            before = self._apply(s, key, value)
            entry = AuditEntry(
                at=now(),
                action="set",
                key=key.to_json(),
                before=None if before is None else before.to_json(),
                after=None if value is None else value.to_json(),
                annotator=self.annotator,
            )
            s.add(entry)
            s.flush()
            return Change(entry.id, key, before, value)

    def history(self) -> tuple[list[Change], list[Change]]:
        """This reviewer's (undo stack, redo stack) rebuilt from the audit log, oldest first.

        Each reviewer undoes only their own decisions: another reviewer's entries in the log
        are not on this reviewer's stacks.
        """
        with self.session() as s:
            rows = s.execute(
                select(
                    AuditEntry.id,
                    AuditEntry.action,
                    AuditEntry.key,
                    AuditEntry.before,
                    AuditEntry.after,
                    AuditEntry.ref,
                )
                .where(AuditEntry.annotator == self.annotator)
                .order_by(AuditEntry.id)
            ).all()
        return rebuild_stacks([tuple(r) for r in rows])

    def undo(self) -> Change | None:
        """Undo the latest change still on the undo stack; None when there is none."""
        undo, _ = self.history()
        if not undo:
            return None
        change = undo[-1]
        self._replay(change, change.before, "undo")
        return change

    def redo(self) -> Change | None:
        _, redo = self.history()
        if not redo:
            return None
        change = redo[-1]
        self._replay(change, change.after, "redo")
        return change

    def _replay(self, change: Change, value: JudgmentValue | None, action: str) -> None:
        with self.session() as s:
            current = self._apply(s, change.key, value)
            s.add(
                AuditEntry(
                    at=now(),
                    action=action,
                    key=change.key.to_json(),
                    before=None if current is None else current.to_json(),
                    after=None if value is None else value.to_json(),
                    ref=change.entry,
                    annotator=self.annotator,
                )
            )

    def _find_judgment(self, s: Session, key: JudgmentKey) -> Judgment | None:
        return s.scalar(
            select(Judgment).where(
                Judgment.output_id == key.output_id,
                Judgment.target_key == key.target_key,
                Judgment.aspect == key.aspect,
                Judgment.annotator == self.annotator,
                Judgment.role == key.role,
            )
        )

    def _apply(
        self, s: Session, key: JudgmentKey, value: JudgmentValue | None
    ) -> JudgmentValue | None:
        """Set the judgment for ``key`` to ``value``; return what was there before."""
        row = self._find_judgment(s, key)
        before = None if row is None else _value_of(row)
        if value is None:
            if row is not None:
                s.delete(row)
            return before
        fields = dict(
            label=value.label,
            decision=value.decision,
            error_type=value.error_type,
            note=value.note,
            model_visible=value.model_visible,
            model_score=value.model_score,
            annotator=self.annotator,
            created_at=now(),
        )
        if row is None:
            s.add(
                Judgment(
                    output_id=key.output_id,
                    sentence_id=key.sentence_id,
                    arc_id=key.arc_id,
                    target=key.target,
                    target_key=key.target_key,
                    aspect=key.aspect,
                    role=key.role,
                    **fields,
                )
            )
        else:
            for name, val in fields.items():
                setattr(row, name, val)
        return before

    # ------------------------------------------------------------------ statistics
    def stats(self) -> dict[str, Any]:
        with self.session() as s:
            counts = {
                "pairs": s.scalar(select(func.count(Output.id))) or 0,
                "sources": s.scalar(select(func.count(Source.id))) or 0,
                "parsed_pairs": s.scalar(select(func.count(Output.id)).where(Output.parsed)) or 0,
                "sentences": s.scalar(
                    select(func.count(SentenceRow.id)).where(SentenceRow.output_id.is_not(None))
                )
                or 0,
                "arcs": s.scalar(select(func.count(ArcRow.id))) or 0,
                "judgments": s.scalar(select(func.count(Judgment.id))) or 0,
            }
            checkers: dict[str, dict[str, Any]] = {}
            for checker, version, display in s.execute(
                select(Run.checker, Run.version, Run.display_name).order_by(Run.id)
            ).all():
                checkers[checker] = {"version": version, "display_name": display}
            for checker, info in checkers.items():
                v = info["version"]
                info["scored_pairs"] = s.scalar(
                    select(func.count(PairScoreRow.id)).where(
                        PairScoreRow.checker == checker,
                        PairScoreRow.version == v,
                        PairScoreRow.finished(),
                    )
                )
                info["mean_pair_score"] = s.scalar(
                    select(func.avg(PairScoreRow.score)).where(
                        PairScoreRow.checker == checker, PairScoreRow.version == v
                    )
                )
                info["not_checked_sentences"] = s.scalar(
                    select(func.count(SentenceScoreRow.id)).where(
                        SentenceScoreRow.checker == checker,
                        SentenceScoreRow.version == v,
                        SentenceScoreRow.not_checked.is_not(None),
                    )
                )
            labels = dict(
                s.execute(
                    select(Judgment.label, func.count(Judgment.id))
                    .where(Judgment.aspect == "support")
                    .group_by(Judgment.label)
                ).all()
            )
        for checker, info in checkers.items():
            info["runs_on"] = self.runs_on(checker, info["version"])
        counts["checkers"] = checkers
        counts["judgment_labels"] = labels
        return counts

    # ------------------------------------------------------------------ bulk writes
    def bulk_insert(self, s: Session, table: type, rows: Iterable[dict[str, Any]]) -> None:
        rows = list(rows)
        if rows:
            # Core insert on the table: the ORM's bulk path costs about twice as much per row.
            s.connection().execute(insert(table.__table__), rows)  # type: ignore[attr-defined]

    def replace_scores(
        self, s: Session, checker: str, version: str, output_ids: Sequence[int]
    ) -> None:
        """Delete this checker version's scores for outputs about to be re-scored."""
        sent_ids = select(SentenceRow.id).where(SentenceRow.output_id.in_(output_ids))
        arc_ids = select(ArcRow.id).where(ArcRow.sentence_id.in_(sent_ids))
        for table, col, ids in (
            (PairScoreRow, PairScoreRow.output_id, output_ids),
            (SentenceScoreRow, SentenceScoreRow.sentence_id, sent_ids),
            (ArcScoreRow, ArcScoreRow.arc_id, arc_ids),
        ):
            s.execute(
                delete(table).where(
                    table.checker == checker, table.version == version, col.in_(ids)
                )
            )

    def mark_parsed(self, s: Session, output_ids: Sequence[int]) -> None:
        s.execute(update(Output).where(Output.id.in_(output_ids)).values(parsed=True))


def _value_of(row: Judgment) -> JudgmentValue:
    return JudgmentValue(
        label=row.label,
        decision=row.decision,
        error_type=row.error_type,
        note=row.note,
        model_visible=row.model_visible,
        model_score=row.model_score,
    )


def _reraise(path: Path, exc: DBAPIError | sqlite3.Error) -> NoReturn:
    """Raise a :class:`ProjectError` for errors a user can act on; others unchanged (bugs)."""
    reason = describe_sqlite_error(path, exc)
    if reason is None:
        raise exc
    raise ProjectError(reason) from exc
