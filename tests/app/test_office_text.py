"""A Word or OpenDocument file given as a pair's text is read as its paragraphs."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from app.io.text_pair import read_text
from models.errors import InputError

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
T = 'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
OFFICE = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
D = 'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"'


def docx(path: Path, body: str) -> Path:
    """A .docx as Word lays one out: the body's paragraphs in word/document.xml."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", f"<w:document {W}><w:body>{body}</w:body></w:document>")
    return path


def odt(path: Path, body: str, mimetype: str = "application/vnd.oasis.opendocument.text") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", mimetype)
        z.writestr(
            "content.xml",
            f"<office:document-content {OFFICE} {T} {D}><office:body><office:text>{body}"
            "</office:text></office:body></office:document-content>",
        )
    return path


def run(text: str) -> str:
    return f"<w:r><w:t xml:space='preserve'>{text}</w:t></w:r>"


def test_a_word_document_reads_a_paragraph_a_line(tmp_path: Path) -> None:
    body = (
        f"<w:p>{run('Library turns 130')}</w:p>"
        f"<w:p>{run('It opened in 1896. ')}<w:r><w:rPr><w:b/></w:rPr><w:t>Work began in 1893.</w:t></w:r></w:p>"
        "<w:tbl><w:tr><w:tc><w:p>" + run("Cost") + "</w:p></w:tc>"
        "<w:tc><w:p>" + run("18,000 pounds") + "</w:p></w:tc></w:tr></w:tbl>"
        f"<w:p><w:r><w:t>Line one</w:t><w:br/><w:t>line two</w:t><w:tab/><w:t>tabbed</w:t></w:r></w:p>"
        # a tracked deletion is not in the text; an insertion is
        f"<w:p><w:del><w:r><w:delText>gone </w:delText></w:r></w:del><w:ins>{run('kept')}</w:ins></w:p>"
        "<w:p/>"
    )
    text = read_text(docx(tmp_path / "article.docx", body), "source")
    assert text == (
        "Library turns 130\nIt opened in 1896. Work began in 1893.\nCost\n18,000 pounds\n"
        "Line one\nline two\ttabbed\nkept"
    )


def test_a_text_box_is_a_paragraph_of_its_own(tmp_path: Path) -> None:
    box = (
        "<w:r><w:pict><w:txbxContent><w:p>" + run("In the box.") + "</w:p>"
        "</w:txbxContent></w:pict></w:r>"
    )
    text = read_text(docx(tmp_path / "b.docx", f"<w:p>{run('Around it.')}{box}</w:p>"), "source")
    assert sorted(text.split("\n")) == ["Around it.", "In the box."]


def test_an_opendocument_text_reads_its_spaces_and_leaves_its_notes(tmp_path: Path) -> None:
    body = (
        "<text:h>Ferry times</text:h>"
        "<text:p>Sails <text:span>twice</text:span> a day.<text:s text:c='3'/>Booking"
        "<text:note><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note>"
        " ahead.<text:line-break/>Second line<text:tab/>tab</text:p>"
        "<text:list><text:list-item><text:p>Item</text:p></text:list-item></text:list>"
    )
    text = read_text(odt(tmp_path / "f.odt", body), "output")
    assert text == "Ferry times\nSails twice a day.   Booking ahead.\nSecond line\ttab\nItem"


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: docx(p, "<w:p></w:p>"), "is a Word document with no text"),
        (
            lambda p: odt(
                p, "<text:p>x</text:p>", "application/vnd.oasis.opendocument.spreadsheet"
            ),
            "is a zip archive, and not a Word (.docx) or OpenDocument (.odt) text",
        ),
    ],
)
def test_documents_without_text_are_named(tmp_path: Path, make, said: str) -> None:  # type: ignore[no-untyped-def]
    f = make(tmp_path / "d.docx")
    with pytest.raises(InputError) as err:
        read_text(f, "source")
    assert said in err.value.reason and err.value.path == str(f)


def test_damaged_or_crafted_documents_are_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.docx"
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("word/document.xml", f"<w:document {W}><w:body><w:p>")
    with pytest.raises(InputError, match="not well-formed XML"):
        read_text(broken, "source")
    laughs = tmp_path / "laughs.docx"
    with zipfile.ZipFile(laughs, "w") as z:
        z.writestr(
            "word/document.xml",
            '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa">'
            '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            f"<w:document {W}><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>",
        )
    with pytest.raises(InputError, match="declares a document type"):
        read_text(laughs, "source")
    cut = tmp_path / "cut.docx"
    data = docx(tmp_path / "whole.docx", f"<w:p>{run('text')}</w:p>").read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="cannot be read as one"):
        read_text(cut, "source")
