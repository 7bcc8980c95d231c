"""Every failure of the command line: one line (or one JSON object), a documented exit code,
no traceback and no Python class names (issue 24, items 13, 14 and 23)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import EXIT_CODES, main
from app.io.importer import import_file
from app.store import Project
from tests.conftest import PAIRS, write_jsonl

ROOT = Path(__file__).resolve().parents[2]
# What a user must never read: a traceback, an exception's class name, a repr of a path.
PYTHON_TALK = re.compile(r"Traceback|\b\w*(Error|Exception)\b|PosixPath|\[Errno|NoneType|\bself\b")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    with Project.create(tmp_path / "p.factdesk") as p:
        import_file(p, write_jsonl(tmp_path / "pairs.jsonl", PAIRS))
    (tmp_path / "notes.txt").write_text("not a project\n", encoding="utf-8")
    (tmp_path / "bad.jsonl").write_text('{"source": "a"}\n', encoding="utf-8")
    os.mkfifo(tmp_path / "pipe")
    return tmp_path


def failing_commands(d: Path) -> list[list[str]]:
    """Commands that must fail, each for a reason a user can act on."""
    p = str(d / "p.factdesk")
    return [
        ["new", ""],
        ["new", "/"],
        ["new", "."],
        ["new", p],
        ["new", str(d / "missing" / "x.factdesk")],
        ["import", p, "."],
        ["import", p, ""],
        ["import", p, str(d / "missing.jsonl")],
        ["import", p, str(d / "bad.jsonl")],
        ["import", p, str(d / "notes.txt")],
        ["import", p, str(d / "pairs.jsonl"), "--format", "xml"],
        ["import", p, str(d / "pairs.jsonl"), "--max-field-chars", "0"],
        ["export", p, ""],
        ["export", p, str(d)],
        ["export", p, str(d / "pipe")],
        ["export", p, p],
        ["export", str(d / "missing.factdesk"), str(d / "out.jsonl")],
        ["report", p, str(d / "pipe")],
        ["stats", ""],
        ["stats", str(d / "notes.txt")],
        ["stats", str(d / "missing.factdesk")],
        ["merge", p, "."],
        ["merge", p, p],
        ["merge", p, str(d / "missing.jsonl")],
        ["score", str(d / "missing.jsonl"), str(d / "out")],
        ["score", str(d / "pairs.jsonl"), str(d / "pairs.jsonl")],
        ["analyze", p, "--checker", "nosuch"],
        ["analyze", p, "--shard-size", "0"],
        ["agreement", p, "--checker", "nosuch"],
        ["calibrate", p],
        ["stats"],
        ["frobnicate"],
        ["eval", "--limit", "x"],
    ]


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_bad_names_are_one_line_errors(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = str(folder / "p.factdesk")
    for argv, said in (
        (["new", ""], "the PROJECT argument is empty; give a file name"),
        (["new", "/"], "/: is a folder; give a file name for the new project"),
        (["new", "."], ".: is a folder; give a file name for the new project"),
        (["import", p, "."], ".: is a folder; give a JSONL, CSV or TSV file to import"),
    ):
        code, out, err = run(capsys, argv)
        assert (code, out) == (2, ""), argv
        assert err.startswith(f"factdesk: error: {said}") and err.count("\n") == 1, err
    assert sorted(x.name for x in folder.iterdir()) == [
        "bad.jsonl",
        "notes.txt",
        "p.factdesk",
        "pairs.jsonl",
        "pipe",
    ]


SLOW_MERGE = """
import sys, time
import app.io.merge

def slow(*_a, **_k):
    print("merging", flush=True)
    time.sleep(60)

app.io.merge._merge_pair = slow
from app.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_in_merge_is_one_line_and_merges_nothing(
    folder: Path, tmp_path: Path, as_json: bool
) -> None:
    p = folder / "p.factdesk"
    src = write_jsonl(
        tmp_path / "bob.jsonl",
        [
            {
                **PAIRS[0],
                "judgments": [{"target": "pair", "aspect": "support", "label": "supported"}],
            }
        ],
    )
    argv = ["merge", str(p), str(src)] + (["--json"] if as_json else [])
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_MERGE, *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a terminal's foreground command gets it: a test run started in the background
        # (CI, `cmd &`) has SIGINT ignored, and Python keeps an inherited SIG_IGN
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "merging"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    said = "interrupted; nothing was merged (a merge is one transaction)"
    if as_json:
        assert (json.loads(out), err) == ({"error": said, "code": 130}, "")
    else:
        assert (out, err) == ("", f"factdesk: {said}\n")
    with Project.open(p) as project:
        assert project.stats()["judgments"] == 0


def test_with_json_every_failure_is_a_json_object(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tried = 0
    for argv in failing_commands(folder):
        code, out, err = run(capsys, [*argv, "--json"])  # `new` has no --json: said as JSON
        tried += 1
        assert code in EXIT_CODES and code != 0, argv
        assert err == "", (argv, err)
        lines = out.splitlines()
        assert len(lines) == 1, (argv, out)
        data = json.loads(lines[0])
        assert set(data) == {"error", "code"} and data["code"] == code, argv
        assert data["error"] and not PYTHON_TALK.search(data["error"]), (argv, data)
    assert tried == len(failing_commands(folder))


def test_error_messages_name_the_place_and_no_python(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in failing_commands(folder):
        code, out, err = run(capsys, argv)
        assert code == 2 and out == "", (argv, out)
        assert err.startswith("factdesk: error: ") and err.count("\n") == 1, (argv, err)
        assert not PYTHON_TALK.search(err), (argv, err)
    # Where the file, line and field are known, they are named.
    _, _, err = run(capsys, ["import", str(folder / "p.factdesk"), str(folder / "bad.jsonl")])
    assert f"{folder / 'bad.jsonl'}, line 1, field 'output'" in err


def test_an_internal_error_is_one_line_with_its_own_code(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def bug(*_a: object, **_k: object) -> None:
        raise KeyError("total")

    monkeypatch.setattr(Project, "stats", bug)
    monkeypatch.delenv("FACTDESK_TRACEBACK", raising=False)
    code, out, err = run(capsys, ["stats", str(folder / "p.factdesk")])
    assert (code, out) == (3, "") and err.count("\n") == 1
    assert err.startswith("factdesk: error: internal error ('total')") and "report" in err
    assert not PYTHON_TALK.search(err)
    code, out, _ = run(capsys, ["stats", str(folder / "p.factdesk"), "--json"])
    assert code == 3 and json.loads(out)["code"] == 3


def test_the_readme_lists_every_exit_code() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("### Exit codes") :]
    rows = re.findall(r"^\| `(\d+)` \|", table, flags=re.M)
    assert [int(r) for r in rows] == sorted(EXIT_CODES)
