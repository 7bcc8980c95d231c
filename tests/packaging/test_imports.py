"""Core modules do not pull in the window package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_settings_and_tasks_do_not_import_the_window() -> None:
    code = "import sys, app.settings, app.tasks; print(sorted(m for m in sys.modules if m.startswith('app.gui') or m == 'app.gui'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    assert out == "[]"
