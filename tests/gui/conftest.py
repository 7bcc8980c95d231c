"""GUI test fixtures: offscreen Qt, a throwaway settings file, an analysed demo project."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

# Before Qt is imported: no display, and no chance of writing the user's real configuration.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="factdesk-test-config-")

import pytest  # noqa: E402

from app.settings import Settings  # noqa: E402
from app.tasks import running_threads  # noqa: E402

DEMO_SUBSET = 6


class _Ctx:
    def progress(self, *_a: object) -> None: ...
    def step(self, *_a: object) -> None: ...

    def partial(self, *_a: object) -> None: ...

    def should_stop(self) -> bool:
        return False


@pytest.fixture(scope="session")
def analysed_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, imported and analysed with the lexical baseline (built once)."""
    from app.gui.jobs import DemoRequest, build_demo

    path = tmp_path_factory.mktemp("demo") / "demo.factdesk"
    build_demo(DemoRequest(str(path), ("lexical",)), _Ctx())  # type: ignore[arg-type]
    return path


@pytest.fixture
def demo_path(analysed_demo: Path, tmp_path: Path) -> Path:
    """A private copy of the analysed demo project."""
    dst = tmp_path / "demo.factdesk"
    shutil.copy(analysed_demo, dst)
    return dst


@pytest.fixture
def small_unanalysed(tmp_path: Path) -> Path:
    """A project with a few demo pairs and no analysis."""
    from app.io.importer import import_file
    from app.paths import demo_pairs_file
    from app.store import Project

    lines = demo_pairs_file().read_text(encoding="utf-8").splitlines()[:DEMO_SUBSET]
    src = tmp_path / "few.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "few.factdesk"
    with Project.create(path) as p:
        import_file(p, src)
    return path


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings.at(str(tmp_path / "settings.ini"))


@pytest.fixture
def window(qtbot, settings: Settings, demo_path: Path) -> Iterator[object]:  # type: ignore[no-untyped-def]
    from app.gui.main import MainWindow

    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    w.session.open_project(demo_path)
    w.output_view.setFocus()
    yield w
    w.close()


@pytest.fixture(autouse=True)
def no_thread_outlives_a_test() -> Iterator[None]:
    yield
    assert running_threads() == 0, "a worker thread outlived the test"
