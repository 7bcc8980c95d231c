"""A web page saved as HTML and given as a pair's text is read as what a reader sees of its
article."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.io.html_text import html_text, looks_like_html
from app.io.text_pair import read_text
from models.errors import InputError

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Library turns 130 | Carrow News</title>
<style>p { color: red }</style><script>var x = "<p>not text</p>";</script></head>
<body><nav><ul><li>Home</li><li>News</li></ul></nav>
<article><h1>Library turns 130</h1>
<p>The library first opened on 12&nbsp;October 1896.
Construction began in 1893.</p>
<p>It cost &pound;18,000, paid for by <a href="/x">Samuel Carrow</a>.<br>It opened with 4,000 books.</p>
<aside>Related: Council budget</aside>
<table><tr><td>Cost</td><td>18,000</td></tr></table>
</article>
<footer>© Carrow News</footer></body></html>
"""


def test_a_page_reads_as_its_articles_lines() -> None:
    assert html_text(PAGE) == (
        "Library turns 130\n"
        "The library first opened on 12 October 1896. Construction began in 1893.\n"
        "It cost £18,000, paid for by Samuel Carrow.\n"
        "It opened with 4,000 books.\n"
        "Cost\n18,000"
    )


def test_without_an_article_the_main_then_the_body_is_read() -> None:
    main = "<html><body><nav>Menu</nav><main><p>Main text.</p></main><p>Other.</p></body></html>"
    assert html_text(main) == "Main text."
    body = "<html><body><nav>Menu</nav><p>One.</p><pre>a  b\nc</pre></body></html>"
    assert html_text(body) == "One.\na  b\nc"
    assert html_text("<p>A fragment &amp; more</p>") == "A fragment & more"


def test_a_page_is_told_from_text_by_its_first_bytes() -> None:
    assert looks_like_html(b"\xef\xbb\xbf  <!-- saved -->\n<!DOCTYPE html><html>")
    assert looks_like_html(b"<HTML><body>")
    assert not looks_like_html(b"The <html> tag opens a page.")


def test_a_saved_page_is_read_in_its_declared_charset(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(
        b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        b"</head><body><p>Caf\xe9 owners met on Monday.</p></body></html>"
    )
    assert read_text(page, "source") == "Café owners met on Monday."
    page.write_bytes(b"<html><body><p>Caf\xe9</p></body></html>")  # no charset: UTF-8
    with pytest.raises(InputError, match="not valid utf-8"):
        read_text(page, "source")
    page.write_bytes(b"<html><body><nav>Only a menu</nav><script>x()</script></body></html>")
    with pytest.raises(InputError, match="web page with no text"):
        read_text(page, "source")
    page.write_bytes(b'<html><head><meta charset="x-no-such"></head><body>Hi</body></html>')
    with pytest.raises(InputError, match="character set 'x-no-such'"):
        read_text(page, "source")
