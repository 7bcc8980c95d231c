"""The reproduction command's time budget: training gets what the other stages leave."""

from __future__ import annotations

import pytest

from models.training.reproduce import (
    ALIGNER_RESERVE,
    COMBINER_RESERVE,
    EVAL_RESERVE,
    EXPORT_RESERVE,
    MIN_TRAIN_MINUTES,
    STAGES,
    training_minutes,
)


def test_training_leaves_time_for_export_and_a_full_evaluation() -> None:
    # The measured CPU run: 17.5 minutes of embedder + examples before training.
    minutes = training_minutes(90.0, 17.5, set(STAGES))
    later = EXPORT_RESERVE + ALIGNER_RESERVE + COMBINER_RESERVE + EVAL_RESERVE
    assert minutes == pytest.approx(90.0 - 17.5 - later)
    assert 17.5 + minutes + later <= 90.0


def test_training_alone_gets_the_rest_of_the_budget() -> None:
    assert training_minutes(60.0, 0.0, {"train"}) == pytest.approx(60.0)
    assert training_minutes(60.0, 0.0, {"train", "export"}) == pytest.approx(58.0)


def test_a_limited_evaluation_keeps_back_less_time() -> None:
    full = training_minutes(90.0, 10.0, set(STAGES))
    limited = training_minutes(90.0, 10.0, set(STAGES), eval_limit=30)
    assert full < limited < training_minutes(90.0, 10.0, {"train", "export"})


def test_an_exhausted_budget_still_trains_a_little() -> None:
    assert training_minutes(20.0, 30.0, set(STAGES)) == MIN_TRAIN_MINUTES
