from __future__ import annotations

from app import settings as S
from app.settings import Settings


def test_typed_values_round_trip_through_ini(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "s.ini")
    s = Settings.at(path)
    assert s.get(S.THRESHOLD) == 0.5 and s.get(S.BLIND) is False
    s.set(S.THRESHOLD, 0.35)
    s.set(S.BLIND, True)
    s.set(S.FONT_SIZE, 14)
    s.add_recent("/a.factdesk")
    s.add_recent("/b.factdesk")
    s.set_key("accept", "Y")
    s.sync()
    again = Settings.at(path)
    assert again.get(S.THRESHOLD) == 0.35
    assert again.get(S.BLIND) is True
    assert again.get(S.FONT_SIZE) == 14
    assert again.get(S.RECENT) == ["/b.factdesk", "/a.factdesk"]
    assert again.keymap()["accept"] == "Y"
