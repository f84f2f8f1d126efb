"""What Slurm says about its nodes and generic resources (GRES) when GPUs go missing from
scheduling: ``sinfo -R``, ``sinfo -lNe``, ``scontrol show node``, slurmctld's and slurmd's log
lines, and a job client's refusal of a GRES request.

Sample content (real: SlinkyProject/containers#14, aws-samples/aws-plugin-for-slurm#10,
elasticluster/elasticluster#272, SckyzO/slurm_exporter#198, mehta-lab/recOrder#482)::

    REASON               USER      TIMESTAMP           NODELIST
    gres/gpu count repor slurm     2026-04-14T06:39:53 slinky-0
    Low socket*core*thre root      2019-05-07T18:16:10 ip-10-0-1-[6-7]
    compute001      1     main*       down*   12   12:1:1  64267        0      1   (null) Not responding
    NodeName=gpu02 Arch=x86_64 CoresPerSocket=4
       State=DOWN+NOT_RESPONDING ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A
    srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification

The forms, from Slurm's source (SchedMD/slurm; the tags named are where a form begins):

- ``sinfo -R`` prints ``%20E %9u %19H %N`` (``-l``: ``%20E %12U %19H %6t %N``; src/sinfo/opts.c,
  14.03 to 26.x): the reason is cut at 20 columns, so only its prefix is there to read.
  ``sinfo -N -l`` ends its rows with the same 20-column REASON.
- ``scontrol show node``: ``NodeName=<n> ...``, ``State=<BASE>[+<FLAG>...]`` (DRAIN, FAIL,
  NOT_RESPONDING, INVALID_REG ...; older releases mark a silent node ``DOWN*``),
  ``Reason=<text> [<user>@<time>]``.
- the reason slurmctld records when slurmd registers fewer GRES than slurm.conf gives the node
  (src/interfaces/gres.c, earlier src/common/gres.c), ``%s`` being ``gres/<name>``:
  ``"%s count reported lower than configured (%"PRIu64" < %"PRIu64")"`` (20.02 on),
  ``"%s count too low (%"PRIu64" < %"PRIu64")"`` and ``"%s:%s count too low (...)"`` for a typed
  GRES (17.11 on); slurmctld logs ``error("Setting node %s state to INVAL with reason:%s")``
  (src/slurmctld/node_mgr.c, 23.02 on) and drains the node.
- the errno texts ``Invalid generic resource (gres) specification`` (ESLURM_INVALID_GRES) and
  ``Invalid GRES specification (with and without type identification)`` (ESLURM_INVALID_GRES_TYPE),
  src/common/slurm_errno.c, that sbatch, srun and salloc print when the controller refuses a request.
- slurmd's GPU autodetection (src/interfaces/gpu.c; src/common/gpu.c 19.05 to 22.05, where they
  were fatal): ``We were configured to autodetect nvml functionality, but we weren't able to find
  that lib when Slurm was configured.`` (Slurm built without NVML), ``We were configured with nvml
  functionality, but that lib wasn't found on the system.`` (libnvidia-ml not loadable), and the
  rsmi and oneAPI twins ``Configured with rsmi, but rsmi isn't enabled during the build.`` /
  ``Configured with rsmi, but that lib wasn't found.``
- slurmd's NVML autodetection of a GPU in MIG mode that has no MIG device (src/plugins/gpu/nvml/
  gpu_nvml.c, the same text since 21.08.1): ``MIG mode is enabled, but no MIG devices were found.
  Please either create MIG instances, disable MIG mode, remove AutoDetect=nvml, or remove GPUs
  from the configuration completely.``, a ``fatal()`` from 21.08.1 to 24.05 (slurmd stops) and an
  ``error()`` from 24.11 (slurmd registers the node without those GPUs), printed behind slurmd's
  ``slurmd: fatal: `` / ``slurmd: error: `` or its log file's ``[time] fatal: ``.

Facts (each citing its line):

- ``slurm_node_unavailable``: a node the scheduler holds out of service (drained, draining,
  down, failed, invalid registration): ``node_name``, ``state`` as printed, ``reason`` ("" when
  the paste shows none), ``reason_cut`` (a ``sinfo`` reason that fills its 20 columns).
- ``slurm_gres_count_low``: a reason saying slurmd registered fewer GRES than configured:
  ``node_name``, ``gres`` ("gpu"), ``gres_type`` ("" untyped), ``found`` and ``configured`` (-1
  where sinfo cut them off), ``reason`` as read.
- ``slurm_gres_request_invalid``: a client's or the controller's GRES refusal: ``client``
  ("sbatch", "srun", "salloc", "" when no client names it), ``message``.
- ``slurm_gpu_autodetect_unavailable``: slurmd cannot autodetect GPUs: ``library`` ("nvml",
  "rsmi", "oneapi"), ``not_built`` (Slurm was built without it; else the library is missing),
  ``why`` (the same in words).
- ``slurm_mig_without_instances``: slurmd found a GPU in MIG mode without MIG devices:
  ``stopped`` (the line says ``fatal``: slurmd exited; else it went on without those GPUs).

Nodes that are up (``idle``, ``mixed``, ``State=IDLE``) give no fact. A ``sinfo`` table row is
read only under its header (a bare row is too like other tables), except one whose reason is a
GRES count. A ``sinfo`` NODELIST stays as printed (``ip-10-0-1-[6-7]``): one fact per row.
Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    SlurmGpuAutodetectUnavailable, SlurmGresCountLow, SlurmGresRequestInvalid, SlurmMigWithoutInstances,
    SlurmNodeUnavailable,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "slurm_scheduler"

# REASON               USER      TIMESTAMP           NODELIST      (SlinkyProject/containers#14)
# (sinfo -R -l: "%20E %12U %19H %6t %N", a STATE column before NODELIST: src/sinfo/opts.c)
_R_HEADER = re.compile(r"^\s*REASON\s+USER\s+TIMESTAMP\s+(?:STATE\s+)?NODELIST\s*$", re.M)
# gres/gpu count repor slurm     2026-04-14T06:39:53 slinky-0
# Low socket*core*thre root      2019-05-07T18:16:10 ip-10-0-1-[6-7]   (aws-samples/aws-plugin-for-slurm#10)
# (the reason bounded: a lazy run tried against each later split is quadratic on a 100 kB line,
# fixtures/fuzz/nvidia_smi_q_long_lines.txt; sinfo prints 20 columns of it, -o more)
_R_ROW = re.compile(
    r"^\s*(?P<reason>\S[^\n]{0,300}?)\s+(?P<user>[\w.$-]{1,32}(?:\(\d{1,10}\))?)\s+"
    r"(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|Unknown|None)\s+(?:(?P<state>[a-z]{2,12}[*~#!%$@^+-]{0,3})\s+)?"
    r"(?P<nodes>[\w.\[\],-]{1,256})\s*$")
# NODELIST    NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT FEATURES REASON
_N_HEADER = re.compile(r"^\s*NODELIST\s+NODES\s+PARTITION\s+STATE\s+CPUS\s+S:C:T\s+MEMORY\s+TMP_DISK\s+WEIGHT\s+\S+\s+REASON\s*$", re.M)
# compute001      1     main*       down*   12   12:1:1  64267        0      1   (null) Not responding   (elasticluster#272)
_N_ROW = re.compile(
    r"^\s*(?P<nodes>[\w.\[\],-]{1,256})\s+\d+\s+\S+\s+(?P<state>[a-z]{2,12}[*~#!%$@^+-]{0,3})\s+\d+\s+"
    r"[\d*]+:[\d*]+:[\d*]+\s+\d+\s+\d+\s+\d+\s+\S+\s+(?P<reason>\S[^\n]*?)\s*$")
#    NodeName=gpu02 Arch=x86_64 CoresPerSocket=4
_NODENAME = re.compile(r"^\s*NodeName=(?P<name>[\w.-]{1,128})(?:\s|$)")
#    State=DOWN+NOT_RESPONDING ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A   (SckyzO/slurm_exporter#198)
# State=IDLE+DRAIN+DYNAMIC_NORM+INVALID_REG      (SlinkyProject/containers#14)
_STATE = re.compile(r"^\s*State=(?P<state>[A-Z][A-Z_]{1,24}[*~#!%$@^-]?(?:\+[A-Z][A-Z_]{1,24})*)(?:\s|$)")
# Reason=<text> [<user>@<time>]   (src/api/node_info.c: "Reason=" the reason, then " [%s@%s]" user and time)
_REASON = re.compile(r"^\s*Reason=(?P<reason>[^\n]*?)(?:\s+\[[\w.$-]{1,64}@[\dT:-]{8,24}\])?\s*$")
# error: Setting node <name> state to INVAL with reason:<reason>   (src/slurmctld/node_mgr.c: "Setting node %s state to INVAL with reason:%s")
_INVAL = re.compile(r"\bSetting node (?P<name>[\w.-]{1,128}) state to (?P<state>INVAL|DRAIN|DOWN) with reason:(?P<reason>[^\n]*?)\s*$")
# gres/gpu count repor        (SlinkyProject/containers#14, sinfo -R's 20 columns)
# "%s count reported lower than configured (%"PRIu64" < %"PRIu64")"   "%s count too low (...)"   "%s:%s count too low (...)"
#   (src/interfaces/gres.c, %s = "gres/gpu"; the second %s a GRES type)
_GRES_COUNT = re.compile(r"gres/(?P<name>[\w-]{1,32})(?::(?P<type>[^\s(]{1,64}))? count (?P<rest>[^\n]*)$")
_COUNT_WORDS = ("reported lower than configured (", "too low (")
_COUNTS = re.compile(r"\((?P<found>\d{1,9}) < (?P<cfg>\d{1,9})\)")
# srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification   (mehta-lab/recOrder#482)
# OSError: sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification   (NeMo-Framework-Launcher#72)
_REQUEST = re.compile(r"Invalid (?:generic resource \(gres\)|GRES) specification(?: \(with and without type identification\))?")
_CLIENT = re.compile(r"\b(?P<client>sbatch|srun|salloc): (?:error|fatal): ")
# Error "fatal: We were configured to autodetect nvml functionality, but we weren't able to find that lib when Slurm was configured"
#   (NVIDIA/deepops#1214's title; src/interfaces/gpu.c _get_gpu_type() ends it with a dot, as the others:)
# "We were configured with nvml functionality, but that lib wasn't found on the system."
# "Configured with rsmi, but rsmi isn't enabled during the build."    "Configured with oneAPI, but that lib wasn't found. %s"
_AUTODETECT = re.compile(
    r"\b(?:We were configured to autodetect (?P<nb_nvml>nvml) functionality, but we weren't able to find that lib when Slurm was configured"
    r"|We were configured with (?P<nf_nvml>nvml) functionality, but that lib wasn't found"
    r"|Configured with (?P<lib>rsmi|oneAPI), but (?:(?P<nb>\w+) isn't enabled during the build|that lib wasn't found))")

# slurmd: fatal: MIG mode is enabled, but no MIG devices were found. Please either create MIG instances, disable MIG
#   mode, remove AutoDetect=nvml, or remove GPUs from ...            (ComputeCanada/puppet-magic_castle#276, cut by the commenter)
# error: MIG mode is enabled, but no MIG devices were found. ...     (24.11+: error(), same text)
_MIG_NONE = re.compile(r"(?:\b(?P<level>fatal|error): )?MIG mode is enabled, but no MIG devices were found\b")

_UNAVAILABLE = {"DOWN", "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING", "INVALID_REG", "INVAL",
                "NOT_RESPONDING", "ERROR"}
# sinfo's compact and long state names of a node out of service (the state suffixes stripped)
_UNAVAILABLE_SINFO = {"down", "drain", "drained", "draining", "drng", "fail", "failg", "failing", "inval", "err", "error"}
_SINFO_REASON_WIDTH = 20
#: the state of a ``sinfo -R`` row without a STATE column: sinfo -R lists only these
_SINFO_R_STATES = "down, drain or fail"


def _gres_count(reason: str, cut: bool) -> dict | None:
    """The fields of a GRES-count reason, whole or (``cut``) as the prefix sinfo left of it."""
    m = _GRES_COUNT.match(reason)
    if m is None:
        return None
    rest = m["rest"]
    counts = _COUNTS.search(rest)
    whole = any(rest.startswith(w) for w in _COUNT_WORDS) and counts is not None
    if not whole and not (cut and any(w.startswith(rest) for w in _COUNT_WORDS)):
        return None  # another GRES reason ("count changed and jobs are using them", a type not configured)
    return dict(gres=m["name"], gres_type=m["type"] or "", found=int(counts["found"]) if whole else -1,
                configured=int(counts["cfg"]) if whole else -1, reason=reason)


def _node(b: FactBuilder, no: int, name: str | None, state: str, reason: str, cut: bool = False) -> None:
    node = b.artefact.node_for(name)
    b.add(SlurmNodeUnavailable, no, node=node, node_name=name or node, state=state, reason=reason, reason_cut=cut)
    if (g := _gres_count(reason, cut)) is not None:
        b.add(SlurmGresCountLow, no, node=node, node_name=name or node, **g)


def _sinfo_state_down(state: str | None) -> bool:
    return state is None or state.rstrip("*~#!%$@^+-") in _UNAVAILABLE_SINFO


def _scontrol_block(b: FactBuilder, block: dict) -> None:
    state, reason, name = block.get("state"), block.get("reason"), block.get("name")
    if state is None:  # a pasted Reason= line alone: slurmctld records one only for a node it holds out
        if reason and (g := _gres_count(reason[1], False)) is not None:
            node = b.artefact.node_for(name)
            b.add(SlurmGresCountLow, reason[0], node=node, node_name=name or node, **g)
        return
    sno, sval = state
    if not _UNAVAILABLE & set(sval.rstrip("*~#!%$@^-").split("+")) and not sval.endswith("*"):
        return
    node = b.artefact.node_for(name)
    b.add(SlurmNodeUnavailable, sno, node=node, node_name=name or node, state=sval, reason=reason[1] if reason else "")
    if reason and (g := _gres_count(reason[1], False)) is not None:
        b.add(SlurmGresCountLow, reason[0], node=node, node_name=name or node, **g)


def detect(head: str) -> bool:
    return any(p.search(head) for p in _DETECT)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    r_table = _R_HEADER.search(text) is not None
    n_table = _N_HEADER.search(text) is not None
    block: dict = {}
    for no, line in enumerate(artefact.lines, 1):
        if _R_HEADER.match(line) or _N_HEADER.match(line):
            result.lines_used += 1
            continue
        if not line.strip():
            _scontrol_block(b, block)
            block = {}
            continue
        if (m := _NODENAME.match(line)) is not None:
            _scontrol_block(b, block)
            block = {"name": m["name"]}
            result.lines_used += 1
        elif (m := _STATE.match(line)) is not None:
            block["state"] = (no, m["state"])
            result.lines_used += 1
        elif (m := _REASON.match(line)) is not None:
            block["reason"] = (no, m["reason"])
            result.lines_used += 1
        elif (m := _R_ROW.match(line)) is not None and (r_table or m["reason"].startswith("gres/")):
            result.lines_used += 1
            if _sinfo_state_down(m["state"]):
                reason = m["reason"]
                _node(b, no, m["nodes"], m["state"] or _SINFO_R_STATES, reason, cut=len(reason) >= _SINFO_REASON_WIDTH)
        elif n_table and (m := _N_ROW.match(line)) is not None:
            result.lines_used += 1
            if _sinfo_state_down(m["state"]):
                reason = "" if m["reason"] == "none" else m["reason"]
                _node(b, no, m["nodes"], m["state"], reason, cut=len(reason) >= _SINFO_REASON_WIDTH)
        elif (m := _INVAL.search(line)) is not None:
            result.lines_used += 1
            _node(b, no, m["name"], m["state"], m["reason"])
        elif (m := _REQUEST.search(line)) is not None:
            result.lines_used += 1
            c = _CLIENT.search(line, 0, m.start())
            msg = line[c.end() if c else 0:m.end()].strip()
            b.add(SlurmGresRequestInvalid, no, client=c["client"] if c else "", message=msg[-300:])
        elif (m := _AUTODETECT.search(line)) is not None:
            result.lines_used += 1
            lib = (m["nb_nvml"] or m["nf_nvml"] or m["lib"]).lower()
            not_built = bool(m["nb_nvml"] or m["nb"])
            b.add(SlurmGpuAutodetectUnavailable, no, library=lib, not_built=not_built,
                  why="this Slurm was built without it" if not_built else "its library cannot be loaded on the node")
        elif (m := _MIG_NONE.search(line)) is not None:
            result.lines_used += 1
            b.add(SlurmMigWithoutInstances, no, stopped=m["level"] == "fatal")
    _scontrol_block(b, block)
    return result


# State=IDLE+DRAIN+DYNAMIC_NORM+INVALID_REG     (a pasted scontrol block, NodeName line or not)
_SIGNATURE_STATE = re.compile(r"^\s*State=(?:IDLE|ALLOCATED|ALLOC|MIXED|DOWN|ERROR|FUTURE|UNKNOWN|COMPLETING)\b", re.M)
# gres/gpu count repor       (and the whole reasons of _GRES_COUNT above)
_SIGNATURE_GRES = re.compile(r"gres/[\w-]{1,32}(?::[^\s(]{1,64})? count (?:r|t)")

_DETECT = (_R_HEADER, _N_HEADER, _SIGNATURE_STATE, _SIGNATURE_GRES, _REQUEST, _AUTODETECT, _INVAL, _MIG_NONE)

#: line signatures (facts/classify.py)
SIGNATURES = (_R_HEADER, _N_HEADER, _SIGNATURE_STATE, _SIGNATURE_GRES,
              r"Invalid (?:generic resource \(gres\)|GRES) specification",
              r"configured (?:to autodetect|with) nvml functionality", r"Configured with (?:rsmi|oneAPI), but ",
              r"state to (?:INVAL|DRAIN|DOWN) with reason:", r"MIG mode is enabled, but no MIG devices were found")
