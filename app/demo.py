"""The bundled demo project: created on first use, its analysis brought up to date every time.

One implementation for the command line (``factdesk demo``) and the window (File ▸ Open demo
project), so both open the same file with the same checkers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from app.paths import demo_pairs_file
from app.store import Project


def demo_project_path() -> Path:
    """``$XDG_DATA_HOME/factdesk/demo.factdesk`` (default ``~/.local/share``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "factdesk" / "demo.factdesk"


def prepare_demo(
    path: Path,
    *,
    checkers: Sequence[str] | None = None,
    reset: bool = False,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Path:
    """Create (or reuse) the demo project and score what the checkers have not scored yet.

    Args:
        path: the project file.
        checkers: registry names; None = the default checkers (the bundled models when present).
        reset: start from a new file.
        progress: ``(done, total)`` callback for the analysis.
        should_stop: checked between batches; stopping keeps what was scored.
    """
    from app.analysis import analyze
    from app.io.importer import import_file
    from models.registry import default_checkers, load_checker

    if reset:
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(checkers) if checkers else default_checkers()
    project = Project.open(path) if path.exists() else Project.create(path)
    with project:
        import_file(project, demo_pairs_file())  # idempotent: duplicates are not doubled
        analyze(
            project,
            [load_checker(n) for n in names],
            progress=progress,
            should_stop=should_stop,
        )
    return path
