"""The fuzzer shared by the fast profile (tests/test_fuzz_parsers.py) and the long one (bench/fuzz.py).

Inputs are made from EVERY real fixture (``fixtures/{artefacts,bundles,harvest,observations}``):
byte mutations (bit flips, truncation, duplication, insertion of separators, NaN, huge numbers
and odd unicode, numbers and fields replaced, lines spliced in from other fixtures; in a JSON
document, a value given another type), stacked one to four deep. Each input goes

- through every reader (``facts/registry.py``, fallbacks included): ``normalise`` as the
  pipeline does, ``detect`` of every reader, then ``parse`` of every reader that accepts the
  text and of the readers that owned the fixture before it was mutated (:func:`check_text`);
- or, as a bundle, through ``steth diagnose --from-logs`` on a ``.tar.gz``, ``.tar`` or
  ``.zip`` of a fixture bundle with some of its files mutated (:func:`check_archive`): the
  plain functions the CLI calls (``diagnose_bundle`` and the renderers), or the CLI itself
  through typer's ``CliRunner``.

A crash is an exception out of a reader (the pipeline would turn it into "parser failed"), a
reader slower than ``SLOW_S`` on one input (a regex that backtracks on a long line), a
parse problem outside the file's lines, "parser failed" in a report, an exception other than
``BundleError`` out of a diagnosis, or an exit 4 / a traceback / a multi-line error from the
CLI. A clean one-line bad-input error (exit 3) is the right answer to a broken archive.

Every mutation is a pure function of its input and an integer seed, so an input is named by
``(fixture, [(mutation, seed), ...])`` and can be made again (:func:`apply`); hypothesis
strategies draw those names (:func:`mutation_plans`).
"""
from __future__ import annotations

import io
import json
import random
import re
import tarfile
import tempfile
import traceback
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_DIRS = ("artefacts", "bundles", "harvest", "observations")
#: notes about fixtures and the scripts that generated some bundles: not inputs
NOT_INPUT = {".md", ".py"}

# --- the corpus -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    rel: str  # path under the repository root
    data: bytes
    #: the readers that accepted the fixture as it is (parsed on its mutants whatever detect says)
    owners: tuple[str, ...]


def decode(data: bytes) -> str:
    """Bytes to text as a bundle reads them (facts/bundle.py: UTF-8, bad bytes replaced)."""
    return data.decode("utf-8", errors="replace")


@lru_cache(maxsize=1)
def readers() -> tuple[ModuleType, ...]:
    from stethoscope.facts.registry import load_fallbacks, load_parsers

    return tuple(load_parsers()) + tuple(load_fallbacks())


def _owners(text: str) -> tuple[str, ...]:
    from stethoscope.facts.parsers.base import Artefact

    art = Artefact(path="seed", text=text, node="n1")
    art.normalise()
    return tuple(m.KIND for m in readers() if m.detect(art.text))


@lru_cache(maxsize=1)
def corpus() -> tuple[Seed, ...]:
    """Every real fixture file, in path order."""
    out = []
    for d in FIXTURE_DIRS:
        for p in sorted((ROOT / "fixtures" / d).rglob("*")):
            if p.is_file() and p.suffix not in NOT_INPUT:
                data = p.read_bytes()
                out.append(Seed(str(p.relative_to(ROOT)), data, _owners(decode(data))))
    return tuple(out)


@lru_cache(maxsize=1)
def corpus_lines() -> tuple[bytes, ...]:
    """Every non-blank line of every fixture (what splices draw from)."""
    return tuple(ln for s in corpus() for ln in s.data.split(b"\n") if ln.strip())


@lru_cache(maxsize=1)
def bundle_roots() -> tuple[str, ...]:
    """The folders that are bundles: fixture bundles, harvest cases, recorded observations."""
    roots = sorted(p.parent for p in (ROOT / "fixtures" / "bundles").glob("*/bundle") if p.is_dir())
    roots += sorted(p for p in (ROOT / "fixtures" / "harvest" / "cases").iterdir() if p.is_dir())
    roots += sorted(p for p in (ROOT / "fixtures" / "observations").iterdir() if p.is_dir())
    return tuple(str(p.relative_to(ROOT)) for p in roots)


def bundle_files(root: str) -> list[tuple[str, bytes]]:
    base = ROOT / root
    if (base / "bundle").is_dir():
        base = base / "bundle"
    return [(str(p.relative_to(base)), p.read_bytes()) for p in sorted(base.rglob("*"))
            if p.is_file() and p.name not in ("README.md", "label.yaml", "expected.yaml")]


# --- mutations: (data, rng) -> data ------------------------------------------------------------

#: what gets inserted, or put in place of a number or a field: separators
SEPARATORS: tuple[bytes, ...] = (
    b",", b"|", b":", b";", b"=", b"\t", b" ", b"  ", b"\n", b"\r\n", b"\r", b"[", b"]", b"(", b")", b"{", b"}",
    b"<", b">", b"/", b"\\", b'"', b"'", b"#", b"%", b"...", b"--", b"0x", b"-",
)
#: numbers that are not the usual kind
ODD_NUMBERS: tuple[bytes, ...] = (
    b"NaN", b"nan", b"-nan", b"inf", b"-inf", b"Infinity", b"1e309", b"-1e309", b"1e-400", b"99999999999999999999999999",
    b"-99999999999999999999", b"18446744073709551616", b"-1", b"0", b"-0", b"0.0", b"1e", b"1.2.3", b"0xZZ",
    b"0xffffffffffffffffffff", b"N/A", b"[N/A]", b"[Not Supported]", b"n/a", b"", b"None", b"null", b"-",
)
#: unicode and control characters
ODD_CHARS: tuple[bytes, ...] = (
    "\u2028".encode(), "\u2029".encode(), "\x85".encode(), b"\x0b", b"\x0c", b"\x00", b"\x1b[31m", b"\x7f",
    "\ufeff".encode(), "\u202e".encode(), "\u0301".encode(), "\U0001f525".encode(), "\u00e9".encode(), "\uff11".encode(),
    "\u0661\u0662".encode(), "\u00b2".encode(), "\u2155".encode(), b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"```", b"> ",
)
TOKENS = SEPARATORS + ODD_NUMBERS + ODD_CHARS
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_FIELD_SEP = re.compile(rb"[ \t,|:;=]+")


def _pos(data: bytes, rng: random.Random) -> int:
    return rng.randint(0, len(data))


def _line_span(data: bytes, rng: random.Random) -> tuple[int, int]:
    """Start and end (exclusive of its newline) of a random line."""
    if not data:
        return 0, 0
    i = rng.randrange(len(data))
    start = data.rfind(b"\n", 0, i) + 1
    end = data.find(b"\n", i)
    return start, len(data) if end == -1 else end


def bit_flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(buf))
        buf[i] ^= 1 << rng.randrange(8)
    return bytes(buf)


def byte_set(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        buf[rng.randrange(len(buf))] = rng.choice((0x00, 0xFF, 0x7F, 0x80, 0x0A, 0x0D, 0x20, 0x2D, 0x2E, 0x30, 0x39))
    return bytes(buf)


def truncate(data: bytes, rng: random.Random) -> bytes:
    """Cut the end off (mid-line, mid-record), or the start."""
    k = _pos(data, rng)
    return data[:k] if rng.random() < 0.7 else data[k:]


def cut_line(data: bytes, rng: random.Random) -> bytes:
    """One line cut short where it stands (the rest of the file kept)."""
    s, e = _line_span(data, rng)
    return data[: rng.randint(s, e)] + data[e:]


def duplicate(data: bytes, rng: random.Random) -> bytes:
    """A range of bytes, or of whole lines, repeated in place (2 to 40 times)."""
    if not data:
        return data
    if rng.random() < 0.5:
        a = rng.randrange(len(data))
        b = min(len(data), a + rng.randint(1, 256))
    else:
        a, _ = _line_span(data, rng)
        _, b = _line_span(data[a:], rng)
        b = min(len(data), a + b + 1)
    return data[:b] + data[a:b] * rng.randint(1, 39) + data[b:]


def delete(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    a = rng.randrange(len(data))
    return data[:a] + data[a + rng.randint(1, 64):]


def insert_token(data: bytes, rng: random.Random) -> bytes:
    i = _pos(data, rng)
    return data[:i] + rng.choice(TOKENS) + data[i:]


def replace_number(data: bytes, rng: random.Random) -> bytes:
    """A number in the text (a count, a figure, a bus id part) made NaN, huge, empty, ..."""
    nums = list(_NUMBER.finditer(data, rng.randrange(len(data) + 1) if data else 0)) or list(_NUMBER.finditer(data))
    if not nums:
        return insert_token(data, rng)
    m = rng.choice(nums[:64])
    return data[: m.start()] + rng.choice(ODD_NUMBERS + ODD_CHARS[:8]) + data[m.end():]


def mangle_field(data: bytes, rng: random.Random) -> bytes:
    """In one line: a field dropped, doubled, emptied, swapped with the next, or replaced by a token."""
    s, e = _line_span(data, rng)
    parts = _FIELD_SEP.split(data[s:e])
    seps = _FIELD_SEP.findall(data[s:e])
    if len(parts) < 2:
        return insert_token(data, rng)
    i = rng.randrange(len(parts))
    op = rng.randrange(5)
    if op == 0:
        del parts[i]
        seps = seps[: max(0, len(parts) - 1)]
    elif op == 1:
        parts.insert(i, parts[i])
        seps.insert(min(i, len(seps)), seps[min(i, len(seps) - 1)] if seps else b" ")
    elif op == 2:
        parts[i] = b""
    elif op == 3 and i + 1 < len(parts):
        parts[i], parts[i + 1] = parts[i + 1], parts[i]
    else:
        parts[i] = rng.choice(TOKENS)
    line = parts[0] + b"".join(sep + p for sep, p in zip(seps + [b" "] * len(parts), parts[1:]))
    return data[:s] + line + data[e:]


def splice_lines(data: bytes, rng: random.Random) -> bytes:
    """1 to 20 lines of other fixtures put in between this one's lines (or in place of one)."""
    pool = corpus_lines()
    new = b"\n".join(rng.choice(pool) for _ in range(rng.randint(1, 20)))
    s, e = _line_span(data, rng)
    if rng.random() < 0.5:
        return data[:s] + new + b"\n" + data[s:]
    return data[:s] + new + data[e:]


def crossover(data: bytes, rng: random.Random) -> bytes:
    """This fixture's head joined to another fixture's tail, at a line boundary or mid-line."""
    other = rng.choice(corpus()).data
    return data[: _pos(data, rng)] + other[_pos(other, rng):]


def shuffle_lines(data: bytes, rng: random.Random) -> bytes:
    """Two lines swapped, or a run of lines dropped (a record's header without its body)."""
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if rng.random() < 0.5:
        lines[i], lines[j] = lines[j], lines[i]
    else:
        del lines[min(i, j): min(i, j) + rng.randint(1, 8)]
    return b"\n".join(lines)


def line_endings(data: bytes, rng: random.Random) -> bytes:
    """CRLF everywhere, lone CRs, or unicode line separators in place of some newlines."""
    op = rng.randrange(3)
    if op == 0:
        return data.replace(b"\n", b"\r\n")
    sep = b"\r" if op == 1 else rng.choice(("\u2028".encode(), "\x85".encode(), b"\x0b", b"\x0c", b"\x1c"))
    out = bytearray()
    for ln in data.split(b"\n"):
        out += ln + (sep if rng.random() < 0.2 else b"\n")
    return bytes(out[:-1])


def long_line(data: bytes, rng: random.Random) -> bytes:
    """One line made very long (a field repeated thousands of times)."""
    s, e = _line_span(data, rng)
    piece = data[s:e][: rng.randint(1, 40)] or b"x"
    return data[:e] + piece * rng.randint(100, 5000) + data[e:]


#: what a JSON value is replaced by: another type than its own, or an odd number
JSON_VALUES: tuple[object, ...] = (None, "x", "", 0, -1, 1.5, 10**30, True, [], {}, [1], {"a": 1}, "NaN", "1e999")


def json_nodes(doc: object, limit: int = 2000) -> list[tuple[object, ...]]:
    """Paths (keys and indexes) to the values of a JSON document, breadth first: the document's
    own fields before those of its lists' items."""
    out: list[tuple[object, ...]] = [()]
    queue = [((), doc)]
    while queue and len(out) < limit:
        path, node = queue.pop(0)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            out.append(path + (k,))
            queue.append((path + (k,), v))
    return out[:limit]


def json_put(doc: object, path: tuple[object, ...], value: object) -> object:
    """A copy of ``doc`` with the value at ``path`` replaced (the whole document for ``()``)."""
    if not path:
        return value
    doc = json.loads(json.dumps(doc))
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


def json_retype(data: bytes, rng: random.Random) -> bytes:
    """A JSON document with one of its values (or itself) replaced by one of another type: a list
    where an object was, a string for a number, null for a name. Other input: a number replaced."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return replace_number(data, rng)
    path = rng.choice(json_nodes(doc))
    return json.dumps(json_put(doc, path, rng.choice(JSON_VALUES)), indent=1).encode()


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    f.__name__: f for f in (bit_flip, byte_set, truncate, cut_line, duplicate, delete, insert_token, replace_number,
                            mangle_field, splice_lines, crossover, shuffle_lines, line_endings, long_line, json_retype)
}
#: how often each is drawn (the structure-aware ones find more)
WEIGHTS = {"bit_flip": 2, "byte_set": 1, "truncate": 2, "cut_line": 2, "duplicate": 2, "delete": 1, "insert_token": 3,
           "replace_number": 5, "mangle_field": 4, "splice_lines": 3, "crossover": 1, "shuffle_lines": 2,
           "line_endings": 1, "long_line": 1, "json_retype": 2}

Plan = tuple[tuple[str, int], ...]


#: inputs are cut to this (or to their fixture's size, if larger): stacked duplications and long
#: lines would otherwise make a few huge inputs cost more than thousands of others (size limits
#: are tests/test_hostile_input.py's business)
MAX_INPUT = 256 << 10


def apply(data: bytes, plan: Plan) -> bytes:
    """The input a plan names: each mutation, with its own seed, applied in turn."""
    cap = max(MAX_INPUT, len(data))
    for name, seed in plan:
        data = MUTATIONS[name](data, random.Random(seed))
        if len(data) > cap:
            data = data[:cap]
    return data


def random_plan(rng: random.Random) -> Plan:
    names = list(WEIGHTS)
    weights = [WEIGHTS[n] for n in names]
    return tuple((rng.choices(names, weights)[0], rng.getrandbits(32)) for _ in range(rng.choice((1, 1, 2, 2, 3, 4))))


def mutation_plans():
    """Hypothesis: a plan of one to four mutations (shrinks towards fewer, simpler ones)."""
    from hypothesis import strategies as st

    return st.lists(st.tuples(st.sampled_from(list(MUTATIONS)), st.integers(0, 2**32 - 1)), min_size=1, max_size=4).map(tuple)


# --- what a crash is ----------------------------------------------------------------------------


@dataclass
class Crash:
    target: str  # the reader's KIND, "normalise", "diagnose", "cli"
    fixture: str
    plan: Plan
    error: str  # "ValueError: could not convert string to float: 'NaN'"
    where: str = ""  # the last frames of the traceback
    data: bytes = field(default=b"", repr=False)
    archive: str = ""  # the archive's kind for a bundle input

    def key(self) -> tuple[str, str, str]:
        """Same reader, same exception type, same innermost frame: one bug."""
        return (self.target, self.error.split(":", 1)[0], self.where.splitlines()[-1] if self.where else "")

    def describe(self) -> str:
        plan = " + ".join(f"{n}({s})" for n, s in self.plan) or "as is"
        return f"{self.target} on {self.fixture} [{plan}{', ' + self.archive if self.archive else ''}]: {self.error}\n{self.where}"


def _where(exc: BaseException, frames: int = 3) -> str:
    tb = traceback.extract_tb(exc.__traceback__)[-frames:]
    return "\n".join(f"  {Path(f.filename).name}:{f.lineno} in {f.name}: {f.line}" for f in tb)


def _err(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:300]}"


# --- through every reader -------------------------------------------------------------------


#: a reader that takes longer than this on one input (at most 256 KiB) is a crash too: a regex
#: that backtracks on a long line hangs a diagnosis as surely as an exception ends it
SLOW_S = 10.0


class Slow(Exception):
    pass


@contextmanager
def time_limit(seconds: float, wall_factor: float = 10.0):
    """Raise :class:`Slow` in the block after ``seconds`` of this process's CPU time (SIGPROF), or
    after ``wall_factor`` times as many seconds of wall time (SIGALRM: a block that waits instead of
    computing). CPU time, not wall time, is the bound: a linear regex on a 120,000-character line
    takes milliseconds of CPU, a backtracking one seconds, and neither figure moves with the other
    work on the machine (wall-time limits of 0.5 s failed for linear patterns at load 9-11 on two
    cores, session 36). SIGALRM / SIGPROF reach the main thread only; Python's regex engine checks
    for signals while it backtracks."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        what = "CPU" if signum == signal.SIGPROF else "wall"
        limit = seconds if signum == signal.SIGPROF else seconds * wall_factor
        raise Slow(f"slow: more than {limit:g} s of {what} time on one input")

    old_prof = signal.signal(signal.SIGPROF, expire)
    old_alrm = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * wall_factor)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old_prof)
        signal.signal(signal.SIGALRM, old_alrm)


def check_text(data: bytes, owners: tuple[str, ...] = (), fixture: str = "", plan: Plan = (),
               every_parse: bool = False) -> list[Crash]:
    """Run one input through every reader; the crashes it caused (empty: none).

    ``every_parse``: parse with every reader, whatever its detect says (arbitrary text)."""
    from stethoscope.facts.parsers.base import Artefact

    crashes: list[Crash] = []

    def crash(target: str, exc: BaseException | None, msg: str = "") -> None:
        crashes.append(Crash(target, fixture, plan, _err(exc) if exc else msg, _where(exc) if exc else "", data))

    text = decode(data)
    art = Artefact(path="fuzz.log", text=text, node="n1")
    try:
        art.normalise()
    except Exception as exc:
        crash("normalise", exc)
        return crashes
    nlines = max(1, art.text.count("\n") + 1)
    todo = []
    for mod in readers():
        try:
            with time_limit(SLOW_S):
                accepted = mod.detect(art.text)
        except Exception as exc:
            crash(mod.KIND, exc)
            continue
        if accepted or every_parse or mod.KIND in owners:
            todo.append(mod)
    for mod in todo:
        try:
            with time_limit(SLOW_S):
                res = mod.parse(art)
        except Exception as exc:
            crash(mod.KIND, exc)
            continue
        for e in res.errors:
            if e.path != "fuzz.log" or not 0 <= e.line <= nlines:
                crash(mod.KIND, None, f"parse problem outside the file: {e.path}:{e.line}: {e.message[:200]}")
                break
    return crashes


def check_lines(lines: list[str]) -> list[Crash]:
    """Arbitrary lines (hypothesis text, real lines cut and spliced) through every reader's parse."""
    data = "\n".join(lines).encode("utf-8", errors="surrogatepass")
    return check_text(data, fixture="(lines)", every_parse=True)


# --- through the CLI, on archives --------------------------------------------------------------


ARCHIVES = ("tar.gz", "tar", "zip")


def write_archive(files: list[tuple[str, bytes]], kind: str, folder: str) -> str:
    path = str(Path(folder) / f"bundle.{kind}")
    if kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in files:
                z.writestr("bundle/" + name, data)
    else:
        with tarfile.open(path, "w:gz" if kind == "tar.gz" else "w") as t:
            for name, data in files:
                info = tarfile.TarInfo("bundle/" + name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
    return path


def mutate_bundle(files: list[tuple[str, bytes]], rng: random.Random) -> tuple[list[tuple[str, bytes]], Plan, bool]:
    """Some files of a bundle mutated (1 to 3); rarely the archive itself is to be cut or flipped
    (returned flag). The plan names each file's mutation as ``name@path``."""
    files = list(files)
    plan: list[tuple[str, int]] = []
    for _ in range(rng.randint(1, 3)):
        if not files:
            break
        i = rng.randrange(len(files))
        name, data = files[i]
        p = random_plan(rng)
        files[i] = (name, apply(data, p))
        plan += [(f"{m}@{name}", s) for m, s in p]
    return files, tuple(plan), rng.random() < 0.08


_RULESET = None
#: archives meant for the CLI that went through the plain functions because the shipped rules
#: did not load (the CLI would stop at that before reading the input)
CLI_SKIPPED = 0


def _ruleset():
    global _RULESET
    if _RULESET is None:
        from stethoscope.engine.ruleengine.loader import load_rules

        _RULESET = load_rules()
    return _RULESET


def check_archive(files: list[tuple[str, bytes]], kind: str, fixture: str, plan: Plan, rng: random.Random,
                  via_cli: bool, break_archive: bool = False) -> list[Crash]:
    """One mutated bundle, archived, through ``steth diagnose --from-logs``."""
    fmt = rng.choice(("text", "json", "markdown"))
    evaluator = rng.choice(("durable", "durable", "reference"))
    with tempfile.TemporaryDirectory(prefix="steth-fuzz-") as tmp:
        path = write_archive(files, kind, tmp)
        if break_archive:
            raw = Path(path).read_bytes()
            sub = random.Random(rng.getrandbits(32))
            raw = truncate(raw, sub) if sub.random() < 0.5 else bit_flip(raw, sub)
            Path(path).write_bytes(raw)
            plan = plan + (("archive_broken", 0),)
        data = Path(path).read_bytes()

        def crash(target: str, error: str, where: str = "") -> list[Crash]:
            return [Crash(target, fixture, plan, error, where, data, archive=f"{kind}, --format {fmt}, {evaluator}")]

        if via_cli and _ruleset().errors:  # a rule being edited in the tree, not this input's doing
            global CLI_SKIPPED
            CLI_SKIPPED += 1
            via_cli = False
        if via_cli:
            return _check_cli(path, fmt, evaluator, crash)
        from stethoscope.cli.render import render_markdown, render_text
        from stethoscope.engine.pipeline import diagnose_bundle
        from stethoscope.facts.bundle import BundleError
        from rich.console import Console

        try:
            report = diagnose_bundle(path, _ruleset(), evaluator, jobs=1)
            if fmt == "json":
                out = report.model_dump_json(indent=2, exclude_none=True)
            elif fmt == "markdown":
                out = render_markdown(report)
            else:
                buf = io.StringIO()
                render_text(report, Console(file=buf, highlight=False, emoji=False, soft_wrap=True, width=120))
                out = buf.getvalue()
        except BundleError as exc:
            if "\n" in str(exc).strip():
                return crash("diagnose", f"bad-input error of several lines: {str(exc)[:300]!r}")
            return []
        except Exception as exc:
            return crash("diagnose", _err(exc), _where(exc, 4))
        failed = [e for e in report.coverage.errors if "parser failed" in e.message]
        if failed:
            return crash(failed[0].parser or "diagnose", failed[0].message[:300], f"  in {failed[0].path}")
        if "parser failed" in out:
            return crash("render", "'parser failed' in the report")
        return []


def _check_cli(path: str, fmt: str, evaluator: str, crash) -> list[Crash]:
    from typer.testing import CliRunner

    from stethoscope.cli.main import app

    res = CliRunner().invoke(app, ["diagnose", "--from-logs", path, "--format", fmt, "--evaluator", evaluator,
                                   "--jobs", "1", "--quiet"])
    err = res.stderr if hasattr(res, "stderr") else ""
    if res.exit_code == 4 or "internal error" in err:
        return crash("cli", f"exit {res.exit_code}: {err.strip()[:300]}")
    if res.exit_code not in (0, 1, 2, 3):
        return crash("cli", f"exit {res.exit_code}: {res.exception!r}"[:300],
                     _where(res.exception, 4) if res.exception else "")
    # steth's own traceback starts a line; a log's "Traceback (most recent call last):" quoted as
    # evidence is indented or follows its file:line
    if re.search(r"^Traceback \(most recent call last\):", res.output, re.M) or "parser failed" in res.output:
        return crash("cli", "a traceback or 'parser failed' in the output")
    if res.exit_code == 3 and len(err.strip().splitlines()) != 1:
        return crash("cli", f"bad input not said in one line: {err[:300]!r}")
    return []


# --- saving a crash for triage -------------------------------------------------------------------


def save(crash: Crash, folder: Path, name: str) -> Path:
    """The input under ``folder`` (``<name>-<target>.bin``/``.tar.gz``...) with a ``.txt`` that says what it is."""
    folder.mkdir(parents=True, exist_ok=True)
    ext = crash.archive.split(",")[0] if crash.archive else "bin"
    path = folder / f"{name}-{crash.target}.{ext}"
    path.write_bytes(crash.data)
    path.with_name(path.name + ".txt").write_text(crash.describe() + "\n")
    return path


def minimise(crash: Crash) -> bytes:
    """A smaller text input that still makes the same reader fail the same way (lines, then
    characters off each line's end)."""
    if crash.archive or crash.error.startswith("Slow"):  # each trial of a slow input costs SLOW_S
        return crash.data
    key = crash.key()

    def fails(data: bytes) -> bool:
        return any(c.key() == key for c in check_text(data, crash_owners(crash), crash.fixture, crash.plan))

    lines = crash.data.split(b"\n")
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        i, changed = 0, False
        while i < len(lines):
            trial = lines[:i] + lines[i + chunk:]
            if trial and fails(b"\n".join(trial)):
                lines, changed = trial, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    for i in range(len(lines)):
        lo, hi = 0, len(lines[i])
        while lo < hi:  # shortest prefix of this line that still fails
            mid = (lo + hi) // 2
            if fails(b"\n".join(lines[:i] + [lines[i][:mid]] + lines[i + 1:])):
                hi = mid
            else:
                lo = mid + 1
        lines[i] = lines[i][:lo]
    return b"\n".join(lines)


def crash_owners(crash: Crash) -> tuple[str, ...]:
    for s in corpus():
        if s.rel == crash.fixture:
            return s.owners
    return (crash.target,)
