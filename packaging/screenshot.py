"""Write docs/screenshot.png: the main window on the demo project.

Run: ``xvfb-run -a python packaging/screenshot.py [PROJECT [OUT.png]] [--dark] [--pair=ID]
[--checker=NAME] [--entailed]`` (or with QT_QPA_PLATFORM=offscreen); ``--entailed`` draws the
entailed arcs too.
Without PROJECT, the demo project is built in a temporary folder first.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.gui import theme
    from app.gui.main import MainWindow
    from app.settings import Settings

    tmp = tempfile.mkdtemp(prefix="factdesk-shot-")
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if args:
        project = args[0]
    else:
        from app.gui.jobs import DemoRequest, build_demo

        class _Ctx:
            def progress(self, *_a: object) -> None: ...
            def should_stop(self) -> bool:
                return False

        project = build_demo(DemoRequest(str(Path(tmp) / "demo.factdesk")), _Ctx())  # type: ignore[arg-type]
    out = Path(args[1]) if len(args) > 1 else ROOT / "docs" / "screenshot.png"
    app = QApplication(sys.argv[:1])
    dark = "--dark" in sys.argv
    theme.apply(app, dark)
    w = MainWindow(Settings.at(str(Path(tmp) / "settings.ini")))
    w.resize(1500, 900)
    w.show()
    w.open_project(project)
    # --checker=NAME shows that checker; --pair=ID shows that pair, as it is.
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    if "--entailed" in sys.argv:
        w.arc_view.show_entailed.setChecked(True)
    if "checker" in opts:
        w.checker_box.setCurrentIndex(w.checker_box.findData(opts["checker"]))
    rows = [w.model.list_row(i).row for i in range(w.model.rowCount())]
    if "pair" in opts:
        w.select_pair(next(r for r in rows if r.external_id == opts["pair"]).output_id)
    else:
        # The demo's "mixed" pair: its first sentence accepted (decide-and-advance moves on),
        # the second one, with a wrong figure the arc model flags, selected.
        pick = next((r for r in rows if r.external_id == "demo-10"), rows[min(1, len(rows) - 1)])
        w.select_pair(pick.output_id)
        w.do("accept")

    def shoot() -> None:
        w.grab().save(str(out))
        print(out)
        w.close()
        app.quit()

    QTimer.singleShot(300, shoot)
    app.exec()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
