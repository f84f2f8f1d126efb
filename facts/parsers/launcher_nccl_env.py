"""NCCL settings a job script or launcher asks for: the launcher's intent, not NCCL's confirmation.

A ticket often pastes the job script's ``export NCCL_X=V`` lines, the shell command with
``NCCL_X=V`` in front of it, or Open MPI's ``mpirun -x NCCL_X=V``. They say what the person meant
NCCL to run with; whether NCCL read it is another matter (a plain ``export`` reaches only the local
ranks unless mpirun forwards it with ``-x``: NVIDIA/nccl#876), and whether it matters depends on the
run (``NCCL_SHM_DISABLE=1`` on 2 nodes x 1 GPU changes nothing). NCCL's own
``NCCL_X set by environment to V`` line (``nccl_env``, facts/parsers/nccl_log.py) is the
confirmation the rules on NCCL settings read; this reader's facts are context beside it.

Sample content (real lines; threads named)::

    export NCCL_SOCKET_IFNAME=eth0                                              (NVIDIA/nccl-tests#290)
    /usr/bin/mpirun --hostfile HOSTFILE ... -x NCCL_DEBUG=INFO -x NCCL_SOCKET_IFNAME=eth0  nccl-tests/build/all_reduce_perf ...   (NVIDIA/nccl-tests#36)
    Hi, the command I use is `NCCL_DEBUG=INFO mpirun -np 2 -hosts master,worker ./build/all_reduce_perf ...`   (NVIDIA/nccl#876)
    (deit92) [yuxin.fang@gpu-dev006 deit]$ NCCL_DEBUG=INFO bash train.sh        (facebookresearch/deit#28)
    (vllm) user@cuda0003:/export/home/scratch/user/dev/huggingface$ CUDA_VISIBLE_DEVICES=6 NCCL_DEBUG=TRACE torchrun --nproc-per-node=1 test_vllm.py   (vllm-project/vllm#8978)

Facts: ``launcher_nccl_env`` per setting: ``name``, ``value`` (quotes removed), ``form``
(``export`` | ``prefix`` | ``mpirun_x``). Not read: commented-out lines (``#export NCCL_X=1``),
a bare ``NCCL_X=V`` with no command after it (a listing or /etc/nccl.conf, not a launch),
Slurm's ``srun --export=...,NCCL_X=V`` and MPICH's ``-genv NCCL_X V`` (no real sample yet).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import LauncherNcclEnv  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "launcher_nccl_env"

# one scan for the literal: every form has NCCL_<NAME>= in it
_SET = re.compile(r"\bNCCL_[A-Z0-9_]+=(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s`'\";|&]*)")
# what may come before it on its line, by form (a shell prompt: "(env) user@host:/dir$ ", "[u@h dir]$ ", "root@h:~# ", "$ ";
# a bare "# " is a comment: "# export NCCL_DEBUG=INFO" is a setting switched off, as job scripts keep them)
_PROMPT = r"(?:\([\w.-]+\)\s+)?(?:(?:\[[^\]\n]{1,120}\]|[\w.@-]+(?::[^\s$#]*)?)[$#]|\$)\s+"
_ASSIGN = r"(?:[A-Za-z_]\w*=(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s`'\";|&]*)\s+)*"
_EXPORT_BEFORE = re.compile(r"(?:^\s*|`)(?:" + _PROMPT + r")?export\s+$")
_PREFIX_BEFORE = re.compile(r"(?:^\s*|`)(?:" + _PROMPT + r")?(?:env\s+)?" + _ASSIGN + r"$")
_MPI_X_BEFORE = re.compile(r"(?:^|\s)-x\s+$")
# after a prefix assignment: more assignments, then a command word
_COMMAND_AFTER = re.compile(r"\s+" + _ASSIGN + r"[\w./~$-]")


def detect(text: str) -> bool:
    return any(_form(text, m) for m in _SET.finditer(text))


def _form(text: str, m: re.Match[str]) -> str | None:
    start = text.rfind("\n", 0, m.start()) + 1
    before = text[start:m.start()]
    if before.lstrip().startswith("#"):  # a comment: "# FLAGS += -x NCCL_DEBUG=INFO", "# export NCCL_X=V"
        return None
    if _MPI_X_BEFORE.search(before):
        return "mpirun_x"
    if _EXPORT_BEFORE.search(before):
        return "export"
    if _PREFIX_BEFORE.search(before) and _COMMAND_AFTER.match(text, m.end()):
        return "prefix"
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    last = 0  # the line of the last setting read: a line of several settings is used once
    for n, m in iter_matches(_SET, artefact):
        form = _form(artefact.text, m)
        if form is not None:
            name, _, value = m[0].partition("=")
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            b.add(LauncherNcclEnv, n, name=name, value=value, form=form)
            result.lines_used += n != last
            last = n
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"NCCL_[A-Z0-9_]+=",)
