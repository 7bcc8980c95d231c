"""The schema revisions read from the migration scripts are alembic's own (opening a project
reads them without importing alembic)."""

from __future__ import annotations

from alembic.script import ScriptDirectory

from app.store import db


def test_revisions_match_alembics_walk() -> None:
    script = ScriptDirectory.from_config(db._alembic_config())
    assert db.known_revisions() == {s.revision for s in script.walk_revisions()}
    assert db.head_revision() == script.get_current_head()
