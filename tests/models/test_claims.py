"""Answers read with their question: the claim rewriter and every checker's use of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.checkers.base import PairInput
from models.claims import build_claims, inflect, pair_input, strip_label

parsing = pytest.importorskip("models.parsing")

SOURCE = (
    "Only vehicles have to be booked ahead. Foot passengers buy tickets at the terminal. "
    "The Carrow Street Library opened in 1896. Dr Martin Greaves produced the map."
)


def _claims(question: str, answer: str) -> list[str | None]:
    claims = build_claims(question, parsing.parse(answer), parsing.parse_many)
    return [c.text if c is not None else None for c in claims]


@pytest.mark.parametrize(
    ("question", "answer", "claim"),
    [
        (
            "Question: Do foot passengers need to book the ferry in advance?",
            "No.",
            "Foot passengers do not need to book the ferry in advance.",
        ),
        (
            "Do foot passengers need to book in advance?",
            "Yes.",
            "Foot passengers need to book in advance.",
        ),
        (
            "When did the Carrow Street Library open?",
            "In 1967.",
            "The Carrow Street Library opened in 1967.",
        ),
        ("Did the library close in 1990?", "Yes.", "The library closed in 1990."),
        ("Does the ferry run on Sundays?", "Yes.", "The ferry runs on Sundays."),
        (
            "Can visitors camp on the northern shore?",
            "No.",
            "Visitors cannot camp on the northern shore.",
        ),
        ("Was the mayor elected in 2001?", "No, he wasn't.", "The mayor was not elected in 2001."),
        ("Has the bridge been repaired?", "Yes, it has.", "The bridge has been repaired."),
        (
            "Who produced the first complete map?",
            "Dr Helena Voss.",
            "Dr Helena Voss produced the first complete map.",
        ),
        ("What does the shop sell?", "Tickets and maps.", "The shop sells tickets and maps."),
        ("Where is the museum?", "In the old town hall.", "The museum is in the old town hall."),
        ("How high is the tower?", "721 metres.", "The tower is 721 metres high."),
        ("How many people live in Oban?", "About 8,000.", "About 8,000 people live in Oban."),
        ("In which year did the library open?", "1893.", "The library opened in 1893."),
        (
            "Why did the ferry stop running?",
            "Because of storms.",
            "The ferry stopped running because of storms.",
        ),
    ],
)
def test_rewriter_makes_a_declarative_claim(question: str, answer: str, claim: str) -> None:
    assert _claims(question, answer) == [claim]


def test_sentences_that_stand_alone_keep_no_claim_and_odd_ones_are_joined() -> None:
    # A full sentence after the bare "No." is checked as written.
    assert _claims(
        "Do foot passengers need to book?", "No. Only vehicles have to be booked ahead."
    ) == [
        "Foot passengers do not need to book.",
        None,
    ]
    # No rule fits a yes/no answer to a wh-question: the question and answer as one claim.
    assert _claims("When did the library open?", "Yes.") == ["When did the library open? Yes."]
    # A context without a question, and no context at all, give no claims.
    assert _claims("The passage is about ferries.", "No.") == [None]
    assert build_claims(None, parsing.parse("No."), parsing.parse_many) == (None,)


def test_claim_locates_the_answer_words() -> None:
    (claim,) = build_claims(
        "When did the library open?", parsing.parse("In 1967."), parsing.parse_many
    )
    assert claim is not None and claim.kind == "wh"
    start = claim.locate(3, 7)
    assert start is not None and claim.text[start[0] : start[1]] == "1967"
    assert claim.parsed.start == 0 and claim.parsed.arcs


def test_strip_label_and_inflection() -> None:
    assert strip_label("Q: Is it open?") == "Is it open?"
    assert strip_label("Question - Is it open?") == "Is it open?"
    assert [inflect("open", "past"), inflect("stop", "past"), inflect("carry", "3sg")] == [
        "opened",
        "stopped",
        "carries",
    ]
    assert [inflect("go", "past"), inflect("watch", "3sg"), inflect("need", "base")] == [
        "went",
        "watches",
        "need",
    ]


def test_pair_without_a_question_is_the_plain_input() -> None:
    src, out = parsing.parse(SOURCE), parsing.parse("No.")
    assert pair_input("k", src, out, None) == PairInput("k", src, out)
    assert pair_input("k", src, out, "  ") == PairInput("k", src, out)


def test_lexical_checker_scores_a_bare_answer_by_its_claim() -> None:
    from models.checkers.lexical import LexicalArcChecker

    src = parsing.parse(SOURCE)
    plain = PairInput("p", src, parsing.parse("Yes."))
    asked = pair_input(
        "q", src, parsing.parse("Yes."), "Do foot passengers buy tickets at the terminal?"
    )
    wrong = pair_input(
        "w", src, parsing.parse("Yes."), "Do foot passengers buy tickets on the ferry?"
    )
    before, after, other = LexicalArcChecker().score([plain, asked, wrong])
    assert before.score is None and before.sentences[0].not_checked == "no content arcs"
    assert after.score == 1.0 and after.sentences[0].not_checked is None
    assert other.score is not None and other.score < 1.0
    assert after.arcs == ()  # arcs still come from the answer's own words: "Yes." has none


def _tiny(checker_cls: type, tiny_onnx_dir: Path) -> object:
    return checker_cls(tiny_onnx_dir, device="cpu", retriever=None)


def test_question_changes_the_encoder_input(tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker

    checker = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None)
    seen: list[tuple[str, str, tuple]] = []
    real = checker._runner.predict

    def spy(jobs, **kw):  # type: ignore[no-untyped-def]
        seen.extend(jobs)
        return real(jobs, **kw)

    checker._runner.predict = spy  # type: ignore[method-assign]
    src = parsing.parse(SOURCE)
    answer = parsing.parse("In 1967.")
    try:
        (plain,) = checker.score([PairInput("p", src, answer)])
        (asked,) = checker.score([pair_input("q", src, answer, "When did the library open?")])
    finally:
        del checker._runner.predict
    sentences = [job[1] for job in seen]
    assert sentences == ["In 1967.", "The library opened in 1967."]
    slots = seen[1][2]
    # The claim's arcs, then the answer's own arc ("In -> 1967" collapses into none: "1967"
    # hangs on the claim's verb) located in the claim.
    assert len(slots) >= 2
    assert plain.sentences[0].score is not None and asked.sentences[0].score is not None
    assert plain.sentences[0].score != asked.sentences[0].score


def test_bare_answer_is_scored_by_dae_and_support(tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker
    from models.checkers.support import SupportChecker

    src = parsing.parse(SOURCE)
    item = pair_input(
        "q",
        src,
        parsing.parse("No. Only vehicles have to be booked ahead."),
        "Do foot passengers need to book?",
    )
    for cls in (DAEChecker, SupportChecker):
        (result,) = cls(tiny_onnx_dir, device="cpu", retriever=None).score([item])
        no, rest = result.sentences
        assert no.not_checked is None and no.score is not None and 0 <= no.score <= 1
        assert rest.not_checked is None
        assert result.score == min(no.score, rest.score)
    (plain,) = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None).score(
        [PairInput("p", src, item.output)]
    )
    assert plain.sentences[0].not_checked == "no content arcs"


def test_wh_answer_keeps_its_own_arcs(tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker

    src = parsing.parse(SOURCE)
    answer = parsing.parse("Dr Helena Voss.")
    (result,) = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None).score(
        [pair_input("q", src, answer, "Who produced the map?")]
    )
    assert result.sentences[0].score is not None
    # Each of the answer's own arcs (Dr -> Voss, Helena -> Voss) has a score.
    assert sorted(a.arc for a in result.arcs) == list(range(len(answer.sentences[0].arcs)))


@pytest.mark.parametrize("name", ["lexical", "dae", "support"])
def test_pairs_without_a_question_score_exactly_as_before(name: str, tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker
    from models.checkers.lexical import LexicalArcChecker
    from models.checkers.support import SupportChecker

    checker = {
        "lexical": lambda: LexicalArcChecker(),
        "dae": lambda: DAEChecker(tiny_onnx_dir, device="cpu", retriever=None),
        "support": lambda: SupportChecker(tiny_onnx_dir, device="cpu", retriever=None),
    }[name]()
    src = parsing.parse(SOURCE)
    plain = [
        PairInput(n, src, parsing.parse(text))
        for n, text in enumerate(["Only vehicles are booked. Yes.", "The library opened in 1967."])
    ]
    asked = pair_input("q", src, parsing.parse("No."), "Do foot passengers need to book?")
    alone = checker.score(plain)
    mixed = checker.score([plain[0], asked, plain[1]])
    assert [mixed[0], mixed[2]] == alone
    assert alone[0].sentences[1].not_checked == "no content arcs"


def test_a_no_is_scored_as_the_denial_of_what_it_denies(tiny_onnx_dir: Path) -> None:
    from models.checkers.dae import DAEChecker
    from models.checkers.support import SupportChecker

    src = parsing.parse(SOURCE)
    no = pair_input("n", src, parsing.parse("No."), "Do foot passengers buy tickets?")
    yes = pair_input("y", src, parsing.parse("Yes."), "Do foot passengers buy tickets?")
    claim = no.claim(0)
    assert claim is not None and claim.text == "Foot passengers do not buy tickets."
    assert claim.denies is not None and claim.denies.text == "Foot passengers buy tickets."
    assert yes.claim(0) is not None and yes.claim(0).denies is None  # type: ignore[union-attr]
    support = SupportChecker(tiny_onnx_dir, device="cpu", retriever=None)
    dae = DAEChecker(tiny_onnx_dir, device="cpu", retriever=None)
    said_no, said_yes = support.score([no, yes])
    assert said_no.score == pytest.approx(1.0 - said_yes.score, abs=1e-6)
    arc_no, arc_yes = dae.score([no, yes])
    assert arc_no.score == pytest.approx(1.0 - arc_yes.score, abs=1e-6)
