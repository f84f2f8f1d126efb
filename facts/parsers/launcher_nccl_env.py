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

Slurm's ``--export`` list (srun, sbatch, an ``#SBATCH`` line: Slurm splits it on commas, so a value
ends at one) and MPICH / Intel MPI / MVAPICH's ``-genv NCCL_X V`` (``-genv NCCL_X=V`` as scripts
also write it; ``-env`` for the local ranks). Real lines (public job scripts, found with the code
search)::

    srun --nodes=1 --ntasks=1 ... --nodelist=$1 --export=ALL,NCCL_SOCKET_IFNAME=ib0 ray start --head --block ...
    #SBATCH --export=ALL,NCCL_BLOCKING_WAIT=1,NCCL_ASYNC_ERROR_HANDLING=1,NCCL_DEBUG=INFO,NCCL_P2P_DISABLE=1,NCCL_P2P_LEVEL=NVL,NCCL_TIMEOUT_MS=6000000
             --export=ALL,NCCL_COLLNET_ENABLE="${collnet}",NCCL_DEBUG=INFO,NCCL_DEBUG_SUBSYS=COLL \
        -genv NCCL_SOCKET_IFNAME "$NET_IF" \
    ./mpirun -np 16 --host node188:8,node477:8 -genv NCCL_PXN_DISABLE=1 -genv UCX_NET_DEVICES=mlx5_0:1 -genv NCCL_ALGO=NVLSTree -genv NCCL_IB_GID_INDEX 3 ...
    MVAPICH_params="$MVAPICH_params ... -genv NCCL_SHM_DISABLE 1 -genv NCCL_DEBUG INFO"

A setting written into NCCL's configuration file, which NCCL reads into its environment at start-up
(src/misc/param.cc initEnvFunc: ``$NCCL_CONF_FILE`` or ``~/.nccl.conf``, then ``/etc/nccl.conf``, one
``NAME=VALUE`` a line), as a container image's build step writes it (aws/deep-learning-containers#4756,
the PyTorch training image's Dockerfile)::

    echo NCCL_SOCKET_IFNAME=^docker0 >> /etc/nccl.conf

Facts: ``launcher_nccl_env`` per setting: ``name``, ``value`` (quotes removed), ``form``
(``export`` | ``prefix`` | ``mpirun_x`` | ``slurm_export`` | ``mpi_genv`` | ``nccl_conf``). For
``NCCL_SOCKET_IFNAME``, ``loopback_admitted``: an exclusion list (``^docker0``) that leaves ``lo``
eligible; NCCL uses a value it is given as it is (src/misc/socket.cc ncclFindInterfaces: the default
``^docker,lo,virbr`` applies only when the variable is unset), and takes the first interface the list
admits in getifaddrs' order, where ``lo`` usually comes first. Not read: commented-out
lines (``#export NCCL_X=1``, ``#mpirun ... -genv NCCL_X=V``; an ``#SBATCH`` line is no comment), a
bare ``NCCL_X=V`` with no command after it (a listing or the file's own lines, not a launch). A prefix
written one setting a line, each ending with the shell's ``\\`` continuation, is a prefix: the command
follows on a later line (``NCCL_DEBUG=INFO \\``, a public README's run step: code search id 34437177692).
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
_ASSIGN = r"(?:[A-Za-z_]\w*=(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s`'\";|&]*)[ \t]+)*"
_EXPORT_BEFORE = re.compile(r"(?:^\s*|`)(?:" + _PROMPT + r")?export\s+$")
# sudo env NCCL_DEBUG=INFO ${BENCHMARK_CMD}      (a public benchmark script, code search id 44157575606: sudo, with its
#   options, before env or before the assignments themselves, which sudo also takes as the command's environment)
_PREFIX_BEFORE = re.compile(r"(?:^\s*|`)(?:" + _PROMPT + r")?(?:sudo\s+(?:-[A-Za-z]{1,8}\s+){0,4})?(?:env\s+)?" + _ASSIGN + r"$")
_MPI_X_BEFORE = re.compile(r"(?:^|\s)-x\s+$")
# after a prefix assignment, on its line: more assignments, then a command word (a listing's next
# line "NCCL_DEBUG=INFO" is no command: NVIDIA/nccl#278's settings, one a line, read as none)
_COMMAND_AFTER = re.compile(r"(?<![ \t])[ \t]++" + _ASSIGN + r"[\w./~$-]")
# or more assignments, then the shell's line continuation: the command is on a later line of the same
# command (the env prefix written one setting a line):
# NCCL_DEBUG=INFO \                        (a public README's run step, code search id 34437177692: four such lines before the command)
# (the line's rest, less its final backslash, is blanks and assignments only: _CONTINUED_REST.fullmatch; the
# backslash is looked for as a string, not searched for after every assignment: a line of thousands of
# assignments and no backslash made that quadratic, bench/redos.py session 19, 5 s at 120,000 characters)
_CONTINUED_REST = re.compile(r"[ \t]++" + _ASSIGN)
# _COMMAND_AFTER is matched at the end of an assignment's value (never a blank): the blanks after it are taken
# whole, from their first (searched from every blank of a long run, then backtracking through it, it was quadratic)
# Slurm's list, split on commas:  --export=ALL,NCCL_SOCKET_IFNAME=ib0 ray start ...   #SBATCH --export=ALL,NCCL_DEBUG=INFO,...
_SLURM_EXPORT = re.compile(r"--export[= ](?P<list>(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s`'\";|&])*NCCL_[A-Z0-9_]+=(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s`'\";|&])*)")
_SLURM_ITEM = re.compile(r"(?:^|,)(?P<name>NCCL_[A-Z0-9_]+)=(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^,]*)")
# echo NCCL_SOCKET_IFNAME=^docker0 >> /etc/nccl.conf      (aws/deep-learning-containers#4756, a Dockerfile's RUN step)
# echo "NCCL_DEBUG=INFO" | sudo tee -a /etc/nccl.conf     (CONSTRUCTED: the same file written through tee)
#   (echo right before the setting; after it, an append or write to NCCL's configuration file: /etc/nccl.conf, or
#   ~/.nccl.conf, $HOME/.nccl.conf)
_CONF_BEFORE = re.compile(r"\becho[ \t]+(?:-[neE][ \t]+)?[\"']?$")
_CONF_AFTER = re.compile(r"[\"']?[ \t]*(?:>>?|\|[ \t]*(?:sudo[ \t]+)?tee(?:[ \t]+-a)?)[ \t]*"
                         r"(?:/etc/nccl\.conf|(?:~|\$HOME|\$\{HOME\})/\.nccl\.conf)(?![\w.])")
# MPICH / Intel MPI / MVAPICH:  -genv NCCL_SOCKET_IFNAME "$NET_IF"    -genv NCCL_PXN_DISABLE=1    -genv NCCL_DEBUG INFO
_GENV = re.compile(r"(?:^|\s)-g?env\s+(?P<name>NCCL_[A-Z0-9_]+)(?:=|\s+)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s`'\";|&]*)")


def detect(text: str) -> bool:
    return any(_form(text, m) for m in _SET.finditer(text)) or any(_lists(text))


def _commented(text: str, at: int) -> bool:
    """Whether the line holding ``at`` is a comment (an ``#SBATCH`` directive is not)."""
    line = text[text.rfind("\n", 0, at) + 1:at].lstrip()
    return line.startswith("#") and not line.startswith("#SBATCH")


def _lists(text: str):
    """(match start, name, value, form) of the launchers' lists: Slurm's --export, MPI's -genv."""
    for m in _SLURM_EXPORT.finditer(text):
        if not _commented(text, m.start()):
            for item in _SLURM_ITEM.finditer(m["list"]):
                yield m.start(), item["name"], item["value"], "slurm_export"
    for m in _GENV.finditer(text):
        if not _commented(text, m.start()):
            yield m.start(), m["name"], m["value"], "mpi_genv"


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


#: characters of a line read on each side of a setting for an env prefix (a typed command's prefix is far shorter)
PREFIX_SPAN = 4096


def _form(text: str, m: re.Match[str]) -> str | None:
    start = text.rfind("\n", 0, m.start()) + 1
    before = text[start:m.start()]
    if before.lstrip().startswith("#"):  # a comment: "# FLAGS += -x NCCL_DEBUG=INFO", "# export NCCL_X=V"
        return None
    # the forms are read within PREFIX_SPAN characters of the setting on each side: further into a line, only
    # mpirun's "-x " right before it (a line of thousands of assignments made every setting rescan the whole
    # line: 21 s for 6,000 on one 120,000-character line)
    if len(before) > PREFIX_SPAN:
        return "mpirun_x" if _MPI_X_BEFORE.search(before, len(before) - 64) else None
    if _MPI_X_BEFORE.search(before):
        return "mpirun_x"
    if _EXPORT_BEFORE.search(before):
        return "export"
    end = text.find("\n", m.end())
    end = end if end >= 0 else len(text)
    if end - m.end() > PREFIX_SPAN:
        return None
    if _CONF_BEFORE.search(before) and _CONF_AFTER.match(text, m.end()):
        return "nccl_conf"
    if _PREFIX_BEFORE.search(before) and (_COMMAND_AFTER.match(text, m.end()) or _continued(text[m.end():end])):
        return "prefix"
    return None


def _continued(rest: str) -> bool:
    """The line's ``rest`` after a setting is more assignments only, then the shell's line continuation (``\\``)."""
    rest = rest.rstrip(" \t\r")
    return rest.endswith("\\") and _CONTINUED_REST.fullmatch(rest, 0, len(rest) - 1) is not None


def loopback_admitted(name: str, value: str) -> bool | None:
    """For NCCL_SOCKET_IFNAME, whether an exclusion list leaves ``lo`` eligible, as NCCL reads the list
    (src/os/linux.cc ncclOsFindInterfaces: a leading ``^`` excludes, then ``=`` makes every entry exact; src/misc/utils.cc
    parseStringList: entries split on ``,``, each ``prefix[:port]``, empty ones dropped; matchIf: an entry excludes ``lo`` when
    it is ``lo`` (exact) or a prefix of it). None: another variable, or not an exclusion list (a value of one character,
    ``^`` alone, NCCL ignores: strlen(env) > 1)."""
    if name != "NCCL_SOCKET_IFNAME" or len(value) < 2 or not value.startswith("^"):
        return None
    rest = value[1:]
    exact = rest.startswith("=")
    entries = [e.split(":", 1)[0] for e in (rest[1:] if exact else rest).split(",")]
    return not any(e and (e == "lo" if exact else "lo".startswith(e)) for e in entries)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    last = 0  # the line of the last setting read: a line of several settings is used once
    for n, m in iter_matches(_SET, artefact):
        form = _form(artefact.text, m)
        if form is not None:
            name, _, value = m[0].partition("=")
            value = _unquote(value)
            b.add(LauncherNcclEnv, n, name=name, value=value, form=form, loopback_admitted=loopback_admitted(name, value))
            result.lines_used += n != last
            last = n
    text = artefact.text
    for at, name, value, form in sorted(_lists(text), key=lambda s: s[0]):
        n = artefact.line_of(at)
        value = _unquote(value)
        b.add(LauncherNcclEnv, n, name=name, value=value, form=form, loopback_admitted=loopback_admitted(name, value))
        result.lines_used += n != last
        last = n
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"NCCL_[A-Z0-9_]+=", r"-g?env\s+NCCL_[A-Z0-9_]+")
