"""Import: defaults, duplicates, idempotence, and every bad-input case named in the issue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.io.importer import import_file
from app.io.records import FieldMapping
from app.store import Project
from models.errors import InputError
from tests.conftest import PAIRS, write_jsonl


def test_jsonl_import_with_default_fields(project: Project, pairs_file: Path) -> None:
    report = import_file(project, pairs_file)
    assert report.imported == 3 and not report.duplicates and not report.skipped
    rows = project.pair_rows()
    assert [r.external_id for r in rows] == ["p1", "p2", "p3"]
    out, src = project.pair(rows[2].output_id)
    assert out.context == "Summarise the news." and out.system == "sys-a"
    assert src.text.startswith("Shares of Acme")


def test_reimport_is_idempotent_and_duplicates_reported(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    again = import_file(project, pairs_file)
    assert again.imported == 0
    assert [d.id for d in again.duplicates] == ["p1", "p2", "p3"]
    assert project.count_pairs() == 3


def test_duplicates_by_content_hash_without_id(project: Project, tmp_path: Path) -> None:
    rec = {"document": "A cat sat.", "summary": "A cat sat down."}
    path = write_jsonl(tmp_path / "noid.jsonl", [rec, rec, {**rec, "summary": "A dog sat."}])
    report = import_file(project, path)
    assert report.imported == 2 and len(report.duplicates) == 1 and report.duplicates[0].line == 2
    assert import_file(project, path).imported == 0


def test_sources_are_shared_between_outputs(project: Project, pairs_file: Path) -> None:
    import_file(project, pairs_file)
    assert project.stats()["sources"] == 2


def test_csv_and_tsv_with_mapping(project: Project, tmp_path: Path) -> None:
    csv_path = tmp_path / "pairs.csv"
    csv_path.write_text(
        'key,article,claim,model\nk1,"Text, with comma.",Claim one.,m1\n', encoding="utf-8"
    )
    tsv_path = tmp_path / "pairs.tsv"
    tsv_path.write_text("doc\tresponse\tid\nSome doc.\tSome response.\tt1\n", encoding="utf-8")
    assert import_file(project, csv_path, mapping=FieldMapping(id="key")).imported == 1
    assert import_file(project, tsv_path).imported == 1
    rows = project.pair_rows()
    assert [r.external_id for r in rows] == ["k1", "t1"] and rows[0].system == "m1"


def assert_error(
    project: Project, path: Path, line: int | None, field: str | None, text: str, **kw
) -> None:
    with pytest.raises(InputError) as info:
        import_file(project, path, **kw)
    err = info.value
    assert err.path == str(path) and err.line == line and err.field == field
    assert text in str(err) and str(path) in str(err)
    assert project.count_pairs() == 0, "nothing of a bad file may be imported"


def test_csv_separated_by_semicolons_as_excel_writes_it(project: Project, tmp_path: Path) -> None:
    """Where the comma is the decimal mark Excel separates CSV fields with semicolons; read
    with commas, the header was one field 'id;source;output' and every record failed."""
    path = tmp_path / "excel.csv"
    path.write_bytes(
        "\ufeffid;source;output\r\n"
        '1;"The council approved a budget; the mayor spoke.";The council approved it.\r\n'
        "2;The bridge opened in 1999, in May.;The bridge opened in 1998.\r\n".encode()
    )
    assert import_file(project, path).imported == 2
    texts = {
        r.external_id: (src.text, out.text)
        for r in project.pair_rows()
        for out, src in [project.pair(r.output_id)]
    }
    assert texts["1"] == (
        "The council approved a budget; the mayor spoke.",
        "The council approved it.",
    )
    assert texts["2"][0] == "The bridge opened in 1999, in May."
    commas = tmp_path / "commas.csv"  # a semicolon inside a quoted header name: still commas
    commas.write_text('"note; kept",source,output\nx,A source.,An output.\n', encoding="utf-8")
    assert import_file(project, commas).imported == 1


def test_a_utf16_table_reads_as_its_text(project: Project, tmp_path: Path) -> None:
    # Excel's "Unicode Text" is UTF-16 with a byte-order mark, tab-separated, CRLF line ends
    for n, codec in enumerate(("utf-16-le", "utf-16-be")):
        path = tmp_path / f"excel{n}.tsv"
        text = f"\ufeffid\tsource\toutput\r\nw{n}\tÉmile opened the café in 199{n}.\tÉmile did.\r\n"
        path.write_bytes(text.encode(codec))
        assert import_file(project, path).imported == 1
    texts = {
        r.external_id: (src.text, out.text)
        for r in project.pair_rows()
        for out, src in [project.pair(r.output_id)]
    }
    assert texts == {f"w{n}": (f"Émile opened the café in 199{n}.", "Émile did.") for n in (0, 1)}


def test_a_sheet_saved_as_text_reads_as_tab_separated(project: Project, tmp_path: Path) -> None:
    # Excel saves "Unicode Text" and "Text (Tab delimited)" as .txt
    sheet = tmp_path / "sheet.txt"
    sheet.write_bytes("\ufeffsource\toutput\r\nA source.\tAn output.\r\n".encode("utf-16-le"))
    assert import_file(project, sheet).imported == 1
    prose = tmp_path / "notes.txt"
    prose.write_text("Just some notes, with no tabs.\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        import_file(project, prose)
    assert "cannot tell the format" in err.value.reason and err.value.path == str(prose)
    assert "--format" in err.value.reason and "import dialog" in err.value.reason
    assert project.count_pairs() == 1


def test_invalid_utf16_is_placed_by_line(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "broken.tsv"
    good = "\ufeffsource\toutput\nA source.\tAn output.\n".encode("utf-16-le")
    path.write_bytes(good + b"\x00\xd8")  # a lone surrogate on line 3
    assert_error(project, path, 3, None, "invalid UTF-16")


def test_invalid_utf8(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(
        json.dumps(PAIRS[0]).encode() + b"\n" + b'{"source": "caf\xe9", "output": "x"}\n'
    )
    assert_error(project, path, 2, None, "invalid UTF-8")


def test_malformed_json(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(PAIRS[0]) + "\n" + '{"source": "a", "output": \n', encoding="utf-8")
    assert_error(project, path, 2, None, "malformed JSON")


def test_json_record_cut_short_says_so_rather_than_pointing_past_its_line(
    project: Project, tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"source": "a", "output": "b"\n{"source": "a" "output": "b"}\n', "utf-8")
    report = import_file(project, path, skip_invalid=True)
    assert [p.line for p in report.skipped] == [1, 2]
    assert "ends before its object does" in report.skipped[0].reason
    assert report.skipped[1].reason.endswith("at column 16")  # where the comma was wanted


def test_every_invalid_record_is_named_at_once(project: Project, tmp_path: Path) -> None:
    """A file with several bad records is fixed in one pass: the error names all of them."""
    path = tmp_path / "bad.jsonl"
    bad = [json.dumps({"source": "s", "output": ""}), "{not json", json.dumps({"output": "x"})]
    path.write_text("\n".join([json.dumps(PAIRS[0]), *bad, json.dumps(PAIRS[1])]) + "\n", "utf-8")
    with pytest.raises(InputError) as info:
        import_file(project, path)
    err = info.value
    assert (err.line, err.field) == (2, "output")
    assert [(o.path, o.line, o.field) for o in err.also] == [
        (str(path), 3, None),
        (str(path), 4, "source"),
    ]
    assert project.count_pairs() == 0


def test_json_line_that_is_not_an_object(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(PAIRS[0]) + "\n[1, 2]\n", encoding="utf-8")
    assert_error(project, path, 2, None, "expected a JSON object")


def test_malformed_csv_unterminated_quote(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text('source,output\n"ok","fine"\n"broken,"never closed\n', encoding="utf-8")
    assert_error(project, path, 3, None, "malformed CSV")


def test_csv_row_with_wrong_column_count(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("source,output\na,b\nc,d,e\n", encoding="utf-8")
    assert_error(project, path, 3, None, "3 columns where the header has 2")


def test_missing_field(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [PAIRS[0], {"id": "x", "source": "Only a source."}])
    assert_error(project, path, 2, "output", "no output field")


def test_empty_field(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [PAIRS[0], {"source": "A source.", "output": "   "}])
    assert_error(project, path, 2, "output", "empty")


def test_wrong_type(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [{"source": ["a", "list"], "output": "x"}])
    assert_error(project, path, 1, "source", "expected text, found list")


def test_five_megabyte_field(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "big.jsonl", [PAIRS[0], {"source": "word " * 1_000_000, "output": "x"}]
    )
    assert_error(project, path, 2, "source", "over the limit")
    # the user can raise the limit explicitly: then it imports whole, never truncated
    report = import_file(project, path, max_field_chars=6_000_000)
    assert report.imported == 2
    _, src = project.pair(project.pair_rows()[1].output_id)
    assert len(src.text) == 5_000_000


def test_duplicate_ids_within_a_file(project: Project, tmp_path: Path) -> None:
    # the same id and system is a duplicate; the same id from another system is another pair
    same = {**PAIRS[1], "id": "p1", "system": PAIRS[0]["system"]}
    path = write_jsonl(tmp_path / "dup.jsonl", [PAIRS[0], same, {**PAIRS[1], "id": "p1"}])
    report = import_file(project, path)
    assert report.imported == 2
    assert [(d.line, d.id) for d in report.duplicates] == [(2, "p1")]


def test_empty_file(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    assert_error(project, path, None, None, "no records")


def test_unknown_suffix(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "pairs.xml"
    path.write_text("<x/>", encoding="utf-8")
    assert_error(project, path, None, None, "--format")


def test_skip_invalid_imports_the_rest_and_reports_each(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = [
        json.dumps(PAIRS[0]),
        "{not json",
        json.dumps({"source": "s", "output": ""}),
        json.dumps(PAIRS[2]),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = import_file(project, path, skip_invalid=True)
    assert report.imported == 2
    assert [(p.line, p.field) for p in report.skipped] == [(2, None), (3, "output")]
    assert "malformed JSON" in report.skipped[0].reason


def test_optional_fields_resolved_per_record(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", [PAIRS[0], PAIRS[2]])
    import_file(project, path)
    out, _ = project.pair(project.pair_rows()[1].output_id)
    assert out.context == "Summarise the news."
