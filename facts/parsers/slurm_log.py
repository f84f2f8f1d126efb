"""Slurm's own lines in a job's output (``slurm-<jobid>.out``, a pasted ``srun`` session): what the
scheduler did to the job's tasks. slurmstepd and srun write them among the job's own output.

Sample content (real: ZwwWayne/K-Net#30, nextflow-io/nextflow#5932, ArjunaCluster/ArjunaUsers#52)::

    slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0. Some of your processes may have been killed by the cgroup out-of-memory handler.
    srun: error: gpu20-15: task 0: Out Of Memory
    srun: launch/slurm: _step_signal: Terminating StepId=9411285.0
    slurmstepd-gpu20-15: error: *** STEP 9411285.0 ON gpu20-15 CANCELLED AT 2022-05-17T17:58:10 ***
    slurmstepd: error: Detected 1 oom_kill event in StepId=11300781.0. Some of the step tasks have been OOM Killed.

Facts (each citing its line):

- ``slurm_oom_kill``: the step's memory cgroup killed tasks (``Detected N oom-kill event(s) in
  <step>``, Slurm up to 21.08, or ``Detected N oom_kill event(s) in <step>. Some of the step tasks
  have been OOM Killed.``, 22.05 and later): ``events``, ``step``; the node from
  ``slurmstepd-<host>`` when the line names it.
- ``slurm_task_failed``: ``srun: error: <host>: task(s) <ids>: <how>``: ``host``, ``tasks``,
  ``how`` ("Out Of Memory", "Killed", "Exited with exit code 1", "Segmentation fault", ...),
  ``out_of_memory``, ``exit_code`` or ``signal`` (strsignal's text) and ``core_dumped``.
- ``slurm_cancelled``: ``*** JOB|STEP <id> ON <host> CANCELLED AT <time> DUE TO <reason> ***``
  (``reason``: TIME LIMIT, NODE FAILURE, PREEMPTION, JOB REQUEUE, TASK FAILURE, "SIGNAL Terminated";
  20.11+ add ", SEE SLURMCTLD LOG FOR DETAILS" after NODE FAILURE); without ``DUE TO`` (a
  user's scancel, or srun ending the step after a task failed) it is ``slurm_step_ended``.

- ``slurm_step_exec_failed``: Slurm could not start the step's program: slurmstepd's ``error: execve(): <path>:
  <strerror>`` (or ``execve(): bad interpreter(<interpreter>): <strerror>``) on the node, or srun's ``fatal: Can not
  execute <path>`` before launching: ``reporter``, ``path``, ``reason``, ``bad_interpreter``.
- ``pyxis_container_failed``: pyxis (the SPANK plugin that runs a step in an enroot container) failed
  the step, one per node: ``stage`` (import, create, start, setup, find, other) from its own line, that
  ``message``, and ``detail``, the first line of enroot's log it printed that is not ``[INFO]``;
  SPANK's "required plugin spank_pyxis.so ... failed" / "Failed to invoke spank plugin stack" after
  it are that failure's echo. pyxis 0.8-0.13 printed a missing named container to the user's terminal
  without slurmstepd's prefix (``pyxis: error: a container with name "x" does not exist, and
  --container-image is not set``): read the same way, stage ``find``.
- ``slurm_pmix_error``: Slurm's PMIx plugin (``error:  mpi/pmix_vN: <function>: <host> [<nodeid>]: <file>:<line>:
  <message>``, pmixp_debug.h) failing to wire the step's nodes up: ``event`` peer_address_unknown, connect_failed,
  collective_timeout or other, ``peer``; the collective-state dump after a timeout is that timeout's detail.
- ``slurm_error``: any other ``error:`` line of slurmstepd or srun (never silent).

slurmd's log file's step lines (``[<time>] [<job>.<step>] error: ...``) are read as slurmstepd's.

Their other lines (``_step_signal: Terminating``, ``Job step aborted``, launch chatter) are read
without a fact. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    PyxisContainerFailed, SlurmAddressUnknown, SlurmCancelled, SlurmError, SlurmOomKill, SlurmPmixError, SlurmStepEnded,
    SlurmStepExecFailed, SlurmTaskFailed,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "slurm_log"

# a Slurm line: slurmstepd's (with or without "-<host>") or srun's, at the start of the line
# slurmd's own log file holds slurmstepd's lines behind a timestamp and the step:
# [2019-09-24T10:10:06.901] [321.0] error: pyxis: couldn't mkdir /run/pyxis/100005: No such file or directory   (NVIDIA/pyxis#4)
_STEP_LOG = r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?\] \[\d{1,12}\.(?:\d{1,10}|batch|extern|interactive)\]"
# a workflow tool that runs srun relays its lines behind its own tags, up to two "<tag>: " (dstndstn/tractor#126, qdo):
# qdo-srun.py: srun#64: slurmstepd: error: Detected 1 oom_kill event in StepId=43622791.67. Some of the step tasks have been OOM Killed.
_RELAY = r"(?:[\w.#/-]{1,64}: ){0,2}?"
_LINE = re.compile(r"^" + _RELAY + r"(?:(?:slurmstepd(?:-(?P<sthost>[\w.-]{1,128}))?|srun):|" + _STEP_LOG + r") (?P<msg>.*)$", re.M)
# (srun's own lines that name a node whose address is unknown: _ADDR and _LAUNCH below)
_DETECT = re.compile(r"^" + _RELAY + r"slurmstepd(?:-[\w.-]{1,128})?: error: |^srun: error: [\w.-]{1,128}: tasks? [\d,-]{1,64}: |^"
                     + _STEP_LOG + r" error: |^" + _RELAY + r"srun: error: (?:\w{1,80}: can't find address for host "
                     r"|Task launch for [\w.=+-]{1,64} failed on node [\w.-]{1,128}: Can't find an address)"
                     r"|^pyxis: error: |^" + _RELAY + r"srun: fatal: Can not execute \S", re.M)

# slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0. Some of your processes may have been killed by the cgroup out-of-memory handler.
# slurmstepd: error: Detected 2 oom-kill event(s) in step 3756240.batch cgroup.
# slurmstepd: error: Detected 1 oom_kill event in StepId=11300781.0. Some of the step tasks have been OOM Killed.
_OOM = re.compile(r"^error: Detected (?P<n>\d{1,9}) oom[-_]kill events?(?:\(s\))? in (?:StepId=|step )(?P<step>[\w.+-]{1,64}?)(?: cgroup)?\.?(?: |$)")
# srun: error: gpu20-15: task 0: Out Of Memory          srun: error: node3: tasks 0-7: Exited with exit code 1
_TASK = re.compile(r"^error: (?P<host>[\w.-]{1,128}): tasks? (?P<tasks>[\d,-]{1,64}): (?P<how>\S[^\n]{0,120}?)\s*$")
# slurmstepd-gpu20-15: error: *** STEP 9411285.0 ON gpu20-15 CANCELLED AT 2022-05-17T17:58:10 ***
# slurmstepd: error: *** JOB 1234 ON node01 CANCELLED AT 2024-03-05T10:12:01 DUE TO TIME LIMIT ***
# src/slurmd/slurmstepd/req.c (_rpc_signal_tasks): "*** %s ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR
# DETAILS ***" (the tail from 20.11; "DUE TO NODE FAILURE ***" before), "DUE to SIGNAL %s" (strsignal: "Terminated"):
# (no public paste of the NODE FAILURE line was found in an even thread: the form is req.c's, SchedMD/slurm at 284c3b9)
_CANCEL = re.compile(r"^error: \*\*\* (?P<what>JOB|STEP) (?P<id>[\w.+-]{1,64}) ON (?P<host>[\w.-]{1,128}) CANCELLED AT (?P<at>\S{1,40})"
                     r"(?: DUE (?:TO|to) (?P<reason>[A-Z][A-Za-z ]{0,40}?)(?:, SEE SLURMCTLD LOG FOR DETAILS)?)? \*\*\*")
# how a task ended (src/srun/launch.c): "Exited with exit code %d", or strsignal(sig) + " (core dumped)" when it dumped core
_TASK_EXIT = re.compile(r"^Exited with exit code (?P<code>\d{1,3})$")
_TASK_CORE = " (core dumped)"


# slurmstepd's execve() of the step's program failed (src/slurmd/slurmstepd/task.c, every release from 0.x: "execve(): %s: %m";
# for a script whose #! line names a missing interpreter, 14.x on: "execve(): bad interpreter(%s): %m"):
# slurmstepd: error: execve(): /usr/bin/ls: No such file or directory        (NVIDIA/pyxis#104: ls is /bin/ls in the container)
_EXECVE = re.compile(r"^error: execve\(\): (?:bad interpreter\((?P<interp>[^)\n]{1,255})\)|(?P<path>[^\n]{1,255}?)): "
                     r"(?P<why>[A-Z][\w ,'-]{1,80}?)\.?[ \t]*$")
# srun could not find the program before launching it (src/srun/opt.c, srun's test_exec / --bcast: search_path() found no
# executable file of that name or path on the submitting host: fatal("Can not execute %s", ...)):
# srun: fatal: Can not execute /opt/conda/bin/python                           (NVIDIA/pyxis#104)
_CANNOT_EXEC = re.compile(r"^fatal: Can not execute (?P<path>\S[^\n]{0,254}?)[ \t]*$")
# pyxis 0.8-0.13 told the user through slurm_spank_log() (no program prefix) that the named container was missing; 0.14 on
# it is slurm_error()'s "slurmstepd: error: pyxis: error: ..." (pyxis_slurmstepd.c):
# pyxis: error: a container with name "myubuntu" does not exist, and --container-image is not set     (NVIDIA/pyxis#66)
_PYXIS_LOG = re.compile(r"^pyxis: (?P<body>error: [^\n]{1,400})$", re.M)


def detect(head: str) -> bool:
    return (("slurmstepd" in head or "srun: " in head or "] error: " in head or "pyxis: error: " in head)
            and _DETECT.search(head) is not None)


# pyxis (NVIDIA/pyxis, the SPANK plugin that runs a step in an enroot container) reports through slurmstepd's
# error(): "pyxis: <what failed>", then "pyxis: printing enroot log file:" ("printing contents of log file ..."
# before 0.12) and each line of enroot's log as "pyxis:     <line>"; SPANK then fails the step:
# slurmstepd: error: pyxis: child 1022281 failed with error code: 1                       (NVIDIA/pyxis#168)
# slurmstepd: error: pyxis: failed to import docker image
# slurmstepd: error: pyxis:     [ERROR] URL https://registry-1.docker.io/v2/.../manifests/stable_diffusion-pyt returned error code: 401 Unauthorized
# slurmstepd: error: pyxis: couldn't start container
# slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1
# slurmstepd: error: pyxis: seccomp filter failed: Function not implemented                (NVIDIA/pyxis#42)
_PYXIS = "error: pyxis: "
_PYXIS_ECHO = re.compile(r"^(?:printing (?:contents of log file \.\.\.|\w+ log file:)|if the image has an unusual entrypoint)")
#: pyxis's lines (its sources 0.1-0.24) by what it was doing
_PYXIS_STAGES = (
    ("import", re.compile(r"^(?:failed to import docker image|importer )")),
    ("create", re.compile(r"^failed to create container filesystem")),
    ("start", re.compile(r"^(?:couldn't start container|container start failed|failed to start container|seccomp filter failed"
                         r"|couldn't join \w+ namespace|unable to open \w+ namespace file)")),
    ("setup", re.compile(r"^(?:couldn't mkdir|slurmd: couldn't mkdir|runtime_path:|couldn't create in-memory log file"
                         r"|failed to acquire container setup lock)")),
    # --container-name without --container-image named a container this node does not have (pyxis 0.1 on: 'a container
    # with name "%s" does not exist, and --container-image is not set', "error: " before it from 0.8), or with the
    # "exec" flag (0.14 on) one that is not running: 'error: "exec" flag was passed to --container-name but the
    # container is not running'
    ("find", re.compile(r"^(?:error: )?(?:a container with name \"[^\"\n]{0,200}\" does not exist"
                        r"|\"exec\" flag was passed to --container-name but the container is not running)")),
)
# slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1
# slurmstepd: error: Failed to invoke spank plugin stack
# [2019-09-24T10:10:06.901] [321.0] error: Plugin stack initialization failed.
_SPANK_ECHO = re.compile(r"^error: (?:spank: required plugin \w*pyxis|Failed to invoke spank plugin stack"
                         r"|Plugin stack initialization failed)")

# Slurm's PMIx plugin (mpi/pmix, run inside slurmstepd on every node of a step) wires the step's ranks up between the
# nodes' stepds (direct TCP or UCX connections, ring or tree collectives); its errors, src/plugins/mpi/pmix/pmixp_debug.h
# (SchedMD/slurm at 165f410): PMIXP_ERROR: error(" %s: %s: %s [%d]: %s:%d: " format, plugin_type, __func__,
# pmixp_info_hostname(), pmixp_info_nodeid(), THIS_FILE, __LINE__, ...) (PMIXP_ERROR_STD/_NO add ": %s (%d)", strerror):
# slurmstepd: error:  mpi/pmix_v5: _pmix_p2p_send_core: node4 [0]: pmixp_utils.c:408: Can't find address for host node5, check slurm.conf   (openpmix/openpmix#2786)
# slurmstepd: error:  mpi/pmix_v2: _tcp_connect: lxbk1177 [0]: pmixp_dconn_tcp.c:139: Cannot establish the connection   (openpmix/openpmix#3098)
# an older pmixp_debug.h's macro: error("%s [%d] %s:%d [%s] mpi/pmix: ERROR: " format, pmixp_info_hostname(),
# pmixp_info_nodeid(), file_base, __LINE__, __func__, ...) (no paste of it in an even thread was found: the form only)
_PMIXP = re.compile(r"^error: {1,2}(?:(?P<plugin>mpi/pmix\w{0,12}): (?P<func>\w{1,80}): (?P<host>[\w.-]{1,128}) \[(?P<nid>\d{1,6})\]: "
                    r"(?P<src>[\w.]{1,64}:\d{1,6}): "
                    r"|(?P<ohost>[\w.-]{1,128}) \[(?P<onid>\d{1,6})\] (?P<osrc>[\w.]{1,64}:\d{1,6}) \[(?P<ofunc>\w{1,80})\] mpi/pmix: ERROR: )")
#: what a PMIx plugin message says about the wire-up, by its format string (pmixp_utils.c / pmixp_dconn_tcp.c
#: "Can't find address for host %s, check slurm.conf"; pmixp_dconn_tcp.c "Cannot establish the connection";
#: pmixp_dconn.h "Cannot establish direct connection to %s (%d)"; pmixp_server.c "Unable to connect to %d";
#: pmixp_coll_ring.c / pmixp_coll_tree.c "%p: collective timeout seq=%d"; pmixp_coll*.c's state dump after a timeout)
_PMIXP_EVENTS = (
    # (read as a slurm_address_unknown fact, the same fault srun's fan-out reports: _ADDR below)
    ("peer_address_unknown", re.compile(r"^Can't find address for host (?P<peer>[\w.-]{1,128})")),
    ("connect_failed", re.compile(r"^(?:Cannot establish (?:the connection|direct connection to (?P<peer>[\w.-]{1,128}))"
                                  r"|Unable to connect to (?P<peer2>\d{1,6}))")),
    ("collective_timeout", re.compile(r"^(?:0x[0-9a-f]{1,16}|\(nil\)): collective timeout seq=")),
    # pmixp_coll.c pmixp_coll_log "Dumping collective state", then pmixp_coll_ring_log / pmixp_coll_tree_log:
    # "%p: %s state seq=%d", "my peerid: %d:%s", "neighbor id: next ...", "root host: ", "prnt host: ", "prnt contrib:",
    # "child contribs [%d]:", "Context ptr=%p, #%d, in-use=%d", and tab-indented lines ("\t seq=%d contribs: ...")
    ("state_dump", re.compile(r"^(?:Dumping collective state|(?:0x[0-9a-f]{1,16}|\(nil\)): \w{1,40} state seq="
                              r"|my peerid: |neighbor id: |root host: |prnt host: |prnt contrib:|child contribs \[|Context ptr=|\t)")),
)
# the dump's hosts that have not contributed to the collective (pmixp_coll_ring.c: PMIXP_ERROR("\t\t wait contrib: %s",
# wait_contrib ? wait_contrib : "-"); pmixp_coll_tree.c the same with one tab; a Slurm ranged host list, "-" for none):
# slurmstepd: error:  mpi/pmix_v4: pmixp_coll_ring_log: node1 [0]: pmixp_coll_ring.c:822: 		 wait contrib: node[3-4]   (CONSTRUCTED)
_WAIT_CONTRIB = re.compile(r"^\t{0,2} ?wait contrib: (?P<hosts>[^\s-][^\s]{0,300})[ \t]*$")

# Slurm's message fan-out (srun launching a step's tasks, slurmctld's agent, a forwarding slurmd) not finding a node's
# address, SchedMD/slurm 284c3b9 src/common/forward.c: error("%s: can't find address for host %s, check slurm.conf",
# __func__, name) (also src/api/signal.c, src/slurmctld/agent.c; "... in alias_addrs" for a cloud node's alias list):
# srun: error: _fwd_tree_get_addr: can't find address for host nid006677, check slurm.conf   (eth-cscs/cscs-reframe-tests#224,
#   inside backticks in a comment)
# srun: error: fwd_tree_thread: can't find address for host node-7, check slurm.conf        (older releases' function; CONSTRUCTED)
_ADDR = re.compile(r"^error: (?:(?P<func>\w{1,80}): )?can't find address for host (?P<peer>[\w.-]{1,128})"
                   r"(?:, check slurm\.conf| in alias_addrs)")
# the launch that fails for it, src/api/step_launch.c: error("Task launch for %ps failed on node %s: %m", ...) with
# ESLURM_CANT_FIND_ADDR's text (src/common/slurm_errno.c "Can't find an address, check slurm.conf"); %ps prints
# "StepId=<job>.<step>" (older releases "%u.%u"); then launch.c's summary "Application launch failed: %m":
# srun: error: Task launch for StepId=1234.0 failed on node node-7: Can't find an address, check slurm.conf   (CONSTRUCTED)
# srun: error: Application launch failed: Can't find an address, check slurm.conf                            (CONSTRUCTED)
_ADDR_TEXT = "Can't find an address, check slurm.conf"
_LAUNCH = re.compile(r"^error: Task launch for (?P<step>[\w.=+-]{1,64}) failed on node (?P<peer>[\w.-]{1,128}): "
                     + re.escape(_ADDR_TEXT))
_APP_LAUNCH = "error: Application launch failed: " + _ADDR_TEXT


def _pyxis_line(pyx: dict, node: str, no: int, body: str) -> None:
    """One "error: pyxis: ..." line into the node's pyxis failure (made at its first line)."""
    f = pyx.setdefault(node, {"line": no, "stage": "other", "message": None, "first": body[:300], "detail": None})
    # a line of enroot's log (pyxis common.c: "pyxis:     %s"): [INFO] is its progress, anything else its failure;
    # pyxis's own messages never start with a space, and a paste may keep two of the four (NVIDIA/pyxis#166:
    # "slurmstepd: error: pyxis:   nvidia-container-cli: container error: file lookup failed: ...")
    if body.startswith("  "):
        text = body.strip()
        if text and f["detail"] is None and not text.startswith("[INFO]"):
            f["detail"] = text[:300]
        return
    if _PYXIS_ECHO.match(body):
        return
    if f["stage"] == "other":
        for stage, pat in _PYXIS_STAGES:
            if pat.match(body):
                f["stage"], f["message"] = stage, body[:300]
                break


def _pmixp_line(b: FactBuilder, node: str, no: int, p: re.Match, text: str, pending: list) -> None:
    """One error line of Slurm's PMIx plugin; its collective-state dump after a timeout is that timeout's (the hosts
    it lists as waited for go on the timeout's fact: ``pending`` holds a timeout's fields until its dump is read)."""
    event, peer = "other", None
    for name, pat in _PMIXP_EVENTS:
        if (e := pat.match(text)) is not None:
            event = name
            peer = e.groupdict().get("peer") or e.groupdict().get("peer2")
            break
    if event == "state_dump":
        if pending and (w := _WAIT_CONTRIB.match(text)) is not None:
            hosts = pending[-1][2].setdefault("waiting", [])
            if w["hosts"] not in hosts:
                hosts.append(w["hosts"])
        return  # pmixp_coll_log()'s lines after "collective timeout": that line's detail
    _flush(b, pending)
    plugin, function = p["plugin"] or "mpi/pmix", p["func"] or p["ofunc"]
    if event == "peer_address_unknown":  # the same fault as srun's fan-out not finding the host: one fact kind
        b.add(SlurmAddressUnknown, no, node=node, reporter="slurmstepd", function=function, plugin=plugin, peer=peer,
              message=text.strip()[:300])
        return
    fields = dict(node=node, plugin=plugin, function=function, host=p["host"] or p["ohost"],
                  node_id=int(p["nid"] or p["onid"]), source=p["src"] or p["osrc"], event=event, peer=peer,
                  message=text.strip()[:300])
    if event == "collective_timeout":
        pending.append((no, SlurmPmixError, fields))  # made once its dump (if any) is read
    else:
        b.add(SlurmPmixError, no, **fields)


def _flush(b: FactBuilder, pending: list) -> None:
    """Make the collective-timeout facts held for their dumps."""
    for no, cls, fields in pending:
        waiting = fields.pop("waiting", None)
        b.add(cls, no, waiting_on=",".join(waiting) if waiting else None, **fields)
    pending.clear()


def _address_line(b: FactBuilder, node: str, no: int, msg: str, reporter: str, has_launch: bool) -> bool:
    """srun's (or another Slurm program's) line saying a node's address is unknown: a SlurmAddressUnknown; launch.c's
    summary after a "Task launch ... failed" line is that line's echo."""
    if "address" not in msg:
        return False
    if (a := _ADDR.match(msg)) is not None:
        b.add(SlurmAddressUnknown, no, node=node, reporter=reporter, function=a["func"], peer=a["peer"],
              message=msg[len("error: "):][:300])
    elif (t := _LAUNCH.match(msg)) is not None:
        b.add(SlurmAddressUnknown, no, node=node, reporter=reporter, peer=t["peer"], step=t["step"], launch_failed=True,
              message=msg[len("error: "):][:300])
    elif msg.startswith(_APP_LAUNCH):
        if not has_launch:  # the summary alone names no node
            b.add(SlurmAddressUnknown, no, node=node, reporter=reporter, launch_failed=True,
                  message=msg[len("error: "):][:300])
    else:
        return False
    return True


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    pyx: dict[str, dict] = {}
    pending: list = []  # a collective timeout's fields, until its state dump is read
    has_launch = "Task launch for " in text and _ADDR_TEXT in text
    if "pyxis: error: " in text:
        for m in _PYXIS_LOG.finditer(text):  # (before the step's lines: SPANK's failure after it is its echo)
            result.lines_used += 1
            _pyxis_line(pyx, artefact.node, artefact.line_of(m.start()), m["body"])
    for m in _LINE.finditer(text):
        no = artefact.line_of(m.start())
        msg = m["msg"]
        result.lines_used += 1
        if (x := _CANNOT_EXEC.match(msg)) is not None:
            b.add(SlurmStepExecFailed, no, reporter="srun", path=x["path"])
            continue
        if not msg.startswith("error: "):
            continue  # srun's launch chatter ("launch/slurm: _step_signal: Terminating ...")
        node = artefact.node_for(m["sthost"]) if m["sthost"] else artefact.node
        if msg.startswith(_PYXIS):
            _pyxis_line(pyx, node, no, msg[len(_PYXIS):])
            continue
        if node in pyx and _SPANK_ECHO.match(msg):
            continue  # SPANK failing the step because pyxis did: that failure's echo
        if "oom" in msg[:40] and (o := _OOM.match(msg)) is not None:
            b.add(SlurmOomKill, no, node=node, events=int(o["n"]), step=o["step"])
        elif (t := _TASK.match(msg)) is not None:
            how = t["how"].rstrip(".")
            oom = how.lower().startswith("out of memory")
            e = _TASK_EXIT.match(how)
            sig = None if (oom or e) else how.removesuffix(_TASK_CORE)
            b.add(SlurmTaskFailed, no, node=artefact.node_for(t["host"]), host=t["host"], tasks=t["tasks"],
                  how=how, out_of_memory=oom, exit_code=int(e["code"]) if e else None, signal=sig,
                  core_dumped=how.endswith(_TASK_CORE), killed=sig == "Killed")
        elif msg.startswith("error: execve(): ") and (x := _EXECVE.match(msg)) is not None:
            b.add(SlurmStepExecFailed, no, node=node, reporter="slurmstepd", path=(x["interp"] or x["path"]).strip(),
                  reason=x["why"], bad_interpreter=x["interp"] is not None)
        elif (c := _CANCEL.match(msg)) is not None:
            fields = dict(what=c["what"], job_id=c["id"], host=c["host"], at=c["at"])
            if c["reason"]:
                b.add(SlurmCancelled, no, node=artefact.node_for(c["host"]), reason=c["reason"].strip(), **fields)
            else:
                b.add(SlurmStepEnded, no, node=artefact.node_for(c["host"]), **fields)
        elif msg.startswith("error: Detected") or msg.startswith("error: ***"):
            b.error(no, f"Slurm line not read: {msg[:120]!r}")
        elif (p := _PMIXP.match(msg)) is not None:  # the line names its stepd's host
            _pmixp_line(b, node if m["sthost"] else artefact.node_for(p["host"] or p["ohost"]), no, p, msg[p.end():],
                        pending)
        elif _address_line(b, node, no, msg, "srun" if text.startswith("srun:", m.start("msg") - 6) else "slurmstepd",
                           has_launch):
            pass
        else:  # any other error Slurm printed: never silent
            b.add(SlurmError, no, node=node, message=msg[len("error: "):][:300])
    _flush(b, pending)
    for node, f in pyx.items():
        b.add(PyxisContainerFailed, f["line"], node=node, stage=f["stage"], message=f["message"] or f["first"],
              detail=f["detail"])
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
