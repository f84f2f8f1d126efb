"""Fact classes of the DCGM readers (``dcgmi diag`` text and JSON, nvvs / host engine logs)
and the knowledge they share (``knowledge/dcgm.yaml``: what a failed test points at, which
failure reasons say the test was disturbed by other work on the GPU)."""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts import knowledge as _knowledge
from stethoscope.facts.kinds.dcgm import (  # noqa: F401 - the fact classes live in facts/kinds
    DcgmDiagResult, DcgmError, DcgmHealthIncident, DcgmSelfMessage,
)


@lru_cache(maxsize=1)
def knowledge() -> dict:
    """knowledge/dcgm.yaml validated by its schema (facts/knowledge/dcgm.py), as plain data."""
    return _knowledge.load("dcgm.yaml").model_dump()


@lru_cache(maxsize=256)
def test_meaning(test: str) -> tuple[str | None, str | None]:
    """(component, cause) of a failure of ``test`` (any DCGM spelling), or (None, None)."""
    low = test.strip().lower().replace("-", " ")
    for row in knowledge()["tests"]:
        if low in row["names"] or low.replace(" ", "_") in row["names"]:
            return row["component"], row["cause"]
    return None, None


def not_comparable(reason: str) -> str | None:
    """Why a result with this reason says nothing about the hardware, or None. Spaces do not count:
    dcgmi wraps a warning every 46 characters and the table reader joins the pieces without one, so a
    wrap that fell on a space leaves none there ("0.0 seconds" + "started" -> "secondsstarted")."""
    low = _SPACES.sub("", reason.lower())
    for row in knowledge()["not_comparable"]:
        if _SPACES.sub("", row["match"].lower()) in low:
            return row["why"]
    return None


_SPACES = re.compile(r"\s+")


def cause_shown(reason: str) -> bool:
    """False where the not-comparable reason the message matches names no cause of its own (knowledge/dcgm.yaml
    ``cause_shown: false``: DCGM's profiling-library status says that profiling failed, not why)."""
    low = _SPACES.sub("", reason.lower())
    for row in knowledge()["not_comparable"]:
        if _SPACES.sub("", row["match"].lower()) in low:
            return row.get("cause_shown", True)
    return True


def self_message(message: str) -> tuple[str, bool] | None:
    """(why, whether DCGM logs the caught exception on the next line) of an ERROR line DCGM logs
    about itself (knowledge/dcgm.yaml self_messages), or None."""
    low = message.lower()
    for row in knowledge()["self_messages"]:
        if row["match"].lower() in low:
            return row["why"], row["exception_follows"]
    return None


_PRINTF = re.compile(r"%(?:[-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z)?([diuxXfFeEgGs])")


def _format_regex(fmt: str) -> re.Pattern:
    """A DCGM_FR_*_MSG printf format as a regex: numbers and words in place of its conversions,
    its final period optional (the *_NEXT advice follows it)."""
    out, pos = [], 0
    # a space may be missing where dcgmi's 46-character wrap fell on it (see not_comparable)
    for m in _PRINTF.finditer(fmt):
        out.append(re.escape(fmt[pos:m.start()]).replace("\\ ", r"\s*"))
        out.append(r"(.+?)" if m.group(1) == "s" else r"([-+]?[\d.]+(?:e[-+]?\d+)?)")
        pos = m.end()
    tail = fmt[pos:].rstrip(".")
    out.append(re.escape(tail).replace("\\ ", r"\s*") + r"\.?")
    return re.compile("".join(out), re.I)


@lru_cache(maxsize=1)
def _health_messages() -> tuple[tuple[re.Pattern, dict], ...]:
    return tuple((_format_regex(row["format"]), row) for row in knowledge().get("health_messages", []))


def health_meaning(system: str, message: str) -> tuple[str | None, str | None, str | None, str]:
    """(reason, component, cause, actions) of a health incident: its message's row, else its
    system's; (None, None, None, "") for a system knowledge does not name."""
    sys_row = _system_row(system)
    for rx, row in _health_messages():
        if rx.match(message.strip()):
            comp = row.get("component") or (sys_row or {}).get("component")
            cause = row.get("cause") or (sys_row or {}).get("cause")
            return row["reason"], comp, cause, ",".join((sys_row or {}).get("actions", ["READ_EVIDENCE"]))
    if sys_row is None:
        return None, None, None, ""
    return None, sys_row["component"], sys_row["cause"], ",".join(sys_row["actions"])


@lru_cache(maxsize=128)
def reason_meaning(reason: str) -> tuple[str | None, str | None]:
    """(component, cause) of a DCGM_FR_* reason as its health_messages row names them (a monitor that
    quotes the code, not dcgmi's text: NVSentinel's ``ErrorCode:DCGM_FR_CLOCK_THROTTLE_POWER``);
    (None, None) for a reason knowledge lacks or whose row defers to its health system."""
    for row in knowledge().get("health_messages", []):
        if row["reason"] == reason:
            return row.get("component"), row.get("cause")
    return None, None


@lru_cache(maxsize=128)
def reason_text_meaning(reason: str) -> tuple[str | None, str | None]:
    """(component, cause) of a failed test whose reason quotes a DCGM_FR_* message knowledge names
    (health_messages, e.g. "GPU 0's NvLink link 1 is currently down"): what the test found says more
    than what the test exercises (the PCIe test failing on NvLink links down only names NVLink);
    (None, None) for a reason that quotes none."""
    for rx, row in _health_messages():
        if row.get("component") and row.get("cause") and rx.search(reason):
            return row["component"], row["cause"]
    return None, None


@lru_cache(maxsize=1)
def _error_codes() -> dict[int, dict]:
    return {row["id"]: row for row in knowledge().get("error_codes", [])}


def error_code(ident: int) -> dict | None:
    """The catalogue row (reason, text, severity, category) of a DCGM failure code (dcgmi diag -j's "error_id"),
    or None for a code this catalogue (DCGM 4.6.0) lacks."""
    return _error_codes().get(ident)


def _system_row(system: str) -> dict | None:
    low = system.strip().lower()
    return next((r for r in knowledge().get("health_systems", []) if low in (n.lower() for n in r["names"])), None)


def health_system_meaning(system: str) -> tuple[str | None, str | None]:
    """(component, cause) of a DCGM health system (any of its names), or (None, None)."""
    row = _system_row(system)
    return (row["component"], row["cause"]) if row is not None else (None, None)


def health_severity(result: str) -> str:
    return knowledge().get("health_results", {}).get(result, "warning")
