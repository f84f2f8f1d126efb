"""Error lines in a file that no parser recognises (the fallback: runs only then).

A file nobody recognises may still hold the line that explains the incident: a tool's own
error, a message no parser knows yet. This reader takes the lines that say so in words
(error, failed, fatal, panic, timed out, Traceback, ...) as ``text_error_line`` facts of
warning polarity, so the verdict cannot be healthy while they are unread
(rules/meta/unexplained_error.yaml quotes them). Lines without such words are left unclaimed,
and a file with none stays unrecognised (the verdict is then inconclusive, never healthy).

Sample content (real lines from public threads that no parser of ours reads)::

    docker: Error response from daemon: failed to create task for container: failed to create shim task
    ERROR: ld.so: object '/usr/lib/libfoo.so' from LD_PRELOAD cannot be preloaded: ignored.
    Segmentation fault (core dumped)
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "unrecognised_text"
#: run only on files that no other parser recognised (facts/registry.py)
FALLBACK = True


@fact_kind
class TextErrorLine(Fact):
    """A line of an unrecognised file that reports an error in words."""

    kind: Literal["text_error_line"] = "text_error_line"
    message: str


# docker: Error response from daemon: failed to create task for container: failed to create shim task
# Segmentation fault (core dumped)
# RuntimeError: something went wrong
ERROR_WORDS = re.compile(
    r"\b(?:[Ee]rror|ERROR|[Ff]ailed|FAILED|[Ff]ailure|FAILURE|[Ff]atal|FATAL|[Pp]anic|PANIC|Traceback|"
    r"[A-Z]\w*(?:Error|Exception)|[Tt]imed out|[Tt]imeout|Segmentation fault|core dumped|[Aa]borted|"
    r"[Cc]annot|[Cc]ould not|[Uu]nable to|[Nn]ot responding|[Uu]ncorrectable|[Cc]orrupt\w*)\b"
)

_GATES = ("rror", "ail", "atal", "anic", "ANIC", "Traceback", "xception", "imed out", "imeout", "fault",
          "dumped", "bort", "annot", "ould not", "nable to", "responding", "ncorrectable", "orrupt", "FAIL")


def detect(text: str) -> bool:
    return any(g in text for g in _GATES) and ERROR_WORDS.search(text) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for line, text in iter_lines(ERROR_WORDS, artefact):
        message = text.strip()
        if not message:
            continue
        b.add(TextErrorLine, line, message=message[:400])
        result.lines_used += 1
    return result
