from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QTableView

from app.item_models import (
    COL_LOWEST,
    FETCH_BATCH,
    OutputIdRole,
    PairFilterProxy,
    PairTableModel,
    StatusRole,
)
from app.store import JudgmentKey, JudgmentValue, Project
from app.store.queries import list_rows

Mode = QAbstractItemModelTester.FailureReportingMode


def test_models_pass_the_model_tester(qtbot, demo_path) -> None:  # type: ignore[no-untyped-def]
    with Project.open(demo_path) as p:
        checker, version = next(iter(p.current_versions().items()))
        rows = list_rows(p, checker, version, 0.5)
        model = PairTableModel()
        proxy = PairFilterProxy()
        proxy.setSourceModel(model)
        testers = [QAbstractItemModelTester(m, Mode.Fatal) for m in (model, proxy)]
        model.reset_rows(rows)
        assert model.rowCount() == len(rows) == 32
        proxy.sort(3)
        proxy.set_filters(system="qa-bot")
        assert 0 < proxy.rowCount() < 32
        proxy.set_filters(system=None, score_range=(0.0, 0.4))
        assert all(
            model.list_row(proxy.mapToSource(proxy.index(r, 0)).row()).row.lowest_support <= 0.4
            for r in range(proxy.rowCount())
        )
        proxy.set_filters(score_range=None)
        oid = rows[0].row.output_id
        p.judge(JudgmentKey(oid, "pair", aspect="flag"), JudgmentValue("malformed"))
        spy = []
        model.dataChanged.connect(lambda a, b, _r: spy.append((a.row(), b.row())))
        model.update_rows(list_rows(p, checker, version, 0.5, [oid]))
        assert spy == [(0, 0)]
        assert model.index(0, 2).data(StatusRole) == "flagged"
        proxy.set_filters(status="flagged")
        assert proxy.rowCount() == 1
        del testers


def test_rows_are_fetched_lazily(qtbot, demo_path) -> None:  # type: ignore[no-untyped-def]
    with Project.open(demo_path) as p:
        base = list_rows(p, None, None, 0.5)
    rows = base * (FETCH_BATCH // len(base) + 2)  # more rows than one batch
    model = PairTableModel()
    tester = QAbstractItemModelTester(model, Mode.Fatal)
    model.reset_rows(rows)
    assert model.rowCount() == FETCH_BATCH
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert model.rowCount() == len(rows)
    assert not model.canFetchMore(QModelIndex())
    del tester


def _proxy_ids(proxy: PairFilterProxy) -> list[int]:
    return [proxy.index(r, 0).data(OutputIdRole) for r in range(proxy.rowCount())]


def _column(proxy: PairFilterProxy, col: int) -> list[object]:
    return [proxy.index(r, col).data() for r in range(proxy.rowCount())]


def test_new_scores_for_the_same_pairs_update_in_place(qtbot, demo_path) -> None:  # type: ignore[no-untyped-def]
    """Another threshold (or model) for the same pairs: no reset, the selection stays, the list
    shows the new values and the same rows, in the same order, as a reset would."""
    with Project.open(demo_path) as p:
        checker, version = next(iter(p.current_versions().items()))
        before = list_rows(p, checker, version, 0.5)
    # new scores for every other pair (what an adapted model does), the pairs unchanged
    after = [
        replace(r, row=replace(r.row, lowest_support=round(1.0 - (r.row.lowest_support or 0), 3)))
        if n % 2 == 0
        else r
        for n, r in enumerate(before)
    ]
    model = PairTableModel()
    proxy = PairFilterProxy()
    proxy.setSourceModel(model)
    tester = QAbstractItemModelTester(proxy, Mode.Fatal)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    view.setSortingEnabled(True)
    view.sortByColumn(COL_LOWEST, Qt.SortOrder.AscendingOrder)  # the new scores reorder rows
    model.reset_rows(before)
    proxy.set_filters(score_range=(0.0, 0.6))  # and move some in or out of the filter
    # the current pair keeps its score, the ones around it move
    unchanged = {a.row.output_id for a, b in zip(before, after, strict=True) if a == b}
    current = next(
        proxy.index(r, 0)
        for r in range(1, proxy.rowCount())
        if proxy.index(r, 0).data(OutputIdRole) in unchanged
    )
    oid, place = current.data(OutputIdRole), current.row()
    view.setCurrentIndex(current)
    assert [i.data(OutputIdRole) for i in view.selectionModel().selectedRows()] == [oid]
    changed: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(
        lambda a, b, _r: changed.append((a.row(), b.row(), a.column(), b.column()))
    )
    with qtbot.assertNotEmitted(model.modelReset):
        assert model.replace_rows(after)
    # only the changed cells: one signal per changed row here (no two are adjacent)
    assert changed and all(c0 == c1 == COL_LOWEST for _a, _b, c0, c1 in changed)
    assert sorted(a for a, _b, _c0, _c1 in changed) == [
        n for n, (a, b) in enumerate(zip(before, after, strict=True)) if a != b
    ]
    # the same pair is current and selected, wherever the new order put it
    assert view.currentIndex().data(OutputIdRole) == oid
    assert [i.data(OutputIdRole) for i in view.selectionModel().selectedRows()] == [oid]
    assert view.currentIndex().row() != place  # it moved: the proxy sorted the new scores
    # the list shows the new scores
    shown = {
        proxy.index(r, 0).data(OutputIdRole): proxy.index(r, COL_LOWEST).data()
        for r in range(proxy.rowCount())
    }
    want = {r.row.output_id: f"{r.row.lowest_support:.2f}" for r in after}
    assert shown and all(want[k] == v for k, v in shown.items())
    # the same rows, in the same order, as a reset with the new rows
    fresh_model, fresh = PairTableModel(), PairFilterProxy()
    fresh.setSourceModel(fresh_model)
    fresh.sort(COL_LOWEST, Qt.SortOrder.AscendingOrder)
    fresh_model.reset_rows(after)
    fresh.set_filters(score_range=(0.0, 0.6))
    assert sorted(_proxy_ids(proxy)) == sorted(_proxy_ids(fresh))
    # in the same order (pairs of equal score may stand in either order)
    assert _column(proxy, COL_LOWEST) == _column(fresh, COL_LOWEST)
    del tester


def test_other_pairs_reset_the_list(qtbot, demo_path) -> None:  # type: ignore[no-untyped-def]
    with Project.open(demo_path) as p:
        rows = list_rows(p, None, None, 0.5)
    model = PairTableModel()
    model.reset_rows(rows)
    with qtbot.waitSignal(model.modelReset):
        assert not model.replace_rows(rows[1:])  # a pair less: other rows
    assert model.output_ids() == [r.row.output_id for r in rows[1:]]
    with qtbot.waitSignal(model.modelReset):
        assert not model.replace_rows(list(reversed(rows[1:])))  # another order
