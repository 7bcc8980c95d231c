"""Nothing from data reaches the terminal raw (issue 24 item 8).

Projects made before names were checked on import, or edited by other tools, may hold ids,
systems and checker or reviewer names with ESC sequences in them: every command escapes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from app.cli import main
from app.io.importer import import_file
from app.store import JudgmentKey, JudgmentValue, Project
from app.terminal import bad_character, shown, shown_json
from tests.conftest import PAIRS, write_jsonl

# Clear the screen, set the window title, switch to red; a C1 CSI; a right-to-left override.
EVIL = "\x1b[2J\x1b]0;owned\x07\x1b[31m\x9b1m\u202e"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def raw_free(*texts: str) -> bool:
    return not any(c in t for t in texts for c in RAW)


@pytest.fixture
def tainted(tmp_path: Path, pairs_file: Path) -> Path:
    """A project whose id, system, checker and reviewer names hold terminal escapes."""
    from app.analysis import analyze
    from models.checkers.lexical import LexicalArcChecker

    path = tmp_path / "tainted.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
        analyze(p, [LexicalArcChecker()])
        oid = p.pair_rows()[0].output_id
        for reviewer in ("ann", "bob"):
            p.set_annotator(reviewer)
            p.judge(JudgmentKey(oid), JudgmentValue("supported", "accept"))
        with p.engine.begin() as conn:
            params = {"evil": EVIL}
            conn.execute(text("UPDATE outputs SET external_id = external_id || :evil"), params)
            conn.execute(text("UPDATE outputs SET system = system || :evil"), params)
            conn.execute(text("UPDATE runs SET display_name = :evil || display_name"), params)
            conn.execute(text("UPDATE judgments SET annotator = annotator || :evil"), params)
            conn.execute(
                text("UPDATE judgments SET label = :evil WHERE annotator LIKE 'ann%'"), params
            )
    return path


def test_shown_escapes_what_could_act_and_keeps_the_rest() -> None:
    assert shown("Émile Zoë 北京 a\u00a0b") == "Émile Zoë 北京 a\u00a0b"
    assert shown(EVIL) == "\\x1b[2J\\x1b]0;owned\\x07\\x1b[31m\\x9b1m\\u202e"
    assert shown("a\nb") == "a\\x0ab" and shown("a\nb", lines=True) == "a\nb"
    data = {"id": EVIL, "name": "Zoë"}
    assert json.loads(shown_json(data)) == data and raw_free(shown_json(data))
    assert "Zoë" in shown_json(data)
    assert bad_character("p\x1b1") == "U+001B" and bad_character("Zoë b") is None


def test_stats_escapes_names_from_the_project(tainted: Path, capsys) -> None:
    code, out, err = run(capsys, "stats", str(tainted))
    assert code == 0 and raw_free(out, err)
    assert "\\x1b]0;owned\\x07" in out  # shown, not run
    code, out, err = run(capsys, "stats", str(tainted), "--json")
    assert code == 0 and raw_free(out, err)
    data = json.loads(out)
    assert EVIL in data["judgment_labels"]  # the same value, escaped only on the way out


def test_merge_report_escapes_ids_and_reviewers(tainted: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "target.factdesk"
    with Project.create(target) as p:
        import_file(p, write_jsonl(tmp_path / "other.jsonl", PAIRS[1:]))
    code, out, err = run(capsys, "merge", str(target), str(tainted))
    assert code == 0 and raw_free(out, err)
    assert "\\x1b[2J" in out  # the unmatched pair's id, escaped
    code, out, err = run(capsys, "merge", str(target), str(tainted), "--json")
    assert raw_free(out, err) and json.loads(out)["files"]


def test_agreement_escapes_reviewer_names(tainted: Path, capsys) -> None:
    code, out, err = run(capsys, "agreement", str(tainted))
    assert code == 0 and raw_free(out, err)
    assert "bob\\x1b[2J" in out


def test_error_messages_escape_paths_and_field_names(tmp_path: Path, capsys) -> None:
    proj = str(tmp_path / "e.factdesk")
    run(capsys, "new", proj)
    missing = tmp_path / f"gone{EVIL}.jsonl"
    code, out, err = run(capsys, "import", proj, str(missing))
    assert code == 2 and raw_free(out, err) and err.count("\n") == 1
    pairs = write_jsonl(tmp_path / "p.jsonl", PAIRS)
    code, out, err = run(capsys, "import", proj, str(pairs), "--source-field", f"s{EVIL}\nx")
    # every record fails alike: one line for the first, one for the others, one for what to do
    assert code == 2 and raw_free(out, err) and err.count("\n") == 3
    assert "\n  the same in 2 other records (lines 2, 3)\n" in err
    assert "\\x1b[2J" in err
