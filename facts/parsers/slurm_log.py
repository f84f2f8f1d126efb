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

- ``slurm_error``: any other ``error:`` line of slurmstepd or srun (never silent).

Their other lines (``_step_signal: Terminating``, ``Job step aborted``, launch chatter) are read
without a fact. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    SlurmCancelled, SlurmError, SlurmOomKill, SlurmStepEnded, SlurmTaskFailed,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "slurm_log"

# a Slurm line: slurmstepd's (with or without "-<host>") or srun's, at the start of the line
_LINE = re.compile(r"^(?:slurmstepd(?:-(?P<sthost>[\w.-]{1,128}))?|srun): (?P<msg>.*)$", re.M)
_DETECT = re.compile(r"^slurmstepd(?:-[\w.-]{1,128})?: error: |^srun: error: [\w.-]{1,128}: tasks? [\d,-]{1,64}: ", re.M)

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


def detect(head: str) -> bool:
    return ("slurmstepd" in head or "srun: error: " in head) and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    for m in _LINE.finditer(text):
        no = artefact.line_of(m.start())
        msg = m["msg"]
        result.lines_used += 1
        if not msg.startswith("error: "):
            continue  # srun's launch chatter ("launch/slurm: _step_signal: Terminating ...")
        node = artefact.node_for(m["sthost"]) if m["sthost"] else artefact.node
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
        elif (c := _CANCEL.match(msg)) is not None:
            fields = dict(what=c["what"], job_id=c["id"], host=c["host"], at=c["at"])
            if c["reason"]:
                b.add(SlurmCancelled, no, node=artefact.node_for(c["host"]), reason=c["reason"].strip(), **fields)
            else:
                b.add(SlurmStepEnded, no, node=artefact.node_for(c["host"]), **fields)
        elif msg.startswith("error: Detected") or msg.startswith("error: ***"):
            b.error(no, f"Slurm line not read: {msg[:120]!r}")
        else:  # any other error Slurm printed: never silent
            b.add(SlurmError, no, node=node, message=msg[len("error: "):][:300])
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
