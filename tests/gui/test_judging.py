"""The judging controller on its own: no window, no widgets, decisions land in the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from app.gui.judging import JudgingController
from app.store import JudgmentKey, Project


class Navigator:
    """Stands in for the pair list: an ordered list of output ids and a cursor."""

    def __init__(self, c: JudgingController, ids: list[int]) -> None:
        self.c, self.ids, self.at = c, ids, 0

    def __call__(self, step: int) -> bool:
        if not 0 <= self.at + step < len(self.ids):
            return False
        self.at += step
        self.c.show_pair(self.ids[self.at])
        return True


@pytest.fixture
def judging(qapp: QApplication, demo_path: Path) -> Iterator[tuple[JudgingController, Navigator]]:
    project = Project.open(demo_path)
    c = JudgingController()
    c.attach(project)
    names = project.checker_names()
    checker = next(iter(names))
    c.set_checker(checker, project.current_versions()[checker], names[checker])
    ids = [r.output_id for r in project.pair_rows()]
    nav = Navigator(c, ids)
    c.step_pair = nav
    c.show_pair(ids[0])
    yield c, nav
    c.detach()
    project.close()


def test_controller_holds_no_widgets(judging) -> None:  # type: ignore[no-untyped-def]
    c, _nav = judging
    assert c.findChildren(QWidget) == []
    assert not any(isinstance(v, QWidget) for v in vars(c).values())


def test_keys_become_committed_undoable_decisions(judging) -> None:  # type: ignore[no-untyped-def]
    c, nav = judging
    assert c.project is not None and c.bundle is not None
    s0 = JudgmentKey(c.bundle.output.id, "sentence", sentence_id=c.bundle.sentences[0].id)
    s1 = JudgmentKey(c.bundle.output.id, "sentence", sentence_id=c.bundle.sentences[1].id)
    saved: list[str] = []
    judged: list[int] = []
    c.saved.connect(saved.append)
    c.judged.connect(judged.append)
    assert c.press(Qt.Key.Key_A)  # accept, advance
    value = c.project.judgment(s0)
    assert value is not None and (value.label, value.decision) == ("supported", "accept")
    assert value.model_visible is True
    assert c.unit == 1 and judged == [c.bundle.output.id] and "Saved" in saved[-1]
    assert c.press(Qt.Key.Key_2)  # second error type of the taxonomy
    v1 = c.project.judgment(s1)
    assert v1 is not None and v1.error_type == c.project.taxonomy()[1]["key"]
    assert c.undo_stack.count() == 2
    c.do("undo")
    assert c.project.judgment(s1) is None and "undid" in saved[-1]
    assert not c.press(Qt.Key.Key_Q)  # not a judging key


def test_blind_ais_and_pair_steps(judging) -> None:  # type: ignore[no-untyped-def]
    c, nav = judging
    modes: list[None] = []
    c.modes_changed.connect(lambda: modes.append(None))
    c.do("blind")
    assert c.blind and c.hides_model and modes
    c.do("accept")
    assert c.project.judgment(c.units[0].key).model_visible is False
    c.do("blind")
    c.do("ais")
    first = c.current_output_id()
    assert c.ais_mode and c.ais_stage == 1 and c.hides_model
    c.do("accept")  # interpretable: stage two on the same pair
    assert c.ais_stage == 2 and c.current_output_id() == first
    c.do("reject")  # not supported: next pair
    assert c.current_output_id() != first and nav.at == 1
    v = c.project.judgment(JudgmentKey(first, "pair"))
    assert v is not None and v.label == "unsupported" and v.model_visible is True
    messages: list[str] = []
    c.message.connect(lambda text, _ms: messages.append(text))
    nav.at = len(nav.ids) - 1
    c.next_pair()
    assert messages == ["No more pairs in this direction"]


def test_arc_level_units_follow_the_threshold(judging) -> None:  # type: ignore[no-untyped-def]
    c, _nav = judging
    c.set_level("arc")
    c.set_threshold(0.0)
    c.build_units()
    assert c.units == [] and c.flagged_arcs() == []
    c.set_threshold(1.0)
    c.build_units()
    assert c.units and all(u.key.target == "arc" for u in c.units)
    assert c.select_arc(c.units[-1].key.arc_id or -1)
    assert c.current_unit() == c.units[-1]


CHAT = {
    "id": "chat",
    "source": "The museum will close for renovation from 1 March to 30 June. The shop stays "
    "open online.",
    "output": "Sure! Here's a summary of the article:\n\nThe museum closes from March to June. "
    "The shop stays open online.\n\nI hope this helps!",
}


@pytest.fixture
def chat(qapp: QApplication, tmp_path: Path) -> Iterator[JudgingController]:
    from app.analysis import analyze
    from app.io.importer import import_file
    from models.registry import load_checker
    from tests.conftest import write_jsonl

    project = Project.create(tmp_path / "chat.factdesk")
    following = {**CHAT, "id": "next", "output": CHAT["output"].replace("Sure! ", "")}
    import_file(project, write_jsonl(tmp_path / "chat.jsonl", [CHAT, following]))
    analyze(project, [load_checker("lexical")])
    c = JudgingController()
    c.attach(project)
    names = project.checker_names()
    c.set_checker("lexical", project.current_versions()["lexical"], names["lexical"])
    ids = [r.output_id for r in project.pair_rows()]
    c.step_pair = Navigator(c, ids)
    c.show_pair(ids[0])
    yield c
    c.detach()
    project.close()


def test_the_keyboard_passes_over_sentences_that_state_nothing(chat) -> None:  # type: ignore[no-untyped-def]
    c = chat
    assert c.bundle is not None
    texts = [s.text for s in c.bundle.sentences]
    assert texts[0] == "Sure!" and texts[-1] == "I hope this helps!"

    def at() -> str:
        unit = c.current_unit()
        assert unit is not None and c.bundle is not None
        return f"{c.bundle.output.external_id}:{c.bundle.sentences[unit.number].text}"

    # the pair opens on its first claim, not on "Sure!" or the framing line
    assert at() == "chat:The museum closes from March to June."
    c.next_item()
    assert at() == "chat:The shop stays open online."
    c.next_item()  # "I hope this helps!" is passed over: the next pair's first claim
    assert at() == "next:The museum closes from March to June."
    c.prev_item()  # back to the last claim of the pair before
    assert at() == "chat:The shop stays open online."
    # a click still selects such a sentence, to judge it if the editor wants
    c.select_sentence(0)
    assert at() == "chat:Sure!"
    # in blind mode the model's reading is hidden: every sentence is a stop
    c.set_blind(True)
    c.show_pair(c.bundle.output.id)
    assert at() == "chat:Sure!"
