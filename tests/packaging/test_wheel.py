"""A wheel built from the checkout carries every bundled file and runs the demo when installed.

The wheel is built from the files a fresh clone would have (tracked plus untracked, not ignored),
installed with ``--no-deps`` into an empty virtualenv that borrows this interpreter's
site-packages for the dependencies (a ``.pth`` line), and run from outside the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _checkout_files() -> list[str]:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: cannot tell which files a clone would have")
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    return [f for f in out.decode().split("\0") if f and (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """(the wheel, the checkout's file list) built from a copy of the checkout."""
    files = _checkout_files()
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    for rel in files:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["--wheel-dir", str(tmp / "dist"), str(src)],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp / "dist").glob("factdesk-*.whl")
    return wheel, files


def test_wheel_carries_resources_and_migrations(built: tuple[Path, list[str]]) -> None:
    wheel, files = built
    names = set(zipfile.ZipFile(wheel).namelist())
    resources = [f for f in files if f.startswith("resources/") and "__pycache__" not in f]
    assert any(f.startswith("resources/models/") and f.endswith(".onnx") for f in resources)
    missing = [
        f for f in resources if "factdesk_resources/" + f.removeprefix("resources/") not in names
    ]
    assert not missing, f"resources missing from the wheel: {missing}"
    migrations = [f for f in files if f.startswith("app/store/migrations/") and f.endswith(".py")]
    assert migrations and not [f for f in migrations if f not in names]
    assert not [n for n in names if n.endswith("alembic.ini")]
    code = [f for f in files if f.endswith(".py") and f.split("/")[0] in ("app", "models")]
    assert not [f for f in code if f not in names]
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "factdesk = app.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_installed_wheel_runs_demo(built: tuple[Path, list[str]], tmp_path: Path) -> None:
    wheel, _ = built
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + ["--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # the dependencies come from this interpreter's environment; a plain path line does not run
    # that environment's own .pth files, so an editable FactDesk there stays out of the way
    (site / "zz_factdesk_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))

    where = subprocess.run(
        [str(python), "-c", "from app.paths import resources_dir; print(resources_dir())"],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert Path(where) == site / "factdesk_resources"

    run = subprocess.run(
        [str(venv / "bin" / "factdesk"), "demo", "--no-window"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"demo project: {tmp_path / 'data' / 'factdesk' / 'demo.factdesk'}" in run.stdout
    assert "demo-10" in run.stdout
    # scored by the bundled models from the wheel, not the lexical fallback used without them
    scores = [line for line in run.stdout.splitlines() if "each checker's pair score:" in line]
    assert len(scores) == 32
    assert all(
        "arc entailment (DAE) 0." in line or "arc entailment (DAE) 1." in line for line in scores
    )
    assert all("sentence support 0." in line or "sentence support 1." in line for line in scores)
