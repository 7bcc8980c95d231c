"""Where the bundled files live: icons, styles, the demo pairs and the bundled models.

In the repository they are the top-level ``resources/`` folder. An installed wheel carries the
same folder as the package ``factdesk_resources`` (``setup.py`` maps ``resources/`` to it), found
with :mod:`importlib.resources`; a PyInstaller app has it under ``sys._MEIPASS``.
"""

from __future__ import annotations

import importlib.resources
import sys
from pathlib import Path

from models.errors import ModelNotFoundError

#: The import name of ``resources/`` in an installed distribution.
PACKAGE = "factdesk_resources"


def resources_dir() -> Path:
    """The folder that holds ``icons/``, ``style/``, ``demo/`` and ``models/``.

    A source checkout (this package beside ``pyproject.toml`` and ``resources/``) wins over an
    installed ``factdesk_resources``, so a checkout always reads its own files even when another
    copy of FactDesk is installed in the same environment.

    Raises:
        ModelNotFoundError: neither a checkout nor an installed ``factdesk_resources`` is found,
            or it is installed inside a zip file (onnxruntime and Qt need real files).
    """
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file() and (root / "resources").is_dir():
        return root / "resources"
    try:
        found = importlib.resources.files(PACKAGE)
    except ModuleNotFoundError as exc:
        raise ModelNotFoundError(
            f"the bundled files are missing: no {root / 'resources'} and no installed package "
            f"{PACKAGE!r} (reinstall FactDesk)"
        ) from exc
    if not isinstance(found, Path):
        raise ModelNotFoundError(
            f"the bundled files of {PACKAGE!r} are inside an archive ({found}); install FactDesk "
            "unzipped"
        )
    return found
