"""What an answer claims, shown with its question: the header lines of a QA pair.

An answer is checked with its question (:mod:`models.claims`): "Do foot passengers need to
book? — No." is judged as "Foot passengers do not need to book.". The pair view shows the
question and the answer as one claim, and the rewritten claims the checkers judged. The rewrite
needs the parser, so it runs on the task runner's ``claims`` lane and the header is drawn again
when it arrives; the controller keeps the result per pair.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from app.gui.judging import JudgingController
from app.tasks import Job, JobContext, TaskRunner
from models.claims import question_text

LANE = "claims"
ANSWER_CHARS = 160  # the answer is cut in the header line; the output pane shows it whole


@dataclass(frozen=True)
class ClaimRequest:
    output_id: int
    question: str
    answer: str


def claim_texts(req: ClaimRequest, ctx: JobContext) -> tuple[int, tuple[str, ...]]:
    """(output id, the claim of each answer sentence that does not stand alone)."""
    from models.claims import build_claims
    from models.parsing import parse_many

    output = parse_many([req.answer], should_stop=ctx.should_stop)[0]
    claims = build_claims(req.question, output, parse_many)
    return req.output_id, tuple(c.text for c in claims if c is not None)


def header_lines(context: str | None, answer: str, claims: tuple[str, ...] | None) -> list[str]:
    """The header lines of a pair with a question: Q — A as one claim, then what is checked."""
    question = question_text(context)
    if question is None:
        return []
    short = answer if len(answer) <= ANSWER_CHARS else answer[: ANSWER_CHARS - 1] + "…"
    lines = [f"Q: {question} — A: {short}"]
    if claims is None:
        lines.append("Claim checked: (reading the answer with its question…)")
    elif not claims:
        lines.append("Claim checked: the answer as written (each sentence stands on its own)")
    else:
        lines += [f"Claim checked: {c}" for c in claims]
    return lines


class ClaimFetcher:
    """Asks the runner for the claims of the pair on screen and redraws the header with them."""

    def __init__(
        self, runner: TaskRunner, controller: JudgingController, redraw: Callable[[], None]
    ) -> None:
        self._runner = runner
        self._c = controller
        self._redraw = redraw

    def request(self) -> None:
        """Fetch the claims of the controller's pair unless it has no question or has them."""
        b = self._c.bundle
        if b is None or question_text(b.output.context) is None or b.output.id in self._c.claims:
            return
        req = ClaimRequest(b.output.id, b.output.context or "", b.output.text)
        self._runner.submit(
            Job(
                LANE,
                claim_texts,
                req,
                on_done=self._done,
                on_error=functools.partial(self._failed, req.output_id),
            )
        )

    def _done(self, result: tuple[int, tuple[str, ...]]) -> None:
        oid, texts = result
        self._c.claims[oid] = texts
        b = self._c.bundle
        if b is not None and b.output.id == oid:
            self._redraw()

    def _failed(self, oid: int, err: BaseException) -> None:
        # The parser is missing or failed: the header says so instead of waiting for ever.
        self._done((oid, (f"(not available: {err})",)))
