"""Write docs/screenshot.png: the main window on the demo project.

Run: ``xvfb-run -a python packaging/screenshot.py [PROJECT [OUT.png]] [--dark]`` (or with QT_QPA_PLATFORM=offscreen).
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
    # A pair with unsupported content, the second sentence selected and one decision made.
    w.select_pair(w.model.list_row(1).row.output_id)
    w.next_item()
    w.judge(
        w.current_unit().key,
        w._value(
            "unsupported",
            "relabel",
            w.current_unit(),  # type: ignore[union-attr]
            error_type="entity",
        ),
    )

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
