"""The window start names missing X11 libraries and their Debian packages instead of Qt's abort."""

from __future__ import annotations

import pytest

from app import system_check
from app.cli import main as cli_main
from app.system_check import XCB_LIBRARIES, loadable, missing_libraries, uses_xcb, window_problem

X11 = {"DISPLAY": ":0"}


def _without(*absent: str):
    return lambda soname: soname not in absent


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"DISPLAY": ":0"}, True),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, True),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb;wayland"}, True),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, False),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland;xcb"}, False),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"QT_QPA_PLATFORM": "xcb"}, False),
        ({}, False),
    ],
)
def test_uses_xcb_only_with_a_display_and_no_other_platform(env: dict, expected: bool) -> None:
    assert uses_xcb(env) is expected


def test_missing_libraries_named_with_their_debian_packages() -> None:
    lookup = _without("libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0")
    assert missing_libraries(lookup) == [
        "libxcb-cursor.so.0",
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
    ]
    message = window_problem(X11, lookup)
    assert message is not None and "\n" not in message
    assert "libxcb-icccm.so.4" in message
    assert message.endswith("sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1")


def test_nothing_said_when_all_present_or_not_on_xcb() -> None:
    assert window_problem(X11, lambda _s: True) is None
    offscreen = {"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}
    assert window_problem(offscreen, lambda _s: False) is None


def test_table_covers_the_three_the_issue_found() -> None:
    for package in ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"):
        assert package in XCB_LIBRARIES.values()


def test_default_lookup_asks_the_dynamic_loader() -> None:
    assert loadable("libc.so.6")
    assert not loadable("libfactdesk-no-such-library.so.9")


def test_window_start_refused_with_the_list(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import app.gui.main

    started: list[object] = []
    monkeypatch.setattr(app.gui.main, "run", lambda *a, **k: started.append(a) or 0)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(system_check, "loadable", _without("libxcb-icccm.so.4"))
    assert cli_main([]) == 2
    assert not started
    err = capsys.readouterr().err
    assert err.startswith("factdesk: error: the window cannot start:")
    assert "sudo apt-get install libxcb-icccm4" in err


def test_readme_names_every_package() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index("sudo apt-get install libxcb1")
    command = readme[start : readme.index("```", start)].replace("\\\n", " ").split()
    assert set(XCB_LIBRARIES.values()) <= set(command)
