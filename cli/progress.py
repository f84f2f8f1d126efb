"""A progress display for long diagnoses (issue 12 item 5), on standard error.

Shown only when standard error is a terminal, not with ``--quiet``, and only once the run has
taken longer than :data:`DELAY_S`: a small bundle prints nothing but its report. It is
transient: the bar is erased when the diagnosis ends, so the report follows a clean screen."""
from __future__ import annotations

import sys
import time
from typing import Callable

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

from stethoscope.engine.progress import SILENT
from stethoscope.engine.progress import Progress as ProgressProtocol

#: a diagnosis that ends sooner shows no progress at all
DELAY_S = 2.0


class TerminalProgress:
    """Phase, files, bytes and facts as a rich progress bar, started after ``delay`` seconds."""

    def __init__(self, console: Console, delay: float = DELAY_S, clock: Callable[[], float] = time.monotonic):
        self.console, self.delay, self.clock = console, delay, clock
        self.t0 = clock()
        self.bar: Progress | None = None
        self.task = None
        self.name, self.files, self.total_files, self.facts = "starting", 0, None, 0
        self.nbytes, self.total_bytes = 0, None

    def _label(self) -> str:
        files = f"{self.files}/{self.total_files} files" if self.total_files else f"{self.files} files"
        return f"{self.name}: {files}, {self.facts:,} facts"

    def _show(self) -> None:
        if self.bar is None:
            if self.clock() - self.t0 < self.delay:
                return
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeElapsedColumn(),
                                console=self.console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self._label(), total=self.total_bytes)
        self.bar.update(self.task, description=self._label(), completed=self.nbytes, total=self.total_bytes)

    def phase(self, name: str, files: int | None = None, nbytes: int | None = None) -> None:
        self.name = name
        if files is not None:
            self.total_files = files
        if nbytes is not None:
            self.total_bytes = nbytes
        self._show()

    def file_done(self, path: str, nbytes: int, facts: int) -> None:
        self.files += 1
        self.nbytes += nbytes
        self.facts += facts
        self._show()

    def done(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def for_terminal(quiet: bool) -> ProgressProtocol:
    """The progress display standard error gets: none unless it is a terminal and not ``quiet``."""
    if quiet or not sys.stderr.isatty():
        return SILENT
    return TerminalProgress(Console(stderr=True, highlight=False))
