"""File ▸ Add pair: one source and one output, pasted or loaded from text files.

An editor with one article and one draft types or pastes them here instead of writing a JSON
Lines file. The texts are checked as an import checks its fields
(:func:`app.io.text_pair.text_record`) before anything is written; the pair is written in the
runner's "io" lane, then shown, and analysed at once unless the editor says not to. Texts that
are in the project already are not added twice: that pair is shown instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from PySide6.QtCore import QEvent, QMimeData, QObject
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.jobs import AddRequest, run_add
from app.gui.plaintext import plain_label
from app.gui.session import ReviewSession
from app.io.importer import AddedPair
from app.io.records import PairRecord
from app.io.text_pair import read_text, text_record
from app.tasks import Job
from models.errors import InputError

#: The file dialog's filter for a text to load.
TEXT_FILES = "Texts (*.txt *.md *.text *.docx *.odt *.html *.htm);;All files (*)"


class AddPairDialog(QDialog):
    """The two texts (each typed, pasted or loaded from a file), an optional id, system and
    question, and whether to analyse the pair once it is added.

    Args:
        on_add: called with the validated record and where its texts came from; the dialog
            closes when it returns True, and stays open to show why otherwise.
        parent: the window.
    """

    def __init__(
        self, on_add: Callable[[PairRecord, str, bool], bool], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.on_add = on_add
        self.loaded: dict[str, str] = {}  # role -> the file its text came from, while unedited
        self.setWindowTitle("Add a pair")
        self.resize(1000, 640)
        lay = QVBoxLayout(self)
        texts = QGridLayout()
        self.texts: dict[str, QPlainTextEdit] = {}
        self.drops: list[_FileDrops] = []
        for column, (role, title, hint) in enumerate(
            (
                (
                    "source",
                    "&Source",
                    "Paste the article, passage or document here, or drop its file…",
                ),
                (
                    "output",
                    "&Output",
                    "Paste the summary, answer or draft to check here, or drop its file…",
                ),
            )
        ):
            edit = QPlainTextEdit()
            edit.setPlaceholderText(hint)
            edit.setAccessibleName(f"The pair's {role}")
            edit.setTabChangesFocus(True)  # keyboard first: Tab goes on to the next field
            # kept here: a filter whose Python side is collected stops filtering
            drops = _FileDrops(edit, functools.partial(self.load, role))
            self.drops.append(drops)
            # a drop reaches the text box or its viewport, whichever accepts drops
            edit.installEventFilter(drops)
            edit.viewport().installEventFilter(drops)
            edit.textChanged.connect(lambda r=role: self._edited(r))
            label = QLabel(title)
            label.setBuddy(edit)
            load = QPushButton("Load from file…")
            load.setAccessibleName(f"Load the {role} from a text file")
            load.setAutoDefault(False)  # Enter adds the pair; it does not open a file dialog
            load.clicked.connect(lambda _=False, r=role: self.load(r))
            texts.addWidget(label, 0, 2 * column)
            texts.addWidget(load, 0, 2 * column + 1)
            texts.addWidget(edit, 1, 2 * column, 1, 2)
            self.texts[role] = edit
        lay.addLayout(texts, 1)
        form = QFormLayout()
        self.context = QLineEdit(placeholderText="optional: the question the output answers")
        self.context.setAccessibleName("Question or context")
        form.addRow("&Question", self.context)
        self.pair_id = QLineEdit(placeholderText="optional: made from the texts when empty")
        self.pair_id.setAccessibleName("Pair id")
        form.addRow("&Id", self.pair_id)
        self.system = QLineEdit(placeholderText="optional: the system that wrote the output")
        self.system.setAccessibleName("System")
        form.addRow("S&ystem", self.system)
        self.analyse = QCheckBox("A&nalyse it once it is added")
        self.analyse.setChecked(True)
        form.addRow(self.analyse)
        lay.addLayout(form)
        self.problem = plain_label(QLabel())
        self.problem.setWordWrap(True)
        self.problem.setAccessibleName("Why the pair cannot be added")
        self.problem.setStyleSheet("color: #b00020")
        lay.addWidget(self.problem)
        buttons = QDialogButtonBox()
        self.add_button = buttons.addButton("&Add", QDialogButtonBox.ButtonRole.AcceptRole)
        self.add_button.setDefault(True)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.add_button.clicked.connect(self.add)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.texts["source"].setFocus()

    def _edited(self, role: str) -> None:
        self.problem.clear()
        edit = self.texts[role]
        if role in self.loaded and edit.property("loading") is not True:
            del self.loaded[role]  # typed into: no longer the file's text

    def load(self, role: str, path: str | None = None) -> bool:
        """Put a text file's text in ``role``'s box (asks for the file when ``path`` is None);
        a file that cannot be used is said why, and the box is left as it was."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, f"Load the {role}", "", TEXT_FILES)
            if not path:
                return False
        try:
            text = read_text(path, role)
        except InputError as err:
            self.problem.setText(str(err))
            return False
        edit = self.texts[role]
        edit.setProperty("loading", True)
        edit.setPlainText(text)
        edit.setProperty("loading", False)
        self.loaded[role] = path
        return True

    def where(self) -> str:
        """Where the texts came from, for messages: the files they were loaded from, or
        "pasted text"."""
        return " + ".join(self.loaded.get(role, f"pasted {role}") for role in ("source", "output"))

    def add(self) -> None:
        try:
            record = text_record(
                self.texts["source"].toPlainText(),
                self.texts["output"].toPlainText(),
                pair_id=self.pair_id.text() or None,
                system=self.system.text() or None,
                context=self.context.text() or None,
            )
        except InputError as err:
            self.problem.setText(_said(err))
            return
        if self.on_add(record, self.where(), self.analyse.isChecked()):
            self.accept()


class _FileDrops(QObject):
    """A text box that loads a file dropped on it (one from a file manager), instead of
    inserting its address; dropped text is inserted as usual."""

    def __init__(self, parent: QObject, load: Callable[[str], bool]) -> None:
        super().__init__(parent)
        self.load = load

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            assert isinstance(event, QDropEvent)
            path = _dropped_file(event.mimeData())
            if path is None:
                return False
            event.acceptProposedAction()
            if event.type() == QEvent.Type.Drop:
                self.load(path)
            return True
        return False


def _dropped_file(data: QMimeData) -> str | None:
    """The one local file a drop carries; None for text, several files or a remote address."""
    urls = data.urls() if data.hasUrls() else []
    if len(urls) != 1 or not urls[0].isLocalFile():
        return None
    return urls[0].toLocalFile()


class AddPair:
    """File ▸ Add pair: the dialog, the write in the background and what follows it.

    Args:
        session: the review session (project, runner, pair list, status bar).
        analyse: starts an analysis of the pairs not yet scored (Analysis ▸ Analyse).
        analysing: whether an analysis runs now (it scores the pairs it planned at its start).
        new_project: asks for a new project file and opens it (File ▸ New project), for a pair
            added with no project open.
    """

    def __init__(
        self,
        session: ReviewSession,
        analyse: Callable[[], object],
        analysing: Callable[[], bool],
        new_project: Callable[[], object],
    ) -> None:
        self.session = session
        self.analyse = analyse
        self.analysing = analysing
        self.new_project = new_project
        self.dialog: AddPairDialog | None = None

    def ask(self) -> None:
        session = self.session
        if session.project is None:
            # a pair needs a project file: the editor names one first (or cancels)
            self.new_project()
            if session.project is None:
                session.statusBar().showMessage(
                    "No project to add a pair to: create or open one first (File ▸ New "
                    "project, Ctrl+N)",
                    8000,
                )
                return
        self.dialog = AddPairDialog(self.submit, session.window())
        self.dialog.exec()
        self.dialog = None

    def submit(self, record: PairRecord, where: str, analyse: bool) -> bool:
        """Write the pair in the background; the dialog stays open (its Add button off) until
        it is written, and says why when it is not."""
        session = self.session
        dialog = self.dialog
        if session.project is None:
            return False
        if dialog is not None:
            dialog.add_button.setEnabled(False)

        def done(added: object) -> None:
            assert isinstance(added, AddedPair)
            if dialog is not None:
                dialog.accept()
            self.show(added, analyse)

        def failed(err: BaseException) -> None:
            if dialog is None:
                session.show_error(err)
                return
            dialog.add_button.setEnabled(True)
            dialog.problem.setText(_said(err))

        session.runner.submit(
            Job(
                "io",
                run_add,
                AddRequest(str(session.project.path), record, where),
                on_done=done,
                on_error=failed,
            )
        )
        return False

    def show(self, added: AddedPair, analyse: bool) -> None:
        """The new (or already present) pair in the list, the editor told which, and its
        analysis started when asked for."""
        session = self.session
        session.pairs_changed()
        shown = session.pairs.select(added.output_id)
        if added.added:
            said = f"Added pair '{added.external_id}'"
        else:
            said = f"Not added: the project has these texts already, as pair '{added.external_id}'"
        if not shown:
            said += " (the list's filters hide it)"
        if added.added and analyse and self.analysing():
            # the running analysis planned its pairs when it started: this one is not among them
            said += "; an analysis is running: analyse again when it ends (Ctrl+R) to score it"
        elif added.added and analyse:
            self.analyse()
        session.statusBar().showMessage(said, 10000)


def _said(err: BaseException) -> str:
    """An error about the texts in the dialog's words: the field named as the box is."""
    if isinstance(err, InputError) and err.path is None and err.field:
        names = {"source": "Source", "output": "Output", "context": "Question"}
        return f"{names.get(err.field, err.field.capitalize())}: {err.reason}"
    return str(err)
