"""What Slurm says about its nodes and generic resources (GRES) when GPUs go missing from
scheduling: ``sinfo -R``, ``sinfo -lNe``, ``scontrol show node``, slurmctld's and slurmd's log
lines, and a job client's refusal of a GRES request.

Sample content (real: SlinkyProject/containers#14, aws-samples/aws-plugin-for-slurm#10,
elasticluster/elasticluster#272, SckyzO/slurm_exporter#198, mehta-lab/recOrder#482,
clustervision/trinity#506, Azure/az-hop#686)::

    REASON               USER      TIMESTAMP           NODELIST
    gres/gpu count repor slurm     2026-04-14T06:39:53 slinky-0
    Low socket*core*thre root      2019-05-07T18:16:10 ip-10-0-1-[6-7]
    compute001      1     main*       down*   12   12:1:1  64267        0      1   (null) Not responding
    NodeName=gpu02 Arch=x86_64 CoresPerSocket=4
       State=DOWN+NOT_RESPONDING ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A
    srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification
    [2015-11-10T12:32:02.284] error: Nodes c001 not responding, setting DOWN
    [2021-12-14T09:52:21.414] debug:  Node hb120v2-2 has low real_memory size (435161 < 443596)
    [2021-12-14T09:52:21.414] error: _slurm_rpc_node_registration node=hb120v2-2: Invalid argument

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
- slurmctld's log of a node it takes out: ``error: Nodes <hostlist> not responding, setting DOWN``
  (src/slurmctld/ping_nodes.c; the reason it records is ``Not responding``; a bare ``Nodes ... not
  responding`` is a missed ping, and ``Node <n> now responding`` its recovery: read, no fact);
  ``Setting node %s state to DRAIN`` (17.11) / ``DOWN`` without a reason; a refused registration
  ``_slurm_rpc_node_registration node=%s: %s`` (src/slurmctld/proc_req.c, the errno text; state
  INVAL) after ``Node %s has low real_memory size (F < C)`` (or ``(F / C) < P%``), ``low
  socket*core*thread count``, ``low socket*core count``, ``low cpu count``, ``low tmp_disk size``
  (node_mgr.c; error() to 17.11, debug() since), whose recorded reason (``Low RealMemory``, ...) and
  figures become the fact's reason. One fact a node: its other lines are that fact's echo.
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
- ``slurm_mpi_type_unavailable``: srun (or slurmstepd) has no plugin for the step's MPI type
  (``--mpi=pmix`` on a Slurm built without PMIx): ``client``, ``mpi_type``, ``message``; one per
  type, the other lines of the same refusal (the plugin loader's, "MPI: Unable to load any plugin",
  the option check's) read with it.
- ``slurm_task_launch_failed``: a node's slurmd refused the step's launch (``srun: error: Task launch
  for <step> failed on node <host>: <errno text>``): ``host``, ``step``, ``reason``, ``prolog`` (the
  text is ``Job prolog failed``: the node's Prolog exited non-zero, and slurmctld drains the node with
  reason ``Prolog error``); srun's ``Application launch failed: ...``, ``Job step aborted: Waiting up
  to N seconds ...`` and ``Timed out waiting for job step to complete`` after it are its echo.
- ``slurm_gpu_autodetect_unavailable``: slurmd cannot autodetect GPUs: ``library`` ("nvml",
  "rsmi", "oneapi"), ``not_built`` (Slurm was built without it; else the library is missing),
  ``why`` (the same in words).
- ``slurm_mig_without_instances``: slurmd found a GPU in MIG mode without MIG devices:
  ``stopped`` (the line says ``fatal``: slurmd exited; else it went on without those GPUs).

Plain ``sinfo`` (its default ``PARTITION AVAIL TIMELIMIT NODES STATE NODELIST``) is read under its header: a row
whose state is out of service (``down#``, ``down~``, ``drain``, ``drng``, ``fail``) gives the fact for its node list,
with no reason (that table has none); ``idle~`` (powered down), ``maint``, ``alloc`` and ``mix`` give none.
Nodes that are up (``idle``, ``mixed``, ``State=IDLE``) give no fact. A ``sinfo`` table row is
read only under its header (a bare row is too like other tables), except one whose reason is a
GRES count. A ``sinfo`` NODELIST stays as printed (``ip-10-0-1-[6-7]``): one fact per row.
Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    SlurmGpuAutodetectUnavailable, SlurmGresAllocated, SlurmGresCountLow, SlurmGresRequestInvalid, SlurmMigWithoutInstances,
    SlurmRequestUnsatisfiable,
    SlurmMpiTypeUnavailable, SlurmNodeUnavailable, SlurmTaskLaunchFailed,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "slurm_scheduler"

# REASON               USER      TIMESTAMP           NODELIST      (SlinkyProject/containers#14)
# (sinfo -R -l: "%20E %12U %19H %6t %N", a STATE column before NODELIST: src/sinfo/opts.c)
_R_HEADER = re.compile(r"^\s*REASON\s+USER\s+TIMESTAMP\s+(?:STATE\s+)?NODELIST\s*$", re.M)
# gres/gpu count repor slurm     2026-04-14T06:39:53 slinky-0
# Low socket*core*thre root      2019-05-07T18:16:10 ip-10-0-1-[6-7]   (aws-samples/aws-plugin-for-slurm#10)
# (the reason bounded: a lazy run tried against each later split is quadratic on a 100 kB line,
# fixtures/fuzz/nvidia_smi_q_long_lines.txt; sinfo prints 20 columns of it, -o more; it ends on a non-blank, as
# the shortest did, and the blanks between columns are taken whole: a run of blanks after the reason was scanned
# once per step of the reason into it, 0.9 s CPU on bench/redos.py's 120,000-character line -> 1 ms)
_R_ROW = re.compile(
    r"^\s*(?P<reason>\S(?:[^\n]{0,299}?\S)?)\s++(?P<user>[\w.$-]{1,32}(?:\(\d{1,10}\))?)\s++"
    r"(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|Unknown|None)\s++(?:(?P<state>[a-z]{2,12}[*~#!%$@^+-]{0,3})\s++)?"
    r"(?P<nodes>[\w.\[\],-]{1,256})\s*$")
# NODELIST    NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT FEATURES REASON
_N_HEADER = re.compile(r"^\s*NODELIST\s+NODES\s+PARTITION\s+STATE\s+CPUS\s+S:C:T\s+MEMORY\s+TMP_DISK\s+WEIGHT\s+\S+\s+REASON\s*$", re.M)
# compute001      1     main*       down*   12   12:1:1  64267        0      1   (null) Not responding   (elasticluster#272)
# (the reason greedy to its last non-blank (\S(?:[^\n]*\S)?, as the shortest did) and the blanks between columns
#  possessive: lazily, a run of blanks in the reason was scanned to its end once per step into it, 53 s at 120,000)
_N_ROW = re.compile(
    r"^\s*+(?P<nodes>[\w.\[\],-]{1,256})\s++\d+\s++\S+\s++(?P<state>[a-z]{2,12}[*~#!%$@^+-]{0,3})\s++\d+\s++"
    r"[\d*]+:[\d*]+:[\d*]+\s++\d+\s++\d+\s++\d+\s++\S+\s++(?P<reason>\S(?:[^\n]*\S)?)\s*$")
# PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST          (plain sinfo: src/sinfo/opts.c's default "%9P %.5a %.10l %.6D %.6t %N")
_P_HEADER = re.compile(r"^\s*PARTITION\s+AVAIL\s+TIMELIMIT\s+NODES\s+STATE\s+NODELIST\s*$", re.M)
# queue1*      up   infinite      1  down# queue1-dy-c-1-1          (aws/aws-parallelcluster-node#398: a cloud node powering up
# queue1*      up   infinite  14  down~ queue1-dy-c-1-[2-15]         after EC2 refused its instance, the rest powered down DOWN)
#   one row per partition and state: the nodes of a state out of service are held out, with no reason (sinfo -R gives it)
_P_ROW = re.compile(r"^\s*+[\w.-]{1,64}\*?\s++(?:up|down|drain|inact)\s++\S{1,24}\s++\d{1,7}\s++"
                    r"(?P<state>[a-z]{2,12}[*~#!%$@^+-]{0,3})\s++(?P<nodes>[\w.\[\],-]{1,256})\s*$")
#    NodeName=gpu02 Arch=x86_64 CoresPerSocket=4
_NODENAME = re.compile(r"^\s*NodeName=(?P<name>[\w.-]{1,128})(?:\s|$)")
#    State=DOWN+NOT_RESPONDING ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A   (SckyzO/slurm_exporter#198)
# State=IDLE+DRAIN+DYNAMIC_NORM+INVALID_REG      (SlinkyProject/containers#14)
_STATE = re.compile(r"^\s*State=(?P<state>[A-Z][A-Z_]{1,24}[*~#!%$@^-]?(?:\+[A-Z][A-Z_]{1,24})*)(?:\s|$)")
# Reason=<text> [<user>@<time>]   (src/api/node_info.c: "Reason=" the reason, then " [%s@%s]" user and time)
_REASON = re.compile(r"^\s*Reason=(?P<reason>[^\n]*?)(?:\s+\[[\w.$-]{1,64}@[\dT:-]{8,24}\])?\s*$")
# error: Setting node <name> state to INVAL with reason:<reason>   (src/slurmctld/node_mgr.c: "Setting node %s state to INVAL with reason:%s";
#   20.11 "... to DRAIN with reason:%s"; 17.11 "Setting node %s state to DRAIN" and every release's "Setting node %s state to DOWN" name none)
_INVAL = re.compile(r"\bSetting node (?P<name>[\w.-]{1,128}) state to (?P<state>INVAL|DRAIN|DOWN)(?: with reason:(?P<reason>[^\n]*?))?\s*$")
# [2015-11-10T12:32:02.284] error: Nodes c001 not responding, setting DOWN      (clustervision/trinity#506)
# [2015-11-10T12:20:19.846] error: Nodes c002 not responding                   (a missed ping: set DOWN only after SlurmdTimeout)
#   (src/slurmctld/ping_nodes.c: error("Nodes %s not responding, setting DOWN", host_str), then the reason "Not responding";
#    node_mgr.c node_not_resp_log(): error("Nodes %s not responding", host_str); 2.x to 26.x, a ranged hostlist)
_NOT_RESPONDING = re.compile(r"\berror: Nodes (?P<nodes>[\w.\[\],-]{1,256}) not responding(?P<down>, setting DOWN)?\s*$")
# [2015-11-10T12:20:22.953] Node c002 now responding      (node_mgr.c: info("Node %s now responding", node_ptr->name))
_NOW_RESPONDING = re.compile(r"\bNode [\w.-]{1,128} now responding\s*$")
# [2021-12-14T09:52:21.414] debug:  Node hb120v2-2 has low real_memory size (435161 < 443596)      (Azure/az-hop#686)
#   (node_mgr.c validate_node_specs(): "Node %s has low real_memory size (%"PRIu64" < %"PRIu64")", 25.x "(%"PRIu64" / %"PRIu64") < %.2f%%";
#    "low socket*core*thread count (%d < %d)", 17.11 "low socket*core count (%d < %d)", "low cpu count (%u < %u)",
#    "low tmp_disk size (%u < %u)": error() up to 17.11 with FastSchedule=1, debug() since; each adds the reason below and drains)
_LOW = re.compile(r"\b(?P<level>error|debug): +Node (?P<name>[\w.-]{1,128}) has low (?P<what>real_memory size|socket\*core\*thread count"
                  r"|socket\*core count|cpu count|tmp_disk size) (?P<figures>\((?:\d{1,20} [<] \d{1,20}|\d{1,20} / \d{1,20})\)(?: < [\d.]{1,8}%)?)")
#: the reason slurmctld records for each (xstrcat(reason_down, ...) beside each message)
_LOW_REASON = {"real_memory size": "Low RealMemory", "socket*core*thread count": "Low socket*core*thread count",
               "socket*core count": "Low socket*core count", "cpu count": "Low CPUs", "tmp_disk size": "Low TmpDisk"}
# [2021-12-14T09:52:21.414] error: _slurm_rpc_node_registration node=hb120v2-2: Invalid argument      (Azure/az-hop#686)
#   (src/slurmctld/proc_req.c: error("_slurm_rpc_node_registration node=%s: %s", ..., slurm_strerror(error_code)); later
#    error("%s node=%s: %s", __func__, ...): the registration refused, the node INVAL and drained)
_REGISTRATION = re.compile(r"\b_slurm_rpc_node_registration node=(?P<name>[\w.-]{1,128}): (?P<error>[^\n]{1,200}?)\s*$")
# gres/gpu count repor        (SlinkyProject/containers#14, sinfo -R's 20 columns)
# "%s count reported lower than configured (%"PRIu64" < %"PRIu64")"   "%s count too low (...)"   "%s:%s count too low (...)"
#   (src/interfaces/gres.c, %s = "gres/gpu"; the second %s a GRES type)
_GRES_COUNT = re.compile(r"gres/(?P<name>[\w-]{1,32})(?::(?P<type>[^\s(]{1,64}))? count (?P<rest>[^\n]*)$")
_COUNT_WORDS = ("reported lower than configured (", "too low (")
_COUNTS = re.compile(r"\((?P<found>\d{1,9}) < (?P<cfg>\d{1,9})\)")
# srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification   (mehta-lab/recOrder#482)
# OSError: sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification   (NeMo-Framework-Launcher#72)
_REQUEST = re.compile(r"Invalid (?:generic resource \(gres\)|GRES) specification(?: \(with and without type identification\))?")
# ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE (src/common/slurm_errno.c) behind each client's prefix:
# srun: error: Unable to allocate resources: Requested node configuration is not available   (rcgsheffield/sheffield_hpc#1042)
# sbatch: error: Batch job submission failed: Requested node configuration is not available  (src/sbatch/sbatch.c "Batch job submission failed: %s")
# salloc: error: Job submit/allocate failed: Requested node configuration is not available   (src/salloc/salloc.c "Job submit/allocate failed: %s")
# srun: error: Unable to create step for job 1234: Requested node configuration is not available (src/srun step_ctx; older "Unable to create job step: %s")
_NODE_CONFIG = re.compile(r"Requested node configuration is not available")
# the command line beside it, the GPU options of its request (sheffield_hpc#1042):
# xxxt@bessemer-login1 ~]$ srun --nodes=1 --gpus-per-node=1 --pty bash
# #SBATCH --gres=gpu:4          (and --gpus=N, --gpus-per-task=N, -G N)
_SUBMIT = re.compile(r"(?:^\s*#SBATCH\b|\b(?:srun|sbatch|salloc)\s+-)")
_GPU_OPTION = re.compile(r"(?<![\w-])(?:--gpus(?:-per-(?:node|task|socket))?[= ]\S{1,64}|--gres[= ]\S{0,64}?\bgpu\S{0,64}|-G ?\d{1,6})")
_CLIENT = re.compile(r"\b(?P<client>sbatch|srun|salloc): (?:error|fatal): ")
# a step's --mpi=<type> (or MpiDefault) that this Slurm has no plugin for, in every release's words:
# srun: error: Couldn't find the specified plugin name for mpi/pmix looking at all files   (geoschem/geos-chem#822; src/common/plugin.c)
# srun: error: cannot find mpi plugin for mpi/pmix                                         (src/common/slurm_mpi.c, to 21.08)
# srun: error: cannot create mpi context for mpi/pmix                                      (plugin.c plugin_context_create, to 21.08)
# srun: error: MPI: Cannot create context for mpi/pmix_v3                                  (slurm_mpi.c _load_plugin, 22.05 on)
# srun: error: "--mpi=pmix" -- long invalid MPI type, --mpi=list for acceptable types.     (srun's option check, to 21.08)
# srun: error: Invalid MPI type 'pmix_v3', --mpi=list for acceptable types                 (22.05 on)
_MPI_TYPE = re.compile(r"Couldn't find the specified plugin name for mpi/(?P<a>[\w.-]{1,32}) looking at all files"
                       r"|\bcannot find mpi plugin for mpi/(?P<b>[\w.-]{1,32})|\bcannot create mpi context for mpi/(?P<c>[\w.-]{1,32})"
                       r"|\bMPI: Cannot create context for mpi/(?P<d>[\w.-]{1,32})"
                       r"|\"--mpi=(?P<e>[\w.-]{1,32})\" -- long invalid MPI type|\b[Ii]nvalid MPI type '(?P<f>[\w.-]{1,32})'")
# srun: error: MPI: Unable to load any plugin        (slurm_mpi.c 22.05 on, after the lines above)
_MPI_NONE = re.compile(r"\bMPI: Unable to load any plugin\b")
# srun's refusal by a node's slurmd to launch the step's tasks (src/srun/launch's _launch_tasks: "Task launch for %ps
# failed on node %s: %m", "%u.%u" before 20.02), with Slurm's errno text (src/common/slurm_errno.c: ESLURMD_PROLOG_FAILED
# "Job prolog failed", the node's Prolog exiting non-zero: slurmctld drains the node with reason "Prolog error"):
# srun: error: Task launch for 23.0 failed on node hpc: Job prolog failed       (mknoxnv/ubuntu-slurm#4)
_LAUNCH = re.compile(r"\bsrun: error: Task launch for (?P<step>\S{1,80}) failed on node (?P<host>[\w.-]{1,128}): "
                     r"(?P<why>\S[^\n]{0,200}?)[^\S\n]*$", re.M)
_PROLOG = "Job prolog failed"
# srun's echoes of that refusal: the launch as a whole, and the step it then ends
# srun: error: Application launch failed: Job prolog failed
# srun: Job step aborted: Waiting up to 32 seconds for job step to finish.
# srun: error: Timed out waiting for job step to complete
_LAUNCH_ECHO = re.compile(r"\bsrun: (?:error: Application launch failed: |Job step aborted: Waiting up to \d{1,6} seconds"
                          r"|error: Timed out waiting for job step to complete)")
_STEPD = re.compile(r"\b(?P<client>srun|salloc|slurmstepd)(?:-[\w.-]{1,64})?: (?:error|fatal): ")
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


class _CtldLog:
    """slurmctld's log lines about one node: one fact for the node however many lines say it
    (a low-resource line, "Setting node ... state to ...", the refused registration: the rest are
    that fact's echo); a low-resource line gives the reason when the later line gives none."""

    def __init__(self, b: FactBuilder):
        self.b = b
        self.low: dict[str, tuple[int, str, bool]] = {}  # node -> (line, reason, error level)
        self.reported: set[str] = set()

    def node(self, no: int, name: str, state: str, reason: str | None) -> None:
        low = self.low.pop(name, None)
        if name in self.reported:
            return
        self.reported.add(name)
        if not reason or reason == "Invalid argument":  # EINVAL: the low-resource line says which
            reason = low[1] if low else (reason or "")
        _node(self.b, no, name, state, reason)

    def finish(self) -> None:
        # an error-level low-resource line (up to 17.11, FastSchedule=1) always drained the node; a
        # debug one did only where a refused registration follows (17.11's FastSchedule=0 did not)
        for name, (no, reason, error) in self.low.items():
            if error and name not in self.reported:
                _node(self.b, no, name, "INVAL", reason)


def _gpu_options(lines: list[str]) -> str:
    """The GPU options of every sbatch/srun/salloc command line and #SBATCH line of the file, "" for none."""
    found: list[str] = []
    for line in lines:
        if ("srun" in line or "sbatch" in line or "salloc" in line or "#SBATCH" in line) and _SUBMIT.search(line):
            found += [o for o in _GPU_OPTION.findall(line) if o not in found]
    return " ".join(found)[:200]


def detect(head: str) -> bool:
    return any(p.search(head) for p in _DETECT) or any(key in head and p.search(head) for key, p in _DETECT_GATED)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    r_table = _R_HEADER.search(text) is not None
    n_table = _N_HEADER.search(text) is not None
    p_table = _P_HEADER.search(text) is not None
    block: dict = {}
    log = _CtldLog(b)
    mpi_types: set[str] = set()
    launched = False  # a step's launch refused on a node: srun's echoes of it are read with it
    gres_of: dict[str, tuple[str, str | None]] = {}  # step -> (GRES, type) of its gres_job_state dump
    gpu_options: str | None = None  # the GPU options of the file's submit lines, read at the first refusal
    for no, line in enumerate(artefact.lines, 1):
        if _R_HEADER.match(line) or _N_HEADER.match(line) or (p_table and _P_HEADER.match(line)):
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
        elif p_table and (m := _P_ROW.match(line)) is not None:
            result.lines_used += 1
            if _sinfo_state_down(m["state"]):
                _node(b, no, m["nodes"], m["state"], "")
        elif (m := _INVAL.search(line)) is not None:
            result.lines_used += 1
            log.node(no, m["name"], m["state"], m["reason"])
        elif (m := _NOT_RESPONDING.search(line)) is not None:
            result.lines_used += 1
            if m["down"]:
                log.node(no, m["nodes"], "DOWN", "Not responding")
        elif _NOW_RESPONDING.search(line) is not None:
            result.lines_used += 1
        elif (m := _LOW.search(line)) is not None:
            result.lines_used += 1
            log.low[m["name"]] = (no, f"{_LOW_REASON[m['what']]} {m['figures']}", m["level"] == "error")
        elif (m := _REGISTRATION.search(line)) is not None:
            result.lines_used += 1
            log.node(no, m["name"], "INVAL", m["error"])
        elif (m := _REQUEST.search(line)) is not None:
            result.lines_used += 1
            c = _CLIENT.search(line, 0, m.start())
            msg = line[c.end() if c else 0:m.end()].strip()
            b.add(SlurmGresRequestInvalid, no, client=c["client"] if c else "", message=msg[-300:])
        elif (m := _NODE_CONFIG.search(line)) is not None:
            result.lines_used += 1
            c = _CLIENT.search(line, 0, m.start())
            msg = line[c.end() if c else 0:m.end()].strip()
            if gpu_options is None:
                gpu_options = _gpu_options(artefact.lines)
            b.add(SlurmRequestUnsatisfiable, no, client=c["client"] if c else "", message=msg[-300:],
                  gpu_options=gpu_options or None)
        elif "Task launch for " in line and (m := _LAUNCH.search(line)) is not None:
            result.lines_used += 1
            launched = True
            b.add(SlurmTaskLaunchFailed, no, node=artefact.node_for(m["host"]), host=m["host"], step=m["step"],
                  reason=m["why"], prolog=m["why"].startswith(_PROLOG))
        elif launched and _LAUNCH_ECHO.search(line) is not None:
            result.lines_used += 1
        elif (m := _MPI_TYPE.search(line)) is not None:
            result.lines_used += 1
            mpi = next(g for g in m.groups() if g)
            if mpi not in mpi_types:  # the same refusal's further lines: read
                mpi_types.add(mpi)
                c = _STEPD.search(line, 0, m.start())
                b.add(SlurmMpiTypeUnavailable, no, client=c["client"] if c else "", mpi_type=mpi,
                      message=line[c.end() if c else 0:].strip()[:300])
        elif mpi_types and _MPI_NONE.search(line) is not None:
            result.lines_used += 1
        elif (m := _AUTODETECT.search(line)) is not None:
            result.lines_used += 1
            lib = (m["nb_nvml"] or m["nf_nvml"] or m["lib"]).lower()
            not_built = bool(m["nb_nvml"] or m["nb"])
            b.add(SlurmGpuAutodetectUnavailable, no, library=lib, not_built=not_built,
                  why="this Slurm was built without it" if not_built else "its library cannot be loaded on the node")
        elif (m := _MIG_NONE.search(line)) is not None:
            result.lines_used += 1
            b.add(SlurmMigWithoutInstances, no, stopped=m["level"] == "fatal")
        elif ("gres" in line or "node_cnt:" in line) and (m := _GRES_DUMP.search(line)) is not None:
            result.lines_used += 1
            step = m["step"] or ""
            if m["name"]:  # the dump's head: which GRES of which step the lines under it are of
                gres_of[step] = (m["name"], m["type"])
            elif m["bits"]:
                name, gtype = gres_of.get(step, ("gpu", None))
                b.add(SlurmGresAllocated, no, step=step, gres=name, gres_type=gtype, node_index=int(m["idx"]),
                      devices=m["bits"], of=int(m["of"]))
    _scontrol_block(b, block)
    log.finish()
    return result


# State=IDLE+DRAIN+DYNAMIC_NORM+INVALID_REG     (a pasted scontrol block, NodeName line or not)
_SIGNATURE_STATE = re.compile(r"^\s*State=(?:IDLE|ALLOCATED|ALLOC|MIXED|DOWN|ERROR|FUTURE|UNKNOWN|COMPLETING)\b", re.M)
# gres/gpu count repor       (and the whole reasons of _GRES_COUNT above)
_SIGNATURE_GRES = re.compile(r"gres/[\w-]{1,32}(?::[^\s(]{1,64})? count (?:r|t)")

# slurmd's debug dump of a step's GRES (gres_job_state), its head and the lines under it (NVIDIA/deepops#1102):
# [2022-02-26T15:03:00.736] [6333.0] gres_job_state gres:gpu(7696487) type:RTX_A5000(2408090051) job:6333 flags:
# [2022-02-26T15:03:00.736] [6333.0]   total_gres:2
# [2022-02-26T15:03:00.736] [6333.0]   gres_bit_alloc[0]:0,2 of 4
_GRES_DUMP = re.compile(
    r"(?:\[(?P<step>\d{1,12}\.(?:\d{1,10}|batch|extern|interactive))\] +)?(?:gres_job_state gres:(?P<name>[\w-]{1,32})\(\d+\)"
    r"(?: type:(?P<type>[^\s(]{1,64})\(\d+\))? job:\d+|gres_bit_alloc\[(?P<idx>\d{1,6})\]:(?P<bits>[\d,-]{1,200}|NULL) of (?P<of>\d{1,6})"
    r"|(?:total_gres|node_cnt|gres_cnt_node_alloc\[\d{1,6}\]|gres_cnt_step_alloc\[\d{1,6}\]|gres_bit_step_alloc\[\d{1,6}\]):)")

_DETECT = (_R_HEADER, _N_HEADER, _P_HEADER, _SIGNATURE_STATE, _SIGNATURE_GRES, _REQUEST, _NODE_CONFIG, _AUTODETECT, _INVAL, _MIG_NONE, _MPI_TYPE,
           re.compile(r"\bgres_job_state gres:"))
# slurmctld's node lines, each behind a literal of its own (a regex over every position of a large file costs)
_DETECT_GATED = (("Task launch for ", _LAUNCH), (" not responding", _NOT_RESPONDING), ("_slurm_rpc_node_registration node=", _REGISTRATION),
                 (" has low ", _LOW))

#: line signatures (facts/classify.py)
SIGNATURES = (_R_HEADER, _N_HEADER, _P_HEADER, _SIGNATURE_STATE, _SIGNATURE_GRES,
              r"Invalid (?:generic resource \(gres\)|GRES) specification", r"Requested node configuration is not available",
              r"configured (?:to autodetect|with) nvml functionality", r"Configured with (?:rsmi|oneAPI), but ",
              r"Setting node \S+ state to (?:INVAL|DRAIN|DOWN)\b", r"MIG mode is enabled, but no MIG devices were found",
              r"error: Nodes \S+ not responding", r"_slurm_rpc_node_registration node=", r"Node \S+ has low (?:real_memory|socket|cpu|tmp_disk)",
              _MPI_TYPE, r"\bgres_job_state gres:", r"\bsrun: error: Task launch for \S{1,80} failed on node ")
