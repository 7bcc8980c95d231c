"""Bundled files are found in a checkout, an installed wheel and a frozen app, or named missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.paths import demo_pairs_file, resources_dir
from models import resources
from models.errors import ModelNotFoundError

ROOT = Path(__file__).resolve().parents[2]


def test_checkout_reads_its_own_resources() -> None:
    assert resources_dir() == ROOT / "resources"
    assert demo_pairs_file().is_file()


def test_installed_copy_found_through_importlib_resources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages"
    (site / "models").mkdir(parents=True)
    (site / "fd_test_resources" / "icons").mkdir(parents=True)
    (site / "fd_test_resources" / "__init__.py").write_text("")
    monkeypatch.setattr(resources, "__file__", str(site / "models" / "resources.py"))
    monkeypatch.setattr(resources, "PACKAGE", "fd_test_resources")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert resources_dir() == site / "fd_test_resources"
    finally:
        sys.modules.pop("fd_test_resources", None)


def test_missing_resources_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resources, "__file__", str(tmp_path / "models" / "resources.py"))
    monkeypatch.setattr(resources, "PACKAGE", "fd_test_no_such_package")
    with pytest.raises(ModelNotFoundError, match="fd_test_no_such_package"):
        resources_dir()


def test_frozen_app_reads_its_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources_dir() == tmp_path / "resources"
