"""Help menu: the guide (keys, marks, modes, exports) and About (versions and card figures)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import app
from app.gui.help import AboutDialog, GuideDialog, about_text
from app.gui.main import MainWindow
from models.bundle_info import bundled_models, card_text, headline_figures, models_dir


def test_guide_opens_from_the_help_menu_with_the_current_keys(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.review_menu.remap_keys({"accept": "Y"})
    w.actions_["guide"].trigger()
    dialog = w.help.dialog
    assert isinstance(dialog, GuideDialog) and dialog.isVisible()
    text = dialog.browser.toPlainText()
    for topic in ("Keys", "What the marks mean", "Blind review", "AIS two-stage mode"):
        assert topic in text
    for topic in ("Adjudication", "Export formats", "frank", "xsumfaith", "dae-arcs"):
        assert topic in text
    assert "Bringing pairs in" in text and "File ▸ Add a pair (Ctrl+Shift+N)" in text
    assert "Edit ▸ Remove pair" in text
    assert "\nY\naccept: supported / entailed" in text  # the key as remapped, not the default
    dialog.close()


def test_about_opens_and_shows_the_version_of_every_bundled_model(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    w.actions_["about"].trigger()
    dialog = w.help.dialog
    assert isinstance(dialog, AboutDialog) and dialog.isVisible()
    text = dialog.text.toPlainText()
    assert f"FactDesk {app.__version__}" in text
    models = bundled_models()
    assert {m.name for m in models} >= {"arc_support", "combiner.json"}
    lines = text.splitlines()
    for m in models:
        assert any(line.split()[:2] == [m.name, m.version] for line in lines if line.strip())
    figures = headline_figures(card_text() or "")
    assert figures is not None and figures.rows
    combined = dict(figures.rows)["combined"]
    assert "combined" in text and combined[0] in text  # the card's ranking figure
    # each file names the checkers it serves, the fast path's apart from the default one's
    listed = text.split("Quality on held-out")[0].splitlines()
    serves = {line.split()[0]: line for line in listed if line.startswith("  ") and line.split()}
    assert serves["nli"].endswith("(nli)") and "(nli-fast, the fast path)" in serves["nli_fast"]
    assert "(combined-fast, the fast path)" in serves["combiner_fast.json"]
    assert "(combined, the score shown by default)" in serves["combiner.json"]
    dialog.close()


def test_about_is_as_wide_as_its_lines_where_the_screen_allows(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QFontMetrics

    from app.gui.help import fitting

    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    text, font = dialog.text.toPlainText(), dialog.text.font()
    lines = text.splitlines()
    longest = max(QFontMetrics(font).horizontalAdvance(line) for line in lines)
    assert longest > 760  # the model table is wider than the dialog's smallest size
    wide = fitting(text, font, QRect(0, 0, 2560, 1440))
    assert wide.width() > longest and wide.height() > QFontMetrics(font).lineSpacing() * len(lines)
    small = fitting(text, font, QRect(0, 0, 1024, 600))
    assert small.width() <= 0.9 * 1024 and small.height() <= 0.85 * 600
    assert dialog.width() >= min(wide.width(), 760)  # opened at its fitting size


def test_about_follows_the_model_files_when_they_change(tmp_path: Path, qtbot) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "models"
    (folder / "arc_support").mkdir(parents=True)
    config = json.loads((models_dir() / "arc_support" / "config.json").read_text("utf-8"))
    config["version"] = "retrained0001"
    (folder / "arc_support" / "config.json").write_text(json.dumps(config), "utf-8")
    shutil.copy(models_dir() / "combiner.json", folder / "combiner.json")
    card = (models_dir() / "MODEL_CARD.md").read_text("utf-8")
    # the combined score's ranking in the card's current table, changed to a figure not shown
    figures = headline_figures(card)
    assert figures is not None
    ranking = dict(figures.rows)["combined"][0]
    row = next(
        line for line in card.splitlines() if line.startswith("combined ") and ranking in line
    )
    assert "88.8" not in about_text(models_dir())
    changed = card.replace(
        row, row[: row.rindex(ranking)] + "88.8" + row[row.rindex(ranking) + len(ranking) :], 1
    )
    (folder / "MODEL_CARD.md").write_text(changed, "utf-8")
    dialog = AboutDialog(folder)
    qtbot.addWidget(dialog)
    text = dialog.text.toPlainText()
    assert any(line.split()[:2] == ["arc_support", "retrained0001"] for line in text.splitlines())
    assert "embedder" not in text  # not in this folder: not listed
    assert "88.8" in text and "Measured" not in text


def test_about_without_a_card_or_models_says_so() -> None:
    text = about_text(Path("/nonexistent/models"))
    assert "none found" in text and "no quality table" in text
