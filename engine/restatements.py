"""Lines that restate an error another line already shows, so they are explained with it: the same message
again (a traceback's line restated, Ray's wrapper of a task's exception) and an issue title quoting a line.

Part of what :mod:`stethoscope.engine.accounting` does; it re-exports every public name (issue 12)."""

from __future__ import annotations

import re
from collections import defaultdict

from stethoscope.facts.lines import is_title
from stethoscope.facts.model import Fact


def fact_text(f: Fact) -> str:
    """What a fact says, without the line's prefix (host, pid, time): its message, else its line."""
    return str(getattr(f, "message", None) or f.evidence.text).strip()


#: the shortest free text read as restating an explained line (shorter phrases, "failed", "error: 1", say too little)
_RESTATE_MIN = 24
# Ray re-raises a task's exception in its caller as a class named after the cause's, python/ray/exceptions.py
# as_instanceof_cause: name = f"RayTaskError({cause_cls.__name__})"; pasted apart from the worker's traceback (an issue's
# title, another file) it is the wrapper of the exception line of that class (lowercased, as _flat makes it):
# ray.exceptions.RayTaskError(DistBackendError): ray::WorkerDict.ref_init_model() (pid=3829666, ip=192.168.4.25, ...   (verl-project/verl#2044's title)
#   over its body's "torch.distributed.DistBackendError: NCCL error in: ..." (restated by the NCCL error the rules explain)
_RAY_WRAPS = re.compile(r"\braytaskerror\((\w{1,100})\): ray::")


def restated_lines(facts: list[Fact], explained: set[tuple[str, int]],
                    serious: set[tuple[str, int]] = frozenset()) -> set[tuple[str, int]]:
    """The free-text error lines (``text_error_line``: a ticket's title, a summary line) that restate an explained
    line of the same node: the explained line holds their text, or they hold its message, case aside
    (dra-driver-nvidia-gpu#814's title "Failed to prepare dynamic resources: prepare dynamic resources: DRA driver
    ... is not registered" around the kubelet's err; gpu-feature-discovery#24's title "Failed to construct MIG
    resource labeler" inside GFD's error)."""
    free = [f for f in facts if f.kind == "text_error_line"]
    if not free:
        return set()
    said: dict[str, list[tuple[list[str], str, bool]]] = defaultdict(list)
    for f in facts:
        key = (f.evidence.path, f.evidence.line)
        if f.kind != "text_error_line" and key in explained:
            words = [_flat(str(w)) for w in (getattr(f, "message", None), getattr(f, "error", None))
                     if w and len(str(w)) >= _RESTATE_MIN]
            said[f.node].append((words, _flat(f.evidence.text), key in serious))
    out: set[tuple[str, int]] = set()
    grave_out: list[tuple[str, str]] = []  # (node, text) of the lines restated by one a warning or worse cites
    wrappers: list[tuple[Fact, str]] = []
    for f in free:
        text = _flat(fact_text(f))
        if len(text) < _RESTATE_MIN:
            continue
        wraps = _RAY_WRAPS.search(text)
        if wraps:
            wrappers.append((f, wraps[1]))
        # or what follows one of its ": " is in a line a warning or worse cites (a title that names where the exception
        # came from before quoting its tail: google/flax#4942's "in nnx.jit: jaxlib._jax.XlaRuntimeError: INTERNAL: NCCL
        # operation ncclAllReduce" around XLA's explained "... INTERNAL: NCCL operation ncclAllReduce( ...) failed: ...";
        # not a line only an info finding cites, so that a tail never turns an error into a healthy verdict)
        tails = [t for t in _tails(text) if len(t) >= _RESTATE_MIN]
        hits = [grave for words, line, grave in said.get(f.node, ())
                if text in line or any(w in text for w in words) or (grave and any(t in line for t in tails))]
        if hits:
            out.add((f.evidence.path, f.evidence.line))
            if any(hits):
                grave_out.append((f.node, text))
    # Ray's wrapper of a task's exception, the cause's line (its class named) being one a warning or worse explains or
    # restates: the wrapper says no more than its cause (an info finding's line never clears it)
    for f, cls in wrappers:
        key = (f.evidence.path, f.evidence.line)
        if key in out:
            continue
        cause = re.compile(r"(?:^|[\s.])" + cls + r": ")
        if any(grave and cause.search(line) for _words, line, grave in said.get(f.node, ())) \
                or any(node == f.node and cause.search(text) for node, text in grave_out):
            out.add(key)
    return out


#: what a title puts around a line it quotes: a closing quote, a question mark, the line's own full stop
_QUOTE_ENDS = " .!?:;,'\"`"
#: the shortest message of a body line read as quoted by a title (the reader read the title's words as the same kind)
_TITLE_QUOTE_MIN = 12


def title_restatements(facts: list[Fact]) -> set[tuple[str, int]]:
    """The lines of an issue's title (lines.is_title) whose fact restates a line of the body read as the same kind, on
    any node: the title is not a second error beside it (google/nccl-fastsocket#4's title 'What does "NCCL WARN Cannot
    get incoming CPU" mean?', read as a WARN of the title's node, beside the log's 'net_fastsocket.cc:765 NCCL WARN Cannot
    get incoming CPU.'). The body's line stays accounted for on its own: explained by its finding or reported
    unexplained, so a title never clears an error."""
    titled = [f for f in facts if is_title(f.evidence.path)]
    if not titled:
        return set()
    body: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for f in facts:
        if not is_title(f.evidence.path):
            body[f.kind].append((_flat(fact_text(f)).rstrip(_QUOTE_ENDS), _flat(f.evidence.text)))
    out: set[tuple[str, int]] = set()
    for f in titled:
        said = _flat(fact_text(f))
        bare = said.rstrip(_QUOTE_ENDS)
        if any((len(msg) >= _TITLE_QUOTE_MIN and msg in said) or (len(bare) >= _RESTATE_MIN and bare in line)
               for msg, line in body.get(f.kind, ())):
            out.add((f.evidence.path, f.evidence.line))
    return out


def _flat(text: str) -> str:
    """``text`` lowercased, each run of blanks one space: a title keeps a quoted line's words, not always its spacing
    (utkuozdemir/nvidia_gpu_exporter#64's title 'command failed. stderr: err: exit status 12' beside the log's
    'command failed. stderr:  err: exit status 12', the empty stderr between two blanks)."""
    return " ".join(text.lower().split())


def _tails(text: str) -> list[str]:
    """What follows each ": " of a text, longest first."""
    out, i = [], text.find(": ")
    while i >= 0:
        out.append(text[i + 2:])
        i = text.find(": ", i + 2)
    return out
