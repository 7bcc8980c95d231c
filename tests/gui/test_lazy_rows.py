"""The pair list reads rows page by page: opening or reloading a large project reads only the
rows on screen, never every pair (issue 25, item 14: a 100,000-pair project opens in < 1 s)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from app import item_models
from app.gui import pairlist
from app.gui.main import MainWindow


@pytest.fixture
def reads(monkeypatch) -> list[int | None]:  # type: ignore[no-untyped-def]
    """How many pairs each read of list rows asked for (None: every pair)."""
    seen: list[int | None] = []
    real = pairlist.list_rows

    def spy(project, checker, version, threshold, ids: Sequence[int] | None = None):  # type: ignore[no-untyped-def]
        seen.append(None if ids is None else len(ids))
        return real(project, checker, version, threshold, ids)

    monkeypatch.setattr(pairlist, "list_rows", spy)
    monkeypatch.setattr(item_models, "FETCH_BATCH", 10)
    return seen


def test_open_reads_only_the_first_page_and_scrolling_reads_the_next(
    qtbot, settings, demo_path, reads
) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(demo_path)
    assert w.judging.bundle is not None  # the first pair is shown
    assert None not in reads and sum(n for n in reads if n) <= 10 + 1  # a page (and the pair)
    assert w.model.total() == 32 and w.model.rowCount() == 10
    assert w.count_label.text() == "10 shown of 32 pairs"
    reads.clear()
    w.table.scrollToBottom()
    w.model.fetchMore(w.model.index(-1, -1))
    assert reads == [10] and w.model.rowCount() == 20
    w.close()


def test_a_reload_rereads_only_the_rows_on_screen(qtbot, settings, demo_path, reads) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(demo_path)
    shown = w.session.current_output_id()
    reads.clear()
    w.threshold.setValue(0.9)
    w.session.apply_threshold()  # what the threshold's timer runs
    assert reads and None not in reads and max(n for n in reads if n) <= 10
    assert w.session.current_output_id() == shown and w.model.rowCount() == 10
    # A pair further down (the last one left open, an undo, the queue) is read when it is asked
    # for, with the rows before it.
    last = w.model.output_ids()[-1]
    reads.clear()
    w.session.select_pair(last)
    assert w.session.current_output_id() == last and w.model.rowCount() == 32
    assert None not in reads and sum(n for n in reads if n) <= 22 + 1
    w.close()
