"""Relabel, import and export dialogs."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.gui.jobs import ExportRequest, ImportRequest, run_export, run_import
from app.gui.plaintext import plain_label
from app.io.exporter import EXPORT_FORMATS, parse_export_format
from app.io.records import FieldMapping, Format, parse_format, read_pairs
from app.store import JudgmentValue
from app.tasks import Job, TaskRunner
from app.wording import counted

PREVIEW_ROWS = 50


class RelabelDialog(QDialog):
    """A different label, an error type from the taxonomy and a note."""

    def __init__(
        self,
        taxonomy: list[dict[str, str]],
        current: JudgmentValue | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Relabel")
        form = QFormLayout(self)
        self.label = QComboBox()
        self.label.setAccessibleName("Label")
        self.label.addItems(["unsupported", "supported"])
        self.error = QComboBox()
        self.error.setAccessibleName("Error type")
        self.error.addItem("(none)", None)
        for n, t in enumerate(taxonomy):
            prefix = f"{n + 1}  " if n < 9 else "    "
            self.error.addItem(f"{prefix}{t['name']} — {t['group']}", t["key"])
        self.note = QLineEdit()
        self.note.setAccessibleName("Note")
        if current is not None:
            self.label.setCurrentText(current.label)
            i = self.error.findData(current.error_type)
            self.error.setCurrentIndex(max(i, 0))
            self.note.setText(current.note or "")
        form.addRow("&Label", self.label)
        form.addRow("&Error type", self.error)
        form.addRow("&Note", self.note)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> tuple[str, str | None, str | None]:
        return self.label.currentText(), self.error.currentData(), self.note.text().strip() or None


class ImportDialog(QDialog):
    """Pick a file and its field mapping, preview the records and the validation errors.

    Args:
        project_path: the project the pairs go into (the import job opens it on its thread).
        runner: the window's task runner (the import runs in its "io" lane).
        on_imported: called on the main thread after a successful import.
        parent: the dialog's parent window.
    """

    def __init__(
        self,
        project_path: str,
        runner: TaskRunner,
        on_imported: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.project_path = project_path
        self.runner = runner
        self.on_imported = on_imported
        self.setWindowTitle("Import pairs")
        self.resize(900, 600)
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setAccessibleName("File to import")
        path_label = QLabel("Fi&le to import")
        path_label.setBuddy(self.path)
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self._browse)
        row.addWidget(path_label)
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        lay.addLayout(row)
        form = QFormLayout()
        self.fmt = QComboBox()
        self.fmt.setAccessibleName("Format")
        self.fmt.addItems(["auto", "jsonl", "csv", "tsv"])
        form.addRow("&Format", self.fmt)
        self.fields: dict[str, QLineEdit] = {}
        for name in ("source", "output", "id", "system", "context"):
            edit = QLineEdit(placeholderText="default names")
            edit.setAccessibleName(f"Field holding the {name}")
            self.fields[name] = edit
            form.addRow(f"{name.capitalize()} field", edit)
        self.skip = QCheckBox("Skip invalid records (each is reported)")
        form.addRow(self.skip)
        lay.addLayout(form)
        self.preview_button = QPushButton("&Preview")
        self.preview_button.clicked.connect(self.preview)
        lay.addWidget(self.preview_button)
        self.table = QTableWidget(0, 4)
        self.table.setAccessibleName("Preview of the records")
        self.table.setHorizontalHeaderLabels(["id", "system", "source", "output"])
        self.table.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.table, 2)
        self.summary = plain_label(QLabel())
        lay.addWidget(self.summary)
        self.errors = QListWidget()
        self.errors.setAccessibleName("Validation errors")
        lay.addWidget(self.errors, 1)
        buttons = QDialogButtonBox()
        self.import_button = buttons.addButton("&Import", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.import_button.clicked.connect(self.do_import)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Import pairs", "", "Pairs (*.jsonl *.json *.csv *.tsv *.txt)"
        )
        if path:
            self.path.setText(path)
            self.preview()

    def mapping(self) -> FieldMapping:
        return FieldMapping(**{k: (e.text().strip() or None) for k, e in self.fields.items()})

    def _fmt(self) -> Format | None:
        text = self.fmt.currentText()
        return parse_format(None if text == "auto" else text)

    def preview(self) -> None:
        """Validate the whole file without writing; list the first records and every error."""
        self.errors.clear()
        self.table.setRowCount(0)
        try:
            result = read_pairs(
                self.path.text(),
                fmt=self._fmt(),
                mapping=self.mapping(),
                skip_invalid=True,
            )
        except Exception as err:  # noqa: BLE001 - shown in the dialog's error list
            self.summary.setText("The file cannot be imported:")
            self.errors.addItem(str(err))
            return
        self.summary.setText(
            f"{len(result.records)} valid records, {len(result.invalid)} invalid"
            + (
                ""
                if not result.invalid or self.skip.isChecked()
                else " — nothing is imported unless 'Skip invalid records' is ticked"
            )
        )
        for rec in result.records[:PREVIEW_ROWS]:
            r = self.table.rowCount()
            self.table.insertRow(r)
            for c, v in enumerate(
                (rec.external_id or "", rec.system or "", rec.source[:120], rec.output[:120])
            ):
                self.table.setItem(r, c, QTableWidgetItem(v))
        for p in result.invalid:
            self.errors.addItem(
                f"line {p.line}: {p.field or '-'}: {p.reason}" + (f" (id {p.id})" if p.id else "")
            )

    def do_import(self) -> None:
        req = ImportRequest(
            self.project_path,
            self.path.text(),
            self._fmt(),
            self.mapping(),
            self.skip.isChecked(),
        )
        self.import_button.setEnabled(False)
        self.summary.setText("Importing…")

        def done(report: object) -> None:
            assert isinstance(report, dict)
            self.summary.setText(
                f"Imported {counted(report['imported'], 'pair')}; "
                f"{counted(report['duplicates'], 'duplicate')}, {report['skipped']:,} skipped."
            )
            self.import_button.setEnabled(True)
            self.on_imported()

        def failed(err: BaseException) -> None:
            self.import_button.setEnabled(True)
            self.summary.setText("Nothing was imported:")
            self.errors.addItem(str(err))

        self.runner.submit(Job("io", run_import, req, on_done=done, on_error=failed))


class ExportDialog(QDialog):
    """Export the project in one of the formats the core writes (in the runner's "io" lane)."""

    def __init__(
        self, project_path: str, runner: TaskRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.project_path = project_path
        self.runner = runner
        self.setWindowTitle("Export")
        form = QFormLayout(self)
        self.fmt = QComboBox()
        self.fmt.setAccessibleName("Export format")
        self.fmt.addItems(list(EXPORT_FORMATS))
        row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setAccessibleName("Export file")
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self._browse)
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form.addRow("&Format", self.fmt)
        # A form row whose field is a layout gets no buddy: "&File" would show its ampersand.
        file_label = QLabel("F&ile")
        file_label.setBuddy(self.path)
        form.addRow(file_label, row)
        self.status = plain_label(QLabel())  # errors quote paths
        form.addRow(self.status)
        buttons = QDialogButtonBox()
        self.export_button = buttons.addButton("&Export", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.export_button.clicked.connect(self.do_export)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        ext = {"csv": "csv", "dae-arcs": "tsv"}.get(self.fmt.currentText(), "jsonl")
        path, _ = QFileDialog.getSaveFileName(self, "Export", f"export.{ext}")
        if path:
            self.path.setText(path)

    def do_export(self) -> None:
        if not self.path.text().strip():
            self.status.setText("Choose a file first.")
            return
        req = ExportRequest(
            self.project_path,
            self.path.text().strip(),
            parse_export_format(self.fmt.currentText()),
        )
        self.export_button.setEnabled(False)
        self.status.setText("Exporting…")

        def done(n: object) -> None:
            self.status.setText(f"Wrote {n} records to {req.out}")
            self.export_button.setEnabled(True)

        def failed(err: BaseException) -> None:
            self.status.setText(f"Export failed: {err}")
            self.export_button.setEnabled(True)

        self.runner.submit(Job("io", run_export, req, on_done=done, on_error=failed))
