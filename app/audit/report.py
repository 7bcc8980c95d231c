"""The audit report: one self-contained HTML file about a project.

``factdesk report P OUT.html`` and File ▸ Export report… write it. Everything is inside the one
file: the style sheet is inline, figures are PNG (matplotlib's Agg) embedded as base64 ``data:``
URIs, and there are no scripts, links to files or web addresses, so it opens the same offline, in
any browser, attached to an e-mail or archived with the audit. Every text that comes from the
project (ids, systems, outputs, notes, checker names) goes through :func:`html.escape`.

The report is a list of sections (:data:`SECTIONS`), each a function from a
:class:`ReportContext` to a :class:`Section` or None (nothing to say: the section is left out).
A new section is a new function added to the list, e.g. calibration or reviewer agreement once
their tables exist.
"""

from __future__ import annotations

import base64
import functools
import html
import io
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.audit.familiarity import FINAL_NOTE, FamiliarityReport, analyse, draw_rates, shown_checker
from app.io.bundles import PairBundle, iter_bundles, run_info
from app.io.output import output_target, write_atomically
from app.review.adjudication import Final, ProjectFinals, final_labels, pair_finals
from app.store.project import Project
from app.store.schema import Judgment, Output, Run
from app.thresholds import check_threshold
from app.wording import counted
from models.evidence import SHOWN

#: At most this many flagged pairs are listed in full (the rest are counted).
FLAGGED_LIMIT = 300
Progress = Callable[[int, int], None]


def esc(value: object) -> str:
    """Text from data, escaped for HTML (quotes too: it may land in an attribute)."""
    return html.escape("" if value is None else str(value), quote=True)


def fmt(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def pct(n: int, of: int) -> str:
    return f"{n} / {of} ({100 * n / of:.1f}%)" if of else f"{n} / 0"


@dataclass(frozen=True, slots=True)
class Section:
    """One section of the report: an anchor id, a heading and its HTML body (already escaped)."""

    id: str
    title: str
    body: str


@dataclass
class ReportContext:
    """What the sections read: the project, the shown checker and threshold, shared results."""

    project: Project
    checker: str | None
    version: str | None
    threshold: float
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    progress: Progress | None = None
    should_stop: Callable[[], bool] | None = None

    @functools.cached_property
    def bundles(self) -> list[PairBundle]:
        return list(iter_bundles(self.project))

    @functools.cached_property
    def finals(self) -> ProjectFinals:
        """Every judged support item once, under its final label (as exports take it)."""
        out = ProjectFinals()
        for b in self.bundles:
            pair_finals(b.output.id, (j for j in b.judgments if j.aspect == "support"), out)
        return out

    @functools.cached_property
    def familiarity(self) -> FamiliarityReport:
        return analyse(
            self.project,
            checker=self.checker,
            threshold=self.threshold,
            progress=self.progress,
            should_stop=self.should_stop,
        )

    @property
    def checker_label(self) -> str:
        if self.checker is None:
            return "no checker"
        return str(self.runs.get(self.checker, {}).get("display_name", self.checker))


# ---------------------------------------------------------------------- html helpers
def table(head: Sequence[str], rows: Sequence[Sequence[object]], *, numeric_from: int = 1) -> str:
    """An HTML table; every cell escaped. Columns from ``numeric_from`` on are right-aligned."""
    out = ["<table><thead><tr>"]
    out += [f"<th>{esc(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>")
        for j, cell in enumerate(row):
            cls = ' class="num"' if j >= numeric_from else ""
            out.append(f"<td{cls}>{esc(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def figure_png(draw: Callable[[Any], None], *, size: tuple[float, float] = (7, 4)) -> str:
    """An ``<img>`` holding the figure ``draw`` fills, as an embedded PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="tight")
    FigureCanvasAgg(fig)
    draw(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="figure" src="data:image/png;base64,{data}">'


def _when(t: datetime | None) -> str:
    return "" if t is None else t.strftime("%Y-%m-%d %H:%M:%S")


def _mpl(text: str) -> str:
    return text.replace("$", r"\$")  # matplotlib reads $...$ as mathtext


# ---------------------------------------------------------------------- sections
def counts_section(ctx: ReportContext) -> Section:
    st = ctx.project.stats()
    with ctx.project.session() as s:
        systems = s.execute(
            select(Output.system, func.count(Output.id)).group_by(Output.system)
        ).all()
    tables = [
        table(
            ["what", "count"],
            [
                ["pairs", st["pairs"]],
                ["sources", st["sources"]],
                ["parsed pairs", st["parsed_pairs"]],
                ["output sentences", st["sentences"]],
                ["content arcs", st["arcs"]],
                ["judgments", st["judgments"]],
            ],
        )
    ]
    tables.append(
        table(
            ["system", "pairs"],
            sorted(([s or "—", n] for s, n in systems), key=lambda r: str(r[0])),
        )
    )
    # Judged items, each once under its final label (several reviewers' judgments of one item
    # are one item); reviewers who disagree with nobody adjudicating: "in dispute".
    by_label: Counter[tuple[str, str, str]] = Counter()
    for b in ctx.bundles:
        for (key, aspect), final in final_labels(b.judgments).items():
            target = key.split(":", 1)[0]
            by_label[(target, aspect, final.label or "in dispute")] += 1
    if by_label:
        tables.append(
            table(
                ["level", "aspect", "final label", "items"],
                [[*k, n] for k, n in sorted(by_label.items())],
                numeric_from=3,
            )
        )
    body = '<div class="row">' + "".join(f"<div>{t}</div>" for t in tables) + "</div>"
    return Section("counts", "Project", body)


def checkers_section(ctx: ReportContext) -> Section | None:
    st = ctx.project.stats()
    with ctx.project.session() as s:
        runs = s.execute(
            select(
                Run.checker, Run.version, Run.status, Run.started_at, Run.finished_at, Run.scored
            ).order_by(Run.id)
        ).all()
    if not runs:
        return Section("checkers", "Checkers", "<p>The project has not been analysed.</p>")
    rows = [
        [
            info["display_name"],
            name,
            info["version"],
            ctx.runs.get(name, {}).get("grain", ""),
            info["scored_pairs"],
            fmt(info["mean_pair_score"]),
            info["not_checked_sentences"],
        ]
        for name, info in st["checkers"].items()
    ]
    body = (
        "<p>Scores are from each checker's latest version; higher is better supported. The "
        f"shown checker is <b>{esc(ctx.checker_label)}</b>, flagging threshold "
        f"{ctx.threshold:.2f}.</p>"
    )
    body += table(
        [
            "checker",
            "name",
            "version",
            "grain",
            "pairs scored",
            "mean pair score",
            "sentences not checked",
        ],
        rows,
        numeric_from=4,
    )
    body += left_out_table(ctx)
    body += "<h3>Runs</h3>" + table(
        ["checker", "version", "status", "started (UTC)", "finished (UTC)", "pairs scored"],
        [[c, v, status, _when(start), _when(end), n] for c, v, status, start, end, n in runs],
        numeric_from=5,
    )
    return Section("checkers", "Checkers and versions", body)


#: Most pairs left out whole that the report names one by one.
LEFT_OUT_LISTED = 200


def left_out_table(ctx: ReportContext) -> str:
    """The pairs the shown checker left out whole, each with why (an output not in English, a
    text too long to parse): none of them is in the scores and flags below."""
    if ctx.checker is None or ctx.version is None:
        return ""
    rows = [
        (r.external_id, r.system, r.not_checked)
        for r in ctx.project.pair_rows(ctx.checker, ctx.version)
        if r.not_checked is not None
    ]
    if not rows:
        return ""
    more = len(rows) - LEFT_OUT_LISTED
    were = "pair was" if len(rows) == 1 else "pairs were"
    return (
        f"<h3>Pairs not checked</h3><p>{len(rows):,} {were} not checked by "
        f"{esc(ctx.checker_label)}; they are in none of the scores and flags below"
        + (f" (the first {LEFT_OUT_LISTED} are listed)" if more > 0 else "")
        + ":</p>"
        + table(
            ["pair", "system", "why"],
            [[ext, system or "", reason] for ext, system, reason in rows[:LEFT_OUT_LISTED]],
        )
    )


def scores_section(ctx: ReportContext) -> Section | None:
    series = {
        name: [v for v in ctx.project.pair_scores(name, info["version"]).values() if v is not None]
        for name, info in ctx.runs.items()
    }
    series = {k: v for k, v in series.items() if v}
    if not series:
        return None

    def draw(fig: Any) -> None:
        rows = (len(series) + 1) // 2
        cols = 1 if len(series) == 1 else 2
        grid = fig.subplots(rows, cols, sharex=True, squeeze=False)
        axes = [ax for row in grid for ax in row]
        for ax in axes[len(series) :]:
            ax.set_axis_off()
        axes = axes[: len(series)]
        hatches = ["//", "..", "xx", "\\\\", "++", "oo"]
        for k, (ax, (name, values)) in enumerate(zip(axes, series.items(), strict=True)):
            label = _mpl(str(ctx.runs[name]["display_name"]))
            ax.hist(
                values,
                bins=20,
                range=(0, 1),
                color="#5c7cfa",
                edgecolor="black",
                hatch=hatches[k % len(hatches)],
            )
            ax.axvline(ctx.threshold, color="#c62828", linestyle="--")
            ax.set_ylabel("pairs")
            ax.set_title(f"{label}: {len(values)} pairs", fontsize="medium")
        for ax in axes[-cols:]:
            ax.set_xlabel(f"pair score; threshold {ctx.threshold:.2f}")

    rows = []
    for name, values in series.items():
        below = sum(v < ctx.threshold for v in values)
        values = sorted(values)
        rows.append(
            [
                ctx.runs[name]["display_name"],
                len(values),
                fmt(values[0]),
                fmt(values[len(values) // 2]),
                fmt(values[-1]),
                pct(below, len(values)),
            ]
        )
    body = figure_png(draw, size=(9, 0.6 + 2.0 * ((len(series) + 1) // 2)))
    body += table(["checker", "pairs", "min", "median", "max", "below threshold"], rows)
    return Section("scores", "Score distributions", body)


def agreement_section(ctx: ReportContext) -> Section | None:
    """Editors' sentence and pair judgments against each checker's score at the threshold."""
    names = ["supported", "unsupported"]
    levels: dict[str, dict[str, Counter[tuple[str, str]]]] = {"sentence": {}, "pair": {}}
    judged = {"sentence": 0, "pair": 0}
    final: dict[int, dict[str, str]] = {}  # output id -> target key -> final label
    for item in ctx.finals.items:
        if item.target in ("sentence", "pair"):
            final.setdefault(item.output_id, {})[item.target_key] = item.label
    for b in ctx.bundles:
        labels = final.get(b.output.id, {})
        judged["pair"] += "pair" in labels
        judged["sentence"] += sum(k.startswith("sentence:") for k in labels)
        for name, (pair_row, sent_rows, _arcs) in b.scores.items():
            scored = [(f"sentence:{sid}", "sentence", r.score) for sid, r in sent_rows.items()]
            scored.append(("pair", "pair", pair_row.score))
            for key, level, score in scored:
                if key in labels and score is not None and labels[key] in names:
                    model = "supported" if score >= ctx.threshold else "unsupported"
                    levels[level].setdefault(name, Counter())[(labels[key], model)] += 1
    if not any(judged.values()) and not ctx.finals.left_out("sentence", "pair"):
        return None
    disputed = ctx.finals.left_out("sentence", "pair")
    body = (
        f"<p>{counted(judged['sentence'], 'output sentence')} and "
        f"{counted(judged['pair'], 'pair')} judged by an "
        f"editor, each counted once under its final label (the adjudicated one, else the one "
        f"the reviewers share). The model flags a sentence or pair when its score is below "
        f"{ctx.threshold:.2f} (a pair's score is its lowest sentence's).</p>"
    )
    if disputed:
        body += (
            f"<p>{counted(disputed, 'sentence or pair', 'sentences or pairs')} "
            f"{'is' if disputed == 1 else 'are'} left out: their reviewers disagree and "
            f"nobody adjudicated.</p>"
        )
    head = [
        "checker",
        "level",
        "judged with a score",
        "agreement",
        "unsupported ones flagged (recall)",
        "flags judged unsupported (precision)",
    ]
    rows = []
    for level, grids in levels.items():
        for name, grid in grids.items():
            n = sum(grid.values())
            agree = grid[("supported", "supported")] + grid[("unsupported", "unsupported")]
            caught = grid[("unsupported", "unsupported")]
            missed = grid[("unsupported", "supported")]
            false_alarms = grid[("supported", "unsupported")]
            rows.append(
                [
                    ctx.runs[name]["display_name"],
                    level,
                    n,
                    pct(agree, n),
                    pct(caught, caught + missed),
                    pct(caught, caught + false_alarms),
                ]
            )
    if not rows:
        return Section(
            "agreement", "Editor vs model agreement", body + "<p>No judged item has a score.</p>"
        )
    body += table(head, rows, numeric_from=2)
    for level, grids in levels.items():
        if ctx.checker in grids:
            grid = grids[ctx.checker]
            body += f"<h3>{esc(ctx.checker_label)}, {level}s: judged (rows) vs model (columns)</h3>"
            body += table(
                ["judged \\ model", *names], [[h, *(grid[(h, m)] for m in names)] for h in names]
            )
    return Section("agreement", "Editor vs model agreement", body)


def reviewer_agreement_section(ctx: ReportContext) -> Section | None:
    """Reviewers against each other (kappa, alpha, raw agreement) and against the model."""
    from app.review.agreement import agreement

    result = agreement(
        ctx.project, checker=ctx.checker, version=ctx.version, threshold=ctx.threshold
    )
    if len(result["reviewers"]) < 2:
        return None
    body = (
        f"<p>Reviewers: {esc(', '.join(result['reviewers']))}. Krippendorff's alpha (nominal, "
        "missing judgments allowed) over all reviewers; Cohen's kappa for each two, on the items "
        "both judged; raw agreement is the share of items judged by several on which all "
        "agree.</p>"
    )
    rows = []
    pair_rows = []
    for name, sec in result["sections"].items():
        level = name.replace("_", " ")
        rows.append(
            [
                level,
                sec["items"],
                sec["items_judged_by_several"],
                fmt(sec["raw_agreement"]),
                fmt(sec["krippendorff_alpha"]),
            ]
        )
        compared = [(f"{p['a']} / {p['b']}", p) for p in sec["pairs"]]
        compared += [(f"{m['reviewer']} / model", m) for m in sec["vs_model"]]
        pair_rows += [
            [level, who, c["n"], fmt(c["raw_agreement"]), fmt(c["cohen_kappa"])]
            for who, c in compared
            if c["n"]
        ]
    body += table(["level or stage", "items", "judged by several", "raw agreement", "alpha"], rows)
    if pair_rows:
        body += "<h3>Two at a time</h3>"
        body += table(
            ["level or stage", "who", "items both judged", "agreement", "Cohen's kappa"],
            pair_rows,
            numeric_from=2,
        )
    return Section("reviewers", "Reviewer agreement", body)


def error_types_section(ctx: ReportContext) -> Section | None:
    counts: Counter[tuple[str, str]] = Counter()
    systems_of = {b.output.id: b.output.system or "—" for b in ctx.bundles}
    for item in ctx.finals.items:  # each judged item once, its final decision's error type
        if item.error_type:
            counts[(systems_of[item.output_id], item.error_type)] += 1
    left_out = ctx.finals.left_out() + sum(i.error_type_disputed for i in ctx.finals.items)
    if not counts:
        return None
    names = {t["key"]: t["name"] for t in ctx.project.taxonomy()}
    systems = sorted({s for s, _e in counts})
    errors = sorted({e for _s, e in counts}, key=lambda e: (e not in names, e))

    def draw(fig: Any) -> None:
        ax = fig.add_subplot(111)
        bottom = [0] * len(systems)
        hatches = ["", "//", "..", "xx", "\\\\", "++", "oo", "--", "**", "||"]
        for k, e in enumerate(errors):
            values = [counts[(s, e)] for s in systems]
            ax.bar(
                [_mpl(s) for s in systems],
                values,
                bottom=bottom,
                label=_mpl(e),
                hatch=hatches[k % len(hatches)],
                edgecolor="black",
            )
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        ax.set_ylabel("judged items")
        ax.set_title("Error types by system")
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))

    body = (
        "<p>Each judged item (pair, sentence, arc) counts once, with the error type of its "
        "final decision.</p>"
    )
    if left_out:
        body += (
            f"<p>{counted(left_out, 'item')} {'is' if left_out == 1 else 'are'} left out: their "
            "reviewers disagree on the label or the "
            "error type and nobody adjudicated.</p>"
        )
    body += figure_png(draw, size=(8, 4))
    body += table(
        ["error type", *systems, "all"],
        [
            [
                names.get(e, e),
                *(counts[(s, e)] for s in systems),
                sum(counts[(s, e)] for s in systems),
            ]
            for e in errors
        ],
    )
    return Section("errors", "Error types by system", body)


def familiarity_section(ctx: ReportContext) -> Section | None:
    report = ctx.familiarity
    skipped = ""
    if report.not_checked_pairs:
        skipped = f"<p>{len(report.not_checked_pairs)} pairs were not read for entities:</p>"
        skipped += table(
            ["pair", "why"], [[n.external_id, n.reason] for n in report.not_checked_pairs]
        )
    if not report.mentions:
        if not skipped:
            return None
        return Section("familiarity", "Error types by entity familiarity", skipped)
    counts = report.entity_counts()
    body = (
        "<p>People and organisations the outputs mention, tagged by how the project's sources "
        "introduce them (Goyal, Nenkova &amp; Daumé): <b>familiar</b> when the sources mostly "
        "name them bare, <b>unfamiliar</b> when they mostly introduce them with a description, "
        "<b>unseen</b> when no source mentions them. A description (title, appositive, "
        "modifier, relative clause) is <i>not supported</i> when one of its arcs is below the "
        f"threshold or an editor rejected it; {esc(FINAL_NOTE)}. Error-type rates are over "
        "descriptions an editor judged.</p>"
    )
    body += table(["familiarity", "entities in the outputs"], [[t, n] for t, n in counts.items()])
    body += figure_png(functools.partial(draw_rates, report=report), size=(9, 4.2))
    head = ["group", "entities", "mentions", "descriptions", "not supported", "judged"]
    head += list(report.error_types)
    for title, by in (("By familiarity", "familiarity"), ("By system and familiarity", "both")):
        rows = [
            [
                r.group,
                r.entities,
                r.mentions,
                r.descriptions,
                pct(r.not_supported, r.scored),
                r.judged,
                *(pct(r.error_counts.get(e, 0), r.judged) for e in report.error_types),
            ]
            for r in report.rates(by)  # type: ignore[arg-type]
        ]
        body += f"<h3>{title}</h3>" + table(head, rows)
    flagged = [
        (m, d)
        for m in report.mentions
        if m.tag != "familiar"
        for d in m.descriptions
        if d.verdict == "not supported"
    ]
    if flagged:
        body += "<h3>Descriptions of unfamiliar or unseen entities that are not supported</h3>"
        body += table(
            ["pair", "system", "entity", "familiarity", "description", "score", "by"],
            [
                [m.external_id, m.system or "—", m.name, m.tag, d.text, fmt(d.score, 2), d.by]
                for m, d in flagged
            ],
            numeric_from=5,
        )
    return Section("familiarity", "Error types by entity familiarity", body + skipped)


def flagged_section(ctx: ReportContext) -> Section | None:
    """Pairs the shown checker flags, whose final label is unsupported, whose reviewers disagree
    with nobody adjudicating, or flagged as malformed, with their evidence."""
    items = []
    for b in ctx.bundles:
        entry = b.scores.get(ctx.checker or "")
        sent_scores = entry[1] if entry is not None else {}
        pair_score = entry[0].score if entry is not None else None
        finals = {
            key: f for (key, aspect), f in final_labels(b.judgments).items() if aspect == "support"
        }
        malformed = any(j.aspect == "flag" for j in b.judgments)
        lines = []
        for s in b.sentences:
            row = sent_scores.get(s.id)
            score = row.score if row is not None else None
            final = finals.get(f"sentence:{s.id}")
            model_flag = score is not None and score < ctx.threshold
            if model_flag or _human_flag(final):
                window = list(row.evidence or []) if row is not None else []
                lines.append((s, score, final, window, row.detail if row is not None else None))
        pair_f = finals.get("pair")
        if lines or malformed or _human_flag(pair_f):
            items.append((b, pair_score, lines, malformed, pair_f))
    if not items:
        return Section("flagged", "Flagged items", "<p>Nothing is flagged.</p>")
    body = (
        f"<p>{len(items)} pairs have an output sentence scored below {ctx.threshold:.2f} by "
        f"{esc(ctx.checker_label)}, judged unsupported (its final label: the adjudicated one, "
        "else the one its reviewers share), in dispute (its reviewers disagree and nobody "
        f"adjudicated), or flagged as malformed. Evidence: the best {SHOWN} source sentences "
        "for each sentence (▸1 best), marked ● when the checker read it.</p>"
    )
    for b, pair_score, lines, malformed, pair_f in items[:FLAGGED_LIMIT]:
        tags = []
        if malformed:
            tags.append('<span class="tag">malformed</span>')
        if pair_f is not None:
            said = "pair in dispute" if pair_f.label is None else f"pair judged {pair_f.label}"
            tags.append(f'<span class="tag">{esc(said)}</span>')
        body += (
            f'<div class="item"><h3>{esc(b.output.external_id)} '
            f'<span class="sys">{esc(b.output.system or "—")}</span> '
            f"pair score {fmt(pair_score, 2)} {' '.join(tags)}</h3>"
            f'<p class="output">{esc(b.output.text)}</p>'
        )
        if pair_f is not None:
            if pair_f.source != "single":
                body += f'<p class="note">on the pair: {_final_text(pair_f)}</p>'
            elif pair_f.judgment.error_type or pair_f.judgment.note:
                body += f'<p class="note">editor on the pair: {_judgment_text(pair_f.judgment)}</p>'
        for s, score, final, window, detail in lines:
            verdict = "" if final is None else f" · {_final_text(final)}"
            body += (
                f'<div class="sent"><p><b>sentence {s.idx + 1}</b> score {fmt(score, 2)}'
                f"{verdict}</p><blockquote>{esc(s.text)}</blockquote>"
            )
            if detail:  # what the checker found, one finding a line
                body += f'<p class="detail">{esc(detail)}</p>'
            read = set(window)
            shown = b.shown_evidence(s.text, read, detail=detail)
            if shown:
                body += "<ol class='evidence'>"
                for rank, (idx, text) in enumerate(shown, start=1):
                    mark = " ●" if idx in read else ""
                    body += f"<li>▸{rank}{mark} {esc(text)}</li>"
                body += "</ol>"
            else:
                body += "<p class='none'>no source sentence shares its words</p>"
            body += "</div>"
        body += "</div>"
    if len(items) > FLAGGED_LIMIT:
        body += f"<p>… and {len(items) - FLAGGED_LIMIT} more flagged pairs (see the export).</p>"
    return Section("flagged", "Flagged items and their evidence", body)


def _human_flag(final: Final | None) -> bool:
    """Reviewers flag an item: its final label is unsupported, or they disagree on it."""
    return final is not None and final.label in (None, "unsupported")


def _label_text(label: str, error_type: str | None) -> str:
    return esc(label) + (f" ({esc(error_type)})" if error_type else "")


def _judgment_text(j: Judgment) -> str:
    """A judgment's label, error type and note, escaped."""
    text = _label_text(j.label, j.error_type)
    if j.note:
        text += f" — “{esc(j.note)}”"
    return text


def _final_text(final: Final) -> str:
    """An item's final label and where it comes from, escaped: one reviewer's judgment
    ("editor: …"), the adjudicator's or the reviewers' common label with what each reviewer
    said, or a dispute with what each reviewer said."""
    said = "; ".join(f"{esc(j.annotator)}: {_judgment_text(j)}" for j in final.reviews)
    if final.source == "single":
        return f"editor: {_judgment_text(final.judgment)}"
    if final.source == "disputed":
        return f"in dispute (nobody adjudicated): {said}"
    if final.source == "adjudicated":
        j = final.judgment
        text = f"final: {_label_text(j.label, j.error_type)}, adjudicated by {esc(j.annotator)}"
        if j.note:
            text += f" — “{esc(j.note)}”"
    else:  # agreed: the error type when they all gave the same one
        types = {j.error_type for j in final.reviews}
        shared = next(iter(types)) if len(types) == 1 else None
        text = f"final: {_label_text(str(final.label), shared)}, agreed"
    return text + (f" · reviewers: {said}" if said else "")


#: The report's sections in order. Each returns None when it has nothing to show.
SECTIONS: list[Callable[[ReportContext], Section | None]] = [
    counts_section,
    checkers_section,
    scores_section,
    agreement_section,
    reviewer_agreement_section,
    error_types_section,
    familiarity_section,
    flagged_section,
]

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;
 color:#1b1b1b;background:#fff;line-height:1.45}
header{background:#263238;color:#fff;padding:18px 32px}
header h1{margin:0 0 4px;font-size:1.6em} header p{margin:0;color:#cfd8dc}
main{padding:8px 32px 40px;max-width:1180px}
nav{margin:12px 0;font-size:.95em} nav a{margin-right:14px;color:#1565c0}
section{border-top:2px solid #eceff1;margin-top:22px}
h2{font-size:1.3em;margin:18px 0 8px} h3{font-size:1.05em;margin:14px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:.92em}
th,td{border:1px solid #cfd8dc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eceff1} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
img{max-width:100%;display:block;margin:8px 0}
.item{border:1px solid #d7ccc8;border-left:5px solid #c62828;padding:4px 12px;margin:10px 0}
.item h3{margin:6px 0} .sys{color:#546e7a;font-weight:normal}
.tag{background:#ffe0b2;border-radius:3px;padding:0 5px;font-size:.85em;font-weight:normal}
.output{background:#fafafa;padding:4px 8px;margin:4px 0}
blockquote{margin:2px 0 4px 12px;padding:2px 8px;border-left:3px dashed #c62828}
.evidence{margin:2px 0 8px 12px;padding-left:18px;color:#37474f;font-size:.93em;list-style:none}
.none{color:#78909c;font-style:italic;margin-left:12px}
.note{margin:2px 0 6px;color:#4e342e}
.detail{margin:2px 0 6px 12px;color:#37474f;font-size:.93em;white-space:pre-line}
.row{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
"""


def render(
    project: Project,
    *,
    checker: str | None = None,
    threshold: float = 0.5,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    sections: Sequence[Callable[[ReportContext], Section | None]] | None = None,
) -> str:
    """The report as one HTML document (a string).

    Args:
        project: the open project.
        checker: the checker the report shows; None = as the window picks (combined first).
        threshold: scores below it are flagged.
        progress: ``(done, total)`` while entities are found (the slow part).
        should_stop: checked between batches; when it returns True, ``Cancelled`` is raised.
        sections: the sections to write (default :data:`SECTIONS`).

    Raises:
        FactDeskError: a threshold that is not a number from 0 to 1.
    """
    check_threshold(threshold)
    name, version = shown_checker(project, checker)
    ctx = ReportContext(project, name, version, threshold, run_info(project), progress, should_stop)
    done = [s for build in (sections or SECTIONS) if (s := build(ctx)) is not None]
    title = f"FactDesk audit report: {project.path.name}"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    nav = "".join(f'<a href="#{esc(s.id)}">{esc(s.title)}</a>' for s in done)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<header><h1>{esc(title)}</h1><p>{esc(project.path)} · written {esc(stamp)} · "
        f"shown checker {esc(ctx.checker_label)}"
        + (f" (version {esc(version)})" if version else "")
        + f" · threshold {threshold:.2f}</p></header>",
        f"<main><nav>{nav}</nav>",
    ]
    for s in done:
        parts.append(f'<section id="{esc(s.id)}"><h2>{esc(s.title)}</h2>{s.body}</section>')
    parts.append("</main></body></html>")
    return "\n".join(parts)


def write_report(
    project: Project,
    out: str | Path,
    *,
    checker: str | None = None,
    threshold: float = 0.5,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Path:
    """Write the report to ``out``; the file appears under its name only when complete.

    Written by :func:`app.io.output.write_atomically` (a regular file only; a link is written
    through).

    Raises:
        InputError: ``out`` is a folder, device or FIFO, in a missing folder, or cannot be
            written (one line).
        ProjectError: ``out`` is the project file or its -wal/-shm.
    """
    out = Path(out)
    output_target(out)  # refused before the slow part
    project.refuse_output(out)
    text = render(
        project, checker=checker, threshold=threshold, progress=progress, should_stop=should_stop
    )
    with write_atomically(out, what="the report") as fh:
        fh.write(text)
    return out
