"""Declared bounds are true, and one constraints file pins what CI and the README install."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _declared() -> list[Requirement]:
    reqs = [Requirement(r) for r in PROJECT["dependencies"]]
    for extra in PROJECT["optional-dependencies"].values():
        reqs += [Requirement(r) for r in extra]
    return [r for r in reqs if canonicalize_name(r.name) != "factdesk"]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[canonicalize_name(name)] = version
    return pins


def test_pyside6_bound_has_the_filter_change_api() -> None:
    from PySide6.QtCore import QSortFilterProxyModel

    (pyside,) = [r for r in _declared() if r.name == "PySide6"]
    assert not pyside.specifier.contains("6.9.3")  # endFilterChange(Direction) is 6.10
    assert pyside.specifier.contains("6.10.0") and not pyside.specifier.contains("6.12.0")
    assert hasattr(QSortFilterProxyModel, "endFilterChange")
    assert hasattr(QSortFilterProxyModel.Direction, "Rows")


def test_onnxscript_not_declared() -> None:
    assert "onnxscript" not in {canonicalize_name(r.name) for r in _declared()}


def test_every_declared_package_is_pinned_within_its_bounds() -> None:
    pins = _pins()
    for req in _declared():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} has no pin in constraints.txt"
        assert req.specifier.contains(pins[name], prereleases=True), f"{req} vs {pins[name]}"
    assert "factdesk" not in pins


def test_readme_and_ci_install_with_the_constraints() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    calls = re.findall(r"\.venv/bin/pip install [^&\n]*", readme + "\n" + ci)
    assert len(calls) >= 3
    for call in calls:
        assert "-c constraints.txt" in call and "torch==2.13.0" in call, call
    assert _pins()["torch"] == "2.13.0"
