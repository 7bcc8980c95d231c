from __future__ import annotations

from PySide6.QtCore import QModelIndex
from PySide6.QtTest import QAbstractItemModelTester

from app.gui.queries import list_rows
from app.item_models import FETCH_BATCH, PairFilterProxy, PairTableModel, StatusRole
from app.store import JudgmentKey, JudgmentValue, Project

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
