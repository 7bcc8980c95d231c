"""What the window needs from the system, checked before Qt starts.

Qt's xcb platform plugin (the X11 one) links X11/xcb libraries that a fresh Debian install does
not have; Qt then aborts with "no Qt platform plugin could be initialized" without naming them.
:func:`window_problem` names the missing libraries and the Debian packages that provide them.
Nothing here imports Qt, so the check runs before Qt can abort.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Mapping

#: Shared libraries that PySide6's xcb platform plugin (``libqxcb.so``, ``libQt6XcbQpa``) and
#: QtGui load from the system (``ldd`` of PySide6 6.11's plugin; Qt's own libraries come with
#: PySide6), each with the Debian package that provides it. libc, libstdc++, zlib and the like
#: are left out: no Debian system runs without them.
XCB_LIBRARIES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
}

#: Answers whether a shared library (by soname) can be loaded.
Lookup = Callable[[str], bool]


def loadable(soname: str) -> bool:
    """Whether the dynamic loader finds and loads ``soname`` (the search Qt's plugin gets)."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def uses_xcb(env: Mapping[str, str]) -> bool:
    """Whether Qt will start on its xcb (X11) platform plugin with this environment.

    True when ``QT_QPA_PLATFORM`` is unset or names xcb first, and ``DISPLAY`` is set. Under a
    Wayland session (``WAYLAND_DISPLAY`` set, no platform named) Qt may pick its Wayland plugin,
    which needs none of these libraries, so nothing is claimed then.
    """
    if not env.get("DISPLAY"):
        return False
    platform = env.get("QT_QPA_PLATFORM", "").strip()
    if not platform:
        return not env.get("WAYLAND_DISPLAY")
    first = platform.split(";")[0].split(":")[0].strip()
    return first == "xcb"


def missing_libraries(lookup: Lookup | None = None) -> list[str]:
    """Sonames of :data:`XCB_LIBRARIES` that cannot be loaded, in table order."""
    found = lookup or loadable
    return [soname for soname in XCB_LIBRARIES if not found(soname)]


def window_problem(
    env: Mapping[str, str] | None = None, lookup: Lookup | None = None
) -> str | None:
    """Why the window cannot start on this system, in one line, or None when nothing is missing.

    Args:
        env: the environment (default ``os.environ``).
        lookup: answers whether a soname loads (default :func:`loadable`); tests pass a fake.
    """
    if not uses_xcb(os.environ if env is None else env):
        return None
    missing = missing_libraries(lookup)
    if not missing:
        return None
    packages = list(dict.fromkeys(XCB_LIBRARIES[m] for m in missing))
    return (
        f"the window cannot start: Qt's X11 (xcb) platform plugin needs {', '.join(missing)}, "
        f"not found on this system; on Debian/Ubuntu install them with: "
        f"sudo apt-get install {' '.join(packages)}"
    )
