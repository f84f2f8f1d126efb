"""Reading one results row of nccl-tests, with or without its column header.

A row is ``size count type [redop] [root]`` then one block of measurements per side
(out-of-place, then in-place): ``time algbw busbw #wrong`` (``-P`` adds ``i_min i_max i_p99
i_cv%``; ``-S`` a timestamp at the end). What the leading and last columns are changed over
the releases (src/common.cu and src/util.cu of github.com/NVIDIA/nccl-tests at each tag):

- v1.0.0 (2018): header ``bytes N type op ... res``; time in **ms** (``%7.3f`` of
  ``deltaSec * 1.0E3``); broadcast prints the out-of-place side only;
- v2.0.0 to v2.11.0: header ``size count type``, then ``redop`` and/or ``root`` per collective
  (alltoall an empty redop), last column ``error`` (max deviation ``0e+00``) or ``N/A``;
- v2.13.0 on: always ``redop root`` (``none``/``-1`` where unused), last column ``#wrong``
  (``%6g`` of the wrong-element count) or ``N/A`` without validation (``-c 0``).

With the header, :func:`layout_of_header` says which set follows. A row pasted without it
is read by :func:`infer_layout`: the column count fixes how many leading columns and
measurement blocks there are (3 + lead + 4 x sides, lead 0-2; 8 per side with ``-P``), a
word there is the redop and an integer the root, and the form of the last column says
``#wrong`` (an integer) or max deviation (``0e+00``).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from stethoscope.facts.kinds.bench import wrong_total

#: test_typenames of src/common.cu: v2.x (and v1 with NCCL 2), NCCL 1's set, fp8 since 2.17
DTYPES = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
          "f8e4m3", "f8e5m2", "char", "int")
#: test_opnames (+ "none" printed since 2.13 where a test has no reduction)
REDOPS = ("sum", "prod", "max", "min", "avg", "mulsum", "none")

_NUM = r"-?\d+(?:\.\d*)?(?:e[+-]?\d+)?"
# A results row on its own, by its form alone (no header needed):
#            8             2     float     sum      -1    13.54    0.00    0.00       0    13.06    0.00    0.00       0
#    268435456      67108864     float     sum   122131    2.20    4.33  2e-06   122165    2.20    4.33  2e-06    (nccl-tests#78)
#          256            64     float     sum      -1    34.24    0.01    0.01      0    33.65    0.01    0.01    N/A    (nccl-tests#214)
# (-S appends the time of day, TIME_STRING_FORMAT of src/util.cu: "%Y-%m-%d %H:%M:%S")
ROW = (r"^[ \t]*\d+[ \t]+\d+[ \t]+(?:" + "|".join(DTYPES) + r")(?:[ \t]+[a-z]+)?"
       r"(?:[ \t]+(?:" + _NUM + r"|N/A)){4,}(?:[ \t]+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)?[ \t]*$")
ROW_RE = re.compile(ROW)
#   ... 0  2025-10-17 12:00:01   (-S: a timestamp after the in-place columns)
# (from the start of a blank run only: tried inside a long run of blanks it was quadratic)
_TIMESTAMP = re.compile(r"(?<!\s)\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s*$")
_INT = re.compile(r"-?\d+")
#: the fewest columns a whole row has: size count type and one side's time algbw busbw #wrong (v1.0.0 broadcast)
FEWEST_COLUMNS = 7
_WRONG_NAMES = ("#wrong", "error")

# A row as nccl-tests 2.13 and later prints it under its header (src/common.cu: sizes and counts
# "%12li", times and bandwidths "%7.2f", #wrong "%6g" of a count or "N/A"), read by one match, and
# the rows of a table one after another by one findall:
#            8             2     float     sum      -1    17.74    0.00    0.00       0    17.11    0.00    0.00       0
#          256            64     float     sum      -1    34.24    0.01    0.01      0    33.65    0.01    0.01    N/A    (nccl-tests#214)
# Every other form (a timestamp, -P's columns, nan, 1e+03, a max-error column, a cut row) is read
# column by column, as a row without its header is.


@dataclass(frozen=True)
class _Fixed:
    line: re.Pattern[str]  # one row (multiline: ^...$), its columns as groups
    block: re.Pattern[str]  # rows one after another, each ended by its newline (or the text's end)


@lru_cache(maxsize=None)
def _fixed(lead: tuple[str, ...], sides: int) -> _Fixed:
    """The rows of a layout of ``lead`` leading columns after the type (a root an integer) and
    ``sides`` blocks of time, algbw, busbw and #wrong, in the fixed forms above. The type is a
    word, as the nccl-tests reader's line scan (nccl_tests._LINE) wants a row's."""

    def row(group: str) -> str:  # group: "(" to capture each column, "(?:" not to
        fixed = rf"[ \t]+{group}[0-9]+(?:\.[0-9]+)?)"
        count = rf"[ \t]+{group}[0-9]{{1,15}}|N/A)"  # up to 15 digits: int() of them is int(float()) of them
        return (rf"[ \t]*{group}[0-9]+)[ \t]+{group}[0-9]+)[ \t]+{group}[A-Za-z_]\w*)"
                + "".join(rf"[ \t]+{group}-?[0-9]+)" if name == "root" else rf"[ \t]+{group}\S+)" for name in lead)
                + (fixed * 3 + count) * sides + r"[^\S\n]*")

    return _Fixed(re.compile("^" + row("(") + "$", re.M), re.compile("(?:" + row("(?:") + r"(?:\n|\Z))+"))


def _fixed_of(lay: Layout | None) -> _Fixed | None:
    if lay is None or lay.per_side != 4 or lay.max_error is not False or lay.timestamp:
        return None
    return _fixed(tuple(lay.lead), lay.sides)


def fixed_rows(text: str, start: int, lay: Layout | None, collective: str | None) -> tuple[list[dict[str, Any]], int] | None:
    """The rows of ``lay`` from offset ``start`` (a line's start) on, as long as they are in the
    fixed forms above: (each row's read_row fields, the offset after the last one's line), or None
    where the first is not (read_row reads it)."""
    fixed = _fixed_of(lay)
    if fixed is None:
        return None
    block = fixed.block.match(text, start)
    if block is None:
        return None
    return [_fixed_fields(g, lay, collective) for g in fixed.line.findall(text, start, block.end())], block.end()


@dataclass
class Layout:
    lead: list[str] = field(default_factory=list)  # "redop", "root" in the order printed
    per_side: int = 4  # time algbw busbw #wrong (+ i_min i_max i_p99 i_cv% with -P)
    sides: int = 2  # 1: v1.0.0 broadcast (out-of-place only)
    max_error: bool | None = False  # last column is max deviation; None: tell by its form
    time_scale: float = 1.0  # 1000 for v1.0.0's milliseconds
    timestamp: bool = False


def layout_of_header(first: str, text: str) -> Layout:
    """``first``: ``size count`` or ``bytes N`` (v1.0.0); ``text``: the names after ``type``."""
    names = text.split()
    times = [i for i, n in enumerate(names) if n in ("time", "cputime")]
    first_time = times[0] if times else len(names)
    lead = ["redop" if n == "op" else n for n in names[:first_time]]
    return Layout(lead=lead, per_side=8 if "i_min" in names else 4, sides=max(1, min(2, len(times))),
                  max_error=("error" in names or "res" in names) and "#wrong" not in names,
                  time_scale=1000.0 if first.startswith("bytes") else 1.0, timestamp="timestamp" in names)


def header_has_times(text: str) -> bool:
    """The column header's names after ``type`` reach its time columns: every release prints
    ``time`` (``cputime`` with -C) after ``redop``/``root`` in the same PRINT as them."""
    return any(n in ("time", "cputime") for n in text.split())


def infer_layout(tokens: list[str]) -> Layout | None:
    """The layout of a row seen without its header, from its columns; None when no layout fits."""
    n = len(tokens) - 3
    for per_side, sides in ((4, 2), (8, 2), (4, 1)):
        lead = n - per_side * sides
        if 0 <= lead <= 2:
            names = ["root" if _INT.fullmatch(t) else "redop" for t in tokens[3:3 + lead]]
            lay = Layout(lead=names, per_side=per_side, sides=sides, max_error=None)
            lay.time_scale = _time_scale(tokens, lay)
            return lay
    return None


def _time_scale(tokens: list[str], lay: Layout) -> float:
    # algbw = bytes / time: which unit makes the printed algbw agree (v1.0.0 printed ms)
    start = 3 + len(lay.lead)
    try:
        size, t, algbw = float(tokens[0]), float(tokens[start]), float(tokens[start + 1])
    except (ValueError, IndexError):
        return 1.0
    if algbw < 0.1 or t <= 0:
        return 1.0
    us, ms = size / (t * 1e3), size / (t * 1e6)
    return 1000.0 if abs(ms - algbw) < abs(us - algbw) else 1.0


def read_row(text: str, lay: Layout | None, collective: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """(fields of an nccl_test_row, None) or (None, why it cannot be read). ``lay`` None: no
    header seen, infer the layout from the row."""
    fixed = _fixed_of(lay)
    if fixed is not None and (m := fixed.line.match(text)) is not None:
        return _fixed_fields(m.groups(), lay, collective), None
    if lay is None or lay.timestamp:
        text = _TIMESTAMP.sub("", text)
    tok = text.split()
    if lay is None:
        lay = infer_layout(tok)
        if lay is None:
            return None, f"results row has {len(tok)} columns, which no nccl-tests layout has"
    n = lay.per_side * lay.sides
    lead = tok[3:-n] if len(tok) >= 3 + n else None
    if lead is None or len(lead) > len(lay.lead):
        return None, f"results row has {len(tok)} columns, header wants {3 + len(lay.lead) + n}"
    fields: dict[str, Any] = dict(collective=collective, size_bytes=int(tok[0]), count=int(tok[1]),
                                  dtype=tok[2], redop=None, root=None)
    if len(lead) == len(lay.lead):
        named = dict(zip(lay.lead, lead))
    else:  # alltoall before 2.13 printed an empty redop: place what is there by its form
        named = {("root" if _INT.fullmatch(v) else "redop"): v for v in lead}
    problem = _read_lead(fields, named)
    if problem:
        return None, problem
    meas = tok[-n:]
    for i, side in enumerate(("oop", "ip")[: lay.sides]):
        vals = meas[i * lay.per_side: (i + 1) * lay.per_side]
        nums = [_float(v) for v in vals[:3]]
        if None in nums:
            bad = vals[nums.index(None)]
            return None, f"{side} {('time', 'algbw', 'busbw')[nums.index(None)]} is not a number: {bad!r}"
        fields[f"{side}_time_us"] = nums[0] * lay.time_scale
        fields[f"{side}_algbw"], fields[f"{side}_busbw"] = nums[1], nums[2]
        wrong = vals[3]
        value = None if wrong == "N/A" else _float(wrong)
        max_error = lay.max_error if lay.max_error is not None else not _INT.fullmatch(wrong)
        if wrong != "N/A" and value is None:
            return None, f"{side} {_WRONG_NAMES[bool(max_error)]} is not a number: {wrong!r}"
        if max_error:
            fields[f"{side}_max_error"] = value
        elif value is not None and not math.isfinite(value):  # "nan"/"inf" where a count stands
            return None, f"{side} #wrong is not a count: {wrong!r}"
        else:
            fields[f"{side}_wrong"] = None if value is None else int(value)
    wrong = wrong_total(fields.get("oop_wrong"), fields.get("ip_wrong"))
    if wrong is not None:
        fields["wrong"] = wrong
    return fields, None


def _read_lead(fields: dict[str, Any], named: dict[str, str]) -> str | None:
    """The redop and root of a row's leading columns into ``fields``; why not, when the root is no number."""
    if "redop" in named:
        fields["redop"] = None if named["redop"] in ("none", "") else named["redop"]
    if "root" in named:
        if not _INT.fullmatch(named["root"]):
            return f"root is not a number: {named['root']!r}"
        fields["root"] = None if int(named["root"]) < 0 else int(named["root"])
    return None


def _fixed_fields(g: tuple[str, ...], lay: Layout, collective: str | None) -> dict[str, Any]:
    """read_row's fields for the groups of a _fixed row: the same, without a split of the columns
    or a test of each one's form."""
    fields: dict[str, Any] = dict(collective=collective, size_bytes=int(g[0]), count=int(g[1]),
                                  dtype=g[2], redop=None, root=None)
    at = 3
    for name in lay.lead:  # the last of a name twice wins, as in read_row's dict of them
        if name == "redop":
            fields["redop"] = None if g[at] == "none" else g[at]
        elif name == "root":
            root = int(g[at])
            fields["root"] = None if root < 0 else root
        at += 1
    scale = lay.time_scale
    oop = None if g[at + 3] == "N/A" else int(g[at + 3])
    fields.update(oop_time_us=float(g[at]) * scale, oop_algbw=float(g[at + 1]), oop_busbw=float(g[at + 2]), oop_wrong=oop)
    if lay.sides == 1:
        if oop is not None:
            fields["wrong"] = oop
        return fields
    at += 4
    ip = None if g[at + 3] == "N/A" else int(g[at + 3])
    fields.update(ip_time_us=float(g[at]) * scale, ip_algbw=float(g[at + 1]), ip_busbw=float(g[at + 2]), ip_wrong=ip)
    if oop is not None or ip is not None:
        fields["wrong"] = wrong_total(oop, ip)
    return fields


def out_of_place_half(text: str, lay: Layout | None) -> bool:
    """A row that ends after its out-of-place block where the header has two sides: nccl-tests
    prints a row in pieces (src/common.cu TimeTest of every release: the size/count/type/redop/root
    preamble, ``BenchTime(..., 0)`` prints the out-of-place block, ``BenchTime(..., 1)`` runs the
    in-place collective and prints its block, then ``PRINT("\\n")``), so the in-place half never
    came: the run hung, crashed or was killed in it, or the capture was cut there."""
    if lay is None or lay.sides != 2 or lay.timestamp:
        return False
    tok = text.split()
    if len(tok) != 3 + len(lay.lead) + lay.per_side:
        return False
    return all(_float(v) is not None for v in tok[3 + len(lay.lead):][:3])


def short_row(text: str, lay: Layout | None) -> bool:
    """A row with fewer columns than its header's full row (both sides): what a capture cut inside
    the row leaves (NVIDIA/nccl-tests#194's paste ends inside the in-place half of its last row)."""
    if lay is None or lay.timestamp:
        return False
    return 0 < len(text.split()) < 3 + len(lay.lead) + lay.per_side * lay.sides


def _float(raw: str) -> float | None:
    try:
        return float(raw)
    except ValueError:
        return None
