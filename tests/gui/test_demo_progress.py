"""File ▸ Open demo project shows its progress, with what is being done, from the first step."""

from __future__ import annotations

from pathlib import Path

from app.gui.main import MainWindow
from app.settings import Settings


def test_the_demo_shows_what_it_does_while_it_runs(
    qtbot, settings: Settings, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from app.demo import demo_project_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # a fresh demo project
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    seen: list[tuple[str, int, int, bool, bool, str]] = []

    def record(what: str, done: int, total: int) -> None:
        busy = w.runner.is_busy("model")
        seen.append((what, done, total, busy, w.progress.isVisible(), w.progress.text()))

    w.analysis.stepped.connect(record)
    # What File > Open demo project does, with the lexical baseline for speed.
    w.analysis.prepare_demo(str(demo_project_path()), w.files.open_guarded, ("lexical",))
    assert w.progress.isVisible() and w.cancel_button.isVisible()  # at once, before any step
    qtbot.waitUntil(
        lambda: w.session.project is not None or "Error" in w.statusBar().currentMessage(),
        timeout=120_000,
    )
    assert w.session.project is not None, w.statusBar().currentMessage()
    assert seen, "no progress while the demo was prepared"
    assert [s[0] for s in seen[:2]] == ["Starting", "Loading the models"]
    assert all(s[3] for s in seen[:2])
    parsing = [s for s in seen if s[0] == "Parsing" and 0 < s[1] < s[2]]
    assert parsing, seen
    what, done, total, busy, visible, text = parsing[0]
    assert busy and visible and total == 32 and text == f"Parsing {done}/32"
    scoring = [s for s in seen if s[0] == "Scoring with lexical"]
    assert scoring and all(s[3] for s in scoring)
    assert not w.progress.isVisible()  # gone when the demo is open
    assert w.model.total() == 32
    w.close()
