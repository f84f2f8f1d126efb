"""Whether a text the fallback readers read holds nothing a diagnosis could use (:func:`uninformative_reason`),
how many of its lines name a diagnostic term (:func:`named`), and a Python warning's line (:data:`PY_WARNING`).

Part of what :mod:`stethoscope.engine.foreign_runs` does; it re-exports every public name (issue 12)."""

from __future__ import annotations

import re

from stethoscope.engine.knowledge import load_verdict_policy
from stethoscope.facts.parsers.ticket_prose import explanations, feature_request
from stethoscope.facts.parsers.unrecognised_text import shell_command


# /opt/python/cp312-cp312/lib/python3.12/site-packages/torch/_subclasses/functional_tensor.py:279: UserWarning: Failed to
#   initialize NumPy: No module named 'numpy'                  (pytorch/pytorch#137846's collect_env output, its first line)
#   Python's warnings.formatwarning, "%s:%s: %s: %s": a warning by the program's own category, not a failure: beside a
#   capture it holds the verdict back (an unread run), it does not make it faulty
PY_WARNING = re.compile(r"[ \t]{0,40}[^\s:]{1,400}\.py:\d{1,7}: (?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}Warning: ")


def named(text: str) -> int:
    """How many lines of ``text`` name a diagnostic term, commands typed at a prompt left out: one such line alone is
    most often a reporter's caption over what they pasted ("GPU usage rate:", DeepSpeedExamples#310's paste above its
    nvidia-smi table), a run of them a program's output (IPython's frames of 'import torch', a kernel's call trace)."""
    terms = load_verdict_policy().terms_re
    return sum(1 for ln in text.split("\n") if terms.search(ln) and not shell_command(ln))


def uninformative_reason(text: str) -> str | None:
    """Why a file no reader (fallbacks included: no error line) recognised holds nothing a diagnosis
    could use, or None when one of its lines names a diagnostic term (knowledge/coverage.yaml
    ``diagnostic_terms``: it may hold what nobody read, and stays unrecognised).

    A command typed at a shell prompt is what the user asked, not what the system said: its words
    do not count, its output's do (harvest 2206, NVIDIA/nccl#330: the pipeline averages nccl-tests'
    "Avg bus" footers of a log; all that came back is one bare number)::

        root@kvm_9_115_234_40:/mnt/kehuan# cat nccl-test-gdr.log | grep "Avg bus" | awk '{sum+=$6} END {print sum/NR}'
        4.78762

    Nor does a paragraph of prose that explains what an error class may mean (facts/parsers/ticket_prose.py
    ``explanations``: knowledge quoted into a ticket, not a report about this system; harvest 2705)::

        An XID is an error report emitted by the NVIDIA driver. It indicates that some GPU-related fault occurred, but the XID
        alone does not necessarily identify the root cause or imply that the physical GPU has failed. The cause may be
        - an application error,

    Nor does a feature request that names no failure (``feature_request``: what a tool should do; an issue's title,
    flightlessmango/MangoHud#636)::

        feature request: display what is limiting GPU performance like afterburner/RiviaTuner does
    """
    terms = load_verdict_policy().terms_re
    typed = requested = False
    explained: set[int] | None = None  # the lines of a paragraph explaining an error class, computed once
    for m in terms.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start:end if end >= 0 else len(text)]
        if shell_command(line):
            typed = True
            continue
        if feature_request(line):
            requested = True
            continue
        if explained is None:
            explained = explanations(text.split("\n"))
        if text.count("\n", 0, start) + 1 not in explained:
            return None
    if explained:
        return ("no reader knows its format; it is prose explaining what an error class may mean (knowledge quoted: "
                "its domain terms name no GPU, driver, network or job of this system), and no line of output reports an error")
    if requested:
        return ("no reader knows its format; its only domain terms are in a feature request (what a tool should do, "
                "no failure named), and no line of output reports an error")
    if typed:
        return ("no reader knows its format; its only domain terms are in the commands typed at a shell prompt, "
                "and no line of output reports an error or names a GPU, driver, network or job term")
    return "no reader knows its format, and no line reports an error or names a GPU, driver, network or job term"
