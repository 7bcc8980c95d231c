"""What a checker found in a sentence, in words an editor reads at a glance.

The question-based check writes one line per question into a sentence's ``detail``
(:func:`models.checkers.questions.describe`); read back (:func:`~models.checkers.questions.
read_detail`), each becomes what was asked, what the output says and what the source says.
Questions the source does not answer are not listed one by one: one plain line names their
answers ("In the source, but not found in the role the output gives it: …": the check found
no passage that gives it that role, which is not to say the source denies it). Lines
of other checkers are shown as they are.
"""

from __future__ import annotations

from models.checkers.questions import QuestionChecker, Said, read_detail

#: The checker whose conflicts are marked on the pair and counted in the list.
QUESTIONS = QuestionChecker.name
#: The glyph of a conflict, wherever it is shown.
CONFLICT_GLYPH = "⚠"

#: One plain line for the answers the source does not give, by why (in this order).
UNANSWERED = (
    ("elsewhere", "In the source, but not found in the role the output gives it"),
    ("undecided", "Not stated in the source (it may follow from its figures)"),
    ("absent", "Nowhere in the source"),
)


def said_line(said: Said) -> str:
    """One question the source answers: what was asked, what each side says, where."""
    where = f" (in {said.where})" if said.where else ""
    asked = f"Asked “{said.question}”"
    if said.conflict:
        also = f"; {said.why}" if said.why else ""
        return (
            f"✗ {asked}: the output says {said.output}, the source says {said.source}{where}{also}"
        )
    return f"✓ {asked}: the output and the source say {said.output}{where}"


def conflict_words(said: Said) -> str:
    """A conflict in a few words (tooltips, the pair list)."""
    also = f" ({said.why})" if said.why else ""
    return f"the output says {said.output}, the source says {said.source}{also}"


def finding_lines(detail: str | None) -> list[str]:
    """A sentence's detail as the editor reads it: conflicts first, then the answers both
    sides give, then one line per kind of answer the source does not give."""
    read = read_detail(detail)
    said = [x for x in read if isinstance(x, Said)]
    out = [said_line(x) for x in said if x.conflict]
    out += [said_line(x) for x in said if x.verdict == "same"]
    for kind, words in UNANSWERED:
        answers = list(dict.fromkeys(x.output for x in said if x.verdict == kind))
        if answers:
            out.append(f"{words}: {'; '.join(answers)}")
    out += [x for x in read if isinstance(x, str)]
    return out


def conflicts(detail: str | None) -> list[Said]:
    """The conflicts of a sentence's detail: names or figures the source answers otherwise."""
    return [x for x in read_detail(detail) if isinstance(x, Said) and x.conflict]
