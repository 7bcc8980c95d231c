"""The alignment checker on a tiny random encoder exported in the test; windows; calibration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.aligner import central_owner, window_starts
from models.checkers.base import PairInput
from tests.models.conftest import TINY_ENCODER, tokenizer_json

parsing = pytest.importorskip("models.parsing")
pytest.importorskip("onnxruntime")


def test_windows_cover_every_piece_and_prefer_the_centre() -> None:
    for n, window, stride in [(5, 8, 4), (40, 16, 12), (100, 16, 8), (17, 16, 12)]:
        starts = window_starts(n, window, stride)
        assert starts[0] == 0 and starts[-1] + window >= n
        owner = central_owner(n, starts, window)
        for i in range(n):
            s = starts[owner[i]]
            assert s <= i < s + window
            margin = min(i - s, s + window - 1 - i)
            for t in starts:
                if t <= i < t + window:
                    assert margin >= min(i - t, t + window - 1 - i)


@pytest.fixture(scope="module")
def tiny_aligner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from models.aligner import CONFIG_FILE, KIND
    from models.training.aligner import export_token_encoder

    torch.manual_seed(0)
    base = tmp_path_factory.mktemp("tiny_base")
    model = transformers.BertModel(transformers.BertConfig(**TINY_ENCODER))
    model.save_pretrained(base)
    (base / "tokenizer.json").write_bytes(tokenizer_json().read_bytes())
    out = tmp_path_factory.mktemp("tiny_aligner")
    export_token_encoder(base, out, layer=1, quantize=False)
    config = {
        "kind": KIND,
        "layer": 1,
        "window": 16,
        "stride": 12,
        "use_idf": False,
        "sentence_scale": 20.0,
        "sentence_centre": 0.9,
        "word_scale": 20.0,
        "word_centre": 0.9,
        "version": "tiny",
    }
    (out / CONFIG_FILE).write_text(json.dumps(config))
    return out


def _pair(source: str, output: str) -> PairInput:
    return PairInput("k", parsing.parse(source), parsing.parse(output))


def test_encoder_states_are_unit_length_for_long_texts(tiny_aligner: Path) -> None:
    from models.aligner import TokenEncoder

    enc = TokenEncoder(tiny_aligner, device="cpu")
    text = " ".join(f"The council met on day {k} and voted." for k in range(12))
    out = enc.encode(text)
    assert len(out.ids) > 3 * enc.window  # several windows
    np.testing.assert_allclose(np.linalg.norm(out.states, axis=1), 1.0, atol=1e-4)
    assert out.offsets[-1, 1] <= len(text)


def test_exact_copy_is_supported_and_new_word_is_marked(tiny_aligner: Path) -> None:
    from models.checkers.align import AlignChecker

    checker = AlignChecker(tiny_aligner, device="cpu")
    source = "The committee approved the budget on Monday."
    same, changed = checker.score(
        [_pair(source, source), _pair(source, "The committee approved the budget on Zanzibar.")]
    )
    assert same.sentences[0].score == pytest.approx(1 / (1 + np.exp(-20 * 0.1)), abs=1e-3)
    assert changed.sentences[0].score < same.sentences[0].score
    # The arc holding the new word is the weakest one.
    sentence = parsing.parse("The committee approved the budget on Zanzibar.").sentences[0]
    weakest = min(changed.arcs, key=lambda a: a.score)
    assert sentence.arcs[weakest.arc].child_text == "Zanzibar"
    assert checker.name == "align:" + tiny_aligner.name and checker.version == "tiny+qa4+alone1"


def test_evidence_is_the_source_sentence_with_the_match(tiny_aligner: Path) -> None:
    from models.checkers.align import AlignChecker

    checker = AlignChecker(tiny_aligner, device="cpu")
    source = "Rain fell all week. The committee approved the budget. Shops closed early."
    (result,) = checker.score([_pair(source, "The committee approved the budget.")])
    assert 1 in result.sentences[0].evidence


def test_bare_answer_and_empty_source_are_not_checked(tiny_aligner: Path) -> None:
    from models.checkers.align import AlignChecker
    from models.document import ParsedText

    checker = AlignChecker(tiny_aligner, device="cpu")
    (bare,) = checker.score([_pair("The ferry leaves at noon.", "Yes.")])
    assert bare.score is None and bare.sentences[0].not_checked == "no content arcs"
    empty = PairInput("e", ParsedText("", ()), parsing.parse("The ferry leaves at noon."))
    (none,) = checker.score([empty])
    assert none.sentences[0].not_checked == "the source has no text"


def test_logistic_fit_recovers_a_known_threshold() -> None:
    from models.training.aligner import best_split, fit_logistic

    rng = np.random.default_rng(0)
    x = rng.uniform(0.2, 1.0, 4000)  # classes balanced around the centre
    y = (rng.uniform(0, 1, 4000) < 1 / (1 + np.exp(-12 * (x - 0.6)))).astype(float)
    scale, centre = fit_logistic(x, y)
    assert centre == pytest.approx(0.6, abs=0.03) and scale == pytest.approx(12, rel=0.2)
    bad = x < 0.4
    assert best_split(x, bad) == pytest.approx(0.4, abs=0.03)


def test_bare_answer_with_its_question_is_scored(tiny_aligner: Path) -> None:
    from models.checkers.align import AlignChecker
    from models.claims import pair_input

    checker = AlignChecker(tiny_aligner, device="cpu")
    src = parsing.parse("Foot passengers buy tickets at the terminal.")
    plain = _pair("Foot passengers buy tickets at the terminal.", "Yes. They pay at the terminal.")
    asked = pair_input("q", src, plain.output, "Do foot passengers buy tickets at the terminal?")
    before, after = checker.score([plain, asked])
    assert before.sentences[0].not_checked == "no content arcs"
    assert after.sentences[0].score is not None and after.sentences[0].not_checked is None
    # The sentence that stands alone is scored exactly as without the question.
    assert after.sentences[1] == before.sentences[1]
    assert [a for a in after.arcs if a.sentence == 1] == list(before.arcs)
