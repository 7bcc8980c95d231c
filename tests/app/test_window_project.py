"""The window holding a project while its workers and a terminal use the same file (pytest-qt).

Item 1 of issue 13 as a user met it: the window analyses, a terminal runs ``factdesk stats``,
and every later decision must still reach the disk. Item 17: the status line counts pairs.
"""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp(prefix="factdesk-test-config-"))

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from app.io.importer import import_file  # noqa: E402
from app.store import JudgmentKey, JudgmentValue, Project  # noqa: E402
from models.checkers.lexical import LexicalArcChecker  # noqa: E402
from tests.app.test_concurrency import (  # noqa: E402
    cli,
    deleted_project_files,
    judgments_seen_by_another_process,
)

pytest.importorskip("pytestqt")


class SecondLexical(LexicalArcChecker):
    name = "lexical-2"
    display_name = "second lexical"


@pytest.fixture
def window(qtbot, tmp_path: Path, pairs_file: Path, monkeypatch):  # type: ignore[no-untyped-def]
    import models.registry
    from app.gui.jobs import run_analysis
    from app.gui.main import MainWindow
    from app.settings import Settings

    monkeypatch.setattr(
        models.registry,
        "load_checker",
        lambda n, **_k: SecondLexical() if n == "lexical-2" else LexicalArcChecker(),
    )
    # The checkers patched here exist in this process only: analyse in a thread of it.
    monkeypatch.setattr("app.gui.analysis.analyse_in_process", run_analysis)
    path = tmp_path / "window.factdesk"
    with Project.create(path) as p:
        import_file(p, pairs_file)
    w = MainWindow(Settings.at(str(tmp_path / "settings.ini")))
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    yield w
    w.close()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_window_analysis_then_a_terminal_keeps_every_later_decision(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w = window
    path = w.session.project.path
    w.analysis_menu.start(["lexical", "lexical-2"], device="cpu")
    qtbot.waitUntil(lambda: not w.runner.is_busy("model"), timeout=120000)
    # Item 17: two checkers scored three pairs: "3 pairs scored", not 6.
    assert "Analysis done: 3 pairs scored" in w.statusBar().currentMessage()
    done = cli("stats", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert deleted_project_files(path) == []
    oid = w.session.project.output_ids()[0]
    w.session.project.judge(JudgmentKey(oid), JudgmentValue("supported", "accept"))
    assert judgments_seen_by_another_process(path) == 1
    # Cancel and analyse again: no "disk I/O error", and the terminal's writes are seen.
    w.analysis_menu.start(["lexical"], device="cpu")
    qtbot.waitUntil(lambda: not w.runner.is_busy("model"), timeout=120000)
    assert "error" not in w.statusBar().currentMessage().lower()
    assert deleted_project_files(path) == []
