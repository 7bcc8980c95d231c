"""File ▸ Export report… writes the audit report in the background."""

from __future__ import annotations

from pathlib import Path

from app.gui.report import LANE, export_report


def test_file_menu_exports_the_report(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    action = window.actions_["export_report"]
    assert action.text() == "Export &report…"
    menu_texts = [a.text() for a in window.menuBar().actions()[0].menu().actions()]
    assert "Export &report…" in menu_texts
    out = tmp_path / "audit.html"
    req = export_report(window.session, str(out))
    assert req is not None and req.checker == window.session.checker
    qtbot.waitUntil(lambda: not window.runner.is_busy(LANE), timeout=60000)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and '<section id="flagged">' in text
    assert "Report written to" in window.statusBar().currentMessage()


def test_report_errors_reach_the_window(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    export_report(window.session, str(tmp_path / "missing" / "audit.html"))
    qtbot.waitUntil(lambda: not window.runner.is_busy(LANE), timeout=60000)
    message = window.statusBar().currentMessage()
    assert message.startswith("Error:") and "no such folder" in message
    assert not (tmp_path / "missing").exists()
