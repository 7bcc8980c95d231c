"""The audit report: one self-contained HTML file, every section, escaped text, CLI."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from app.analysis import analyze
from app.audit.report import SECTIONS, Section, render
from app.cli import main
from app.io.importer import import_file
from app.store import Project
from app.store.judging import JudgmentKey, JudgmentValue
from models.registry import load_checker
from tests.app.test_familiarity import PAIRS
from tests.conftest import write_jsonl

HOSTILE = '<script>alert("x")</script><img src="http://example.com/x.png">'


def build(tmp_path: Path, *, judged: bool = True) -> Path:
    records = [dict(p) for p in PAIRS]
    records[1]["system"] = "<i>sys-b</i>"
    path = tmp_path / "audit.factdesk"
    with Project.create(path) as project:
        import_file(project, write_jsonl(tmp_path / "audit.jsonl", records))
        analyze(project, [load_checker("lexical")])
        if judged:
            (sent,) = project.sentences(output_id=3)
            project.judge(
                JudgmentKey(3, "sentence", sentence_id=sent.id),
                JudgmentValue("unsupported", "reject", "nonfactual", note=HOSTILE),
            )
            project.judge(JudgmentKey(1), JudgmentValue("supported", "accept"))
            project.judge(JudgmentKey(4, aspect="flag"), JudgmentValue("malformed"))
    return path


def test_report_is_one_self_contained_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project = build(tmp_path)
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "report.html"
    assert main(["report", str(project), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == str(out)
    assert [p.name for p in folder.iterdir()] == ["report.html"]  # nothing beside it
    text = out.read_text(encoding="utf-8")
    # no reference to anything outside the file
    assert "<link" not in text and "<script" not in text and "@import" not in text
    assert "url(" not in text and "<iframe" not in text
    srcs = re.findall(r'src="([^"]*)"', text)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert all(h.startswith("#") for h in re.findall(r'href="([^"]*)"', text))
    for src in srcs:  # every figure is a real PNG
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for section in (
        "counts",
        "checkers",
        "scores",
        "agreement",
        "errors",
        "familiarity",
        "flagged",
    ):
        assert f'<section id="{section}">' in text, section
    # text from data is escaped everywhere
    assert HOSTILE not in text and "example.com" in text
    assert html_escaped(HOSTILE) in text
    assert "<i>sys-b</i>" not in text and "&lt;i&gt;sys-b&lt;/i&gt;" in text
    # the flagged list carries its evidence; the familiarity section its unfamiliar description
    assert "FIFA President" in text and "▸1" in text and "malformed" in text
    assert "▸1 ● Thomas Bach, the German lawyer, met Angela Merkel in Berlin." in text


def html_escaped(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def test_sections_without_data_are_left_out(tmp_path: Path) -> None:
    with Project.open(build(tmp_path, judged=False)) as project:
        text = render(project)
    assert '<section id="agreement">' not in text and '<section id="errors">' not in text
    assert '<section id="familiarity">' in text and '<section id="flagged">' in text


def test_a_section_is_one_function(tmp_path: Path) -> None:
    def extra(ctx) -> Section | None:  # type: ignore[no-untyped-def]
        return Section("calibration", "Calibration <b>", f"<p>{len(ctx.bundles)} pairs</p>")

    with Project.open(build(tmp_path, judged=False)) as project:
        text = render(project, sections=[*SECTIONS[:1], extra, lambda _c: None])
    assert '<section id="calibration"><h2>Calibration &lt;b&gt;</h2><p>4 pairs</p>' in text
    assert '<section id="checkers">' not in text


def test_report_refuses_bad_targets(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project = build(tmp_path, judged=False)
    assert main(["report", str(project), str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert main(["report", str(project), str(project)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["report", str(project), str(tmp_path / "missing" / "r.html")]) == 2
    assert not (tmp_path / "missing").exists()


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(chromium() is None, reason="no chromium binary (apt-get install chromium)")
def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    project = build(tmp_path)
    out = tmp_path / "report.html"
    assert main(["report", str(project), str(out)]) == 0
    png = tmp_path / "shot.png"
    browser = chromium()
    assert browser is not None
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--screenshot={png}",
            "--window-size=1280,2000",
            out.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    from PIL import Image

    with Image.open(png) as img:
        assert img.size == (1280, 2000)
        colours = img.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is not None and len(colours) > 50  # drawn, not a blank page


def test_pairs_not_checked_are_named_with_why(tmp_path: Path) -> None:
    """A pair analysis left out (its output is German) is in no score or flag: the report
    names it and says why, and says nothing of the kind when every pair was checked."""
    german = {
        "id": "de-1",
        "source": "The council of Bremen elected Andreas Bovenschulte as mayor in 2023.",
        "output": "Bremen wählte 2023 Andreas Bovenschulte zum Bürgermeister, der seit vielen "
        "Jahren in der Stadt lebt.",
    }
    path = tmp_path / "de.factdesk"
    with Project.create(path) as project:
        import_file(project, write_jsonl(tmp_path / "de.jsonl", [PAIRS[0], german]))
        analyze(project, [load_checker("lexical")])
        text = render(project)
    assert "<h3>Pairs not checked</h3><p>1 pair was not checked by" in text
    assert "<td>de-1</td>" in text and "the output reads as German, not English" in text
    with Project.open(build(tmp_path, judged=False)) as project:
        assert "Pairs not checked" not in render(project)


def test_a_flagged_bare_answer_lists_the_evidence_for_its_question(tmp_path: Path) -> None:
    """ "No." shares no words with the source; its evidence is found through its question, as
    the window shows it."""
    record = {
        "id": "qa1",
        "system": "qa-bot",
        "context": "Question: Do foot passengers need to book the ferry in advance?",
        "source": "The ferry sails twice a day. Vehicles must be booked in advance, but foot "
        "passengers can buy tickets at the terminal. Children travel free.",
        "output": "No.",
    }
    path = tmp_path / "qa.factdesk"
    with Project.create(path) as project:
        import_file(project, write_jsonl(tmp_path / "qa.jsonl", [record]))
        analyze(project, [load_checker("lexical")])
        (sent,) = project.sentences(output_id=1)
        project.judge(
            JudgmentKey(1, "sentence", sentence_id=sent.id), JudgmentValue("unsupported", "reject")
        )
    out = tmp_path / "qa.html"
    assert main(["report", str(path), str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    flagged = text[text.index('<section id="flagged">') :]
    assert "<li>▸1" in flagged and "foot passengers can buy tickets" in flagged
    assert "no source sentence shares its words" not in flagged
