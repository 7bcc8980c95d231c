"""The text of a Word (.docx) or OpenDocument (.odt) file, a paragraph a line.

Editors keep drafts and articles in word processors; asking them to save a copy as plain text
first is a step they trip over. Both formats are zip archives holding the body as XML, read
here with the standard library: each paragraph (headings, list items and table cells are
paragraphs too) becomes a line, a tab a tab, a manual line break a line break. Deleted tracked
changes, field codes, comments and footnotes are not in the body's text runs, so they are not
read; inserted tracked changes are. Caps keep a crafted file from filling the memory: the
body's XML is read up to :data:`MAX_XML_BYTES`, and a document type declaration (what entity
expansion needs; Word and LibreOffice never write one) is refused.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import IO
from xml.etree import ElementTree

#: The most bytes of body XML read from one document (its markup is many times its text).
MAX_XML_BYTES = 256 * 2**20

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_T = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_ODT_MIME = b"application/vnd.oasis.opendocument.text"


class NotADocument(Exception):
    """The bytes are a zip archive, but not a Word or OpenDocument text document."""


class NotAnArchive(Exception):
    """The bytes begin as a zip archive's do, but no archive can be read from them."""


class DamagedDocument(Exception):
    """The archive is a document whose body cannot be read; the message says why."""


def document_text(file: str | Path | IO[bytes]) -> tuple[str, str]:
    """(kind, text) of a .docx or .odt file (a path, or its bytes as a binary file): kind
    names the format for messages.

    Raises:
        NotAnArchive: no zip archive can be read (cut short, or not one at all).
        NotADocument: another zip archive (say, a spreadsheet or a folder zipped).
        DamagedDocument: a document whose archive or body XML cannot be read.
    """
    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise NotAnArchive(str(exc)) from None
    try:
        with archive:
            names = set(archive.namelist())
            if "word/document.xml" in names:
                return "a Word document", _paragraphs(_body(archive, "word/document.xml"), "word")
            if "content.xml" in names and _mimetype(archive, names) == _ODT_MIME:
                return "an OpenDocument text", _paragraphs(_body(archive, "content.xml"), "odt")
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise DamagedDocument(f"its archive cannot be read ({exc})") from None
    raise NotADocument


def _mimetype(archive: zipfile.ZipFile, names: set[str]) -> bytes:
    return archive.read("mimetype").strip() if "mimetype" in names else b""


def _body(archive: zipfile.ZipFile, member: str) -> ElementTree.Element:
    with archive.open(member) as fh:
        xml = fh.read(MAX_XML_BYTES + 1)
    if len(xml) > MAX_XML_BYTES:
        raise DamagedDocument(f"its body is over {MAX_XML_BYTES // 2**20} MiB of XML")
    if b"<!DOCTYPE" in xml[:4096] or b"<!ENTITY" in xml:
        raise DamagedDocument("its body declares a document type, which documents never do")
    try:
        return ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise DamagedDocument(f"its body is not well-formed XML ({exc})") from None


def _paragraphs(root: ElementTree.Element, kind: str) -> str:
    """The document's paragraphs, one a line, in document order (a paragraph inside another,
    in a text box, comes after the one that holds it)."""
    if kind == "word":
        paragraphs, read = list(root.iter(f"{_W}p")), _word_text
    else:
        notes = {id(e) for note in root.iter(f"{_T}note") for e in note.iter()}
        paragraphs = [
            e for e in root.iter() if e.tag in (f"{_T}p", f"{_T}h") and id(e) not in notes
        ]
        read = _odt_text
    try:
        lines = [read(p).rstrip() for p in paragraphs]
    except RecursionError:
        raise DamagedDocument("its body is nested too deeply to read") from None
    return "\n".join(lines).strip("\n")


def _word_text(paragraph: ElementTree.Element) -> str:
    """A Word paragraph's text: its runs' text, tabs and breaks, not its nested paragraphs'."""
    pieces: list[str] = []

    def walk(element: ElementTree.Element) -> None:
        for child in element:
            tag = child.tag
            if tag == f"{_W}p":
                continue  # a text box's paragraph: read as a paragraph of its own
            if tag == f"{_W}t":
                pieces.append(child.text or "")
            elif tag == f"{_W}tab":
                pieces.append("\t")
            elif tag in (f"{_W}br", f"{_W}cr"):
                pieces.append("\n")
            elif tag == f"{_W}noBreakHyphen":
                pieces.append("-")
            else:
                walk(child)

    walk(paragraph)
    return "".join(pieces)


def _odt_text(paragraph: ElementTree.Element) -> str:
    """An OpenDocument paragraph's text: its own and its spans' and links', with its spaces
    (``text:s``), tabs and line breaks; not its notes' or frames'."""
    pieces: list[str] = []

    def walk(element: ElementTree.Element) -> None:
        pieces.append(element.text or "")
        for child in element:
            tag = child.tag
            if tag == f"{_T}s":
                count = child.get(f"{_T}c", "1")
                pieces.append(" " * min(int(count), 100) if count.isdigit() else " ")
            elif tag == f"{_T}tab":
                pieces.append("\t")
            elif tag == f"{_T}line-break":
                pieces.append("\n")
            elif tag in (f"{_T}span", f"{_T}a"):
                walk(child)
            # notes, frames and other objects say nothing in this paragraph's line
            pieces.append(child.tail or "")

    walk(paragraph)
    return "".join(pieces)
