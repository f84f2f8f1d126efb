"""What a long diagnosis reports while it runs (issue 12 item 5): phases, files, bytes, facts.

The pipeline calls a :class:`Progress`; the default one does nothing. The CLI passes one that
draws a progress bar on standard error when that is a terminal (cli/progress.py)."""
from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def phase(self, name: str, files: int | None = None, nbytes: int | None = None) -> None:
        """A new phase begins (``reading`` with the bundle's file count and size, ``rules``, ...)."""

    def file_done(self, path: str, nbytes: int, facts: int) -> None:
        """One file was parsed: its size and the facts it gave."""

    def done(self) -> None:
        """The diagnosis is over (the report is about to be written)."""


class Silent:
    """No progress at all (tests, pipes, --quiet)."""

    def phase(self, name: str, files: int | None = None, nbytes: int | None = None) -> None:
        return None

    def file_done(self, path: str, nbytes: int, facts: int) -> None:
        return None

    def done(self) -> None:
        return None


SILENT = Silent()
