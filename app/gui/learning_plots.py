"""Statistics tabs of issue 14: reliability of the calibrated probability, and agreement with
the editor's judgments against the threshold (registered in :mod:`app.gui.stats`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from app.gui.plaintext import mpl_text
from app.store import Project

if TYPE_CHECKING:
    from app.learning.calibration import Fit, Points

Draw = Callable[[Figure], None]


def _levels(project: Project, checker: str, version: str) -> list[tuple[str, Points, Fit | None]]:
    """(level, judged points, stored calibration or None) of each level with judgments."""
    from app.learning.calibration import LEVELS, judged_points, stored

    fits = stored(project, checker, version)
    out: list[tuple[str, Points, Fit | None]] = []
    for level in LEVELS:
        pts = judged_points(project, checker, version, level)
        if len(pts):
            out.append((level, pts, fits.get(level)))
    return out


def _empty(fig: Figure, text: str) -> None:
    ax = fig.add_subplot(111)
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True)
    ax.set_axis_off()


def reliability_plot(
    fig: Figure, project: Project, checker: str | None, version: str | None, label: str
) -> None:
    """Observed share supported against the predicted probability, per level."""
    from app.learning.calibration import reliability

    levels = _levels(project, checker, version) if checker and version else []
    if not levels:
        _empty(fig, "no judgments with scores yet")
        return
    ax = fig.add_subplot(111)
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfectly calibrated")
    markers = {"pair": "o", "sentence": "s", "arc": "^"}
    for level, pts, fit in levels:
        raw = reliability(np.clip(pts.scores, 0, 1), pts.y)
        ax.plot(
            [r[0] for r in raw],
            [r[1] for r in raw],
            marker=markers[level],
            linestyle="--",
            alpha=0.6,
            label=f"{level}: score as it is",
        )
        if fit is not None:
            cal = reliability(fit.probability_of(pts.scores), pts.y)
            ax.plot(
                [r[0] for r in cal],
                [r[1] for r in cal],
                marker=markers[level],
                label=f"{level}: calibrated ({fit.probability['method']}, "
                f"{fit.n_judgments} judgments)",
            )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel(f"predicted probability supported ({mpl_text(label)})")
    ax.set_ylabel("share you judged supported")
    ax.set_title("Reliability on your judgments (this project only)")
    ax.legend(fontsize="small", loc="upper left")


def agreement_curve(
    fig: Figure,
    project: Project,
    checker: str | None,
    version: str | None,
    label: str,
    threshold: float,
) -> None:
    """Agreement and balanced accuracy with the judgments for every threshold, per level."""
    from app.learning.calibration import GRID, agreement, balanced_accuracy

    levels = _levels(project, checker, version) if checker and version else []
    if not levels:
        _empty(fig, "no judgments with scores yet")
        return
    ax = fig.add_subplot(111)
    for level, pts, fit in levels:
        s, y = pts.scores, pts.y
        line = ax.plot(
            GRID, [balanced_accuracy(s, y, t) for t in GRID], label=f"{level}: balanced accuracy"
        )[0]
        ax.plot(
            GRID,
            [agreement(s, y, t) for t in GRID],
            linestyle="--",
            color=line.get_color(),
            label=f"{level}: agreement",
        )
        if fit is not None:
            ax.axvline(
                fit.threshold,
                color=line.get_color(),
                linestyle=":",
                label=f"{level}: calibrated {fit.threshold:.3f}",
            )
    ax.axvline(threshold, color="#c62828", linestyle="-.", label=f"in use {threshold:.3f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"threshold ({mpl_text(label)})")
    ax.set_ylabel("with your judgments")
    ax.set_title("Agreement with your judgments against the threshold")
    ax.legend(fontsize="small", loc="lower center")


def learning_plots(
    project: Project,
    checker: str | None,
    version: str | None,
    label: str,
    threshold: float,
) -> list[tuple[str, Draw]]:
    """The Statistics tabs of this module, as (name, draw)."""
    return [
        ("reliability", lambda f: reliability_plot(f, project, checker, version, label)),
        (
            "agreement vs threshold",
            lambda f: agreement_curve(f, project, checker, version, label, threshold),
        ),
    ]
