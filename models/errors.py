"""Every domain error FactDesk raises, in one place.

The window shows them through one handler and the CLI prints their message as a one-line reason,
so each message says what went wrong and where (file, line, field) when that is known.
"""

from __future__ import annotations

from collections.abc import Sequence


class FactDeskError(Exception):
    """Base class for errors meant to be shown to the user as they are."""


class ModelNotFoundError(FactDeskError):
    """A model (spaCy pipeline, checker directory, bundled file) is missing or unreadable."""


class ModelLoadError(FactDeskError):
    """A model directory exists but cannot be used (wrong format, missing labels)."""


class UnknownCheckerError(FactDeskError):
    """A checker name that no registry entry knows."""


class InputError(FactDeskError):
    """Bad user input: a file, record or field that cannot be used.

    Attributes:
        path: the file, when known.
        line: the 1-based line or record number, when known.
        field: the field name, when known.
        also: the other problems the same reading found, so a file can be fixed in one pass;
            shown after the message.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
        also: tuple[InputError, ...] = (),
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.reason = message
        self.also = also
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


def gathered(errors: Sequence[InputError]) -> InputError:
    """The first of ``errors`` carrying the others (``also``): a file read whole reports every
    bad record at once."""
    first = errors[0]
    return InputError(
        first.reason,
        path=first.path,
        line=first.line,
        field=first.field,
        also=tuple(errors[1:]),
    )


class UsageError(FactDeskError):
    """A command line that cannot be read: an unknown option, a missing or empty argument."""


class ProjectError(FactDeskError):
    """A project file that cannot be opened or written (newer schema, not a project, locked)."""


class Cancelled(FactDeskError):
    """Work stopped because the caller asked it to; what was finished before is kept."""


class EngineError(FactDeskError):
    """A distributed engine (Ray) that is missing, unreachable, or lost its workers."""
