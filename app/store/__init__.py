"""The project file: tables, migrations and the :class:`Project` API."""

from app.store.judging import Change, JudgmentKey, JudgmentValue
from app.store.project import PairRow, Project

__all__ = ["Change", "JudgmentKey", "JudgmentValue", "PairRow", "Project"]
