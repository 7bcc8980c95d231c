"""What ``export``, ``report`` and ``score`` write, and what they refuse (issue 24, 1 and 2).

Only regular files are written, whole or not at all: a device, FIFO or folder is refused, a
symbolic link is written through (the link stays), and no file the command did not create is
replaced or deleted on the way (no fixed ``NAME.part``).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from app.cli import main
from app.io.importer import import_file
from app.store import Project
from tests.conftest import PAIRS, write_jsonl

WRITERS = {
    "export": lambda proj, out: ["export", proj, out],
    "report": lambda proj, out: ["report", proj, out],
}


@pytest.fixture
def proj(tmp_path: Path) -> str:
    path = tmp_path / "p.factdesk"
    with Project.create(path) as p:
        import_file(p, write_jsonl(tmp_path / "in.jsonl", PAIRS[:1]))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_fifo_or_folder_is_refused_and_left_as_it_was(
    command: str, proj: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(capsys, *WRITERS[command](proj, str(fifo)))
    assert code == 2 and err.count("\n") == 1
    assert f"{fifo}: is a FIFO" in err and "regular file" in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    code, _, err = run(capsys, *WRITERS[command](proj, str(tmp_path)))
    assert code == 2 and "is a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "p.factdesk", "pipe"]


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_device_node_is_refused_not_replaced(
    command: str, proj: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = tmp_path / "null"
    try:  # a /dev/null of our own: the real one must never be at stake in a test
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    code, _, err = run(capsys, *WRITERS[command](proj, str(dev)))
    assert code == 2 and f"{dev}: is a character device" in err
    assert stat.S_ISCHR(os.lstat(dev).st_mode)  # still the device, not a plain file


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_symlink_is_written_through_and_kept(
    command: str, proj: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real" / "out.txt"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    os.chmod(real, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    code, _, err = run(capsys, *WRITERS[command](proj, str(link)))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8") != "old"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640  # the replaced file's mode is kept
    assert sorted(p.name for p in real.parent.iterdir()) == ["out.txt"]  # no temporary left


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_users_part_file_is_never_touched(
    command: str, proj: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.txt"
    part = tmp_path / "out.txt.part"
    part.write_text("mine", encoding="utf-8")
    assert run(capsys, *WRITERS[command](proj, str(out)))[0] == 0
    assert part.read_text(encoding="utf-8") == "mine"
    assert out.stat().st_size > 0


def test_a_failed_write_leaves_no_file_of_ours(
    proj: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.io.exporter as exporter

    def broken(*_a: object, **_k: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(exporter, "_jsonl", broken)
    out = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "export", proj, str(out))
    assert code == 2 and "No space left on device" in err and "nothing was written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "p.factdesk"]


# ---------------------------------------------------------------------- score (item 2)
def score(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run(capsys, "score", *argv, "--checker", "lexical")


def test_score_refuses_its_own_input_as_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", PAIRS)
    before = src.read_bytes()
    for extra in ((), ("--force",)):
        code, _, err = score(capsys, str(src), str(src), *extra)
        assert code == 2 and f"{src}: is the input" in err
        assert src.read_bytes() == before


def test_score_refuses_an_existing_output_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", PAIRS)
    out = tmp_path / "scored.jsonl"
    out.write_text("keep me\n", encoding="utf-8")
    code, _, err = score(capsys, str(src), str(out))
    assert code == 2 and f"{out}: already exists" in err and "--force" in err
    assert out.read_text(encoding="utf-8") == "keep me\n"
    assert not (tmp_path / "scored.jsonl.parts").exists()
    code, _, err = score(capsys, str(src), str(out), "--force")
    assert code == 0, err
    assert [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()] == [
        "p1",
        "p2",
        "p3",
    ]
