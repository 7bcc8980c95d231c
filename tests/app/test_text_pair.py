"""One pair from two plain texts: reading text files, the record, adding it (add, check)."""

from __future__ import annotations

import codecs
import io
import json
import sys
from pathlib import Path

import pytest

from app.analysis import analyze
from app.cli import main
from app.io.importer import add_pair, import_file
from app.io.text_pair import read_text, text_record
from app.store import Project
from models.errors import InputError
from models.registry import load_checker
from tests.conftest import write_jsonl

SOURCE = (
    "The Carrow Street Library first opened its doors on 12 October 1896. Construction began "
    "in 1893 and was paid for by the mill owner Samuel Carrow."
)
OUTPUT = "The Carrow Street Library opened in 1896. A mill owner paid for it."
OUT_TEXT = (
    "The museum closed in 1950.\n"
    "The Carrow Street Library first opened its doors on 12 October 1896."
)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_text_file_reads_as_its_text_whatever_its_line_ends(tmp_path: Path) -> None:
    crlf = write(tmp_path / "a.txt", codecs.BOM_UTF8 + b"First line.\r\nSecond line.\r\n\r\n")
    assert read_text(crlf, "source") == "First line.\nSecond line."
    old_mac = write(tmp_path / "b.txt", b"One.\rTwo.\r")
    assert read_text(old_mac, "output") == "One.\nTwo."
    # leading space and inner blank lines are the text's own
    kept = write(tmp_path / "c.txt", "  Indented.\n\nÉmile said so.\n".encode())
    assert read_text(kept, "source") == "  Indented.\n\nÉmile said so."
    # UTF-16 where its byte-order mark says so (Notepad's "Unicode", Excel's "Unicode Text")
    for codec in ("utf-16-le", "utf-16-be"):
        wide = write(tmp_path / "d.txt", "\ufeffÉmile said so.\r\nTwo.\r\n".encode(codec))
        assert read_text(wide, "source") == "Émile said so.\nTwo."


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"%PDF-1.7\n...", "is a PDF file, not plain text"),
        (b"PK\x03\x04rest", "begins as a zip archive (a .docx or .odt is one) but cannot"),
        (codecs.BOM_UTF16_LE + b"\x00\xd8", "invalid UTF-16"),
        (b"\n \n\t\n", "has no text"),
        (b"", "has no text"),
    ],
)
def test_a_file_that_is_not_plain_text_is_named_with_why(
    tmp_path: Path, data: bytes, said: str
) -> None:
    f = write(tmp_path / "draft.txt", data)
    with pytest.raises(InputError) as err:
        read_text(f, "output")
    assert err.value.path == str(f) and err.value.field == "output"
    assert said in err.value.reason


def test_bad_bytes_are_placed_by_line_and_column(tmp_path: Path) -> None:
    f = write(tmp_path / "latin1.txt", b"Line one.\nCaf" + b"\xe9 au lait.\n")
    with pytest.raises(InputError) as err:
        read_text(f, "source")
    assert (err.value.line, err.value.field) == (2, "source")
    assert "byte 0xe9 at column 4" in err.value.reason
    nul = write(tmp_path / "nul.txt", b"ok\nstill ok\nbad\x00here\n")
    with pytest.raises(InputError) as err:
        read_text(nul, "source")
    assert err.value.line == 3 and "NUL" in err.value.reason


def test_folders_missing_files_and_long_texts_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a folder"):
        read_text(tmp_path, "source")
    with pytest.raises(InputError, match="No such file"):
        read_text(tmp_path / "missing.txt", "source")
    long = write(tmp_path / "long.txt", b"word " * 100)
    with pytest.raises(InputError, match="over the limit of 50"):
        read_text(long, "source", limit=50)
    huge = write(tmp_path / "huge.txt", b"x" * 1000)  # past what 50 characters can take
    with pytest.raises(InputError, match="over the limit of 50"):
        read_text(huge, "source", limit=50)


def test_standard_input_is_read_as_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"From a pipe.\r\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert read_text("-", "output") == "From a pipe."


def test_the_record_checks_names_as_an_import_does() -> None:
    rec = text_record(SOURCE, OUTPUT, pair_id="p1", system="bot", context="  ")
    assert (rec.external_id, rec.system, rec.context) == ("p1", "bot", None)
    with pytest.raises(InputError) as err:
        text_record(SOURCE, OUTPUT, pair_id=" p1")
    assert err.value.field == "id" and "whitespace" in err.value.reason
    with pytest.raises(InputError) as err:
        text_record(SOURCE, OUTPUT, system="bot\x1b[31m")
    assert err.value.field == "system" and "control character" in err.value.reason
    with pytest.raises(InputError) as err:
        text_record("   ", OUTPUT)
    assert err.value.field == "source" and err.value.reason == "empty"


def test_adding_a_pair_twice_keeps_one_and_names_it(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p.factdesk") as p:
        first = add_pair(p, text_record(SOURCE, OUTPUT), "a.txt + b.txt")
        again = add_pair(p, text_record(SOURCE, OUTPUT, pair_id="other"), "pasted")
        assert first.added and not again.added
        assert again.external_id == first.external_id and again.output_id == first.output_id
        assert first.external_id.startswith("auto-") and p.count_pairs() == 1
        named = add_pair(p, text_record(SOURCE, OUTPUT, system="bot", pair_id="p1"), "x")
        assert named.added and named.external_id == "p1" and p.count_pairs() == 2
        # the same answer to a question is another pair, with an id of its own
        asked = add_pair(p, text_record(SOURCE, OUTPUT, context="When did it open?"), "y")
        assert asked.added and asked.external_id not in (first.external_id, "p1")
        again = add_pair(p, text_record(SOURCE, OUTPUT, context="When did it open?"), "z")
        assert not again.added and again.output_id == asked.output_id and p.count_pairs() == 3


def test_an_id_taken_by_other_texts_adds_nothing(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p.factdesk") as p:
        add_pair(p, text_record(SOURCE, OUTPUT, pair_id="p1"), "first")
        with pytest.raises(InputError) as err:
            add_pair(p, text_record(SOURCE, "Another output.", pair_id="p1"), "a.txt + c.txt")
        assert err.value.field == "id" and "another pair's" in err.value.reason
        assert p.count_pairs() == 1


def test_an_analysis_of_some_pairs_leaves_the_others(tmp_path: Path) -> None:
    src = write_jsonl(
        tmp_path / "two.jsonl",
        [
            {"id": "a", "source": SOURCE, "output": OUTPUT},
            {"id": "b", "source": SOURCE, "output": "It shut."},
        ],
    )
    with Project.create(tmp_path / "p.factdesk") as p:
        import_file(p, src)
        first, second = p.output_ids()
        report = analyze(p, [load_checker("lexical")], only=[second])
        assert report.checkers[0].scored == 1 and report.checkers[0].already_scored == 0
        again = analyze(p, [load_checker("lexical")])
        assert again.checkers[0].scored == 1  # the first pair, left by the first run


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def texts(tmp_path: Path) -> tuple[str, str]:
    src = tmp_path / "article.txt"
    src.write_text(SOURCE + "\n", encoding="utf-8")
    out = tmp_path / "summary.txt"
    out.write_text(OUT_TEXT + "\n", encoding="utf-8")
    return str(src), str(out)


def test_add_command_says_what_it_added(tmp_path: Path, texts: tuple[str, str], capsys) -> None:
    proj = str(tmp_path / "p.factdesk")
    cli(capsys, "new", proj)
    code, out, _ = cli(capsys, "add", proj, *texts, "--id", "lib-1", "--system", "bot")
    assert code == 0 and "added pair 'lib-1'" in out and "factdesk analyze" in out
    code, out, _ = cli(capsys, "add", proj, *texts, "--system", "bot", "--json")
    assert code == 0 and json.loads(out) == {
        "id": "lib-1",
        "added": False,
        "source_chars": len(SOURCE),
        "output_chars": len(OUT_TEXT),
    }
    code, _, err = cli(capsys, "add", proj, texts[0], texts[0], "--id", "lib-1", "--system", "bot")
    assert code == 2 and "field 'id'" in err and "nothing was added" in err
    code, _, err = cli(capsys, "add", proj, "-", "-")
    assert code == 2 and "only one of SOURCE and OUTPUT" in err
    code, _, err = cli(capsys, "add", proj, "", texts[1])
    assert code == 2 and "SOURCE argument is empty" in err


def test_check_prints_each_sentence_with_its_mark(
    tmp_path: Path, texts: tuple[str, str], capsys
) -> None:
    code, out, _ = cli(capsys, "check", *texts, "--checker", "lexical")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("lexical baseline: ")
    first = next(line for line in lines if "1. The museum closed in 1950." in line)
    second = next(line for line in lines if "2. The Carrow Street Library first" in line)
    assert first.lstrip().startswith("✗") and second.lstrip().startswith("✔")
    assert lines[0].endswith("flagged (below 0.50)")
    code, out, _ = cli(capsys, "check", *texts, "--checker", "lexical", "--json")
    record = json.loads(out)
    assert record["source"] == SOURCE and record["output"] == OUT_TEXT
    assert "lexical" in record["checkers"]


def test_check_keeps_the_pair_only_when_asked(
    tmp_path: Path, texts: tuple[str, str], capsys
) -> None:
    proj = tmp_path / "kept.factdesk"
    other = write_jsonl(tmp_path / "o.jsonl", [{"id": "x", "source": SOURCE, "output": "It shut."}])
    cli(capsys, "new", str(proj))
    cli(capsys, "import", str(proj), str(other))
    code, out, _ = cli(capsys, "check", *texts, "--checker", "lexical", "--project", str(proj))
    assert code == 0 and "kept as pair 'auto-" in out
    with Project.open(proj) as p:
        assert p.count_pairs() == 2
    # the pair checked was scored, the one already there was left for `analyze`
    code, out, _ = cli(capsys, "analyze", str(proj), "--checker", "lexical", "--json")
    assert json.loads(out)["scored"] == 1
    assert sorted(x.name for x in tmp_path.iterdir() if x.suffix == ".factdesk") == [
        "kept.factdesk"
    ]


def test_check_refuses_what_it_cannot_read(tmp_path: Path, texts: tuple[str, str], capsys) -> None:
    pdf = write(tmp_path / "article.pdf", b"%PDF-1.4 ...")
    code, _, err = cli(capsys, "check", str(pdf), texts[1], "--checker", "lexical")
    assert code == 2 and f"{pdf}, field 'source': is a PDF file" in err
    code, _, err = cli(capsys, "check", *texts, "--threshold", "1.5")
    assert code == 2 and "--threshold" in err


def test_check_without_a_project_leaves_no_file(
    tmp_path: Path, texts: tuple[str, str], capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    code, out, _ = cli(capsys, "check", *texts, "--checker", "lexical")
    assert code == 0 and "kept as pair" not in out
    # (the folder of open projects' names is every process's, kept for the next)
    assert [x.name for x in scratch.iterdir() if not x.name.startswith("factdesk-open")] == []


def test_check_exit_code_says_whether_the_pair_is_flagged(
    tmp_path: Path, texts: tuple[str, str], capsys
) -> None:
    code, _, _ = cli(capsys, "check", *texts, "--checker", "lexical", "--exit-code")
    assert code == 4  # "The museum closed in 1950." is not in the source
    src, _ = texts
    code, _, _ = cli(capsys, "check", src, src, "--checker", "lexical", "--exit-code")
    assert code == 0  # the source checked against itself
    code, _, _ = cli(capsys, "check", *texts, "--checker", "lexical")
    assert code == 0  # without the option, a check that ran is a success


def test_check_says_how_many_sentences_it_could_not_read(tmp_path: Path, capsys) -> None:
    src = tmp_path / "src.txt"
    src.write_text(SOURCE, encoding="utf-8")
    out = tmp_path / "out.txt"
    out.write_text(
        "The Carrow Street Library first opened its doors on 12 October 1896.\n"
        "La bibliothèque a ouvert ses portes le 12 octobre 1896, et les travaux avaient "
        "commencé en 1893 grâce au propriétaire du moulin.\n",
        encoding="utf-8",
    )
    code, printed, _ = cli(capsys, "check", str(src), str(out), "--checker", "lexical")
    lines = printed.splitlines()
    assert code == 0 and lines[0].endswith("; 1 sentence not checked (?)")
    assert "not checked: it reads as French, not English" in printed


def test_check_ranks_several_outputs_of_one_source(
    tmp_path: Path, texts: tuple[str, str], capsys
) -> None:
    src, flawed = texts
    faithful = tmp_path / "faithful.txt"
    faithful.write_text("The Carrow Street Library first opened its doors on 12 October 1896.")
    code, out, _ = cli(capsys, "check", src, flawed, str(faithful), "--checker", "lexical")
    assert code == 0
    lines = out.splitlines()
    # each output's findings under its file, then the ranking, most supported first
    assert lines[0] == f"== {flawed}" and f"== {faithful}" in lines
    assert lines.index(f"== {faithful}") > lines.index("  ✗  0.00  1. The museum closed in 1950.")
    ranking = lines[lines.index("the outputs by lexical baseline, most supported first:") :]
    assert ranking[1].startswith("  1. ✔") and ranking[1].endswith(f"{faithful} (supported)")
    assert ranking[2].startswith("  2. ✗") and ranking[2].endswith(f"{flawed} (flagged)")
    code, _, _ = cli(
        capsys, "check", src, str(faithful), flawed, "--checker", "lexical", "--exit-code"
    )
    assert code == 4  # one flagged output is enough
    code, out, _ = cli(
        capsys, "check", src, str(faithful), flawed, "--checker", "lexical", "--json"
    )
    records = json.loads(out)
    # one record an output, in the order given, each output's file name as its system
    assert [(r["output"], r["system"]) for r in records] == [
        (faithful.read_text(), "faithful.txt"),
        (OUT_TEXT, "summary.txt"),
    ]


def test_check_of_several_outputs_reads_every_file_first(
    tmp_path: Path, texts: tuple[str, str], capsys
) -> None:
    src, out = texts
    proj = tmp_path / "kept.factdesk"
    code, _, err = cli(
        capsys, "check", src, out, str(tmp_path / "gone.txt"), "--project", str(proj)
    )
    assert code == 2 and "gone.txt: cannot read the file" in err
    assert not proj.exists()  # nothing was checked, nothing kept
    code, _, err = cli(capsys, "check", src, out, out, "--checker", "lexical")
    assert code == 2 and f"OUTPUT {out} is given twice" in err
    code, _, err = cli(capsys, "check", "-", out, "-", "--checker", "lexical")
    assert code == 2 and "only one of SOURCE and OUTPUT" in err
    code, printed, _ = cli(
        capsys, "check", src, out, src, "--checker", "lexical", "--project", str(proj)
    )
    assert code == 0 and "kept as pairs 'auto-" in printed
    with Project.open(proj) as p:
        assert p.count_pairs() == 2


def test_add_takes_several_outputs_of_one_source(
    tmp_path: Path, texts: tuple[str, str], capsys
) -> None:
    src, out = texts
    other = tmp_path / "other.txt"
    other.write_text("The library opened in 1896.")
    proj = str(tmp_path / "p.factdesk")
    cli(capsys, "new", proj)
    code, _, err = cli(capsys, "add", proj, src, out, str(other), "--id", "x")
    assert code == 2 and "--id names one pair" in err
    code, printed, _ = cli(capsys, "add", proj, src, out, str(other), "--json")
    rows = json.loads(printed)
    assert code == 0 and [r["added"] for r in rows] == [True, True]
    with Project.open(proj) as p:
        systems = p.systems()
    assert systems == ["other.txt", "summary.txt"]  # each output's file name tells them apart
    # again, with one new file: only that one is added, the others are named
    third = tmp_path / "third.txt"
    third.write_text("Samuel Carrow paid for the library.")
    code, printed, _ = cli(capsys, "add", proj, src, out, str(third))
    lines = printed.splitlines()
    assert lines[0].startswith(f"not added ({out}): the project has these texts already")
    assert lines[1].startswith("added pair 'auto-") and f"({third})" in lines[1]
    assert lines[2] == f"'factdesk analyze {proj}' scores it"


def test_outputs_that_share_a_file_name_keep_their_paths(
    tmp_path: Path, texts: tuple[str, str], capsys
) -> None:
    src, out = texts
    (tmp_path / "b").mkdir()
    same_name = tmp_path / "b" / "summary.txt"
    same_name.write_text("The library opened in 1896.")
    code, printed, _ = cli(
        capsys, "check", src, out, str(same_name), "--checker", "lexical", "--json"
    )
    assert code == 0 and [r["system"] for r in json.loads(printed)] == [out, str(same_name)]


def test_check_marks_a_conflict_whichever_checker_is_shown(tmp_path: Path, capsys) -> None:
    """The question-based check's conflict is marked on its sentence and counted in the verdict
    (as the window's badge marks it) even where the shown score passes the sentence."""
    src = tmp_path / "src.txt"
    src.write_text("Ines Volkova proposed the plan. Tomas Reyes opposed it.", encoding="utf-8")
    out = tmp_path / "out.txt"
    out.write_text("Tomas Reyes proposed the plan.", encoding="utf-8")
    argv = ["check", str(src), str(out), "--checker", "questions", "--checker", "lexical"]
    code, printed, _ = cli(capsys, *argv)
    lines = printed.splitlines()
    assert code == 0 and lines[0].startswith("lexical baseline: 0.67, supported")
    assert lines[0].endswith("; 1 sentence where the source gives a name or figure otherwise (⚠)")
    assert lines[1].startswith("  ✔⚠ 0.67  1. Tomas Reyes proposed the plan.")
    # a pair without conflicts says nothing of them
    out.write_text("Ines Volkova proposed the plan.", encoding="utf-8")
    code, printed, _ = cli(capsys, *argv)
    assert "⚠" not in printed and printed.splitlines()[1].startswith("  ✔  1.00  1.")


def test_check_names_the_closest_source_sentence_of_a_flagged_sentence(
    tmp_path: Path, capsys
) -> None:
    """A flagged sentence that no finding ties to a source sentence is printed with the one
    that matches it best (the window's ▸1), so the editor can read the two side by side; a
    sentence sharing no words with the source, or one that passes, gets none."""
    src = tmp_path / "src.txt"
    src.write_text(SOURCE, encoding="utf-8")
    out = tmp_path / "out.txt"
    out.write_text(
        "The museum closed in 1950.\nSamuel Carrow, who owned a mill, funded the building work.\n"
        "The Carrow Street Library first opened its doors on 12 October 1896.",
        encoding="utf-8",
    )
    code, printed, _ = cli(capsys, "check", str(src), str(out), "--checker", "lexical")
    lines = printed.splitlines()
    closest = [k for k, line in enumerate(lines) if "closest in the source" in line]
    assert code == 0 and len(closest) == 1
    assert lines[closest[0]].strip() == (
        "closest in the source: sentence 2: “Construction began in 1893 and was paid for by "
        "the mill owner Samuel Carrow.”"
    )
    owner = next(k for k, line in enumerate(lines) if "2. Samuel Carrow" in line)
    library = next(k for k, line in enumerate(lines) if "3. The Carrow Street" in line)
    assert owner < closest[0] < library and lines[owner].lstrip().startswith("✗")
