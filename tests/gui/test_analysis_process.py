"""The window's analysis runs in a child process (issue 25, item 14): loading spaCy and the
models never holds the window's interpreter, yet its steps, committed chunks and end arrive as
before."""

from __future__ import annotations

import os

from sqlalchemy import select

from app.gui.main import MainWindow
from app.store.schema import Run


def test_the_window_analyses_in_another_process_and_hears_every_chunk(
    qtbot, settings, small_unanalysed
) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(small_unanalysed)
    steps: list[str] = []
    chunks: list[list[int]] = []
    w.analysis.stepped.connect(lambda what, _d, _t: steps.append(what))
    w.analysis.chunk.connect(chunks.append)
    w.analysis_menu.start(["lexical"], device="cpu")
    qtbot.waitUntil(lambda: not w.runner.is_busy("model"), timeout=120_000)
    assert "Analysis done" in w.statusBar().currentMessage()
    with w.session.project.session() as s:
        owners = [r.settings["pid"] for r in s.scalars(select(Run))]
    assert owners and os.getpid() not in owners  # scored by another process
    assert steps[:2] == ["Starting the analysis", "Loading the models"]
    assert {"Parsing", "Scoring with lexical", "Saving"} <= set(steps)
    assert sorted(i for ids in chunks for i in ids) == sorted(w.model.output_ids())
    assert all(w.model.list_row(i).row.lowest_support is not None for i in range(6))
    w.close()
