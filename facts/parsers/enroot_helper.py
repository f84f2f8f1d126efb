"""enroot's helper programs failing while they set a container up, as ``enroot start`` (or ``enroot create``, ``enroot
import``) prints them on its terminal.

enroot's shell runtime runs small C helpers for the steps a shell cannot do: ``enroot-nsenter`` creates the user, mount
and other namespaces, ``enroot-switchroot`` enters the root file system and executes the command, ``enroot-mount``
mounts enroot's fstab entries, ``enroot-aufs2ovlfs`` and ``enroot-mksquashovlfs`` convert image layers. Each exits on a
failed step through err(3) (``"<program>: <step>: <strerror>"``) or errx(3) (``"<program>: <message>"``), enroot bin/*.c::

    err(EXIT_FAILURE, "failed to create user namespace");          (bin/enroot-nsenter.c create_namespaces; the same
                                                                     in enroot-aufs2ovlfs.c and enroot-mksquashovlfs.c)
    err(EXIT_FAILURE, "failed to mount: %s at %s", ...);             (bin/enroot-mount.c)

Sample lines (real, from the public threads named)::

    enroot-nsenter: failed to create user namespace: Permission denied        (NVIDIA/enroot#238, enroot 3.5 on a host whose AppArmor restricts unprivileged user namespaces)
    enroot-mount: failed to mount: devpts at /scratch/pbs/enroot-data/user-613.chas052/lammps/dev/pts: Invalid argument   (NVIDIA/enroot#54, ENROOT_RESTRICT_DEV=y)

Facts: ``enroot_helper_error`` per line (the program, the step it failed, strerror's text when err(3) added one: the last
``": "`` part that is an errno text, a capital and words). Under Slurm, pyxis prints the same lines indented after its own
(``pyxis:     enroot-nsenter: ...``): the slurm_log reader reads those with pyxis's failure, so a helper's line is read here
only at the start of a line. Empty input, or no helper's error line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import EnrootHelperError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with

KIND = "enroot_helper"

# enroot-nsenter: failed to create user namespace: Permission denied   (NVIDIA/enroot#238)
#   (at a line's start, a few blanks of indentation at most: pyxis's "pyxis:     enroot-..." is the slurm_log reader's)
#   (the message the rest of the line, bounded, its blanks taken off in Python)
_LINE = re.compile(r"^[ \t]{0,8}(?P<prog>enroot-(?:nsenter|switchroot|mount|aufs2ovlfs|mksquashovlfs)): "
                   r"(?P<msg>[^\n]{1,400})", re.M)
# ...: Permission denied   ...: Invalid argument   ...: No such file or directory   (strerror's text at the end)
_ERRNO = re.compile(r": (?P<err>[A-Z][a-z]{1,20}(?:[ /][A-Za-z]{1,20}){0,6})$")
_MARKERS = ("enroot-nsenter: ", "enroot-switchroot: ", "enroot-mount: ", "enroot-aufs2ovlfs: ", "enroot-mksquashovlfs: ")


def detect(text: str) -> bool:
    return any(_LINE.search(line) for _s, line in lines_with(text, _MARKERS))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(_MARKERS, artefact):
        if (m := _LINE.search(line)) is None:
            continue
        result.lines_used += 1
        msg = m["msg"].strip()
        e = _ERRNO.search(msg)
        fb.add(EnrootHelperError, n, program=m["prog"], step=msg[:e.start()] if e else msg, error=e["err"] if e else None)
    return result


#: line signatures (facts/classify.py); (?m): one RE2 set over the whole text
SIGNATURES = (r"(?m)^[ \t]*enroot-(?:nsenter|switchroot|mount|aufs2ovlfs|mksquashovlfs): \S",)
