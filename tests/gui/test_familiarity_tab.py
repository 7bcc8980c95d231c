"""The Statistics window's entity familiarity tab."""

from __future__ import annotations

from pathlib import Path

from app.analysis import analyze
from app.gui.familiarity import FamiliarityTab
from app.gui.stats import StatsDialog
from app.io.importer import import_file
from app.store import Project
from app.store.judging import JudgmentKey, JudgmentValue
from models.registry import load_checker
from tests.app.test_familiarity import PAIRS
from tests.conftest import write_jsonl


def test_tab_shows_counts_rates_and_saves_png(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    records = [dict(p) for p in PAIRS]
    records[2]["system"] = "<b>sys-a</b>"  # text from data stays plain
    with Project.create(tmp_path / "fam.factdesk") as project:
        import_file(project, write_jsonl(tmp_path / "fam.jsonl", records))
        analyze(project, [load_checker("lexical")])
        (sent,) = project.sentences(output_id=3)
        project.judge(
            JudgmentKey(3, "sentence", sentence_id=sent.id),
            JudgmentValue("unsupported", "reject", "nonfactual"),
        )
        runs = project.current_versions()
        dialog = StatsDialog(project, "lexical", runs["lexical"], "lexical baseline", 0.5)
        qtbot.addWidget(dialog)
        tabs = dialog.tabs
        index = next(i for i in range(tabs.count()) if tabs.tabText(i) == "Entity familiarity")
        tab = tabs.widget(index)
        assert isinstance(tab, FamiliarityTab) and tab.report is None  # not computed yet
        dialog.show()
        tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda: tab.report is not None)
        assert "1 unfamiliar" in tab.summary.text()
        header = [tab.table.horizontalHeaderItem(j).text() for j in range(tab.table.columnCount())]
        assert header[-2:] == ["nonfactual", "incongruous"]
        cells = {
            tab.table.item(i, 0).text(): tab.table.item(i, header.index("nonfactual")).text()
            for i in range(tab.table.rowCount())
        }
        assert cells["<b>sys-a</b> / familiar"] == "1 of 1 (100%)"
        assert cells["sys-b / unfamiliar"] == "0 of 0"
        assert tab.plot is not None
        tab.plot.save(str(tmp_path / "fam.png"))
        assert (tmp_path / "fam.png").stat().st_size > 1000


def test_pair_list_puts_unfamiliar_descriptions_first(qtbot, settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app.gui.familiarity import LANE
    from app.gui.main import MainWindow
    from app.item_models import OutputIdRole

    path = tmp_path / "queue.factdesk"
    with Project.create(path) as project:
        import_file(project, write_jsonl(tmp_path / "q.jsonl", PAIRS))
        analyze(project, [load_checker("lexical")])
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)

    def listed() -> list[str]:
        proxy = w.pairs.proxy
        ids = [proxy.index(i, 0).data(OutputIdRole) for i in range(proxy.rowCount())]
        ext = {r.row.output_id: r.row.external_id for r in map(w.model.list_row, range(4))}
        return [ext[i] for i in ids]

    assert sorted(listed()) == ["o1", "o2", "o3", "o4"]
    action = w.actions_["unfamiliar_first"]
    action.trigger()
    assert action.isChecked()
    qtbot.waitUntil(lambda: listed() == ["o2", "o4", "o3"], timeout=60000)
    assert not w.runner.is_busy(LANE)
    assert "unfamiliar entity" in w.statusBar().currentMessage()
    # the order comes from the model: blind mode hides it with the scores
    w.blind_action.trigger()
    assert sorted(listed()) == ["o1", "o2", "o3", "o4"]
    w.blind_action.trigger()
    assert listed() == ["o2", "o4", "o3"]
    action.trigger()  # off: every pair again, in id order
    assert listed() == ["o1", "o2", "o3", "o4"]
    w.close()


def test_tab_finds_entities_in_the_window_runner(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from app.gui.familiarity import TAB_LANE

    w = window
    dialog = StatsDialog(
        w.session.project, w.session.checker, w.session.version, w.judging.checker_label, 0.5, w
    )
    qtbot.addWidget(dialog)
    tabs = dialog.tabs
    index = next(i for i in range(tabs.count()) if tabs.tabText(i) == "Entity familiarity")
    tab = tabs.widget(index)
    assert tab.runner is w.runner
    dialog.show()
    tabs.setCurrentIndex(index)
    assert tab.report is None and tab.summary.text().startswith("Finding entities")
    qtbot.waitUntil(lambda: tab.report is not None, timeout=60000)
    assert not w.runner.is_busy(TAB_LANE)
    assert tab.summary.text().startswith("Entities in the outputs:")
    assert tab.table.rowCount() == len(tab.report.rates("both")) > 0


def test_tab_reads_final_labels_of_reviewers_who_disagree(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The window's panel counts what the command counts (see test_familiarity_reviewers)."""
    from tests.app.test_familiarity_reviewers import EXPECTED, disagree

    with Project.create(tmp_path / "fam.factdesk") as project:
        import_file(project, write_jsonl(tmp_path / "fam.jsonl", PAIRS))
        analyze(project, [load_checker("lexical")])
        disagree(project)
        tab = FamiliarityTab(project, "lexical", 0.5)  # no runner: computed on the spot
        qtbot.addWidget(tab)
        tab.compute()
        assert tab.report is not None
        header = [tab.table.horizontalHeaderItem(j).text() for j in range(tab.table.columnCount())]
        cells = {
            tab.table.item(i, 0).text(): [
                tab.table.item(i, j).text() for j in range(tab.table.columnCount())
            ]
            for i in range(tab.table.rowCount())
        }

        def counts(group: str) -> tuple[int, int, int]:
            row = cells[group]
            judged = int(row[header.index("judged")])
            errors = (
                int(row[header.index(e)].split(" of ")[0]) for e in ("nonfactual", "incongruous")
            )
            return (judged, *errors)  # type: ignore[return-value]

        assert counts("sys-a / familiar") == EXPECTED["familiar"]
        assert counts("sys-b / unfamiliar") == EXPECTED["unfamiliar"]
        assert counts("sys-b / unseen") == EXPECTED["unseen"]
        assert "final labels override" in tab.summary.text()
