"""An endless or huge input is refused at a cap, never read into memory (issue 24 item 10)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.corpus import plan_parts
from app.io.records import MAX_FILE_BYTES, MAX_LINE_BYTES, read_pairs
from app.store import Project
from models.errors import InputError
from tests.conftest import PAIRS, write_jsonl

ROOT = Path(__file__).resolve().parents[2]
MEMORY_CAP = 1536 * 2**20  # address space for the child: far below what /dev/zero would take


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_importing_dev_zero_stops_at_the_line_cap(tmp_path: Path, fmt: str) -> None:
    """`factdesk import P /dev/zero`: one line with no end; refused once the cap is read."""
    proj = tmp_path / "z.factdesk"
    with Project.create(proj):
        pass
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "import", str(proj), "/dev/zero", "--format", fmt],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limited,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "/dev/zero, line 1:" in done.stderr and "--max-line-bytes" in done.stderr
    with Project.open(proj) as p:
        assert p.count_pairs() == 0


def test_the_line_and_file_caps_name_where_and_how_to_raise_them(tmp_path: Path) -> None:
    assert MAX_LINE_BYTES >= 64 * 2**20 and MAX_FILE_BYTES >= MAX_LINE_BYTES
    path = write_jsonl(tmp_path / "p.jsonl", PAIRS)
    sizes = [len(line.encode()) for line in path.read_text().splitlines()]
    longest = max(sizes)
    with pytest.raises(InputError) as err:
        read_pairs(path, max_line_bytes=longest - 1)
    assert err.value.line == sizes.index(longest) + 1 and "--max-line-bytes" in err.value.reason
    with pytest.raises(InputError) as err:  # a whole-file problem: never skipped
        read_pairs(path, max_line_bytes=longest - 1, skip_invalid=True)
    assert len(read_pairs(path, max_line_bytes=longest).records) == 3
    size = path.stat().st_size
    with pytest.raises(InputError) as err:
        read_pairs(path, max_file_bytes=size - 1)
    assert "--max-file-bytes" in err.value.reason
    assert len(read_pairs(path, max_file_bytes=size).records) == 3


def test_the_caps_hold_for_a_utf16_file_too(tmp_path: Path) -> None:
    rows = [json.dumps(p) for p in PAIRS]
    path = tmp_path / "wide.jsonl"
    path.write_bytes("\ufeff".encode("utf-16-le") + "\n".join(rows).encode("utf-16-le") + b"\n\x00")
    assert len(read_pairs(path).records) == 3
    longest = max(len(r) for r in rows)  # characters before the line end, two bytes each
    with pytest.raises(InputError) as err:
        read_pairs(path, max_line_bytes=2 * longest - 2)
    assert "--max-line-bytes" in err.value.reason
    assert err.value.line == 1 + [len(r) for r in rows].index(longest)
    assert len(read_pairs(path, max_line_bytes=2 * longest).records) == 3
    with pytest.raises(InputError) as err:
        read_pairs(path, max_file_bytes=path.stat().st_size - 2)
    assert "--max-file-bytes" in err.value.reason


def test_a_stream_over_the_file_cap_is_refused_as_it_is_read(tmp_path: Path) -> None:
    """A pipe has no size to look at first: the cap is counted while reading."""
    fifo = tmp_path / "pairs.fifo"
    import os
    import threading

    os.mkfifo(fifo)
    line = (json.dumps(PAIRS[0]) + "\n").encode()

    def feed() -> None:
        try:
            with open(fifo, "wb") as fh:
                for _ in range(10_000):
                    fh.write(line)
        except BrokenPipeError:  # the reader stopped at its cap, as it should
            pass

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        with pytest.raises(InputError) as err:
            read_pairs(fifo, fmt="jsonl", max_file_bytes=50 * len(line))
    finally:
        writer.join(30)
    assert err.value.line == 51 and "--max-file-bytes" in err.value.reason


def test_the_cli_options_raise_the_caps_and_must_be_positive(
    tmp_path: Path, pairs_file: Path, capsys
) -> None:
    proj = str(tmp_path / "c.factdesk")
    assert main(["new", proj]) == 0
    assert main(["import", proj, str(pairs_file), "--max-line-bytes", "10"]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and "--max-line-bytes" in err
    assert main(["import", proj, str(pairs_file), "--max-file-bytes", "0"]) == 2
    assert "--max-file-bytes must be a positive number of bytes, not 0" in capsys.readouterr().err
    big = str(10 * pairs_file.stat().st_size)
    assert main(["import", proj, str(pairs_file), "--max-file-bytes", big, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["imported"] == 3


def test_score_names_a_utf16_corpus_instead_of_cutting_its_characters(tmp_path: Path) -> None:
    corpus = tmp_path / "wide.jsonl"
    corpus.write_bytes(("\ufeff" + json.dumps(PAIRS[0]) + "\n").encode("utf-16-le"))
    with pytest.raises(InputError) as err:
        plan_parts([corpus], 10)
    assert err.value.path == str(corpus) and "is UTF-16 text" in err.value.reason


def test_score_refuses_a_line_without_end_at_the_cap(tmp_path: Path, monkeypatch) -> None:
    import app.io.records

    monkeypatch.setattr(app.io.records, "MAX_LINE_BYTES", 1000)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b"x" * 5000)
    with pytest.raises(InputError) as err:
        plan_parts([corpus], 10)
    assert err.value.line == 1 and str(corpus) in str(err.value)
