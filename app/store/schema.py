"""The project file's tables (SQLAlchemy 2 typed ORM).

Scores are keyed by (checker, version, target) so that analysis is incremental: a target that
already has a score from the current checker version is not scored again. ``run_id`` says which
run produced each score. Judgments hold the current decision per target and aspect; the
append-only ``audit_log`` holds every change, from which undo and redo are rebuilt.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ColumnElement,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    or_,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Setting(Base):
    """Project-wide key/value settings (taxonomy, parser version, name)."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[object] = mapped_column(JSON)


class Source(Base):
    __tablename__ = "sources"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    text_hash: Mapped[str] = mapped_column(String(40), unique=True)


class Output(Base):
    """One output tied to its source: a pair."""

    __tablename__ = "outputs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id"), index=True)
    external_id: Mapped[str] = mapped_column(String, unique=True)
    text: Mapped[str] = mapped_column(Text)
    system: Mapped[str | None] = mapped_column(String, index=True)
    context: Mapped[str | None] = mapped_column(Text)
    meta: Mapped[dict | None] = mapped_column(JSON)
    content_hash: Mapped[str] = mapped_column(String(40), index=True)
    imported_at: Mapped[datetime] = mapped_column(DateTime)
    parsed: Mapped[bool] = mapped_column(Boolean, default=False)


class SentenceRow(Base):
    """A sentence of an output or of a source, with character offsets into that text."""

    __tablename__ = "sentences"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    output_id: Mapped[int | None] = mapped_column(ForeignKey("outputs.id"))
    source_id: Mapped[int | None] = mapped_column(ForeignKey("sources.id"))
    idx: Mapped[int] = mapped_column(Integer)
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    __table_args__ = (
        CheckConstraint("(output_id IS NULL) != (source_id IS NULL)", name="one_owner"),
        UniqueConstraint("output_id", "idx"),
        UniqueConstraint("source_id", "idx"),
    )


class ArcRow(Base):
    """A content dependency arc of an output sentence (word indices within the sentence)."""

    __tablename__ = "arcs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sentence_id: Mapped[int] = mapped_column(ForeignKey("sentences.id"), index=True)
    idx: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String)
    head_idx: Mapped[int] = mapped_column(Integer)
    child_idx: Mapped[int] = mapped_column(Integer)
    head_start: Mapped[int] = mapped_column(Integer)
    head_end: Mapped[int] = mapped_column(Integer)
    child_start: Mapped[int] = mapped_column(Integer)
    child_end: Mapped[int] = mapped_column(Integer)
    head_text: Mapped[str] = mapped_column(String)
    child_text: Mapped[str] = mapped_column(String)
    __table_args__ = (UniqueConstraint("sentence_id", "idx"),)


class Run(Base):
    """One analysis run of one checker.

    ``status`` is ``running`` while it runs, then ``done``, ``cancelled`` (the user stopped it),
    ``interrupted`` (Ctrl-C, or its process was killed and a later run found it dead) or
    ``failed`` (``settings["error"]`` says why). ``settings`` also names the parser and the
    process (``pid``, ``host``) that owns a running run.
    """

    __tablename__ = "runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    checker: Mapped[str] = mapped_column(String)
    version: Mapped[str] = mapped_column(String)
    display_name: Mapped[str] = mapped_column(String)
    grain: Mapped[str] = mapped_column(String)
    settings: Mapped[dict | None] = mapped_column(JSON)
    started_at: Mapped[datetime] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String, default="running")
    scored: Mapped[int] = mapped_column(Integer, default=0)


class Claim(Base):
    """A pair that a running analysis run is scoring for a checker version.

    Two analyses of one project (two terminals, the window and a terminal) claim chunks of pairs
    before scoring them, so each pair is scored once. Claims are deleted with the chunk's scores,
    when the run ends, or when a later run finds the claiming process gone.
    """

    __tablename__ = "claims"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    checker: Mapped[str] = mapped_column(String)
    version: Mapped[str] = mapped_column(String)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id"))
    __table_args__ = (UniqueConstraint("checker", "version", "output_id"),)


class PairScoreRow(Base):
    __tablename__ = "pair_scores"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    checker: Mapped[str] = mapped_column(String)
    version: Mapped[str] = mapped_column(String)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id"), index=True)
    score: Mapped[float | None] = mapped_column(Float)
    not_checked: Mapped[int] = mapped_column(Integer, default=0)
    # Why the whole pair was not checked (e.g. a text over the parser's length limit); None
    # when it was checked. ``score`` is None then.
    reason: Mapped[str | None] = mapped_column(Text)
    __table_args__ = (UniqueConstraint("checker", "version", "output_id"),)

    @classmethod
    def finished(cls) -> ColumnElement[bool]:
        """Rows that hold a result: a score, why the pair was not checked, or sentences not
        checked. A row with none of these (a checker block begun and never finished, as an
        export of a half-analysed pair brings it) is no result: analysis scores the pair again
        and statistics do not count it."""
        return or_(cls.score.is_not(None), cls.reason.is_not(None), cls.not_checked > 0)


class SentenceScoreRow(Base):
    __tablename__ = "sentence_scores"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    checker: Mapped[str] = mapped_column(String)
    version: Mapped[str] = mapped_column(String)
    sentence_id: Mapped[int] = mapped_column(ForeignKey("sentences.id"), index=True)
    score: Mapped[float | None] = mapped_column(Float)
    min_arc: Mapped[float | None] = mapped_column(Float)
    evidence: Mapped[list | None] = mapped_column(JSON)
    omitted: Mapped[int] = mapped_column(Integer, default=0)
    not_checked: Mapped[str | None] = mapped_column(Text)
    # What the checker found, in words an editor reads beside the score (one finding a line,
    # e.g. the question-based check's questions and answers); None for most checkers.
    detail: Mapped[str | None] = mapped_column(Text)
    __table_args__ = (UniqueConstraint("checker", "version", "sentence_id"),)


class ArcScoreRow(Base):
    __tablename__ = "arc_scores"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))
    checker: Mapped[str] = mapped_column(String)
    version: Mapped[str] = mapped_column(String)
    arc_id: Mapped[int] = mapped_column(ForeignKey("arcs.id"), index=True)
    score: Mapped[float] = mapped_column(Float)
    __table_args__ = (UniqueConstraint("checker", "version", "arc_id"),)


class Judgment(Base):
    """One reviewer's current decision on one target (pair, sentence or arc) and aspect.

    ``aspect`` is ``support`` for the main judgment, ``interpretable`` for AIS stage one and
    ``flag`` for malformed items. ``label`` is the resolved label (for support: supported /
    unsupported); ``decision`` records how it was reached (accept, reject, relabel).
    """

    __tablename__ = "judgments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id"), index=True)
    sentence_id: Mapped[int | None] = mapped_column(ForeignKey("sentences.id"))
    arc_id: Mapped[int | None] = mapped_column(ForeignKey("arcs.id"))
    target: Mapped[str] = mapped_column(String)
    # "pair" / "sentence:<id>" / "arc:<id>": one string, because SQLite's unique indexes treat
    # NULL ids as distinct and would let two pair-level judgments coexist.
    target_key: Mapped[str] = mapped_column(String)
    aspect: Mapped[str] = mapped_column(String, default="support")
    label: Mapped[str] = mapped_column(String)
    decision: Mapped[str | None] = mapped_column(String)
    error_type: Mapped[str | None] = mapped_column(String)
    note: Mapped[str | None] = mapped_column(Text)
    annotator: Mapped[str] = mapped_column(String)
    # "review" for a reviewer's own decision, "adjudicated" for an adjudicator's final word on
    # an item the reviewers disagree on.
    role: Mapped[str] = mapped_column(String, default="review", server_default="review")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    model_visible: Mapped[bool] = mapped_column(Boolean)
    model_score: Mapped[float | None] = mapped_column(Float)
    __table_args__ = (
        # One judgment per target and aspect for each reviewer (and role): two reviewers'
        # judgments of one item live side by side.
        Index(
            "uq_judgment_target",
            "output_id",
            "target_key",
            "aspect",
            "annotator",
            "role",
            unique=True,
        ),
    )


class AuditEntry(Base):
    """Append-only history of judgment changes. Never updated or deleted.

    ``action`` is ``set`` (a decision), ``undo`` or ``redo`` (``ref`` names the ``set`` entry).
    ``before``/``after`` are judgment values (None = no judgment) for ``key``.
    """

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    action: Mapped[str] = mapped_column(String)
    key: Mapped[dict] = mapped_column(JSON)
    before: Mapped[dict | None] = mapped_column(JSON)
    after: Mapped[dict | None] = mapped_column(JSON)
    ref: Mapped[int | None] = mapped_column(Integer)
    annotator: Mapped[str] = mapped_column(String)


class Calibration(Base):
    """A threshold and a probability fitted to the editor's judgments (issue 14).

    One per checker version and level (pair, sentence, arc): ``threshold`` is the score below
    which an item counts as unsupported, fitted for balanced accuracy or, with
    ``target_recall``, as the lowest threshold that flags that share of what the editor
    rejected. ``probability`` holds the calibrated probability (Platt or isotonic); ``metrics``
    what the fit reached on the judgments it rests on (``n_judgments``).
    """

    __tablename__ = "calibrations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    checker: Mapped[str] = mapped_column(String)
    version: Mapped[str] = mapped_column(String)
    level: Mapped[str] = mapped_column(String)
    threshold: Mapped[float] = mapped_column(Float)
    target_recall: Mapped[float | None] = mapped_column(Float)
    probability: Mapped[dict] = mapped_column(JSON)
    metrics: Mapped[dict] = mapped_column(JSON)
    n_judgments: Mapped[int] = mapped_column(Integer)
    fitted_at: Mapped[datetime] = mapped_column(DateTime)
    __table_args__ = (UniqueConstraint("checker", "version", "level"),)


class ProjectModel(Base):
    """A checker head adapted to this project's judgments; it travels inside the project file.

    ``spec`` is everything needed to score with it (no file outside the project is read but the
    bundled model it adapts, named by ``base_version``). ``version`` is the version its scores
    are stored under. At most one row per checker is ``active``; none active means the bundled
    model is used.
    """

    __tablename__ = "project_models"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    checker: Mapped[str] = mapped_column(String)
    base_version: Mapped[str] = mapped_column(String)
    version: Mapped[str] = mapped_column(String)
    spec: Mapped[dict] = mapped_column(JSON)
    n_judgments: Mapped[int] = mapped_column(Integer)
    n_visible: Mapped[int] = mapped_column(Integer)
    n_blind: Mapped[int] = mapped_column(Integer)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    fitted_at: Mapped[datetime] = mapped_column(DateTime)
