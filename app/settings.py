"""Typed settings, each declared once, stored in ``QSettings``.

Every setting is a :class:`Setting` constant below; code reads and writes them through
:class:`Settings`, never with string keys. Tests pass a ``QSettings`` on a temporary file so the
user's real configuration is never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from app.thresholds import DEFAULT_THRESHOLD

T = TypeVar("T")


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One setting: its key, type, default and what it is for."""

    key: str
    default: T
    doc: str


THRESHOLD: Setting[float] = Setting(
    "review/threshold", DEFAULT_THRESHOLD, "Scores below this count as flagged"
)
BLIND: Setting[bool] = Setting("review/blind", False, "Hide model marks while judging")
ADVANCE: Setting[bool] = Setting("review/advance", True, "Move to the next item after a decision")
CHECKER: Setting[str] = Setting("review/checker", "", "Checker whose scores are shown")
FONT_SIZE: Setting[int] = Setting("view/font_size", 11, "Point size of the texts")
DARK: Setting[bool] = Setting("view/dark", False, "Dark theme")
GEOMETRY: Setting[QByteArray] = Setting("window/geometry", QByteArray(), "Main window geometry")
WINDOW_STATE: Setting[QByteArray] = Setting("window/state", QByteArray(), "Splitter/dock state")
SPLITTER: Setting[QByteArray] = Setting("window/splitter", QByteArray(), "Text splitter state")
ARC_SPLITTER: Setting[QByteArray] = Setting(
    "window/arc_splitter", QByteArray(), "Texts above, arc diagram below: the splitter's state"
)
MAIN_SPLITTER: Setting[QByteArray] = Setting(
    "window/main_splitter", QByteArray(), "Pair list beside the pair: the splitter's state"
)
RECENT: Setting[list] = Setting("files/recent", [], "Recently opened projects, newest first")
REVIEWER: Setting[str] = Setting(
    "review/reviewer", "", "Reviewer name the window's judgments are recorded under ('': not asked)"
)

#: Judging actions and their default keys (Prodigy-style). Remap with ``keys/<action>``.
DEFAULT_KEYS: dict[str, str] = {
    "accept": "A",
    "reject": "X",
    "skip": "Space",
    "flag": "F",
    "relabel": "E",
    "next": "J",
    "prev": "K",
    "next_alt": "Down",
    "prev_alt": "Up",
    "next_pair": "L",
    "prev_pair": "H",
    "next_pair_alt": "Right",
    "prev_pair_alt": "Left",
    "level": "T",
    "blind": "B",
    "ais": "I",
    "undo": "U",
    "next_useful": "N",
}

ALL_SETTINGS: tuple[Setting[Any], ...] = (
    THRESHOLD,
    BLIND,
    ADVANCE,
    CHECKER,
    FONT_SIZE,
    DARK,
    GEOMETRY,
    WINDOW_STATE,
    SPLITTER,
    ARC_SPLITTER,
    MAIN_SPLITTER,
    RECENT,
    REVIEWER,
)


class Settings:
    """Typed access to a ``QSettings`` store."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self.q = qsettings if qsettings is not None else QSettings("FactDesk", "FactDesk")

    @classmethod
    def at(cls, path: str) -> Settings:
        """Settings kept in an INI file at ``path`` (tests, portable installs)."""
        return cls(QSettings(path, QSettings.Format.IniFormat))

    def get(self, setting: Setting[T]) -> T:
        raw = self.q.value(setting.key, None)
        if raw is None:
            return setting.default
        return _coerce(raw, setting.default)

    def set(self, setting: Setting[T], value: T) -> None:
        self.q.setValue(setting.key, value)

    def keymap(self) -> dict[str, str]:
        """Action -> key sequence text, defaults overridden by ``keys/<action>``."""
        return {a: str(self.q.value(f"keys/{a}", k)) for a, k in DEFAULT_KEYS.items()}

    def set_key(self, action: str, key: str) -> None:
        if action not in DEFAULT_KEYS:
            raise KeyError(action)
        self.q.setValue(f"keys/{action}", key)

    def add_recent(self, path: str, limit: int = 8) -> None:
        recent = [p for p in self.get(RECENT) if p != path]
        self.set(RECENT, [path, *recent][:limit])

    def sync(self) -> None:
        self.q.sync()


def _coerce(raw: Any, default: Any) -> Any:
    """QSettings returns strings from INI files; turn them back into the declared type."""
    if isinstance(default, bool):
        return raw if isinstance(raw, bool) else str(raw).lower() in ("true", "1", "yes")
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, list):
        if raw in ("", None):
            return []
        return list(raw) if isinstance(raw, (list, tuple)) else [str(raw)]
    if isinstance(default, QByteArray):
        return raw if isinstance(raw, QByteArray) else QByteArray()
    return str(raw)
