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

enroot's shell runtime stops on its own errors through common::err, which prints ``[ERROR] <message>`` (src/common.sh
common::log; the tag coloured on a terminal) and exits; its messages (enroot src/*.sh and conf/hooks/*.sh, 3.x)::

    common::err "URL ${@: -1} returned error code: ${code} ${status}"             (src/common.sh common::curl)
    common::err "Invalid image reference: ${uri}"  / "Could not parse authentication realm from ${url}" /
      "Unsupported authentication method ${auth}" / "Could not parse digest information from ${url_manifest}" /
      "Could not retrieve digest from ${url_manifest}"                            (src/docker.sh)
    common::err "${file} exited with return code $?"                              (src/common.sh common::runparts: hooks)
    common::err "Command not found: ${cmd}"                                       (src/common.sh common::checkcmd)
    common::err "Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container"
                                                                                  (conf/hooks/98-nvidia.sh)

Sample lines (real, NVIDIA/pyxis#118: ``enroot import`` of an image from a local registry by hand)::

    [INFO] Querying registry for permission grant
    [ERROR] URL http://master:5000/v2/custom-pytorch-3-1/manifests/latest returned error code: 400

Facts: ``enroot_helper_error`` per helper's line (the program, the step it failed, strerror's text when err(3) added one:
the last ``": "`` part that is an errno text, a capital and words); ``enroot_error`` per ``[ERROR]`` line of one of the
messages above (``stage`` import, hook, command; ``http_code``, ``hook``, ``command`` when the message names them; a
``[ERROR]`` line of another message is not read here: other tools print the same tag). Under Slurm, pyxis prints the
same lines indented after its own (``pyxis:     enroot-nsenter: ...``, ``pyxis:     [ERROR] ...``): the slurm_log reader
reads those with pyxis's failure, so a line is read here only at the start of a line. Empty input, or no such line:
nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import EnrootError, EnrootHelperError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with

KIND = "enroot_helper"

# enroot-nsenter: failed to create user namespace: Permission denied   (NVIDIA/enroot#238)
#   (at a line's start, a few blanks of indentation at most: pyxis's "pyxis:     enroot-..." is the slurm_log reader's)
#   (the message the rest of the line, bounded, its blanks taken off in Python)
_LINE = re.compile(r"^[ \t]{0,8}(?P<prog>enroot-(?:nsenter|switchroot|mount|aufs2ovlfs|mksquashovlfs)): "
                   r"(?P<msg>[^\n]{1,400})", re.M)
# ...: Permission denied   ...: Invalid argument   ...: No such file or directory   (strerror's text at the end)
_ERRNO = re.compile(r": (?P<err>[A-Z][a-z]{1,20}(?:[ /][A-Za-z]{1,20}){0,6})$")
# [ERROR] URL http://master:5000/v2/custom-pytorch-3-1/manifests/latest returned error code: 400          (NVIDIA/pyxis#118)
# [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1          (NVIDIA/enroot#128, after nvidia-container-cli's line)
# [ERROR] Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container   (98-nvidia.sh)
#   (at a line's start, a few blanks at most; the message bounded; the stages by enroot's common::err messages above)
_ERROR = re.compile(r"^[ \t]{0,8}\[ERROR\] (?P<msg>(?:URL (?P<url>\S{1,400}) returned error code: (?P<code>\d{3})\b"
                    r"|Invalid image reference: |Could not parse authentication realm from |Unsupported authentication method "
                    r"|Could not parse digest information from |Could not retrieve digest from "
                    r"|(?P<hook>/\S{0,300}/hooks\.d/[^\s/]{1,120}) exited with return code \d{1,3}\b"
                    r"|Command not found: (?P<cmd>[\w.+-]{1,80}))[^\n]{0,400})", re.M)
_MARKERS = ("enroot-nsenter: ", "enroot-switchroot: ", "enroot-mount: ", "enroot-aufs2ovlfs: ", "enroot-mksquashovlfs: ")
_ERROR_MARKER = ("[ERROR] ",)


def detect(text: str) -> bool:
    return (any(_LINE.search(line) for _s, line in lines_with(text, _MARKERS))
            or any(_ERROR.search(line) for _s, line in lines_with(text, _ERROR_MARKER)))


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
    for n, line in iter_lines_with(_ERROR_MARKER, artefact):
        if (m := _ERROR.search(line)) is None:
            continue
        result.lines_used += 1
        stage = "hook" if m["hook"] else "command" if m["cmd"] else "import"
        fb.add(EnrootError, n, stage=stage, message=m["msg"].strip()[:400], http_code=int(m["code"]) if m["code"] else None,
               hook=m["hook"], command=m["cmd"])
    return result


#: line signatures (facts/classify.py); (?m): one RE2 set over the whole text
SIGNATURES = (r"(?m)^[ \t]*enroot-(?:nsenter|switchroot|mount|aufs2ovlfs|mksquashovlfs): \S",
              r"(?m)^[ \t]*\[ERROR\] (?:URL \S+ returned error code: \d|Invalid image reference: |Could not parse authentication realm"
              r"|/\S*/hooks\.d/\S+ exited with return code \d|Command not found: [\w.+-])")
