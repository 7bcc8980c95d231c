"""Counts read as words: "1 pair", never "1 pairs"."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli import main
from app.wording import counted


def test_one_is_singular_and_others_plural_grouped() -> None:
    assert counted(1, "pair") == "1 pair"
    assert counted(0, "pair") == "0 pairs"
    assert counted(1204, "sentence") == "1,204 sentences"
    assert counted(2, "sentence or pair", "sentences or pairs") == "2 sentences or pairs"


def test_the_command_line_counts_one_pair_as_one(tmp_path: Path, capsys) -> None:
    pairs = tmp_path / "one.jsonl"
    pairs.write_text(
        json.dumps({"id": "a", "source": "The cat sat on the mat.", "output": "A cat sat."}) + "\n",
        encoding="utf-8",
    )
    proj = str(tmp_path / "one.factdesk")
    assert main(["new", proj]) == 0
    assert main(["import", proj, str(pairs)]) == 0
    assert "imported 1 pair from" in capsys.readouterr().out
    assert main(["analyze", proj, "--checker", "lexical"]) == 0
    out = capsys.readouterr().out
    assert "scored 1 pair," in out and "of 1 sentence not checked" in out
