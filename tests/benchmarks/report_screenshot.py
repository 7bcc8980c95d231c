"""Render the demo project's audit report in headless Chromium and save the screenshot.

Run: python tests/benchmarks/report_screenshot.py [--project P] [--out docs/report.png]

Needs the Debian package ``chromium``. Without ``--project`` it uses the demo project, analysed
with the default checkers (built on first use, as ``factdesk demo`` does). The report is written
from a copy of the project in which the demo's own expected labels (``expected.faithful`` in
``resources/demo/demo_pairs.jsonl``) are recorded as pair judgments by the reviewer
``demo-expected-labels``, so that the agreement section has something to show; the project
itself is not changed. The script prints where the HTML and the PNG are and how long each step
took.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.audit.report import write_report  # noqa: E402
from app.demo import demo_project_path, prepare_demo  # noqa: E402
from app.paths import demo_pairs_file  # noqa: E402
from app.store import Project  # noqa: E402
from app.store.judging import JudgmentKey, JudgmentValue  # noqa: E402


def copy_project(src: Path, dst: Path) -> None:
    """A consistent copy through SQLite's backup API (the -wal's committed work included)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def record_expected_labels(project: Project) -> int:
    """The demo's expected labels as pair judgments of their own reviewer."""
    expected = {}
    for line in demo_pairs_file().read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        expected[rec["id"]] = rec.get("expected") or {}
    project.annotator = "demo-expected-labels"
    n = 0
    for row in project.pair_rows():
        exp = expected.get(row.external_id)
        if not exp or "faithful" not in exp:
            continue
        label = "supported" if exp["faithful"] else "unsupported"
        note = None if exp["faithful"] else exp.get("note")
        project.judge(
            JudgmentKey(row.output_id),
            JudgmentValue(label, "relabel", note=note, model_visible=False),
        )
        n += 1
    return n


def shrink(png: Path) -> None:
    """Keep the committed screenshot small: 256 colours are plenty for a page of text."""
    from PIL import Image

    with Image.open(png) as img:
        small = img.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE)
    small.save(png, optimize=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", type=Path, help="project to report on (default: the demo)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "report.png")
    ap.add_argument("--html", type=Path, help="keep the HTML here too")
    ap.add_argument("--size", default="1280,2000", help="window size, WIDTH,HEIGHT")
    ap.add_argument(
        "--expected-labels",
        action="store_true",
        help="record the demo's expected labels in the copy (always done for the default demo)",
    )
    args = ap.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no chromium binary: apt-get install chromium", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    src = args.project or prepare_demo(demo_project_path())
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / src.name
        copy_project(src, copy)
        html = args.html or Path(tmp) / "report.html"
        with Project.open(copy) as project:
            use_labels = args.project is None or args.expected_labels
            judged = record_expected_labels(project) if use_labels else 0
            write_report(project, html)
        t2 = time.perf_counter()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--screenshot={args.out}",
                f"--window-size={args.size}",
                html.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
        t3 = time.perf_counter()
        shrink(args.out)
        size = html.stat().st_size
    print(f"project {src} ({judged} expected labels recorded in a copy)")
    print(
        f"report: {size / 1024:.0f} KiB HTML in {t2 - t1:.1f} s (project ready in {t1 - t0:.1f} s)"
    )
    print(f"screenshot: {args.out} in {t3 - t2:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
