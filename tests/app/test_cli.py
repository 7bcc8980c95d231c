"""The command line's public forms, --json output and error exits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_new_import_analyze_stats_export(tmp_path: Path, pairs_file: Path, capsys) -> None:
    proj = str(tmp_path / "cli.factdesk")
    assert run(capsys, "new", proj)[0] == 0
    code, out, _ = run(capsys, "import", proj, str(pairs_file), "--json")
    assert code == 0 and json.loads(out)["imported"] == 3
    code, out, _ = run(capsys, "import", proj, str(pairs_file), "--json")
    assert json.loads(out)["duplicates"] == 3 and json.loads(out)["imported"] == 0
    code, out, _ = run(capsys, "analyze", proj, "--checker", "lexical", "--json")
    data = json.loads(out)
    assert code == 0 and data["scored"] == 3 and "not_checked" in data
    code, out, _ = run(capsys, "stats", proj, "--json")
    st = json.loads(out)
    assert st["pairs"] == 3 and st["sentences"] == 4 and st["arcs"] > 0 and st["judgments"] == 0
    code, out, _ = run(capsys, "stats", proj)
    assert "lexical baseline" in out
    target = tmp_path / "out.jsonl"
    code, out, _ = run(capsys, "export", proj, str(target), "--format", "jsonl")
    assert code == 0 and len(target.read_text().splitlines()) == 3


def test_errors_exit_nonzero_with_one_line(tmp_path: Path, capsys) -> None:
    proj = str(tmp_path / "e.factdesk")
    run(capsys, "new", proj)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"source": "a"}\n', encoding="utf-8")
    code, out, err = run(capsys, "import", proj, str(bad))
    assert code == 2 and err.count("\n") == 1
    assert f"{bad}, line 1, field 'output'" in err
    code, _, err = run(capsys, "analyze", proj, "--checker", "nosuch")
    assert code == 2 and "Unknown checker 'nosuch'" in err
    code, _, err = run(capsys, "stats", str(tmp_path / "missing.factdesk"))
    assert code == 2 and "no such project" in err


def test_skip_invalid_reports_each_record(tmp_path: Path, capsys) -> None:
    proj = str(tmp_path / "s.factdesk")
    run(capsys, "new", proj)
    f = tmp_path / "mixed.csv"
    f.write_text("source,output\nA text.,A claim.\n,empty source\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", proj, str(f), "--skip-invalid", "--json")
    data = json.loads(out)
    assert data["imported"] == 1 and data["skipped"] == 1
    assert data["skipped_records"][0] == {
        "line": 3,
        "field": "source",
        "reason": "empty",
        "id": None,
    }


def test_demo_without_window_prints_findings(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    code, out, _ = run(capsys, "demo", "--no-window")
    assert code == 0
    assert "demo-02 [summarizer-b]" in out and "each checker's pair score: " in out
    assert (tmp_path / "factdesk" / "demo.factdesk").exists()
    from models.arc_runtime import bundled_available

    if bundled_available():  # the bundled models are the demo's checkers, not the baseline
        assert "arc entailment (DAE)" in out and "sentence support" in out
        assert "lexical baseline" not in out
    # a second run reuses the project: nothing is imported or scored twice
    code, again, _ = run(capsys, "demo", "--no-window")
    assert code == 0 and again == out


@pytest.mark.parametrize("value", ["0", "-5"])
def test_max_field_chars_must_be_positive(tmp_path: Path, pairs_file: Path, capsys, value) -> None:
    proj = str(tmp_path / "m.factdesk")
    run(capsys, "new", proj)
    code, out, err = run(capsys, "import", proj, str(pairs_file), "--max-field-chars", value)
    assert code == 2 and out == ""
    assert err == (
        f"factdesk: error: --max-field-chars must be a positive number of characters, not {value}\n"
    )
    code, out, _ = run(capsys, "stats", proj, "--json")
    assert json.loads(out)["pairs"] == 0


def test_messages_name_real_fields_only(tmp_path: Path, capsys) -> None:
    proj = str(tmp_path / "f.factdesk")
    run(capsys, "new", proj)
    dup = tmp_path / "dup.csv"
    dup.write_text("source,source,output\na,b,c\n", encoding="utf-8")
    code, _, err = run(capsys, "import", proj, str(dup))
    assert code == 2 and "duplicate column names" in err
    assert "__file__" not in err and "field '" not in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"source": "A.", "output": "B."}\n{bad json\n', encoding="utf-8")
    code, out, _ = run(capsys, "import", proj, str(bad), "--skip-invalid")
    assert code == 0 and "line 2: malformed JSON" in out
    assert "None" not in out


def test_an_interrupted_import_says_nothing_was_imported(
    tmp_path: Path, pairs_file: Path, capsys, monkeypatch
) -> None:
    import app.io.importer

    proj = str(tmp_path / "i.factdesk")
    run(capsys, "new", proj)

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(app.io.importer, "import_file", interrupted)
    code, _, err = run(capsys, "import", proj, str(pairs_file))
    assert code == 130
    assert err == "factdesk: interrupted; nothing was imported (an import is all or nothing)\n"
    assert "saved" not in err


@pytest.mark.parametrize(
    ("value", "reason"),
    [("[" * 100_000 + "]" * 100_000, "nested too deeply"), ("9" * 5000, "more than 4,300 digits")],
)
def test_pathological_json_is_a_one_line_refusal(tmp_path: Path, capsys, value, reason) -> None:
    proj = str(tmp_path / "d.factdesk")
    run(capsys, "new", proj)
    f = tmp_path / "odd.jsonl"
    f.write_text(f'{{"source": "A.", "output": "B.", "extra": {value}}}\n', encoding="utf-8")
    code, out, err = run(capsys, "import", proj, str(f))
    assert code == 2 and out == ""
    assert err.startswith(f"factdesk: error: {f}: ") and reason in err and err.count("\n") == 1
    code, out, _ = run(capsys, "stats", proj, "--json")
    assert json.loads(out)["pairs"] == 0


def test_a_damaged_model_file_is_a_one_line_error(tmp_path: Path, pairs_file: Path, capsys) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("torch")
    proj = str(tmp_path / "m.factdesk")
    run(capsys, "new", proj)
    run(capsys, "import", proj, str(pairs_file))
    model = tmp_path / "nli-model"
    model.mkdir()
    (model / "config.json").write_text(
        json.dumps(
            {
                "model_type": "bert",
                "architectures": ["BertForSequenceClassification"],
                "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"},
            }
        ),
        encoding="utf-8",
    )
    (model / "pytorch_model.bin").write_bytes(b"garbage, not a pickle")
    code, out, err = run(capsys, "analyze", proj, "--checker", "nli", "--model-dir", str(model))
    assert code == 2 and out == ""
    assert err.startswith(f"factdesk: error: {model}: cannot load the 'nli' checker (")
    assert err.count("\n") == 1 and "weights_only" not in err
    code, out, _ = run(capsys, "stats", proj, "--json")
    assert json.loads(out)["checkers"] == {}


def test_demo_reset_refuses_a_demo_project_that_is_open(tmp_path: Path, capsys) -> None:
    import subprocess
    import sys

    from app.store import Project

    path = tmp_path / "demo.factdesk"
    Project.create(path).close()
    with Project.open(path):  # the window of this process has it open
        code, _, err = run(capsys, "demo", "--no-window", "--reset", "--project", str(path))
        assert code == 2 and "open in FactDesk" in err
    holder = subprocess.Popen(  # another program has it open
        [
            sys.executable,
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute('SELECT 1 FROM settings').fetchall(); print('ready', flush=True); "
            "sys.stdin.read()",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        code, _, err = run(capsys, "demo", "--no-window", "--reset", "--project", str(path))
        assert code == 2 and "open in FactDesk" in err
    finally:
        holder.communicate("")
    with Project.open(path) as p:
        assert p.get_setting("taxonomy")  # still the same project


def test_eval_options_reach_the_evaluation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`factdesk eval --qa-only --data DIR` reads eval's own options (they were refused as
    unrecognised arguments before eval's parser saw them)."""
    assert main(["eval", "--qa-only", "--limit", "5", "--data", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "unrecognized" not in err and str(tmp_path / "none") in err


def test_eval_demo_only_scores_the_shipped_demo_and_probe_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`factdesk eval --demo-only` needs no shared data: the demo and probe tables, every pair."""
    import models.evaluation as evaluation

    monkeypatch.setattr(evaluation, "DEFAULT_WORK", tmp_path / "work")
    assert main(["eval", "--demo-only", "--checkers", "lexical", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    demo = result["demo"]["lexical"]
    assert demo["faithful"] + demo["unfaithful"] == 32 and 0.0 <= demo["auc"] <= 1.0
    probes = result["probes"]
    assert probes["pairs"] == 166 and probes["checkers"]["lexical"]["auc"] is not None
    assert main(["eval", "--demo-only", "--checkers", "lexical"]) == 0
    out = capsys.readouterr().out
    assert "Demo project" in out and "Probe set" in out and "Quality on held-out" not in out
