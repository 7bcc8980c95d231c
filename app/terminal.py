"""Text from data on a terminal: escaped where it could act, refused where it names something.

A terminal runs the control characters it is given: ESC starts a sequence that can recolour,
retitle, move the cursor or hide what follows; C1 characters (U+0080 to U+009F) do the same on
some terminals; bidirectional overrides (U+202E and the like) make text read in another order.
Ids, system and reviewer names come from files anyone can write, so:

- :func:`shown` is the one way data reaches the terminal (``stats``, ``merge``, ``import`` and
  every other command's text, error messages): each such character is written as an escape
  (``\\x1b``, ``\\u202e``), so it is seen and never acts;
- :func:`shown_json` does the same for ``--json`` output, as JSON escapes (same values);
- :func:`bad_character` finds what a name (an id, a system or reviewer name) must not hold, so
  importers can refuse it with the file, line and field.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

# Control (Cc: C0, DEL, C1), format (Cf: bidirectional overrides, zero-width characters), line
# and paragraph separators: what a name must not hold.
_NAME_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
# Shown escaped: those, plus surrogates, private-use and unassigned code points (a terminal may
# give any of them a meaning). Ordinary spaces (Zs) are printed as they are.
_ESCAPED_CATEGORIES = _NAME_CATEGORIES | {"Cs", "Co", "Cn"}


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def shown(text: object, *, lines: bool = False) -> str:
    """``text`` safe to print on a terminal: every control or format character escaped.

    Args:
        text: what to print (converted with ``str``).
        lines: keep line breaks (``\\n``), for a multi-line report whose lines are ours; a
            one-line message (an error) leaves this False so data cannot start a new line.
    """
    text = str(text)
    if text.isprintable():  # the common case: nothing to do
        return text
    return "".join(
        ch
        if ch.isprintable()
        or (lines and ch == "\n")
        or unicodedata.category(ch) not in _ESCAPED_CATEGORIES
        else _escape(ch)
        for ch in text
    )


def shown_json(data: Any) -> str:
    """``data`` as one line of JSON safe to print: as ``json.dumps`` (non-ASCII text kept), with
    every character :func:`shown` would escape written as a ``\\uXXXX`` escape instead (JSON
    reads it back as the same character)."""
    text = json.dumps(data, ensure_ascii=False, default=str)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or unicodedata.category(ch) not in _ESCAPED_CATEGORIES:
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:  # outside the BMP: a surrogate pair, as JSON writes it
            code = ord(ch) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
    return "".join(out)


def bad_character(name: str) -> str | None:
    """The first control or format character of a name, described ("U+001B"); None if none."""
    if name.isprintable():
        return None
    for ch in name:
        if unicodedata.category(ch) in _NAME_CATEGORIES:
            return f"U+{ord(ch):04X}"
    return None
