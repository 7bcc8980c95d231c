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
