"""``factdesk calibrate`` and ``factdesk adapt``: the parsers and the commands (issue 14)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.terminal import shown, shown_json

LEVELS = ("pair", "sentence", "arc")


def add_parsers(sub: Any) -> None:
    """Add the two subcommands to the ``factdesk`` parser."""
    c = sub.add_parser(
        "calibrate",
        help="fit the threshold and a calibrated probability to the project's judgments",
    )
    c.add_argument("project")
    c.add_argument(
        "--level", choices=LEVELS, help="only this level (default: every level with judgments)"
    )
    c.add_argument("--checker", help="checker to calibrate (default: the combined score)")
    c.add_argument(
        "--target-recall",
        type=float,
        default=None,
        metavar="R",
        help="lowest threshold that flags at least R (e.g. 0.9) of what you rejected, "
        "instead of the best balanced accuracy",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_calibrate)

    c = sub.add_parser(
        "adapt", help="adapt the combined score to the project's judgments (stored in it)"
    )
    c.add_argument("project")
    c.add_argument(
        "--reset", action="store_true", help="go back to the bundled model (nothing is deleted)"
    )
    c.add_argument(
        "--use", action="store_true", help="use the latest project model again (after --reset)"
    )
    c.add_argument(
        "--no-replay",
        action="store_true",
        help="fit on the judgments alone (without the bundled training rows)",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_adapt)


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    print(shown_json(data) if args.json else shown(text, lines=True))


def cmd_calibrate(args: argparse.Namespace) -> int:
    from app.learning.calibration import CalibrationError, calibrate, describe
    from app.store import Project

    r = args.target_recall
    if r is not None and not 0.0 < r <= 1.0:
        raise CalibrationError(f"--target-recall must be in (0, 1], not {r}")
    with Project.open(args.project) as project:
        fits, skipped = calibrate(
            project,
            checker=args.checker,
            levels=[args.level] if args.level else None,
            target_recall=r,
        )
    if not fits:
        raise CalibrationError(
            f"{args.project}: nothing to calibrate: " + "; ".join(s["reason"] for s in skipped)
        )
    data = {
        "project": args.project,
        "checker": fits[0].checker,
        "version": fits[0].version,
        "calibrations": [f.to_json() for f in fits],
        "skipped": skipped,
    }
    lines = [f"{fits[0].checker} {fits[0].version}, calibrated from your judgments:"]
    lines += [f"  {describe(f)}" for f in fits]
    lines += [f"  {s['level']}: not calibrated ({s['reason']})" for s in skipped]
    lines.append("This fits your decisions on this project; it is no general quality measure.")
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_adapt(args: argparse.Namespace) -> int:
    from app.learning.adapt import adapt_project, use_project_model
    from app.store import Project

    with Project.open(args.project) as project:
        if args.reset or args.use:
            version = use_project_model(project, bool(args.use))
            what = "the project model" if args.use else "the bundled model"
            _emit(
                args,
                {"project": args.project, "using": what, "version": version},
                f"{args.project}: using {what} (combined {version})",
            )
            return 0
        bar = _bar(not args.json)
        report = adapt_project(project, replay=not args.no_replay, progress=bar)
        if not args.json:
            sys.stderr.write("\n")
    data = {"project": args.project, **report.to_json()}
    j = report.judgments
    lines = [
        f"adapted the combined score to {sum(j.values())} judgments "
        f"({j.get('pair', 0)} pairs, {j.get('sentence', 0)} sentences, {j.get('arc', 0)} arcs; "
        f"{report.made_with_marks_visible} made with the model's marks visible, "
        f"{report.made_blind} blind)",
        f"project model {report.version} (bundled {report.base_version}), stored in the project",
        _fmt(
            "agreement with your judgments at 0.5", report.agreement_before, report.agreement_after
        ),
        _fmt(
            "balanced accuracy on your judgments at 0.5",
            report.balanced_accuracy_before,
            report.balanced_accuracy_after,
        ),
        f"re-scored {report.rescored_pairs} pairs from stored scores "
        f"({report.already_scored} already had this version) in {report.seconds:.1f} s",
        "These figures are on the judgments it was fitted on; it fits this editor on this "
        "project. Back to the bundled model: factdesk adapt PROJECT --reset",
    ]
    _emit(args, data, "\n".join(lines))
    return 0


def _fmt(what: str, before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return f"{what}: needs judgments of both kinds"
    return f"{what}: {before:.1%} before, {after:.1%} after (in-sample)"


def _bar(enabled: bool) -> Any:
    def update(done: int, total: int) -> None:
        if enabled and total:
            sys.stderr.write(f"\rre-scoring {done}/{total} pairs")
            sys.stderr.flush()

    return update
