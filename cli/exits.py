"""Exit codes of every ``steth`` command, and the one place that maps outcomes to them.

    0  healthy (diagnose), or the command did what was asked
    1  faulty (diagnose), or the command found a problem (lint, test, compare below baseline)
    2  inconclusive: nothing in the input could be checked
    3  bad usage or unreadable input: one plain line on standard error
    4  internal error: one line on standard error naming the file that holds the traceback; or
       the rule engine (durable-rules) does not import: one line naming the way out

The top-level group (``StethGroup``) runs click without its standalone mode, so click's usage
errors come here instead of being drawn in a framed box, and a closed standard output (``steth
diagnose ... | head -1``) leaves the exit code the command would have had.
"""
from __future__ import annotations

import atexit
import os
import sys
import tempfile
import threading
import traceback
from pathlib import Path
from typing import Any, NoReturn

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from stethoscope.engine.ruleengine.session import EngineUnavailable

HEALTHY, FAULTY, INCONCLUSIVE, BAD_USAGE, INTERNAL = 0, 1, 2, 3, 4
VERDICT = {"healthy": HEALTHY, "faulty": FAULTY, "inconclusive": INCONCLUSIVE}


def one_line(message: str) -> str:
    """A message as one line: an exception text may span several."""
    return "; ".join(part.strip() for part in str(message).splitlines() if part.strip())


def say(message: str) -> None:
    """Write ``steth: MESSAGE`` as one plain line on standard error."""
    sys.stderr.write(f"steth: {one_line(message)}\n")
    sys.stderr.flush()


def bad_usage(message: str) -> NoReturn:
    """Bad usage or unreadable input: one line on standard error, exit 3."""
    say(message)
    raise typer.Exit(BAD_USAGE)


def internal(message: str) -> NoReturn:
    """A fault of steth itself found without an exception (e.g. a shipped rule that does not load): exit 4."""
    say(f"internal error: {message}")
    raise typer.Exit(INTERNAL)


class _ClosedPipeSafe:
    """A text stream that, once its reader has gone (EPIPE), sends the rest to /dev/null.

    Rich and click would turn a BrokenPipeError into exit 1; a reader that stops early
    (``| head -1``) must not change what the command reports by its exit code."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._closed = False

    def _reader_gone(self) -> None:
        self._closed = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # the interpreter's last flush goes nowhere
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text: str) -> int:
        if not self._closed:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self._closed:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_gone()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _traceback_file(exc: BaseException) -> str:
    """Write the traceback under $XDG_STATE_HOME/gpu-stethoscope (else the temp folder)."""
    text = "".join(traceback.format_exception(exc))
    places = []
    if os.environ.get("XDG_STATE_HOME"):
        places.append(Path(os.environ["XDG_STATE_HOME"]) / "gpu-stethoscope")
    places.append(Path(tempfile.gettempdir()))
    for folder in places:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix="steth-traceback-", suffix=".txt", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            return name
        except OSError:
            continue
    return "nowhere: no writable folder"


def _usage_line(exc: UsageError) -> str:
    ctx = exc.ctx
    if isinstance(exc, NoArgsIsHelpError) and ctx is not None:
        names = ", ".join(getattr(ctx.command, "commands", {}) or ())
        where = ctx.command_path.partition(" ")[2]
        return (f"{where + ': ' if where else ''}missing command{f' (one of: {names})' if names else ''}; "
                f"see: {ctx.command_path} --help")
    hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
    return f"{exc.format_message()}{hint}"


def run_guarded(invoke) -> int:
    """Run ``invoke()`` (click without standalone mode) and return the exit code of the table."""
    try:
        rv = invoke()
        return rv if isinstance(rv, int) else HEALTHY
    except UsageError as exc:
        say(_usage_line(exc))
        return BAD_USAGE
    except ClickException as exc:  # e.g. a file click could not open
        say(exc.format_message())
        return BAD_USAGE
    except typer.Abort:
        say("aborted")
        return 130
    except EngineUnavailable as exc:  # an install without its rule engine: the way out, no traceback
        say(str(exc))
        return INTERNAL
    except Exception as exc:  # a bug: never mistaken for bad input, never a traceback on screen
        if os.environ.get("STETH_DEBUG"):
            traceback.print_exception(exc)
        say(f"internal error: {type(exc).__name__}: {exc} (traceback in {_traceback_file(exc)})")
        return INTERNAL


class StethGroup(TyperGroup):
    """The top-level ``steth`` group: the exit-code table for every subcommand."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # noqa: D102
        out, errs = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _ClosedPipeSafe(out), _ClosedPipeSafe(errs)
        try:
            code = run_guarded(lambda: super(StethGroup, self).main(
                args, prog_name or "steth", complete_var, standalone_mode=False, **extra))
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            sys.stdout, sys.stderr = out, errs
        if not standalone_mode:
            return code
        sys.exit(code)


#: set by the console entry (cli/main.main): the process ends when its command returns (:func:`leave`)
_one_shot = False
#: what a command of such a process keeps to its end (:func:`hold`)
_held: list[Any] = []


def one_shot() -> bool:
    """Whether this process is the ``steth`` command itself, ended by :func:`leave` when the command
    returns (not a test's CliRunner, not a caller of cli functions)."""
    return _one_shot


def hold(*objects: Any) -> None:
    """Keep ``objects`` (a diagnosis's observation and report) alive to the end of a one-shot process:
    :func:`leave` ends it without freeing them one by one (~500k facts at 1,024 bench nodes: 0.17 CPU s
    on the 2-core VM, bench/speed_rR6.md). Elsewhere nothing is held."""
    if _one_shot:
        _held.extend(objects)


def leave(exc: SystemExit) -> NoReturn:
    """End the ``steth`` process (its console entry, cli/main.main) with ``exc``'s code once the atexit
    handlers have run (temporary folders removed: facts/bundle._spool_stdin; files written back:
    facts/yamlio) and the standard streams are flushed, without the interpreter's teardown after them:
    every module's objects (and what :func:`hold` kept) freed one by one, and a last full collection
    (bench/speed_rR6.md). Where the code is not an exit status or a thread other than daemons is
    alive, the ordinary exit (``raise exc``)."""
    code = exc.code
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code <= 255 or others:
        raise exc
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # a reader gone, a stream closed: nothing more to write
            pass
    os._exit(code)
