"""A flagging threshold: a finite number from 0 to 1, checked in one place.

Scores are probabilities, so a threshold outside [0, 1] flags everything or nothing, and NaN
compares false with every score: it would silently pass every pair. Commands and the functions
behind them (agreement, familiarity, the report) refuse such a value with one message.
"""

from __future__ import annotations

import math

from models.errors import FactDeskError

#: Where a score flags unless the user sets another threshold: the scores are calibrated
#: probabilities of support.
DEFAULT_THRESHOLD = 0.5


def check_threshold(value: float, *, name: str = "the threshold") -> float:
    """``value`` when it is a number from 0 to 1.

    Args:
        value: the threshold.
        name: what the user calls it in the message (``--threshold`` on the command line).

    Raises:
        FactDeskError: NaN, an infinity, or a number outside [0, 1].
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise FactDeskError(f"{name} must be a number from 0 to 1, not {value}")
    return float(value)
