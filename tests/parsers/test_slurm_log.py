"""Slurm's own lines in a job's output (real samples: fixtures/artefacts/slurm_log/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.lines import normalise
from stethoscope.facts.parsers import slurm_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "slurm_log"


def _parse(name: str, node: str = "n1"):
    text = (FIX / name).read_text()
    assert slurm_log.detect(text)
    return slurm_log.parse(Artefact(path=name, text=text, node=node))


def test_oom_events_tasks_and_the_cancel_without_reason():
    res = _parse("knet30_step_oom_killed.out")
    got = [(f.kind, f.node, f.evidence.line) for f in res.facts]
    assert got == [("slurm_oom_kill", "gpu20-15", 1), ("slurm_task_failed", "gpu20-15", 2),
                   ("slurm_step_ended", "gpu20-15", 4), ("slurm_oom_kill", "gpu20-15", 7)]
    oom, task = res.facts[0], res.facts[1]
    assert (oom.events, oom.step, task.tasks, task.how, task.out_of_memory) == (1, "9411285.0", "0", "Out Of Memory", True)
    assert not res.errors and res.lines_used == 5  # srun's "_step_signal" line is read, the python warning is not


def test_every_oom_event_form():
    steps = {name: [f.step for f in _parse(name).facts] for name in
             ("arjuna52_batch_oom_cgroup.err", "pybnf118_old_step_form.txt", "nextflow5932_oom_kill_event_from_title.txt")}
    assert steps == {"arjuna52_batch_oom_cgroup.err": ["191.batch"], "pybnf118_old_step_form.txt": ["3756240.batch"],
                     "nextflow5932_oom_kill_event_from_title.txt": ["11300781.0"]}
    assert [f.events for f in _parse("pybnf118_old_step_form.txt").facts] == [2]


def test_time_limit_cancels_and_terminated_tasks():
    res = _parse("desitarget628_step_time_limit.txt")
    cancel = [f for f in res.facts if f.kind == "slurm_cancelled"]
    assert [(c.what, c.job_id, c.host, c.at, c.reason) for c in cancel] == [("STEP", "32233190.0", "nid01934", "2020-07-03T02:59:56", "TIME LIMIT")]
    assert [(t.host, t.tasks, t.how) for t in res.facts if t.kind == "slurm_task_failed"] == [
        ("nid01934", "2,4-5,7", "Terminated"), ("nid01935", "8-15", "Terminated"), ("nid01934", "0-1,3,6", "Terminated")]
    [job] = _parse("canu1052_job_time_limit.txt").facts
    assert (job.what, job.job_id, job.reason) == ("JOB", "3884617", "TIME LIMIT")


def test_other_slurm_errors_are_never_silent_and_a_mangled_known_line_is_a_problem():
    text = ("slurmstepd: error: couldn't chdir to `/scratch/run': No such file or directory: going to /tmp instead\n"
            "slurmstepd: error: *** JOB 12 ON n1 CANCELLED AT\n")
    res = slurm_log.parse(Artefact(path="s.out", text=text, node="n1"))
    assert [(f.kind, f.message[:15]) for f in res.facts] == [("slurm_error", "couldn't chdir ")]
    assert [e.line for e in res.errors] == [2]


def test_task_exit_code_and_signal_fields():
    (t,) = _parse("picongpu198_tasks_exit_code.txt").facts
    assert (t.host, t.tasks, t.exit_code, t.signal, t.killed) == ("taurusi2031", "10-11", 1, None, False)
    text = ("srun: error: node12: task 3: Segmentation fault (core dumped)\nsrun: error: node12: task 4: Killed\n")
    seg, kill = slurm_log.parse(Artefact(path="x", text=text, node="n1")).facts
    assert (seg.signal, seg.core_dumped, seg.killed) == ("Segmentation fault", True, False)
    assert (kill.signal, kill.killed) == ("Killed", True)


def test_node_failure_forms_of_req_c():
    # src/slurmd/slurmstepd/req.c: the 20.11+ tail, the older form, a step, and "DUE to SIGNAL" (no paste in an even thread found)
    text = ("slurmstepd: error: *** JOB 123 ON node12 CANCELLED AT 2024-05-01T10:00:00 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"
            "slurmstepd: error: *** JOB 124 ON node12 CANCELLED AT 2024-05-01T10:00:00 DUE TO NODE FAILURE ***\n"
            "slurmstepd: error: *** STEP 125.0 ON node13 CANCELLED AT 2024-05-01T10:00:00 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"
            "slurmstepd: error: *** JOB 126 ON node13 CANCELLED AT 2024-05-01T10:00:00 DUE to SIGNAL Terminated ***\n")
    facts = slurm_log.parse(Artefact(path="x", text=text, node="n1")).facts
    assert [(f.kind, f.job_id, f.host, f.reason) for f in facts] == [
        ("slurm_cancelled", "123", "node12", "NODE FAILURE"), ("slurm_cancelled", "124", "node12", "NODE FAILURE"),
        ("slurm_cancelled", "125.0", "node13", "NODE FAILURE"), ("slurm_cancelled", "126", "node13", "SIGNAL Terminated")]


# pyxis (NVIDIA's SPANK plugin running enroot) failing a step, wild sweep 5E
def _pyxis(text: str):
    res = slurm_log.parse(Artefact(path="srun.txt", text=text, node="n1"))
    return [f for f in res.facts if f.kind == "pyxis_container_failed"], [f for f in res.facts if f.kind == "slurm_error"]


def test_pyxis_import_failure_takes_enroots_error_not_its_info_lines():
    # NVIDIA/pyxis#168: eleven slurmstepd error lines, one failure
    (p,), errors = _pyxis((FIX / "pyxis168_import_401_unauthorized.txt").read_text())
    assert (p.stage, p.message, p.evidence.line) == ("import", "failed to import docker image", 3)
    assert p.detail.startswith("[ERROR] URL https://registry-1.docker.io/v2/") and p.detail.endswith("401 Unauthorized")
    assert errors == []


def test_pyxis_seccomp_failure_and_spanks_echo():
    # NVIDIA/pyxis#42: SPANK's two lines after it are the same failure; srun's task exit stays a task fact
    text = (FIX / "pyxis42_seccomp_not_implemented.txt").read_text()
    (p,), errors = _pyxis(text)
    assert (p.stage, p.message, p.detail) == ("start", "seccomp filter failed: Function not implemented", None)
    assert errors == []


def test_slurmd_log_step_lines_are_slurmstepds():
    # NVIDIA/pyxis#4: slurmd.log, "[time] [job.step] error: ..."
    text = (FIX / "pyxis4_slurmd_log_mkdir_runtime_path.log").read_text()
    assert slurm_log.detect(text)
    (p,), errors = _pyxis(text)
    assert (p.stage, p.message) == ("setup", "couldn't mkdir /run/pyxis/100005: No such file or directory")
    assert errors == []


def test_pyxis_before_0_12_and_a_tools_own_error_as_detail():
    # pyxis 0.1-0.11 printed "printing contents of log file ..." (enroot.c); the first non-[INFO] line is the detail
    text = ("slurmstepd: error: pyxis: container start failed with error code: 1\n"
            "slurmstepd: error: pyxis: printing contents of log file ...\n"
            "slurmstepd: error: pyxis:     enroot-switchroot: failed to execute: /bin/bash: No such file or directory\n"
            "slurmstepd: error: pyxis: couldn't start container\n"
            "slurmstepd: error: pyxis: if the image has an unusual entrypoint, try using --no-container-entrypoint\n"
            "slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1\n"
            "slurmstepd: error: Failed to invoke spank plugin stack\n")
    (p,), errors = _pyxis(text)
    assert (p.stage, p.detail) == ("start", "enroot-switchroot: failed to execute: /bin/bash: No such file or directory")
    assert errors == []


def test_pyxis_enroot_log_line_with_its_indent_cut_to_two_spaces():
    # NVIDIA/pyxis#166: pasted with two of pyxis's four spaces before enroot's line (pyxis common.c: "pyxis:     %s")
    text = ("slurmstepd: error: pyxis: container start failed with error code: 1\n"
            "slurmstepd: error: pyxis: printing enroot log file:\n"
            "slurmstepd: error: pyxis:   nvidia-container-cli: container error: file lookup failed: /proc/421042/root/fsx/enroot/data/user-1111/pyxis_nemo_2502_$USER/etc/debian_version: permission denied\n"
            "slurmstepd: error: pyxis:   [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1\n"
            "slurmstepd: error: pyxis: couldn't start container\n")
    (p,), errors = _pyxis(text)
    assert p.stage == "start" and p.detail.startswith("nvidia-container-cli: container error: file lookup failed: ")
    assert errors == []


def test_spank_failure_without_pyxis_stays_an_error():
    (), errors = _pyxis("slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1\n")
    assert [e.message for e in errors] == ["spank: required plugin spank_pyxis.so: task_init() failed with rc=-1"]


def test_lines_relayed_behind_a_workflow_tools_tags():
    # dstndstn/tractor#126: qdo relays srun's output behind "qdo-srun.py: srun#64: "; its own line is not Slurm's
    res = _parse("tractor126_relayed_by_qdo.txt")
    assert [(f.kind, f.step, f.events) for f in res.facts] == [("slurm_oom_kill", "43622791.67", 1)]
    assert not slurm_log.detect("qdo-srun.py: srun#64: Found OOM event for task 6627566 ; setting task state to Killed\n")


def test_pmix_plugin_peer_address_unknown():
    # openpmix/openpmix#2786: the line names its stepd's host (node4) and the peer it cannot find
    res = _parse("openpmix2786_pmix_peer_address_unknown.txt", node="unknown")
    # (the same fault as srun's fan-out not finding a host: a slurm_address_unknown fact)
    got = [(f.kind, f.node, f.reporter, f.peer, f.plugin, f.function) for f in res.facts]
    assert got == [("slurm_address_unknown", "node4", "slurmstepd", "node5", "mpi/pmix_v5", "_pmix_p2p_send_core")] * 2
    assert res.facts[0].message == "Can't find address for host node5, check slurm.conf" and not res.errors


def test_pmix_plugin_direct_connection_failed():
    # openpmix/openpmix#3098: three lines of one failed connection, each its own fact
    res = _parse("openpmix3098_pmix_direct_connect_failed.txt")
    assert [(f.event, f.peer, f.function) for f in res.facts] == [
        ("connect_failed", None, "_tcp_connect"), ("connect_failed", "lxbk1177", "pmixp_dconn_connect"),
        ("connect_failed", "0", "_process_extended_hdr")]


def test_pmix_plugin_collective_timeout_and_its_state_dump():
    # the form of pmixp_coll_ring.c's timeout and pmixp_coll_ring_log's dump (CONSTRUCTED from the format strings), and
    # the older macro's "<host> [<n>] <file>:<line> [<func>] mpi/pmix: ERROR: " form (CONSTRUCTED, SchedMD/slurm's older
    # pmixp_debug.h); another message of the plugin stays a fact with event "other"
    text = ("slurmstepd: error:  mpi/pmix_v4: pmixp_coll_ring_reset_if_to: gpu1 [0]: pmixp_coll_ring.c:742: 0x1f2e: collective timeout seq=0\n"
            "slurmstepd: error:  mpi/pmix_v4: pmixp_coll_log: gpu1 [0]: pmixp_coll.c:281: Dumping collective state\n"
            "slurmstepd: error:  mpi/pmix_v4: pmixp_coll_ring_log: gpu1 [0]: pmixp_coll_ring.c:760: 0x1f2e: COLL_FENCE_RING state seq=0\n"
            "slurmstepd: error:  mpi/pmix_v4: pmixp_coll_ring_log: gpu1 [0]: pmixp_coll_ring.c:762: my peerid: 0:gpu1\n"
            "slurmstepd: error:  mpi/pmix_v4: pmixp_coll_ring_log: gpu1 [0]: pmixp_coll_ring.c:790: \t seq=0 contribs: loc=1/prev=0/fwd=0\n"
            "[2021-01-18T13:47:25.004] [142913.0] error: gpu2 [1] pmixp_dconn_tcp.c:139 [_tcp_connect] mpi/pmix: ERROR: Cannot establish the connection\n"
            "slurmstepd: error:  mpi/pmix_v4: pmixp_dconn_connect: gpu1 [0]: pmixp_dconn.h:240: Bad nodeid = 3 in the incoming message\n")
    assert slurm_log.detect(text)
    res = slurm_log.parse(Artefact(path="x", text=text, node="unknown"))
    assert [(f.kind, f.node, f.event, f.evidence.line) for f in res.facts] == [
        ("slurm_pmix_error", "gpu1", "collective_timeout", 1), ("slurm_pmix_error", "gpu2", "connect_failed", 6),
        ("slurm_pmix_error", "gpu1", "other", 7)]
    assert res.facts[1].plugin == "mpi/pmix" and res.facts[1].function == "_tcp_connect" and res.facts[1].node_id == 1
    assert res.facts[0].waiting_on is None  # this dump lists no "wait contrib" line


def test_pmix_collective_timeout_carries_the_hosts_waited_for():
    # pmixp_coll_ring.c: PMIXP_ERROR("\t\t wait contrib: %s", ...) (two tabs), pmixp_coll_tree.c one tab; "-" is none
    # (CONSTRUCTED from the format strings, SchedMD/slurm 284c3b9)
    pre = "slurmstepd: error:  mpi/pmix_v4: "
    text = (pre + "pmixp_coll_ring_reset_if_to: node1 [0]: pmixp_coll_ring.c:742: 0x1530f8002d50: collective timeout seq=0\n"
            + pre + "pmixp_coll_log: node1 [0]: pmixp_coll.c:286: Dumping collective state\n"
            + pre + "pmixp_coll_ring_log: node1 [0]: pmixp_coll_ring.c:821: \t\t done contrib: -\n"
            + pre + "pmixp_coll_ring_log: node1 [0]: pmixp_coll_ring.c:823: \t\t wait contrib: node[3-4]\n"
            + pre + "pmixp_coll_tree_reset_if_to: node1 [0]: pmixp_coll_tree.c:1010: 0x1530f8002e60: collective timeout seq=1\n"
            + pre + "pmixp_coll_tree_log: node1 [0]: pmixp_coll_tree.c:1380: \t wait contrib: -\n"
            + pre + "pmixp_coll_tree_reset_if_to: node1 [0]: pmixp_coll_tree.c:1010: 0x1530f8002e60: collective timeout seq=2\n"
            + pre + "pmixp_coll_tree_log: node1 [0]: pmixp_coll_tree.c:1380: \t wait contrib: gpu7\n")
    res = slurm_log.parse(Artefact(path="x", text=text, node="unknown"))
    assert [(f.event, f.waiting_on, f.evidence.line) for f in res.facts] == [
        ("collective_timeout", "node[3-4]", 1), ("collective_timeout", None, 5), ("collective_timeout", "gpu7", 7)]


def test_srun_unknown_address_lines():
    # eth-cscs/cscs-reframe-tests#224 (the line inside its backticks); the launch failure and summary srun prints for it,
    # src/api/step_launch.c "Task launch for %ps failed on node %s: %m" with "Can't find an address, check slurm.conf"
    # (CONSTRUCTED from the format strings; %ps "StepId=N.M", older releases "N.M"); an older function name
    text = ("srun: error: _fwd_tree_get_addr: can't find address for host nid006677, check slurm.conf\n"
            "srun: error: Task launch for StepId=1234.0 failed on node nid006677: Can't find an address, check slurm.conf\n"
            "srun: error: Application launch failed: Can't find an address, check slurm.conf\n"
            "srun: error: fwd_tree_thread: can't find address for host c003, check slurm.conf\n"
            "srun: error: Task launch for 44.0 failed on node c003: Can't find an address, check slurm.conf\n")
    assert slurm_log.detect(text) and slurm_log.detect(text.splitlines()[1])
    res = slurm_log.parse(Artefact(path="x", text=text, node="login1"))
    assert [(f.kind, f.reporter, f.function, f.peer, f.step, f.launch_failed, f.evidence.line) for f in res.facts] == [
        ("slurm_address_unknown", "srun", "_fwd_tree_get_addr", "nid006677", None, False, 1),
        ("slurm_address_unknown", "srun", None, "nid006677", "StepId=1234.0", True, 2),
        ("slurm_address_unknown", "srun", "fwd_tree_thread", "c003", None, False, 4),
        ("slurm_address_unknown", "srun", None, "c003", "44.0", True, 5)]
    assert res.lines_used == 5 and not res.errors
    # the summary alone: the launch failed for an unknown address, the node not named
    alone = slurm_log.parse(Artefact(path="x", text=text.splitlines()[2] + "\n", node="login1"))
    assert [(f.kind, f.peer, f.launch_failed) for f in alone.facts] == [("slurm_address_unknown", None, True)]


def test_other_address_errors_are_not_unknown_addresses():
    # slurmstepd's "Unable to resolve" of the controller (real: geodesymiami/rsmas_insar#512) and a
    # launch that failed for another reason (CONSTRUCTED) stay slurm_error facts
    text = ("slurmstepd: error: Unable to establish control machine address\n"
            "srun: error: Task launch for StepId=12.0 failed on node n2: Communication connection failure\n")
    res = slurm_log.parse(Artefact(path="x", text=text, node="n1"))
    assert [f.kind for f in res.facts] == ["slurm_error", "slurm_error"]


def test_a_plain_slurmstepd_error_is_no_pmix_error():
    # (src/slurmd/slurmstepd/task.c "couldn't chdir to `%s': %m: going to /tmp instead"; CONSTRUCTED from the format
    # string. slurmstepd's execve() failure, this test's line before, is read as slurm_step_exec_failed since round V4)
    text = "slurmstepd: error: couldn't chdir to `/scratch/u1/run': No such file or directory: going to /tmp instead\n"
    res = slurm_log.parse(Artefact(path="x", text=text, node="n1"))
    assert [f.kind for f in res.facts] == ["slurm_error"]
    text = "slurmstepd: error: execve(): /tmp/slurmd/job00089/slurm_script: No such file or directory\n"
    res = slurm_log.parse(Artefact(path="x", text=text, node="n1"))
    assert [(f.kind, f.path) for f in res.facts] == [("slurm_step_exec_failed", "/tmp/slurmd/job00089/slurm_script")]


def test_pyxis_spank_log_form_of_a_missing_named_container():
    # NVIDIA/pyxis#66: pyxis 0.8-0.13 printed it through slurm_spank_log() without slurmstepd's prefix; SPANK's two lines
    # after it are that failure's echo, srun's task exit stays a task fact
    res = _parse("pyxis66_named_container_missing_spank_log.txt")
    (p,) = [f for f in res.facts if f.kind == "pyxis_container_failed"]
    assert (p.stage, p.evidence.line) == ("find", 8)
    assert p.message == 'error: a container with name "myubuntu" does not exist, and --container-image is not set'
    assert [f.kind for f in res.facts if f.kind != "pyxis_container_failed"] == ["slurm_task_failed"]
    # 0.14 on: slurm_error()'s prefixed form, the same stage; the "exec" flag's refusal too (pyxis_slurmstepd.c)
    (q,), _ = _pyxis('slurmstepd: error: pyxis: error: "exec" flag was passed to --container-name but the container is not running\n')
    assert q.stage == "find"


def test_step_program_execve_and_srun_cannot_execute():
    # NVIDIA/pyxis#104 (each line in the post's backticks): srun's test_exec found no program on the host; slurmstepd's
    # execve() found none at the host's path inside the container
    text = normalise((FIX / "pyxis104_execve_no_such_file_in_container.txt").read_text())  # (the backticks off)
    assert slurm_log.detect(text)
    res = slurm_log.parse(Artefact(path="x", text=text, node="unknown"))
    got = [(f.kind, f.reporter, f.path, f.reason, f.bad_interpreter) for f in res.facts if f.kind == "slurm_step_exec_failed"]
    assert got == [("slurm_step_exec_failed", "srun", "/opt/conda/bin/python", None, False),
                   ("slurm_step_exec_failed", "slurmstepd", "/usr/bin/ls", "No such file or directory", False)]
    assert not [f for f in res.facts if f.kind == "slurm_error"]
    # a script whose #! interpreter is missing (src/slurmd/slurmstepd/task.c; CONSTRUCTED from the format string)
    text = "slurmstepd-gpu3: error: execve(): bad interpreter(/usr/bin/python3.12): No such file or directory\n"
    (f,) = slurm_log.parse(Artefact(path="x", text=text, node="unknown")).facts
    assert (f.node, f.path, f.bad_interpreter, f.reason) == ("gpu3", "/usr/bin/python3.12", True, "No such file or directory")
