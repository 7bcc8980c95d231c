"""One pair from plain text: a source and an output given as text files or as pasted text.

An editor with one article and one draft should not have to write a JSON Lines file first.
The texts are validated like an import's fields (not empty, no NUL, within the field limit) and
a file's problems are named with its line: text that is not UTF-8, a PDF, RTF or old Word file
given as text. A Word (.docx) or OpenDocument (.odt) file is read as its paragraphs, a line
each (:mod:`app.io.office_text`), and a web page saved as HTML as its article's text
(:mod:`app.io.html_text`). A plain file's line ends are how it was saved, not what it says:
"\\r\\n" and "\\r" are read as "\\n", and the line ends after its last text are dropped.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import sys
from pathlib import Path
from typing import IO

from app.io.html_text import html_text, looks_like_html
from app.io.office_text import DamagedDocument, NotADocument, NotAnArchive, document_text
from app.io.records import MAX_FIELD_CHARS, UTF16_BOMS, PairRecord, check_name, check_text
from models.errors import InputError

#: "-" names standard input.
STDIN = "-"
#: How a zip archive (a .docx or .odt document is one) begins.
ZIP = b"PK\x03\x04"
#: The largest Word or OpenDocument file read from standard input (a file is read in place).
MAX_DOCUMENT_BYTES = 512 * 2**20
#: The largest web page read: scripts and markup are most of a page's bytes.
MAX_PAGE_BYTES = 64 * 2**20
_CHARSET = re.compile(rb"<meta[^>]*charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.I)

# Files that are often taken for text, by their first bytes: what to say instead of decoding them.
_NOT_TEXT = (
    (b"%PDF-", "is a PDF file, not plain text"),
    (ZIP, "is a zip archive, and not a Word (.docx) or OpenDocument (.odt) text"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "is an old Word (.doc) or other Office file, not plain text",
    ),
    (b"{\\rtf", "is an RTF file, not plain text"),
)


def read_text(path: str | Path, role: str, *, limit: int = MAX_FIELD_CHARS) -> str:
    """The text of ``path`` (``"-"``: standard input) as the pair's ``role`` (source, output):
    a plain text (UTF-8, or UTF-16 with its byte-order mark), a Word (.docx) or OpenDocument
    (.odt) document's paragraphs, or a web page's article.

    Raises:
        InputError: naming the file (and the line, where there is one) when it cannot be read,
            is not plain UTF-8 text, is empty, holds a NUL character or is over ``limit``
            characters.
    """
    name = "standard input" if str(path) == STDIN else str(path)
    raw = _read_bytes(path, name, role, limit)
    if raw.startswith(ZIP):
        text = _document(path, raw, name, role)
        if text is not None:
            return check_text(text, role, limit=limit, path=name)
    if looks_like_html(raw):
        return check_text(_page(raw, name, role), role, limit=limit, path=name)
    if len(raw) > 4 * limit + len(codecs.BOM_UTF8):
        raise InputError(
            f"over the limit of {limit:,} characters for one text", path=name, field=role
        )
    for magic, what in _NOT_TEXT:
        if raw.startswith(magic):
            raise InputError(
                f"{what}: save the {role} as plain text (.txt, UTF-8) or as a .docx",
                path=name,
                field=role,
            )
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    # UTF-16 where its byte-order mark says so (Notepad's "Unicode", Excel's "Unicode Text")
    wide = raw[:2] in UTF16_BOMS
    try:
        text = raw.decode("utf-16" if wide else "utf-8")
    except UnicodeDecodeError as exc:
        if wide:
            raise InputError(
                f"invalid UTF-16 ({exc.reason}); save the file as UTF-8 and try again",
                path=name,
                field=role,
            ) from None
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"invalid UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}); save the file as "
            "UTF-8 and try again",
            path=name,
            line=line,
            field=role,
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(
            "contains a NUL character: is it a text file?", path=name, line=line, field=role
        )
    if not text.strip():
        raise InputError(
            "has no text (it is empty, or only spaces and line breaks)", path=name, field=role
        )
    return check_text(text, role, limit=limit, path=name)


def _document(path: str | Path, raw: bytes, name: str, role: str) -> str | None:
    """The text of a Word or OpenDocument file (None for another zip archive), read from the
    file itself (standard input: from what was read and the rest of it)."""
    if str(path) == STDIN:
        rest = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1 - len(raw))
        if len(raw) + len(rest) > MAX_DOCUMENT_BYTES:
            raise InputError(
                f"is a document over {MAX_DOCUMENT_BYTES // 2**20} MiB: give it as a file, or "
                "save its text as plain text",
                path=name,
                field=role,
            )
        source: str | Path | IO[bytes] = io.BytesIO(raw + rest)
    else:
        source = path
    try:
        kind, text = document_text(source)
    except NotADocument:
        return None
    except NotAnArchive as exc:
        raise InputError(
            f"begins as a zip archive (a .docx or .odt is one) but cannot be read as one "
            f"({exc}): is it cut short?",
            path=name,
            field=role,
        ) from None
    except DamagedDocument as exc:
        raise InputError(
            f"is a Word or OpenDocument file that cannot be read: {exc}", path=name, field=role
        ) from None
    if not text.strip():
        raise InputError(f"is {kind} with no text", path=name, field=role)
    return text


def _page(raw: bytes, name: str, role: str) -> str:
    """The readable text of a web page's bytes (:mod:`app.io.html_text`), decoded as UTF-8 or
    as the charset the page declares."""
    if len(raw) > MAX_PAGE_BYTES:
        raise InputError(
            f"is a web page over {MAX_PAGE_BYTES // 2**20} MiB: save its article as plain text",
            path=name,
            field=role,
        )
    raw = raw.removeprefix(codecs.BOM_UTF8)
    declared = _CHARSET.search(raw[:4096])
    charset = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        markup = raw.decode(charset)
    except LookupError:
        raise InputError(
            f"is a web page in the character set '{charset}', which cannot be read here: save "
            "it as UTF-8",
            path=name,
            field=role,
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"is a web page that is not valid {charset} (byte 0x{raw[exc.start]:02x} at byte "
            f"{exc.start + 1}): save it as UTF-8",
            path=name,
            field=role,
        ) from None
    text = html_text(markup)
    if not text.strip():
        raise InputError("is a web page with no text in it", path=name, field=role)
    return text


def _read_bytes(path: str | Path, name: str, role: str, limit: int) -> bytes:
    """At most what ``limit`` characters can take in UTF-8 (4 bytes each) or a web page
    (:data:`MAX_PAGE_BYTES`: its markup is many times its text), and a byte more."""
    cap = max(4 * limit + len(codecs.BOM_UTF8), MAX_PAGE_BYTES)
    if str(path) == STDIN:
        return sys.stdin.buffer.read(cap + 1)
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except IsADirectoryError:
        raise InputError(f"is a folder; give the {role} as a text file", path=name) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror}", path=name) from exc
    with fh:
        if stat.S_ISDIR(os.fstat(fh.fileno()).st_mode):
            raise InputError(f"is a folder; give the {role} as a text file", path=name)
        try:
            return fh.read(cap + 1)
        except OSError as exc:
            raise InputError(f"cannot read the file: {exc.strerror}", path=name) from exc


def text_record(
    source: str,
    output: str,
    *,
    pair_id: str | None = None,
    system: str | None = None,
    context: str | None = None,
    limit: int = MAX_FIELD_CHARS,
) -> PairRecord:
    """One pair as an import record (record 1 of its own "file"), its fields validated as an
    import's are: the texts not empty and within ``limit``, the id and system plain names.

    Raises:
        InputError: naming the field that cannot be used.
    """
    source = check_text(source, "source", limit=limit)
    output = check_text(output, "output", limit=limit)
    pair_id = check_name(pair_id or None, "id")
    system = check_name(system or None, "system")
    if context is not None and not context.strip():
        context = None
    if context is not None:
        context = check_text(context, "context", limit=limit)
    return PairRecord(1, pair_id, source, output, system, context, None)
