"""Kernel log line stamps as seconds, and how long a log runs on after a line (facts/parsers/kernel_log.py).

Stamps as kernel_log's prefix gives them: ``3.011519`` (``dmesg``), ``Wed Jan 27 23:04:35 2021`` (``dmesg -T``),
``Aug 21 06:02:40`` (syslog, ``journalctl -k``), ``Dec 02 09:56:04.123456`` (``-o short-precise``),
``2026-11-29T18:32:13+0000`` (``-o short-iso``, ``dmesg --time-format iso``). ``+0.000844`` (``dmesg -d``) is
the time since the line before, and a locale's day names (``Di Dez  2``) are not read: no seconds.
"""
from __future__ import annotations

from datetime import datetime

_FORMATS = ("%a %b %d %H:%M:%S %Y", "%b %d %H:%M:%S", "%b %d %H:%M:%S.%f")

#: how far past the NVIDIA driver's load line a kernel log must run for its silence to say how the GPUs ran: a
#: capture within a minute of the load is of the boot (the 4 lines of harvest 1408, 0.3 s: the module's taint
#: lines, nvidia-drm, the HDMI audio inputs), before any job could have used a GPU
RUNS_ON_S = 60.0
#: lines looked back from the log's end for one with a stamp (a shell prompt, continuation lines after it)
_LOOK_BACK = 200


def stamp_seconds(stamp: str | None, relative: bool = True) -> float | None:
    """Seconds of a kernel line stamp in any of the parser's forms (None if unknown); ``relative=False``:
    None for ``dmesg -d``'s ``+0.000844`` (the time since the line before)."""
    if not stamp:
        return None
    if stamp.startswith("+") and not relative:
        return None
    try:
        return float(stamp.lstrip("+"))
    except ValueError:
        pass
    text = " ".join(stamp.split())
    for fmt in _FORMATS:
        try:
            return datetime.strptime(text, fmt).timestamp()
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(text.replace(",", ".")).timestamp()
    except ValueError:
        return None


def spans(lines: list[str], last: int, stamp_of) -> bool:
    """Whether the log (``lines``, its last non-blank line ``last``) shows RUNS_ON_S or more of time: its first and last
    stamped lines (looked for within _LOOK_BACK lines of each end) are that far apart. An event's line pasted alone, a
    few lines of one moment, or lines without stamps: not shown (an Xid line's silence about other Xids, session 25)."""
    first = next((s for i in range(1, min(last, _LOOK_BACK) + 1) if (s := stamp_of(lines[i - 1])) is not None), None)
    at = stamp_seconds(first, relative=False)
    if at is None:
        return False
    for i in range(last, max(0, last - _LOOK_BACK), -1):
        if (s := stamp_of(lines[i - 1])) is not None:
            later = stamp_seconds(s, relative=False)
            return later is not None and later - at >= RUNS_ON_S
    return False


def runs_on(lines: list[str], ln: int, last: int, stamp: str | None, stamp_of) -> bool:
    """Whether the log (``lines``, its last non-blank line ``last``) runs on RUNS_ON_S past line ``ln``
    (1-based) stamped ``stamp``: its last stamped line after ``ln`` is that much later (``stamp_of(line)``:
    kernel_log's stamp of a line, or None). No stamp on either: not shown."""
    at = stamp_seconds(stamp, relative=False)
    if at is None:
        return False
    for i in range(last, max(ln, last - _LOOK_BACK), -1):
        if (s := stamp_of(lines[i - 1])) is not None:
            later = stamp_seconds(s, relative=False)
            return later is not None and later - at >= RUNS_ON_S
    return False

