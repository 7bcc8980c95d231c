"""The desktop entry's launcher opens a file when given one and the empty window otherwise."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_launcher_passes_a_file_to_open_and_nothing_otherwise(tmp_path: Path) -> None:
    launcher = tmp_path / "factdesk-launch"
    shutil.copy2(ROOT / "packaging" / "factdesk-launch.sh", launcher)
    fake = tmp_path / "factdesk"  # stands in for the frozen app beside the launcher
    fake.write_text('#!/bin/sh\necho "$#"; for a in "$@"; do echo "$a"; done\n')
    fake.chmod(0o755)
    link = tmp_path / "elsewhere" / "launch"  # a symlink on PATH still finds the app
    link.parent.mkdir()
    link.symlink_to(launcher)
    run = lambda *a: subprocess.run([str(link), *a], capture_output=True, text=True, check=True)  # noqa: E731
    assert run("my project.factdesk").stdout == "2\nopen\nmy project.factdesk\n"
    assert run().stdout == "0\n"


def test_build_points_the_desktop_entry_at_the_built_app() -> None:
    entry = (ROOT / "packaging" / "factdesk.desktop").read_text(encoding="utf-8")
    assert "\nExec=" in entry and "%f" in entry
    script = (ROOT / "packaging" / "build.sh").read_text(encoding="utf-8")
    assert 's|^Exec=.*|Exec=\\"$app/factdesk-launch\\" %f|' in script
    assert "demo --no-window" in script  # the build checks the frozen app runs
    spec = (ROOT / "packaging" / "factdesk.spec").read_text(encoding="utf-8")
    assert '(str(root / "resources"), "resources")' in spec  # the whole folder, any depth
