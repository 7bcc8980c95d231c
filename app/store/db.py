"""Opening a project file: the engine, SQLite pragmas and schema migrations.

Migrations (Alembic) are applied on open. A file whose schema revision this version does not
know was written by a newer FactDesk: it is refused and left untouched.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, create_engine, event, inspect, text

from models.errors import ProjectError

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
SUFFIX = ".factdesk"


def make_engine(path: Path) -> Engine:
    # The window writes judgments while a worker writes analysis results on its own connection;
    # WAL lets readers through, and the timeout makes a writer wait for the other's commit.
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 30})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    return engine


def _alembic_config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None
    return head


def known_revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    return {s.revision for s in ScriptDirectory.from_config(_alembic_config()).walk_revisions()}


def check_is_project(path: Path) -> None:
    """Refuse files that are not SQLite databases, before SQLAlchemy touches them."""
    with open(path, "rb") as fh:
        header = fh.read(16)
    if header and header != b"SQLite format 3\x00":
        raise ProjectError(f"{path}: not a FactDesk project (not an SQLite file).")


def migrate(engine: Engine, path: Path, *, create: bool) -> None:
    """Bring the schema to this version's head, or refuse a newer or foreign file."""
    from alembic import command

    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        current = None
        if "alembic_version" in tables:
            current = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    if not create and "alembic_version" not in tables:
        if tables:
            raise ProjectError(f"{path}: not a FactDesk project (no schema version).")
        raise ProjectError(f"{path}: empty file; create a project with 'factdesk new'.")
    if current is not None and current not in known_revisions():
        raise ProjectError(
            f"{path}: written by a newer FactDesk (schema revision {current}); "
            f"this version knows up to {head_revision()}. The file was left untouched."
        )
    if current == head_revision():
        return
    with engine.begin() as conn:
        cfg = _alembic_config()
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
