"""The project file on disk: what is refused untouched, what is never overwritten, and errors
that a user can act on (locked, disk full, read-only) told in one line."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event

from app.cli import main
from app.gui.jobs import ExportRequest, run_export
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project, db
from models.errors import ProjectError


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def side_files(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def filled(tmp_path: Path, pairs_file: Path) -> Path:
    path = tmp_path / "filled.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
    return path


# ---------------------------------------------------------------------- item 2: export onto P
@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_export_onto_the_project_or_its_side_files_is_refused(
    filled: Path, capsys, suffix: str
) -> None:
    before = digest(filled)
    code, out, err = run(capsys, "export", str(filled), str(filled) + suffix)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "is the project file" in err
    assert digest(filled) == before
    with Project.open(filled) as p:
        assert p.count_pairs() == 3


def test_export_through_a_link_to_the_project_is_refused(filled: Path, capsys) -> None:
    soft = filled.with_name("alias.jsonl")
    soft.symlink_to(filled)
    hard = filled.with_name("hard.jsonl")
    os.link(filled, hard)
    folder_link = filled.parent / "again"
    folder_link.symlink_to(filled.parent, target_is_directory=True)
    before = digest(filled)
    for out in (soft, hard, folder_link / filled.name, folder_link / (filled.name + "-wal")):
        code, _, err = run(capsys, "export", str(filled), str(out))
        assert code == 2 and "is the project file" in err, out
    assert digest(filled) == before
    assert soft.is_symlink()
    # The window's export job refuses it too.
    with pytest.raises(ProjectError, match="is the project file"):
        run_export(ExportRequest(str(filled), str(soft), "jsonl"), None)  # type: ignore[arg-type]
    with Project.open(filled) as p:
        assert p.count_pairs() == 3


def test_importing_the_project_into_itself_is_refused(filled: Path, capsys) -> None:
    code, _, err = run(capsys, "import", str(filled), str(filled))
    assert code == 2 and "refusing to import it" in err


def test_export_into_a_missing_folder_or_onto_a_folder_is_one_line(
    filled: Path, tmp_path: Path, capsys
) -> None:
    for out in (tmp_path / "missing" / "out.jsonl", tmp_path):
        code, out_text, err = run(capsys, "export", str(filled), str(out))
        assert code == 2 and out_text == "", out
        assert err.startswith("factdesk: error: ") and err.count("\n") == 1, err
    assert not (tmp_path / "missing").exists()


# ---------------------------------------------------------------------- item 26: file names
@pytest.mark.parametrize("name", ["what?.factdesk", "a#b.factdesk", "50%20off.factdesk"])
def test_project_names_are_taken_literally(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    Project.create(path).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    with Project.open(path) as p:
        assert p.count_pairs() == 0


# ---------------------------------------------------------------------- item 10: refused files
def test_a_zero_byte_file_stays_zero_bytes(tmp_path: Path) -> None:
    path = tmp_path / "empty.factdesk"
    path.touch()
    with pytest.raises(ProjectError, match="empty file"):
        Project.open(path)
    assert path.stat().st_size == 0 and side_files(path) == []


def test_text_and_truncated_files_are_refused_untouched(filled: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.factdesk"
    text.write_text("hello " * 200, encoding="utf-8")
    with pytest.raises(ProjectError, match="not an SQLite file"):
        Project.open(text)
    con = sqlite3.connect(filled)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = filled.read_bytes()
    for n, cut in enumerate((len(data) // 2, 100, 4096)):
        cut_file = tmp_path / f"cut{n}.factdesk"
        cut_file.write_bytes(data[:cut])
        with pytest.raises(ProjectError, match="damaged|empty|not an SQLite"):
            Project.open(cut_file)
        assert cut_file.read_bytes() == data[:cut] and side_files(cut_file) == []
    assert text.read_text(encoding="utf-8") == "hello " * 200


def _foreign(path: Path, *statements: str) -> Path:
    con = sqlite3.connect(path)  # a rollback-journal database, as other programs make them
    for sql in statements:
        con.execute(sql)
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize(
    ("statements", "match"),
    [
        (["CREATE TABLE t (x)"], "no schema version"),
        (
            ["CREATE TABLE alembic_version (version_num VARCHAR(32))", "CREATE TABLE t (x)"],
            "schema version table holds 0 entries",
        ),
        (
            [
                "CREATE TABLE alembic_version (version_num VARCHAR(32))",
                "INSERT INTO alembic_version VALUES ('ae1027a6acf')",
            ],
            "unknown schema revision 'ae1027a6acf'",
        ),
        (
            [
                "CREATE TABLE alembic_version (version_num VARCHAR(32))",
                "INSERT INTO alembic_version VALUES ('0000')",
            ],
            "unknown schema revision '0000'",
        ),
        (
            [
                "CREATE TABLE alembic_version (version_num VARCHAR(32))",
                "INSERT INTO alembic_version VALUES ('0001')",
            ],
            "no table",
        ),
    ],
)
def test_foreign_sqlite_files_are_refused_untouched(
    tmp_path: Path, statements: list[str], match: str, capsys
) -> None:
    path = _foreign(tmp_path / "other.factdesk", *statements)
    before = path.read_bytes()
    assert before[18:20] == b"\x01\x01"  # rollback journal, not WAL
    with pytest.raises(ProjectError, match=match) as err:
        Project.open(path)
    assert "newer" not in str(err.value)
    code, _, msg = run(capsys, "stats", str(path))
    assert code == 2 and msg.count("\n") == 1
    assert path.read_bytes() == before and side_files(path) == []


def test_a_newer_revision_is_called_newer(filled: Path) -> None:
    con = sqlite3.connect(filled)
    con.execute("UPDATE alembic_version SET version_num = '0999'")
    con.commit()
    con.close()
    with pytest.raises(ProjectError, match="newer FactDesk .schema revision 0999"):
        Project.open(filled)


# ---------------------------------------------------------------------- item 10: locked, full, ro
def test_a_locked_project_is_a_one_line_error_after_the_wait(
    filled: Path, pairs_file: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(db, "LOCK_TIMEOUT", 0.2)
    holder = sqlite3.connect(filled, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        with Project.open(filled) as p:
            oid = p.output_ids()[0]
            with pytest.raises(ProjectError, match="locked by another program"):
                p.judge(JudgmentKey(oid), JudgmentValue("supported", "accept"))
            assert p.count_pairs() == 3  # reading goes on
        more = pairs_file.with_name("more.jsonl")
        # new ids and new outputs: the same content under other ids is only a duplicate
        text = pairs_file.read_text().replace('"p', '"q').replace("bridge", "tunnel")
        more.write_text(text, encoding="utf-8")
        code, out, err = run(capsys, "import", str(filled), str(more), "--json")
        assert code == 2 and err == ""  # with --json the failure is an object on stdout
        assert json.loads(out)["code"] == 2 and "locked by another program" in out
        assert out.count("\n") == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Project.open(filled) as p:
        assert p.count_pairs() == 3 and p.stats()["judgments"] == 0


@pytest.fixture
def tiny_disk(monkeypatch):
    """Every new connection may grow the file to ``pages[0]`` pages: SQLite's disk-full error."""
    pages = [0]
    real = db.make_engine

    def make_engine(path: Path, *, read_only: bool = False):
        engine = real(path, read_only=read_only)

        @event.listens_for(engine, "connect")
        def _limit(dbapi_conn, _record) -> None:
            if pages[0]:
                dbapi_conn.execute(f"PRAGMA max_page_count = {pages[0]}")

        return engine

    monkeypatch.setattr(db, "make_engine", make_engine)
    return pages


def test_disk_full_during_import_is_one_line_and_keeps_earlier_work(
    tmp_path: Path, pairs_file: Path, tiny_disk, capsys
) -> None:
    path = tmp_path / "full.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
        size = p.engine.connect().exec_driver_sql("PRAGMA page_count").scalar()
    big = tmp_path / "big.jsonl"
    big.write_text(
        "".join(
            f'{{"id": "b{n}", "source": "{"Words of a long source. " * 400}{n}", '
            f'"output": "A short output {n}."}}\n'
            for n in range(50)
        ),
        encoding="utf-8",
    )
    tiny_disk[0] = size + 2
    code, out, err = run(capsys, "import", str(path), str(big), "--json")
    assert code == 2 and err == ""  # with --json the failure is an object on stdout
    reason = json.loads(out)["error"]
    assert "disk full" in reason and "-wal" in reason and out.count("\n") == 1
    tiny_disk[0] = 0
    with Project.open(path) as p:
        assert p.count_pairs() == 3


def test_a_read_only_project_can_be_read_not_changed(
    filled: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(db, "is_writable", lambda _p: False)
    before = digest(filled)
    code, out, _ = run(capsys, "stats", str(filled), "--json")
    assert code == 0 and '"pairs": 3' in out
    target = tmp_path / "ro.jsonl"
    code, _, _ = run(capsys, "export", str(filled), str(target))
    assert code == 0 and len(target.read_text().splitlines()) == 3
    with Project.open(filled) as p:
        assert p.read_only
        with pytest.raises(ProjectError, match="read-only"):
            p.judge(JudgmentKey(p.output_ids()[0]), JudgmentValue("supported", "accept"))
    assert digest(filled) == before


# ---------------------------------------------------------------------- item 11: the -wal
def test_work_left_in_the_wal_is_moved_into_the_file_on_open(filled: Path, tmp_path: Path) -> None:
    # A process commits and dies before any checkpoint (as after a disk-full error or kill -9).
    code = (
        "import os, sqlite3, sys\n"
        "con = sqlite3.connect(sys.argv[1])\n"
        "con.execute('PRAGMA wal_autocheckpoint=0')\n"
        "con.execute(\"INSERT INTO settings VALUES ('left', '1')\")\n"
        "con.commit()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(filled)], check=True)
    assert Path(str(filled) + "-wal").stat().st_size > 0

    def file_alone_has_it() -> bool:
        copy = tmp_path / "alone.factdesk"
        copy.write_bytes(filled.read_bytes())  # the file without its -wal
        con = sqlite3.connect(copy)
        try:
            return con.execute("SELECT count(*) FROM settings WHERE key='left'").fetchone()[0] == 1
        finally:
            con.close()
            copy.unlink()

    assert not file_alone_has_it()
    with Project.open(filled) as p:
        assert p.get_setting("left") == 1
        assert file_alone_has_it()


def test_a_project_in_a_read_only_folder_can_be_read(
    filled: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    """No -shm can be made there: the closed project (no -wal) is read as immutable."""
    real_access = os.access
    folder = filled.parent.absolute()

    def access(path: object, mode: int) -> bool:
        if mode == os.W_OK and Path(str(path)).absolute() in (folder, filled.absolute()):
            return False
        return real_access(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    assert db._read_only_uri(filled).endswith("mode=ro&immutable=1")
    code, out, _ = run(capsys, "stats", str(filled), "--json")
    assert code == 0 and '"pairs": 3' in out
    assert side_files(filled) == []


def test_disk_full_during_export_is_one_line_and_leaves_no_file(
    filled: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    import errno

    import app.io.exporter

    def full(_project: object, fh: object, *_a: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(app.io.exporter, "_jsonl", full)
    target = tmp_path / "out.jsonl"
    code, out, err = run(capsys, "export", str(filled), str(target))
    assert code == 2 and out == ""
    assert err == (
        f"factdesk: error: {target}: cannot write the export (No space left on device); "
        "nothing was written\n"
    )
    assert not target.exists() and not target.with_name("out.jsonl.part").exists()
