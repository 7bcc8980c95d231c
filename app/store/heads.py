"""The project's adapted heads as analysis sees them: which one is in use, and the checkers an
analysis runs with it (the bundled combined score replaced by the project's head).

They are stored in the project (table ``project_models``) by :mod:`app.learning.adapt`; reading
them here lets analysis use them without depending on the learning code.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from app.store.project import Project
from app.store.schema import ProjectModel
from models.checkers.adapted import AdaptedCombinedChecker, Head
from models.checkers.base import Checker
from models.checkers.combined import CombinedChecker

CHECKER = "combined"
"""The checker a project head adapts."""


def active_model(project: Project) -> Head | None:
    """The project head in use, or None when the bundled model is."""
    with project.session() as s:
        row = s.scalar(
            select(ProjectModel)
            .where(ProjectModel.checker == CHECKER, ProjectModel.active)
            .order_by(ProjectModel.id.desc())
        )
        return None if row is None else Head(dict(row.spec))


def latest_model(project: Project) -> ProjectModel | None:
    with project.session() as s:
        return s.scalar(
            select(ProjectModel)
            .where(ProjectModel.checker == CHECKER)
            .order_by(ProjectModel.id.desc())
        )


def apply_project_model(project: Project, checkers: Sequence[Checker]) -> list[Checker]:
    """The checkers an analysis of this project runs: the bundled combined score replaced by
    the project's head when one is in use and adapts that very bundled version."""
    head = active_model(project)
    if head is None:
        return list(checkers)
    out: list[Checker] = []
    for c in checkers:
        if (
            isinstance(c, CombinedChecker)
            and not isinstance(c, AdaptedCombinedChecker)
            and c.version == head.base_version
        ):
            out.append(AdaptedCombinedChecker(c, head))
        else:
            out.append(c)
    return out
