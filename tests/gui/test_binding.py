"""Guards against a Qt binding that corrupts reference counts (PySide6 6.12.0 on Python 3.11)."""

import sys

from PySide6.QtCore import QObject


def test_void_qt_calls_keep_none_alive() -> None:
    obj = QObject()
    before = sys.getrefcount(None)
    for _ in range(1000):
        obj.setObjectName("x")
    # Other code may take references meanwhile; a binding bug loses ~1000.
    assert sys.getrefcount(None) - before > -50
