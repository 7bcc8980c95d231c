"""File ▸ Export offers the FRANK and XSumFaith shapes beside JSONL, CSV and DAE arcs."""

from __future__ import annotations

import json
from pathlib import Path

from app.gui.main import MainWindow


def test_export_dialog_writes_the_xsumfaith_and_frank_shapes(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app.gui.dialogs import ExportDialog

    w: MainWindow = window
    dialog = ExportDialog(str(w.session.project.path), w.runner, w)
    qtbot.addWidget(dialog)
    formats = [dialog.fmt.itemText(i) for i in range(dialog.fmt.count())]
    assert formats == ["jsonl", "csv", "dae-arcs", "frank", "xsumfaith"]
    for fmt, key in (("xsumfaith", "hallucination_spans"), ("frank", "summary_sentences")):
        out = tmp_path / f"{fmt}.jsonl"
        dialog.fmt.setCurrentText(fmt)
        dialog.path.setText(str(out))
        dialog.export_button.click()
        qtbot.waitUntil(lambda: dialog.status.text().startswith("Wrote"), timeout=30_000)
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert len(records) == 32 and all(key in r and r["from"] for r in records)
