"""The model layer never imports Qt or app, and the start-up path never imports torch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "models"
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "qtpy", "app")


def test_models_never_import_qt_or_app() -> None:
    offenders = []
    for path in MODELS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert not offenders


def test_cli_and_default_checkers_load_without_torch() -> None:
    code = (
        "import sys, app.cli, app.analysis, app.io.exporter;"
        "from models.registry import default_checkers, load_checker;"
        "[load_checker(n, device='cpu') for n in default_checkers()];"
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
