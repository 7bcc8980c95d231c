"""File ▸ Add a pair: paste or load two texts, the pair is added, shown and analysed."""

from __future__ import annotations

from pathlib import Path

from app.gui.add_pair import AddPairDialog
from app.gui.main import MainWindow
from app.store import Project

SOURCE = "The ferry to Inchmara sails twice a day. Vehicles must be booked 24 hours ahead."
OUTPUT = "The Inchmara ferry sails twice daily."


def open_dialog(qtbot, w: MainWindow) -> AddPairDialog:  # type: ignore[no-untyped-def]
    """The dialog as File ▸ Add a pair opens it, without its modal loop."""
    dialog = AddPairDialog(w.adding.submit, w)
    w.adding.dialog = dialog
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_a_pasted_pair_is_added_shown_and_analysed(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    started: list[int] = []
    w.adding.analyse = lambda: started.append(1)
    before = w.session.project.count_pairs()
    dialog = open_dialog(qtbot, w)
    dialog.texts["source"].setPlainText(SOURCE)
    dialog.texts["output"].setPlainText(OUTPUT)
    dialog.pair_id.setText("ferry-1")
    dialog.add_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    project = w.session.project
    assert project.count_pairs() == before + 1
    added = project.output_ids()[-1]
    assert w.session.current_output_id() == added
    assert "Added pair 'ferry-1'" in w.statusBar().currentMessage()
    assert started == [1]
    # the same texts again: not added, that pair shown, nothing analysed
    dialog = open_dialog(qtbot, w)
    dialog.texts["source"].setPlainText(SOURCE)
    dialog.texts["output"].setPlainText(OUTPUT)
    dialog.analyse.setChecked(False)
    w.session.pairs.select(project.output_ids()[0])
    dialog.add_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert project.count_pairs() == before + 1 and started == [1]
    assert w.session.current_output_id() == added
    assert "as pair 'ferry-1'" in w.statusBar().currentMessage()


def test_a_pair_added_during_an_analysis_is_left_for_the_next(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    started: list[int] = []
    w.adding.analyse = lambda: started.append(1)
    w.adding.analysing = lambda: True
    dialog = open_dialog(qtbot, w)
    dialog.texts["source"].setPlainText(SOURCE)
    dialog.texts["output"].setPlainText(OUTPUT)
    dialog.add_button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert started == []
    message = w.statusBar().currentMessage()
    assert message.startswith("Added pair 'auto-") and "analyse again when it ends" in message


def test_what_cannot_be_added_is_said_and_nothing_is_written(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    before = w.session.project.count_pairs()
    dialog = open_dialog(qtbot, w)
    dialog.texts["output"].setPlainText(OUTPUT)
    dialog.add_button.click()
    assert dialog.isVisible() and dialog.problem.text() == "Source: empty"
    dialog.texts["source"].setPlainText(SOURCE)
    assert dialog.problem.text() == ""  # editing clears it
    dialog.pair_id.setText("demo-01")  # the first demo pair's id and system, other texts
    dialog.system.setText("qa-bot")
    dialog.add_button.click()
    qtbot.waitUntil(lambda: "another pair's" in dialog.problem.text(), timeout=10_000)
    assert dialog.isVisible() and dialog.add_button.isEnabled()
    assert w.session.project.count_pairs() == before
    pdf = tmp_path / "article.pdf"
    pdf.write_bytes(b"%PDF-1.5 ...")
    assert not dialog.load("source", str(pdf))
    assert "is a PDF file" in dialog.problem.text()
    assert dialog.texts["source"].toPlainText() == SOURCE  # left as it was


def test_a_loaded_file_is_named_until_its_text_is_edited(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w: MainWindow = window
    dialog = open_dialog(qtbot, w)
    article = tmp_path / "article.txt"
    article.write_bytes(SOURCE.encode() + b"\r\n")
    assert dialog.load("source", str(article))
    assert dialog.texts["source"].toPlainText() == SOURCE
    assert dialog.where() == f"{article} + pasted output"
    dialog.texts["source"].appendPlainText("More.")
    assert dialog.where() == "pasted source + pasted output"


def test_an_empty_project_says_how_to_add_pairs(qtbot, settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "empty.factdesk"
    Project.create(path).close()
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(path)
    assert "no pairs yet" in w.header.text()
    assert "Add a pair (Ctrl+Shift+N)" in w.header.text()
    w.close()


def test_a_file_dropped_on_a_box_is_loaded_into_it(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    w: MainWindow = window
    dialog = open_dialog(qtbot, w)
    article = tmp_path / "article.txt"
    article.write_text(SOURCE + "\n", encoding="utf-8")

    def drop(data: QMimeData) -> None:
        """A drag that enters the output box, then drops there (Qt delivers no drop unless
        the drag entered first)."""
        how = (Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton)
        target = dialog.texts["output"].viewport()
        QApplication.sendEvent(
            target, QDragEnterEvent(QPoint(5, 5), *how, Qt.KeyboardModifier.NoModifier)
        )
        QApplication.sendEvent(
            target, QDropEvent(QPointF(5, 5), *how, Qt.KeyboardModifier.NoModifier)
        )

    files = QMimeData()
    files.setUrls([QUrl.fromLocalFile(str(article))])
    drop(files)
    assert dialog.texts["output"].toPlainText() == SOURCE  # the file's text, not its address
    assert dialog.where() == f"pasted source + {article}"
    two = QMimeData()
    two.setUrls([QUrl.fromLocalFile(str(article)), QUrl.fromLocalFile(str(article))])
    drop(two)  # not one file: Qt's own handling (it inserts the addresses), no load
    assert dialog.where() == "pasted source + pasted output"
    assert "file://" in dialog.texts["output"].toPlainText()


def test_adding_with_no_project_asks_for_one_first(
    qtbot, settings, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    made = tmp_path / "new.factdesk"
    opened: list[AddPairDialog] = []

    def new_project() -> None:  # what File ▸ New project does once a name is chosen
        Project.create(made).close()
        w.session.open_project(made)

    w.adding.new_project = new_project
    monkeypatch.setattr(AddPairDialog, "exec", lambda self: opened.append(self) or 0)
    w.actions_["add_pair"].trigger()
    assert w.session.project is not None and w.session.project.path == made
    assert len(opened) == 1  # then the dialog, for the new project
    w.adding.new_project = lambda: None  # the editor cancels the file dialog
    w.session.close_project()
    w.actions_["add_pair"].trigger()
    assert "create or open one first" in w.statusBar().currentMessage()
    w.close()
