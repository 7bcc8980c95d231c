"""Scoring a corpus without a project: JSON Lines in, JSON Lines in the export format out.

``factdesk score IN OUT`` is for corpora too large to review in one project file. IN is a JSON
Lines file or a folder of them (``*.jsonl``, in name order). It is cut into parts of
``pairs_per_part`` records (a part never spans two input files); each part is imported into a
project file of its own, analysed there (here, or on Ray workers that stay up for every part),
exported in the export format (:mod:`app.io.exporter`: pairs with their sentences, arcs, scores
and runs), and its project file deleted. ``factdesk import P PART`` restores a part's analysis
into any project, so reviewers open whichever slice they need.

OUT is a folder of parts (``part-00000.jsonl``, ...), or, when it ends in ``.jsonl``, one file:
the parts are then made in ``OUT.parts/`` and joined into OUT at the end. A part file exists only
once complete (the exporter names it last), so a run that is stopped or killed keeps every
finished part, and the part it was scoring keeps its finished chunks in its project file;
running the same command again resumes. Ids must be unique within a part (duplicates are
reported as an import reports them); parts are not checked against each other.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from app.analysis import AnalysisReport
from app.io.exporter import export
from app.io.importer import import_file
from app.io.output import output_target, write_atomically
from app.io.records import UTF16_BOMS, Problem, binary_lines, read_pairs
from app.store import Project
from models.errors import FactDeskError, InputError, gathered

PAIRS_PER_PART = 10_000
MANIFEST = "factdesk-score.json"
Analyse = Callable[..., AnalysisReport]  # run(project, progress=, report=, should_stop=)


@dataclass(frozen=True)
class Part:
    """One part of the input: its lines ``first_line`` onwards of ``path``, ``records`` records."""

    index: int
    path: Path
    first_line: int
    records: int


@dataclass
class ScoreReport:
    parts: int = 0
    parts_done_before: int = 0
    pairs: int = 0
    pairs_scored: int = 0
    not_checked_sentences: int = 0
    not_checked_pairs: int = 0
    skipped: list[Problem] = field(default_factory=list)
    duplicates: int = 0
    out: str = ""
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "out": self.out,
            "parts": self.parts,
            "parts_done_before": self.parts_done_before,
            "pairs": self.pairs,
            "pairs_scored": self.pairs_scored,
            "not_checked_sentences": self.not_checked_sentences,
            "not_checked_pairs": self.not_checked_pairs,
            "skipped": len(self.skipped),
            "skipped_records": [p.to_json() for p in self.skipped],
            "duplicates": self.duplicates,
            "cancelled": self.cancelled,
        }


def input_files(src: str | Path) -> list[Path]:
    """The JSON Lines files of IN: the file itself, or a folder's ``*.jsonl`` in name order."""
    path = Path(src)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".jsonl" and p.is_file())
        if not files:
            raise InputError("no .jsonl files in this folder", path=str(path))
        return files
    if not path.is_file():
        raise InputError("no such file or folder; check the name", path=str(path))
    return [path]


def _records(fh: BinaryIO, path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) of a JSON Lines file; records end at b"\\n" only, as on import,
    and a line over the import's cap is refused before it fills the memory. A UTF-16 file is
    refused: its parts are cut at bytes, which would split its characters."""
    if fh.peek(2)[:2] in UTF16_BOMS:
        raise InputError(
            "is UTF-16 text: `factdesk score` cuts a corpus into parts by its bytes and reads "
            "UTF-8; save it as UTF-8 (`factdesk import` reads UTF-16 into a project)",
            path=str(path),
        )
    return binary_lines(fh, path)


def plan_parts(files: Sequence[Path], pairs_per_part: int) -> list[Part]:
    """Cut the input into parts of ``pairs_per_part`` records (blank lines are no records)."""
    parts: list[Part] = []
    for path in files:
        first, count = 1, 0
        with open(path, "rb") as fh:
            for n, raw in _records(fh, path):
                if not raw.strip():
                    continue
                if count == 0:
                    first = n
                count += 1
                if count == pairs_per_part:
                    parts.append(Part(len(parts), path, first, count))
                    count = 0
        if count:
            parts.append(Part(len(parts), path, first, count))
    return parts


def _write_part_input(part: Part, dest: Path) -> None:
    """The part's lines, verbatim, from its first record to its last."""
    seen = 0
    with open(part.path, "rb") as src, open(dest, "wb") as out:
        for n, raw in _records(src, part.path):
            if n < part.first_line:
                continue
            out.write(raw if raw.endswith(b"\n") else raw + b"\n")
            if raw.strip():
                seen += 1
                if seen == part.records:
                    break


def _in_input(part: Part, exc: InputError) -> InputError:
    """The importer's error about a part's file, told as the input file and its line."""
    return InputError(
        exc.reason,
        path=str(part.path),
        line=None if exc.line is None else part.first_line + exc.line - 1,
        field=exc.field,
        also=tuple(_in_input(part, other) for other in exc.also),
    )


def _part_name(part: Part) -> str:
    return f"part-{part.index:05d}.jsonl"


def _check_records(parts: Sequence[Part]) -> None:
    """Read every part's records before any is scored; raise on the first invalid one, with the
    others of every part. Found at the part that holds it, a bad record would stop the run after
    hours of scoring, and the fixed input (another size) is another run's: its parts go."""
    problems: list[InputError] = []
    with tempfile.TemporaryDirectory(prefix="factdesk-check-") as tmp:
        for part in parts:
            check = Path(tmp) / _part_name(part)
            _write_part_input(part, check)
            try:
                read = read_pairs(check, fmt="jsonl", skip_invalid=True)
            except InputError as exc:
                raise _in_input(part, exc) from None
            finally:
                check.unlink(missing_ok=True)
            problems += [
                _in_input(part, InputError(p.reason, line=p.line, field=p.field))
                for p in read.invalid
            ]
    if problems:
        raise gathered(problems)


def score_corpus(
    src: str | Path,
    out: str | Path,
    run: Analyse,
    *,
    settings: dict[str, Any],
    pairs_per_part: int = PAIRS_PER_PART,
    skip_invalid: bool = False,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ScoreReport:
    """Score every pair of ``src`` into ``out`` (see the module docstring).

    Args:
        src: a JSON Lines file or a folder of them.
        out: a folder of parts, or one ``.jsonl`` file.
        run: the analysis, ``run(project, progress=, report=, should_stop=)`` (local or Ray).
        settings: what decides the result (checkers, versions wanted): a resumed run must have
            the same, else OUT is refused as another run's.
        pairs_per_part: records per part.
        skip_invalid: import the valid records of a part and report the rest.
        force: replace an existing OUT file (one ``.jsonl``); never the input.
        progress: (pairs done, pairs in all).
        should_stop: checked between chunks.

    Raises:
        InputError: bad input (file and line), an OUT that holds another run's parts, is the
            input, or (without ``force``) is an existing file.
    """
    if pairs_per_part < 1:
        raise FactDeskError(f"--pairs-per-part must be at least 1, not {pairs_per_part}")
    out = Path(out)
    single = out.suffix.lower() == ".jsonl"
    folder = out.with_name(out.name + ".parts") if single else out
    if single and out.is_dir():
        raise InputError(
            "is a folder; name a .jsonl file or a folder without the suffix", path=str(out)
        )
    files = input_files(src)
    _check_out(out, single, files, force)
    if Path(src).is_dir() and Path(src).resolve() in (out.resolve(), *out.resolve().parents):
        raise InputError("is inside the input folder; write the parts elsewhere", path=str(out))
    parts = plan_parts(files, pairs_per_part)
    if not skip_invalid:  # before the manifest: a fixed input is then still this run's
        _check_records([p for p in parts if not (folder / _part_name(p)).exists()])
    folder.mkdir(parents=True, exist_ok=True)
    _check_manifest(folder, files, pairs_per_part, settings)
    report = ScoreReport(parts=len(parts), out=str(out))
    total = sum(p.records for p in parts)
    done = 0
    for part in parts:
        target = folder / _part_name(part)
        if target.exists():
            report.parts_done_before += 1
            done += part.records
            report.pairs += _count_lines(target)
            continue
        base = done

        def step(n: int, _total: int, base: int = base) -> None:
            if progress is not None:
                progress(base + n, total)

        _score_part(part, folder, target, run, report, skip_invalid, step, should_stop)
        if report.cancelled:
            return report
        done += part.records
        if progress is not None:
            progress(done, total)
    if single:
        _join(parts, folder, out)
    return report


def _score_part(
    part: Part,
    folder: Path,
    target: Path,
    run: Analyse,
    report: ScoreReport,
    skip_invalid: bool,
    progress: Callable[[int, int], None],
    should_stop: Callable[[], bool] | None,
) -> None:
    """Import, analyse and export one part; its project file is kept until the part is written."""
    stem = f".part-{part.index:05d}"
    project_path, part_input = folder / f"{stem}.factdesk", folder / f"{stem}.input.jsonl"
    fresh = not project_path.exists()
    with Project.create(project_path) if fresh else Project.open(project_path) as p:
        if fresh or p.count_pairs() == 0:  # an import is all or nothing: none, or all of it
            _write_part_input(part, part_input)
            try:
                imported = import_file(p, part_input, fmt="jsonl", skip_invalid=skip_invalid)
            except InputError as exc:
                raise _in_input(part, exc) from None
            finally:
                part_input.unlink(missing_ok=True)
            report.skipped += [
                Problem(part.first_line + x.line - 1, x.field, x.reason, x.id)
                for x in imported.skipped
            ]
            report.duplicates += len(imported.duplicates)
        analysed = run(p, progress=progress, report=AnalysisReport(), should_stop=should_stop)
        if analysed.cancelled:
            report.cancelled = True
            return
        report.pairs += p.count_pairs()
        report.pairs_scored += len(analysed.pairs)
        report.not_checked_sentences += sum(c.not_checked_sentences for c in analysed.checkers)
        report.not_checked_pairs += len(analysed.not_checked_pairs)
        export(p, target)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{project_path}{suffix}").unlink(missing_ok=True)


def _count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for raw in fh if raw.strip())


def _check_out(out: Path, single: bool, files: Sequence[Path], force: bool) -> None:
    """Refuse an OUT that is an input file, or an existing file without ``force``."""
    if not (out.exists() or out.is_symlink()):
        return
    if out.exists() and any(os.path.samefile(out, f) for f in files):
        raise InputError("is the input; give another file or folder for the output", path=str(out))
    if not single:
        if not out.is_dir():
            raise InputError(
                "is a file; name a .jsonl file or a folder for the parts", path=str(out)
            )
        return
    output_target(out)  # a folder, device or FIFO is refused even with --force
    if not force:
        raise InputError(
            "already exists; give another name, or add --force to replace it", path=str(out)
        )


def _join(parts: Sequence[Part], folder: Path, out: Path) -> None:
    """Join the parts into ``out`` (complete or absent: renamed at the end); remove the parts."""
    with write_atomically(out, what="the scored corpus", binary=True) as dest:
        for part in parts:
            with open(folder / _part_name(part), "rb") as src:
                shutil.copyfileobj(src, dest)
    shutil.rmtree(folder)


def _check_manifest(
    folder: Path, files: Sequence[Path], pairs_per_part: int, settings: dict[str, Any]
) -> None:
    """Record what the parts in ``folder`` are made of; refuse to mix them with another run's."""
    mine = {
        "inputs": [{"name": f.name, "bytes": f.stat().st_size} for f in files],
        "pairs_per_part": pairs_per_part,
        **settings,
    }
    path = folder / MANIFEST
    if path.exists():
        try:
            theirs = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            theirs = None
        if theirs != mine:
            raise InputError(
                "holds the parts of another score run (other input, part size or checkers); "
                "give an empty folder or the same command",
                path=str(folder),
            )
        return
    if any(folder.iterdir()):
        raise InputError("is not empty; give an empty folder for the parts", path=str(folder))
    path.write_text(json.dumps(mine, indent=1), encoding="utf-8")
