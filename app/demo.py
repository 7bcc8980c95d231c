"""The bundled demo project: created on first use, its analysis brought up to date every time.

One implementation for the command line (``factdesk demo``) and the window (File ▸ Open demo
project), so both open the same file with the same checkers.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from app.paths import demo_pairs_file
from app.store import Project
from models.errors import ProjectError


def demo_project_path() -> Path:
    """``$XDG_DATA_HOME/factdesk/demo.factdesk`` (default ``~/.local/share``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "factdesk" / "demo.factdesk"


def _refuse_if_in_use(path: Path) -> None:
    """Refuse to delete a demo project that a program (the window, say) has open.

    Leaving WAL mode needs every other connection gone, so it tells through SQLite's own locks,
    without opening the file outside SQLite.
    """
    if not path.exists():
        return
    try:
        con = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode=DELETE").fetchone()
        finally:
            con.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise ProjectError(
                f"{path}: the demo project is open in FactDesk; close it before --reset."
            ) from exc
    except sqlite3.DatabaseError:
        pass  # not a database (damaged): nothing can have it open; it is replaced


def prepare_demo(
    path: Path,
    *,
    checkers: Sequence[str] | None = None,
    reset: bool = False,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    step: Callable[[str, int, int], None] | None = None,
) -> Path:
    """Create (or reuse) the demo project and score what the checkers have not scored yet.

    Args:
        path: the project file.
        checkers: registry names; None = the default checkers (the bundled models when present).
        reset: start from a new file.
        progress: ``(done, total)`` callback for the analysis.
        should_stop: checked between batches; stopping keeps what was scored.
        step: told what is being done from the start: ("Loading the models", n, of),
            ("Importing the demo pairs", 0, 0), then the analysis's own steps ("Parsing",
            "Scoring with dae", ...; see :func:`app.analysis.analyze`).
    """
    from app.analysis import analyze, load_checkers
    from app.io.importer import import_file

    if reset:
        _refuse_if_in_use(path)
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    loaded = load_checkers(checkers, step=step)
    project = Project.open(path) if path.exists() else Project.create(path)
    with project:
        if step is not None:
            step("Importing the demo pairs", 0, 0)
        import_file(project, demo_pairs_file())  # idempotent: duplicates are not doubled
        analyze(project, loaded, progress=progress, should_stop=should_stop, step=step)
    return path
