"""Reading JSONL, CSV and TSV into validated pair records, with file/line/field errors."""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import itertools
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO, Literal, get_args

from app.io.restore import ANALYSIS_FIELDS, Analysis, AnalysisError, parse_analysis
from app.terminal import bad_character
from models.errors import InputError, gathered

Format = Literal["jsonl", "csv", "tsv"]
FORMATS: tuple[Format, ...] = get_args(Format)

SOURCE_FIELDS = ("source", "document", "article", "grounding", "doc")
OUTPUT_FIELDS = ("output", "summary", "claim", "response", "hypothesis", "summ")
ID_FIELDS = ("id",)
SYSTEM_FIELDS = ("system", "model", "model_name", "model_id")
CONTEXT_FIELDS = ("context", "question", "query")
MAX_FIELD_CHARS = 1_000_000
# A file is read a line at a time and refused at these caps, so an endless stream (/dev/zero, a
# file with no line ends) never fills the memory. A record is one line: its text fields, the
# analysis a FactDesk export carries (sentences, arcs, scores) and JSON's escapes fit in 64 MiB
# at the default field limit. Every record of an import is held until it is written, so one
# import reads at most 1 GiB; `factdesk score` takes larger corpora in parts.
MAX_LINE_BYTES = 64 * 2**20
MAX_FILE_BYTES = 2**30


@dataclass(frozen=True)
class FieldMapping:
    """Which input field holds what; None means: the first default name present."""

    source: str | None = None
    output: str | None = None
    id: str | None = None
    system: str | None = None
    context: str | None = None


DEFAULT_MAPPING = FieldMapping()


@dataclass(frozen=True)
class PairRecord:
    line: int
    external_id: str | None
    source: str
    output: str
    system: str | None
    context: str | None
    meta: dict[str, Any] | None
    analysis: Analysis | None = None

    @cached_property
    def content_hash(self) -> str:
        return content_hash(self.source, self.output)

    @cached_property
    def source_hash(self) -> str:
        return text_hash(self.source)


@dataclass
class Problem:
    """A record that was not imported, and why."""

    line: int
    field: str | None
    reason: str
    id: str | None = None
    #: a duplicate id whose pair in the project has another source or output
    conflict: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "field": self.field, "reason": self.reason, "id": self.id}


@dataclass
class ReadResult:
    records: list[PairRecord] = field(default_factory=list)
    invalid: list[Problem] = field(default_factory=list)


# The project stores one id per pair (unique), while a file may hold one output per system for
# each document id. An id that another system's pair already holds is stored as "id@system".
SYSTEM_SEP = "@"


def stored_id(external_id: str, system: str | None) -> str:
    """The id under which a pair is stored when its own id is taken by another system's pair."""
    return f"{external_id}{SYSTEM_SEP}{system or ''}"


def logical_id(stored: str, system: str | None) -> str:
    """The id a pair was imported with, from its stored id and its system.

    The importer never stores an id that ends with ``@<its system>`` plainly (it stores such an
    id as ``id@system`` too), so stripping one suffix is exact.
    """
    suffix = SYSTEM_SEP + (system or "")
    if stored.endswith(suffix) and len(stored) > len(suffix):
        return stored[: -len(suffix)]
    return stored


def content_hash(source: str, output: str) -> str:
    digest = hashlib.sha1()
    digest.update(source.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(output.encode("utf-8"))
    return digest.hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def guess_format(path: Path) -> Format:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    if suffix == ".txt" and _first_line_has_tab(path):
        return "tsv"  # a sheet saved as text (Excel's "Unicode Text", "Text (Tab delimited)")
    raise InputError(
        f"cannot tell the format from the suffix '{suffix}'; choose jsonl, csv or tsv "
        "(--format on the command line, Format in the window's import dialog)",
        path=str(path),
    )


def _first_line_has_tab(path: Path) -> bool:
    """Whether the file's first line (read as an import reads it) holds a tab."""
    lines = _lines(path, MAX_LINE_BYTES, MAX_FILE_BYTES)
    try:
        first = next(lines, None)
    finally:
        lines.close()
    return first is not None and "\t" in first[1]


def parse_format(value: str | None) -> Format | None:
    """A format name (from a user's choice) as a :data:`Format`; None stays None (guess it).

    Raises:
        ValueError: for a name that is not one of :data:`FORMATS`.
    """
    if value is None:
        return None
    for fmt in FORMATS:
        if value == fmt:
            return fmt
    raise ValueError(f"unknown input format {value!r}; expected one of {', '.join(FORMATS)}")


def read_pairs(
    path: str | Path,
    *,
    fmt: Format | None = None,
    mapping: FieldMapping = DEFAULT_MAPPING,
    skip_invalid: bool = False,
    max_field_chars: int = MAX_FIELD_CHARS,
    max_line_bytes: int | None = None,
    max_file_bytes: int | None = None,
) -> ReadResult:
    """Read and validate every record of a file.

    Args:
        path: the file (a pipe or device too: it is read as a stream).
        fmt: jsonl, csv or tsv; guessed from the suffix when None.
        mapping: field names; defaults are tried in order when a name is None.
        skip_invalid: collect invalid records in ``invalid`` instead of raising.
        max_field_chars: longest text field accepted.
        max_line_bytes: longest line read (None: :data:`MAX_LINE_BYTES`).
        max_file_bytes: most bytes read from the file (None: :data:`MAX_FILE_BYTES`).

    Raises:
        InputError: naming file, line and field of the first invalid record, and the others
            after it (unless skip_invalid; the whole file is read first); always, at once, for
            problems with the file as a whole (encoding, a cap, empty, no usable fields).
    """
    path = Path(path)
    fmt = fmt or guess_format(path)
    lines = _lines(
        path,
        MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes,
    )
    rows = _json_rows(path, lines) if fmt == "jsonl" else _table_rows(path, lines, fmt)
    result = ReadResult()
    any_row = False
    id_kinds: dict[str, tuple[str, int]] = {}  # stored id -> (JSON kind, first line)
    errors: list[InputError] = []
    for line, row in rows:
        any_row = True
        try:
            if isinstance(row, InputError):
                raise row
            # Field names are resolved per record: JSONL records need not share their keys.
            resolved = _resolve(path, line, row, mapping)
            record = _record(path, line, row, resolved, max_field_chars)
            _check_id_kind(path, line, row, resolved["id"], record.external_id, id_kinds)
            result.records.append(record)
        except InputError as err:
            if err.field == "__file__":
                raise
            errors.append(err)
            result.invalid.append(Problem(line, err.field, err.reason, _raw_id(row, mapping)))
    if not any_row:
        raise InputError("the file has no records", path=str(path))
    if errors and not skip_invalid:
        # the whole file was read: it is fixed in one pass, not one failed import per record
        raise gathered(errors)
    return result


def _check_id_kind(
    path: Path,
    line: int,
    row: dict[str, Any],
    name: str | None,
    external_id: str | None,
    seen: dict[str, tuple[str, int]],
) -> None:
    """Refuse an id given as a number on one line and as text on another (7 and "7").

    Ids are stored as text, so the two would silently become one pair; which one the file meant
    cannot be known, so the record is refused (or skipped) with both lines named.
    """
    if name is None or external_id is None:
        return
    kind = "a number" if isinstance(row.get(name), int) else "text"
    first = seen.setdefault(external_id, (kind, line))
    if first[0] != kind:
        raise InputError(
            f"id {external_id!r} is {kind} here but {first[0]} on line {first[1]}; ids are "
            "compared as text, so both would be one pair: give them distinct ids",
            path=str(path),
            line=line,
            field=name,
        )


def binary_lines(
    fh: BinaryIO, path: Path, max_line_bytes: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) of a file, a line ending at b"\\n" only; never a line over the cap.

    Raises:
        InputError: a line longer than ``max_line_bytes`` (None: :data:`MAX_LINE_BYTES`), named
            by its number, once that much of it is read.
    """
    cap = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    n = 0
    while True:
        n += 1
        try:
            raw = fh.readline(cap + 1)
        except OSError as exc:
            raise InputError(
                f"cannot read the file: {exc.strerror}", path=str(path), line=n
            ) from exc
        if not raw:
            return
        if len(raw) > cap and not raw.endswith(b"\n"):
            raise _no_line_end(path, n, cap)
        yield n, raw


def _no_line_end(path: Path, line: int, cap: int) -> InputError:
    return InputError(
        f"no line end within {cap:,} bytes; a record is one line: check that this is the file "
        "and format you meant, or raise the limit with --max-line-bytes",
        path=str(path),
        line=line,
    )


#: Byte-order marks of UTF-16, which Excel's "Unicode Text" and some Windows tools write.
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _lines(path: Path, max_line_bytes: int, max_file_bytes: int) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line, decoded as UTF-8 (a leading BOM dropped), or as
    UTF-16 where the file starts with its byte-order mark, its "\\n" kept; read as a stream and
    refused at the caps (see :data:`MAX_LINE_BYTES`)."""
    too_big = (
        f"over the limit of {max_file_bytes:,} bytes for one import: import it in parts "
        "(`factdesk score` cuts a large corpus into parts), or raise the limit with "
        "--max-file-bytes"
    )
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below; the generator owns it
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror}", path=str(path)) from exc
    with fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > max_file_bytes:  # no need to read it
            raise InputError(f"the file is {st.st_size:,} bytes, {too_big}", path=str(path))
        wide = fh.peek(2)[:2] in UTF16_BOMS
        lines = (_utf16_lines if wide else _utf8_lines)(fh, path, max_line_bytes)
        read = 0
        for n, text, size in lines:
            read += size
            if read > max_file_bytes:  # a pipe or device: counted as it comes
                raise InputError(f"the file goes on {too_big}", path=str(path), line=n)
            yield n, text


def _utf8_lines(fh: BinaryIO, path: Path, max_line_bytes: int) -> Iterator[tuple[int, str, int]]:
    """(line number, text, bytes read) of each line of a UTF-8 file (a leading BOM dropped)."""
    for n, raw in binary_lines(fh, path, max_line_bytes):
        size = len(raw)
        if n == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"invalid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                "save the file as UTF-8 and import again",
                path=str(path),
                line=n,
            ) from exc
        yield n, text, size


def _utf16_lines(fh: BinaryIO, path: Path, max_line_bytes: int) -> Iterator[tuple[int, str, int]]:
    """:func:`_utf8_lines` of a UTF-16 file (its byte-order mark says which order, and is
    dropped): lines end at "\\n" only, none longer than the cap (in bytes as UTF-16 stores
    them, two a character as counted here)."""
    text = io.TextIOWrapper(fh, encoding="utf-16", newline="\n")
    cap = max_line_bytes // 2  # UTF-16 stores at least two bytes a character
    n = 0
    try:
        while True:
            n += 1
            try:
                line = text.readline(cap + 1)
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"invalid UTF-16 ({exc.reason}); save the file as UTF-8 and import again",
                    path=str(path),
                    line=n,
                ) from exc
            if not line:
                return
            if len(line) > cap and not line.endswith("\n"):
                raise _no_line_end(path, n, max_line_bytes)
            yield n, line, 2 * len(line)
    finally:
        text.detach()  # the caller closes the file


def _json_problem(raw: str, exc: json.JSONDecodeError) -> str:
    """Where a record's JSON goes wrong, as a column of its line; a record cut short (a missing
    closing brace or quote) is said to end early rather than placed after its line break."""
    if exc.pos >= len(raw.rstrip()):
        return f"malformed JSON: the record ends before its object does ({exc.msg})"
    return f"malformed JSON: {exc.msg} at column {exc.pos + 1}"


def _json_rows(path: Path, lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, Any]]:
    # Records end at "\n" only (a "\r" before it is JSON whitespace): str.splitlines() would
    # also cut at U+2028, U+2029 and U+0085, which JSON strings may hold unescaped.
    for n, raw in lines:
        if not raw.strip():
            continue
        try:
            value = json.loads(raw, object_pairs_hook=_object)
        except _DuplicateKey as dup:
            yield (
                n,
                InputError(
                    "this key appears twice in one JSON object; which value is meant cannot be "
                    "known: keep one",
                    path=str(path),
                    line=n,
                    field=dup.key,
                ),
            )
            continue
        except json.JSONDecodeError as exc:
            yield n, InputError(_json_problem(raw, exc), path=str(path), line=n)
            continue
        if not isinstance(value, dict):
            yield (
                n,
                InputError(
                    f"expected a JSON object, found {type(value).__name__}", path=str(path), line=n
                ),
            )
            continue
        # A lone surrogate can only come from a \\uD8xx..\\uDFxx escape: look only then.
        problem = _surrogate(path, n, value) if _ESCAPED_SURROGATE.search(raw) else None
        yield n, problem or value


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict; a key given twice is refused (``json`` keeps the last one)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return value


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _surrogate(path: Path, line: int, row: dict[str, Any]) -> InputError | None:
    """The first lone surrogate in a record (keys included), as an error naming its field.

    Such a string is not Unicode text: it cannot be written as UTF-8, so storing it would make
    every later export fail.
    """
    for key, value in row.items():
        shown = key.encode("utf-8", "backslashreplace").decode("utf-8")
        if _SURROGATE.search(key):
            return InputError(
                f"the field name contains a lone surrogate {_code(key)}; JSON text must be "
                "valid Unicode",
                path=str(path),
                line=line,
                field=shown,
            )
        where = _surrogate_in(value, "")
        if where is not None:
            at, code = where
            return InputError(
                f"contains a lone surrogate {code}{f' at {shown}{at}' if at else ''}; "
                "JSON text must be valid Unicode",
                path=str(path),
                line=line,
                field=shown,
            )
    return None


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _code(text: str) -> str:
    match = _SURROGATE.search(text)
    return "" if match is None else f"U+{ord(match.group()):04X}"


def _surrogate_in(value: Any, at: str) -> tuple[str, str] | None:
    """(where, which) of the first lone surrogate inside a JSON value, else None.

    Walks with a stack, not recursion: a deeply nested value must not overflow the call stack.
    """
    stack: list[tuple[Any, str]] = [(value, at)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return where, _code(item)
        elif isinstance(item, list):
            stack.extend((x, f"{where}[{i}]") for i, x in reversed(list(enumerate(item))))
        elif isinstance(item, dict):
            entries = []
            for key, x in item.items():
                shown = key.encode("utf-8", "backslashreplace").decode("utf-8")
                if _SURROGATE.search(key):
                    return f"{where}.{shown} (a key)", _code(key)
                entries.append((x, f"{where}.{shown}"))
            stack.extend(reversed(entries))
    return None


_LONE_CR = re.compile(r"(?<=\r)(?!\n)")


def _delimiter(fmt: Format, header: str) -> str:
    """A TSV's tab; a CSV's comma, or its semicolon when the header line has semicolons and no
    comma (Excel writes CSV so where the comma is the decimal mark)."""
    if fmt != "csv":
        return "\t"
    return ";" if ";" in header and "," not in header else ","


def _table_rows(
    path: Path, lines: Iterator[tuple[int, str]], fmt: Format
) -> Iterator[tuple[int, Any]]:
    csv.field_size_limit(sys.maxsize)  # our own limit below gives a clearer message
    # csv counts "\r", "\n" and "\r\n" as line ends (as a file opened with newline=""):
    # lines read at "\n" are cut after a lone "\r" too, so its line numbers stay the same.
    physical = (part for _n, line in lines for part in _LONE_CR.split(line) if part)
    first = next(physical, None)
    if first is None:
        return
    physical = itertools.chain([first], physical)
    reader = csv.reader(physical, delimiter=_delimiter(fmt, first), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise InputError(f"malformed {fmt.upper()} header: {exc}", path=str(path), line=1) from exc
    names = [h.strip() for h in header]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InputError(f"duplicate column names {dup}", path=str(path), line=1, field="__file__")
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"malformed {fmt.upper()}: {exc}", path=str(path), line=start) from exc
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(names):
            yield (
                start,
                InputError(
                    f"{len(row)} columns where the header has {len(names)}",
                    path=str(path),
                    line=start,
                ),
            )
            continue
        yield start, dict(zip(names, row, strict=True))


def _resolve(
    path: Path, line: int, row: dict[str, Any], mapping: FieldMapping
) -> dict[str, str | None]:
    """Pick the field names from the first record; source and output are required."""

    def pick(
        explicit: str | None, defaults: tuple[str, ...], role: str, required: bool
    ) -> str | None:
        if explicit is not None:
            if explicit not in row and required:
                raise InputError(
                    f"no field '{explicit}' (given for the {role}); fields are {sorted(row)}",
                    path=str(path),
                    line=line,
                    field=explicit,
                )
            return explicit
        lowered = {k.lower(): k for k in row}
        for name in defaults:
            if name in lowered:
                return lowered[name]
        if required:
            raise InputError(
                f"no {role} field: expected one of {list(defaults)} or --{role}-field; "
                f"fields are {sorted(row)}",
                path=str(path),
                line=line,
                field=role,
            )
        return None

    return {
        "source": pick(mapping.source, SOURCE_FIELDS, "source", True),
        "output": pick(mapping.output, OUTPUT_FIELDS, "output", True),
        "id": pick(mapping.id, ID_FIELDS, "id", False),
        "system": pick(mapping.system, SYSTEM_FIELDS, "system", False),
        "context": pick(mapping.context, CONTEXT_FIELDS, "context", False),
    }


def _text(path: Path, line: int, row: dict[str, Any], name: str, limit: int) -> str:
    if name not in row or row[name] is None:
        raise InputError("missing", path=str(path), line=line, field=name)
    value = row[name]
    if not isinstance(value, str):
        raise InputError(
            f"expected text, found {type(value).__name__}", path=str(path), line=line, field=name
        )
    return check_text(
        value,
        name,
        limit=limit,
        path=str(path),
        line=line,
        raise_it="raise it with --max-field-chars",
    )


def check_text(
    value: str,
    field: str,
    *,
    limit: int = MAX_FIELD_CHARS,
    path: str | None = None,
    line: int | None = None,
    raise_it: str | None = None,
) -> str:
    """``value`` as a pair's text (source, output, context): not blank, within ``limit``
    characters, no NUL; else an :class:`InputError` naming ``field`` (and ``path`` and ``line``
    where given; ``raise_it`` says how to raise the limit)."""
    if not value.strip():
        raise InputError("empty", path=path, line=line, field=field)
    if len(value) > limit:
        how = f" ({raise_it})" if raise_it else ""
        raise InputError(
            f"{len(value):,} characters, over the limit of {limit:,}{how}",
            path=path,
            line=line,
            field=field,
        )
    if "\x00" in value:
        raise InputError("contains a NUL character", path=path, line=line, field=field)
    return value


def _optional(
    path: Path, line: int, row: dict[str, Any], name: str | None, limit: int
) -> str | None:
    """An optional field (id, system, context) as given; None when absent, null or empty."""
    if name is None or row.get(name) in (None, ""):
        return None
    value = row[name]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(
            f"expected text or a number, found {type(value).__name__}",
            path=str(path),
            line=line,
            field=name,
        )
    value = str(value)
    if len(value) > limit:
        raise InputError(
            f"{len(value):,} characters, over the limit", path=str(path), line=line, field=name
        )
    return value


def _name(path: Path, line: int, row: dict[str, Any], name: str | None) -> str | None:
    """An id or system name of a record (see :func:`check_name`)."""
    value = _optional(path, line, row, name, 1000)
    return None if value is None else check_name(value, name or "", path=str(path), line=line)


def check_name(
    value: str | None, field: str, *, path: str | None = None, line: int | None = None
) -> str | None:
    """An id or system name: plain text on one line, kept exactly as given (None stays None).

    Such names are printed by commands and matched by merges, so what could act on a terminal
    (ESC and other control or format characters) is refused, and so is whitespace around the
    name: stripping it silently would export another id than the one given.
    """
    if value is None:
        return None
    if len(value) > 1000:
        raise InputError(
            f"{len(value):,} characters, over the limit", path=path, line=line, field=field
        )
    bad = bad_character(value)
    if bad is not None:
        raise InputError(
            f"contains the control character {bad}; ids and system names must be plain text "
            "on one line",
            path=path,
            line=line,
            field=field,
        )
    if value != value.strip():
        raise InputError(
            "starts or ends with a space or other whitespace; names are kept as given, so "
            "remove it",
            path=path,
            line=line,
            field=field,
        )
    return value


def _record(
    path: Path, line: int, row: dict[str, Any], names: dict[str, str | None], limit: int
) -> PairRecord:
    source = _text(path, line, row, names["source"] or "", limit)
    output = _text(path, line, row, names["output"] or "", limit)
    ext = _name(path, line, row, names["id"])
    system = _name(path, line, row, names["system"])
    context = _optional(path, line, row, names["context"], limit)
    used = {n for n in names.values() if n}
    block = {k: row[k] for k in ANALYSIS_FIELDS if k in row and k not in used}
    try:
        analysis = parse_analysis(block, source, output) if block else None
    except AnalysisError as err:
        raise InputError(
            f"malformed FactDesk analysis data: {err}", path=str(path), line=line, field=err.field
        ) from None
    meta_in = row.get("meta") if isinstance(row.get("meta"), dict) and "meta" not in used else None
    extra = {
        k: v for k, v in row.items() if k not in used and k not in ANALYSIS_FIELDS and k != "meta"
    }
    meta = {**(meta_in or {}), **extra} or None
    return PairRecord(line, ext, source, output, system, context, meta, analysis)


def _raw_id(row: Any, mapping: FieldMapping) -> str | None:
    if isinstance(row, dict):
        value = row.get(mapping.id or "id")
        return None if value is None else str(value)
    return None
