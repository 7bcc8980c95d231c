"""The project file: creation, refusal of foreign and newer files, judgments and undo."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from models.errors import ProjectError


def test_wal_and_foreign_keys_are_on(project: Project) -> None:
    with project.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_create_refuses_to_overwrite(tmp_path: Path) -> None:
    Project.create(tmp_path / "a.factdesk").close()
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(tmp_path / "a.factdesk")


def test_newer_schema_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.factdesk"
    Project.create(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE alembic_version SET version_num = '9999'")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(ProjectError, match="newer FactDesk"):
        Project.open(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_foreign_files_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.factdesk"
    text.write_text("hello", encoding="utf-8")
    with pytest.raises(ProjectError, match="not a FactDesk project"):
        Project.open(text)
    other = tmp_path / "other.factdesk"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.close()
    with pytest.raises(ProjectError, match="not a FactDesk project"):
        Project.open(other)
    with pytest.raises(ProjectError, match="no such project"):
        Project.open(tmp_path / "missing.factdesk")


def test_judge_undo_redo_survive_reopening(tmp_path: Path, pairs_file: Path) -> None:
    path = tmp_path / "j.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
        oid = p.pair_rows()[0].output_id
        key = JudgmentKey(oid)
        p.judge(
            key, JudgmentValue("unsupported", "reject", "entity", "wrong city", model_visible=False)
        )
        p.judge(key, JudgmentValue("supported", "accept"))
        p.judge(JudgmentKey(oid, aspect="flag"), JudgmentValue("malformed"))
        assert p.judgment(key) == JudgmentValue("supported", "accept")
    with Project.open(path) as p:  # the undo history is rebuilt from the audit log
        undo, redo = p.history()
        assert len(undo) == 3 and not redo
        assert p.undo().key.aspect == "flag"
        assert p.judgment(JudgmentKey(oid, aspect="flag")) is None
        p.undo()
        assert p.judgment(key).label == "unsupported" and p.judgment(key).model_visible is False
    with Project.open(path) as p:
        undo, redo = p.history()
        assert len(undo) == 1 and len(redo) == 2
        p.redo()
        assert p.judgment(key).label == "supported"
        p.undo()
        p.undo()
        assert p.judgment(key) is None and p.undo() is None
        # a new decision clears the redo stack
        p.judge(key, JudgmentValue("unsupported"))
        assert p.history()[1] == [] and p.redo() is None


def test_one_judgment_per_target_and_aspect(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    oid = project.pair_rows()[0].output_id
    for label in ("supported", "unsupported", "supported"):
        project.judge(JudgmentKey(oid), JudgmentValue(label))
    project.judge(JudgmentKey(oid, aspect="interpretable"), JudgmentValue("yes"))
    assert len(project.judgments(oid)) == 2
    assert project.pair_rows()[0].pair_label == "supported"


def test_pair_rows_count_judged_sentences_and_restrict_to_ids(
    project: Project, pairs_file: Path
) -> None:
    from app.analysis import analyze
    from models.checkers.lexical import LexicalArcChecker

    import_file(project, pairs_file)
    analyze(project, [LexicalArcChecker()])  # parses: sentences and arcs exist
    first, second = (r.output_id for r in project.pair_rows()[:2])
    (sent, *_) = project.sentences(output_id=first)
    (arc, *_) = project.arcs([sent.id])
    project.judge(JudgmentKey(first, "sentence", sent.id), JudgmentValue("supported"))
    project.judge(JudgmentKey(first), JudgmentValue("supported"))
    project.judge(JudgmentKey(first, "arc", sent.id, arc.id), JudgmentValue("supported"))
    project.judge(JudgmentKey(second, aspect="flag"), JudgmentValue("malformed"))
    rows = {r.output_id: r for r in project.pair_rows()}
    # pair and arc judgments are not sentences judged
    assert rows[first].judged == 1 and rows[first].pair_label == "supported"
    assert rows[second].flagged and not rows[first].flagged
    only = project.pair_rows(ids=[second])
    assert [r.output_id for r in only] == [second] and only[0] == rows[second]


def test_a_revision_0001_project_is_upgraded_on_open(tmp_path: Path, pairs_file: Path) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from app.store import db

    path = tmp_path / "old.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
    engine = db.make_engine(path)
    with engine.begin() as conn:  # back to the first release's schema
        cfg = db._alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0001")
    engine.dispose()
    con = sqlite3.connect(path)
    assert con.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
    con.close()
    with Project.open(path) as p:
        assert p.count_pairs() == 3
        with p.engine.connect() as conn:
            assert "claims" in inspect(conn).get_table_names()
            assert "reason" in {c["name"] for c in inspect(conn).get_columns("pair_scores")}
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
            judgment_columns = {c["name"] for c in inspect(conn).get_columns("judgments")}
            score_columns = {c["name"] for c in inspect(conn).get_columns("sentence_scores")}
        assert "role" in judgment_columns  # 0004: several reviewers
        assert "detail" in score_columns  # 0005: what a checker found, in words
        assert version == db.head_revision() == "0005"


def test_a_revision_0004_project_gains_sentence_score_details_as_nulls(
    tmp_path: Path, pairs_file: Path
) -> None:
    """A project analysed by the version before 0005 opens, upgrades in place, keeps its scores
    (with no detail) and stores details from then on."""
    from alembic import command
    from sqlalchemy import inspect

    from app.analysis import analyze
    from app.store import db
    from models.checkers.lexical import LexicalArcChecker

    path = tmp_path / "old.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
        analyze(p, [LexicalArcChecker()])
    engine = db.make_engine(path)
    with engine.begin() as conn:  # back to the schema before details
        cfg = db._alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0004")
    engine.dispose()
    con = sqlite3.connect(path)
    assert con.execute("SELECT version_num FROM alembic_version").fetchone() == ("0004",)
    columns = {r[1] for r in con.execute("PRAGMA table_info(sentence_scores)")}
    scored = con.execute("SELECT count(*) FROM sentence_scores").fetchone()[0]
    con.close()
    assert "detail" not in columns and scored > 0
    with Project.open(path) as p:
        with p.engine.connect() as conn:
            assert "detail" in {c["name"] for c in inspect(conn).get_columns("sentence_scores")}
            rows = conn.exec_driver_sql("SELECT score, detail FROM sentence_scores").all()
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        assert version == "0005"
        assert len(rows) == scored and all(detail is None for _score, detail in rows)
        assert any(score is not None for score, _detail in rows)
