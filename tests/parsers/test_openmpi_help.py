"""openmpi_help: Open MPI's btl:no-nics help block and the launcher's aggregation line; other
Open MPI help messages are not this reader's."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import openmpi_help
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/openmpi_help"


def parse_text(text: str):
    return openmpi_help.parse(Artefact(path="t.log", text=text, node="node1"))


def test_charliecloud_142_block():
    text = (FIX / "charliecloud142_openib_no_nics.txt").read_text()
    assert openmpi_help.detect(text)
    res = parse_text(text)
    assert [(f.evidence.line, f.module, f.count) for f in res.facts] == [(2, "OpenFabrics (openib)", 1)]
    assert res.lines_used == 8  # the two opening lines, Module, Host, and the four closing lines


def test_1_6_block_without_note_and_host_named():
    # v1.6's text (no NOTE lines), indented as pasted in a thread; the host names the node
    text = ("  [[5397,1],43]: A high-performance Open MPI point-to-point messaging module\n"
            "  was unable to find any relevant network interfaces:\n\n"
            "  Module: usNIC\n    Host: rc008\n\n"
            "  Another transport will be used instead, although this may result in\n  lower performance.\n")
    art = Artefact(path="t.log", text=text, node="node1", node_from_folder=False)
    (f,) = openmpi_help.parse(art).facts
    assert (f.module, f.node) == ("usNIC", "rc008")


def test_aggregation_line():
    # orte/util/show_help.c "%d more process%s sent help message %s / %s" (the format, filled)
    line = "[gpu004:10178] 4 more processes have sent help message help-mpi-btl-base.txt / btl:no-nics"
    (f,) = parse_text(line).facts
    assert (f.module, f.count) == (None, 4)


@pytest.mark.parametrize("text", [
    # another help message of Open MPI (help-mpi-btl-openib.txt [no active ports found])
    "WARNING: There is at least non-excluded one OpenFabrics device found,\nbut there are no active ports detected",
    # the first line alone, cut before the second
    "[[60665,1],0]: A high-performance Open MPI point-to-point messaging module\nModule: OpenFabrics (openib)",
    "[gpu004:10178] 4 more processes have sent help message help-mpi-btl-openib.txt / no active ports found",
    "",
])
def test_not_no_nics(text):
    assert parse_text(text).facts == []


def test_osc_ucx_declined_line_of_ompi14086():
    text = (FIX / "ompi14086_osc_ucx_query_failed_tcp_only.txt").read_text()
    assert openmpi_help.detect(text)
    (f,) = openmpi_help.parse(Artefact(path="t.log", text=text, node="node1")).facts
    assert (f.kind, f.evidence.line, f.node) == ("openmpi_osc_ucx_declined", 1, "node1")


def test_openib_init_fail_create_q_of_ompi166():
    """help-mpi-btl-openib.txt [init-fail-create-q] (1.x to 4.1): the host, call, errno and HCA of
    the block; the adjust_cq / poll_device lines after it are not this reader's."""
    text = (FIX / "ompi166_openib_create_cq_ebusy_mlx4.txt").read_text()
    assert openmpi_help.detect(text)
    art = Artefact(path="t.log", text=text, node="node1", node_from_folder=False)
    (f,) = openmpi_help.parse(art).facts
    assert (f.kind, f.node, f.device, f.function, f.error, f.errno, f.source) == (
        "openmpi_openib_queue_create_failed", "rc008", "mlx4_0", "ibv_create_cq", "Device or resource busy", 16,
        "btl_openib.c:190")


@pytest.mark.parametrize("text", [
    # the opening lines alone (no call, no device)
    "The OpenFabrics (openib) BTL failed to initialize while trying to\ncreate an internal queue.  This typically",
    # init-fail-no-mem (ENOMEM: the locked-memory limit), the format of help-mpi-btl-openib.txt filled
    "The OpenFabrics (openib) BTL failed to initialize while trying to\nallocate some locked memory.  This typically "
    "can indicate that the\n\n  Local host:    n1\n  OMPI source:   btl_openib.c:190\n  Function:      ibv_create_cq()\n"
    "  Device:        mlx5_0\n  Memlock limit: 65536\n",
])
def test_not_create_q(text):
    assert parse_text(text).facts == []


# mpirun's runtime about its own daemons (help-errmgr-base.txt of ORTE and PRRTE), wild sweep 5E
def test_orte_node_died_names_the_remote_daemon():
    text = (FIX / "mpioperator152_lost_remote_daemon.txt").read_text()
    assert openmpi_help.detect(text)
    art = Artefact(path="t.log", text=text, node="launcher", node_from_folder=False)
    (f,) = openmpi_help.parse(art).facts
    assert (f.kind, f.event, f.runtime, f.evidence.line) == ("openmpi_daemon_failure", "daemon_lost", "ORTE", 1)
    assert f.remote_node == f.node == "tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19"


def test_orte_failed_daemon_launch_and_orted_not_found():
    (f,) = parse_text((FIX / "mpioperator152_unable_to_start_daemons.txt").read_text()).facts
    assert (f.event, f.runtime, f.remote_node) == ("launch_failed", "ORTE", None)
    (g,) = parse_text((FIX / "mpioperator488_orted_not_found.txt").read_text()).facts
    assert (g.event, g.runtime) == ("daemon_not_found", "ORTE")


@pytest.mark.parametrize("text, event, runtime, remote", [
    # PRRTE (Open MPI 5) fills "%s was unable to reliably start one or more daemons." with PRTE
    ("PRTE was unable to reliably start one or more daemons.\nThis usually is caused by:\n", "launch_failed", "PRTE", None),
    # [failed-daemon] (ORTE; PRRTE prints "An PRTE daemon ...")
    ("An ORTE daemon has unexpectedly failed after launch and before\ncommunicating back to mpirun.", "daemon_failed", "ORTE", None),
    ("An PRTE daemon has unexpectedly failed after launch and before", "daemon_failed", "PRTE", None),
    # [node-died] before 2.0: the hostname on its own line
    ("ORTE has lost communication with its daemon located on node:\n\n  hostname:  anode127\n", "daemon_lost", "ORTE", "anode127"),
    ("PRTE has lost communication with a remote daemon.\n\n  HNP daemon   : [prterun-m-34@0,0] on node m0\n"
     "  Remote daemon: [prterun-m-34@0,1] on node w1\n", "daemon_lost", "PRTE", "w1"),
    ("bash: line 1: prted: command not found", "daemon_not_found", "PRTE", None),
    ("orted: Command not found.", "daemon_not_found", "ORTE", None),
])
def test_daemon_forms(text, event, runtime, remote):
    assert openmpi_help.detect(text)
    art = Artefact(path="t.log", text=text, node="n0", node_from_folder=False)
    (f,) = openmpi_help.parse(art).facts
    assert (f.event, f.runtime, f.remote_node) == (event, runtime, remote)


@pytest.mark.parametrize("text", [
    "ORTE was unable to start one or more daemons",  # a retelling, not the help text
    "the launcher lost communication with a remote host",
    "bash: mpirun: command not found",  # the launcher itself missing is not a daemon failure
])
def test_daemon_near_misses(text):
    assert parse_text(text).facts == []


# a component Open MPI / PMIx could not open, and the init failure after it (wild sweep 5E)
def test_pmix_component_block_and_init_failure_once_a_node():
    # NVIDIA/pyxis#88: each block printed twice (two processes); the paste ends inside the second init block's first line
    text = (FIX / "pyxis88_pmix_psec_munge_not_found.txt").read_text()
    assert openmpi_help.detect(text)
    art = Artefact(path="job.out", text=text, node="pgp0202", node_from_folder=False)
    facts = openmpi_help.parse(art).facts
    comps = [f for f in facts if f.kind == "openmpi_component_missing"]
    inits = [f for f in facts if f.kind == "openmpi_init_failed"]
    assert [(c.project, c.framework, c.component, c.node, c.evidence.line) for c in comps] == [
        ("PMIX", "psec", "munge", "pgp0202", 1)]
    # the init block names no host: it is the process of the component block before it
    assert [(i.layer, i.failed, i.returned, i.node) for i in inits] == [("pmix_init", "pmix_psec_base_open failed", "-46", "pgp0202")]


def test_open_mpi_forms_of_the_same_blocks():
    # opal/mca/base/help-mca-base.txt filled by Open MPI; help-orte-runtime.txt's init failure
    text = ("A requested component was not found, or was unable to be opened.  This\n"
            "means that this component is either not installed or is unable to be\n"
            "used on your system (e.g., sometimes this means that shared libraries\n"
            "that the component requires are unable to be found/loaded).  Note that\n"
            "Open MPI stopped checking at the first component that it did not find.\n\n"
            "Host:      node7\nFramework: pml\nComponent: ucx\n"
            "It looks like orte_init failed for some reason; your parallel process is\n"
            "likely to abort.\n\n  opal_pmix_base_select failed\n  --> Returned value Not found (-13) instead of ORTE_SUCCESS\n")
    art = Artefact(path="t", text=text, node="n1", node_from_folder=False)
    c, i = openmpi_help.parse(art).facts
    assert (c.project, c.framework, c.component, c.node) == ("Open MPI", "pml", "ucx", "node7")
    assert (i.layer, i.failed, i.returned) == ("orte_init", "opal_pmix_base_select failed", "Not found (-13)")


def test_component_block_cut_before_its_fields_gives_nothing():
    text = "A requested component was not found, or was unable to be opened.  This\nmeans that this component\n"
    assert parse_text(text).facts == []


def test_pml_mismatch_ucx4224():
    # openucx/ucx#4224: two processes fell back to pml cm while rank 0 runs pml ucx (one fact a node and pair)
    path = FIX / "ucx4224_pml_cm_vs_ucx.txt"
    text = path.read_text()
    assert openmpi_help.detect(text)
    (f,) = openmpi_help.parse(Artefact(path=str(path), text=text, node="bundle")).facts
    assert (f.kind, f.node, f.local_pml, f.peer_pml, f.peer_host) == ("openmpi_pml_mismatch", "ndv2-1", "cm", "ucx", "ndv2-1")


@pytest.mark.parametrize(("line", "mine", "theirs", "peer_host"), [
    ("[c1:77] [[1234,1],3] selected pml ob1, but peer [[1234,1],0] on c0 selected pml ucx", "ob1", "ucx", "c0"),
    ("[[1234,1],3] selected pml ucx, but peer [[1234,1],0] on unknown selected pml cm", "ucx", "cm", None),
])
def test_pml_mismatch_forms(line, mine, theirs, peer_host):
    (f,) = openmpi_help.parse(Artefact(path="m.log", text=line + "\n", node="n1")).facts
    assert (f.local_pml, f.peer_pml, f.peer_host) == (mine, theirs, peer_host)


def test_pml_verbose_selection_lines_are_not_a_mismatch():
    text = ("[n1:1234] check:select: checking my pml ucx against process [[64574,1],0] pml ucx\n"
            "[n1:1234] select: component ucx selected\n")
    assert not openmpi_help.detect(text)
    assert openmpi_help.parse(Artefact(path="m.log", text=text, node="n1")).facts == []


def test_openib_ib_port_not_selected():
    # CONSTRUCTED from Open MPI v4.1.x: help-mpi-btl-openib.txt [ib port not selected] and [error in device init],
    # each between opal/util/show_help.c's dash lines, then orte/util/show_help.c's "%d more process%s sent help
    # message %s / %s" under the launcher's "[host:pid] "
    text = ('--------------------------------------------------------------------------\n'
            'By default, for Open MPI 4.0 and later, infiniband ports on a device\n'
            'are not used by default.  The intent is to use UCX for these devices.\n'
            'You can override this policy by setting the btl_openib_allow_ib MCA parameter\n'
            'to true.\n'
            '\n'
            '  Local host:              node7\n'
            '  Local adapter:           mlx5_0\n'
            '  Local port:              1\n'
            '\n'
            '--------------------------------------------------------------------------\n'
            '--------------------------------------------------------------------------\n'
            'WARNING: There was an error initializing an OpenFabrics device.\n'
            '\n'
            '  Local host:   node7\n'
            '  Local device: mlx5_0\n'
            '--------------------------------------------------------------------------\n'
            '[node7:1234] 11 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected\n')
    assert openmpi_help.detect(text)
    art = Artefact(path="t.log", text=text, node="node1", node_from_folder=False)
    res = openmpi_help.parse(art)
    facts = [f for f in res.facts if f.kind == "openmpi_openib_device_skipped"]
    assert [(f.reason, f.node, f.device, f.port, f.count) for f in facts] == [
        ("ib_port_not_selected", "node7", "mlx5_0", 1, 1),
        ("ib_port_not_selected", "node7", None, None, 11)]
    assert res.lines_used >= 8  # both heads, the five fields, the aggregation line


def test_openib_device_init_error_alone():
    # help-mpi-btl-openib.txt [error in device init] (the format, filled): no declined port before it
    text = ("WARNING: There was an error initializing an OpenFabrics device.\n\n"
            "  Local host:   node7\n  Local device: mlx5_3\n")
    art = Artefact(path="t.log", text=text, node="node1", node_from_folder=False)
    (f,) = openmpi_help.parse(art).facts
    assert (f.reason, f.node, f.device) == ("device_init_error", "node7", "mlx5_3")


def test_openib_head_line_alone_gives_no_fact():
    # the help text's title quoted alone (an issue title): nothing says which host or HCA
    res = parse_text("There was an error initializing an OpenFabrics device.\n")
    assert res.facts == []


def test_errors_are_fatal_banner_of_mpi_init_thread():
    """Open MPI's MPI_ERRORS_ARE_FATAL banner for MPI_Init_thread (Megatron-Bridge#650, a torchrun job): one init
    failure, its four lines read; with the '[host:pid] ' prefix the host is the node; beside the init-failure help
    block of its node (which it follows) no second fact."""
    text = (FIX / "megatronbridge650_mpi_init_thread_errors_are_fatal.txt").read_text()
    assert openmpi_help.detect(text)
    r = parse_text(text)
    assert [(f.kind, f.layer, f.failed, f.node, f.evidence.line) for f in r.facts] == [
        ("openmpi_init_failed", "MPI_Init_thread", None, "node1", 1)]
    assert r.lines_used == 4
    # Open MPI 1.x's form with the "[host:pid] " prefix and the error class (an Open MPI users' list post, stored)
    old = ("[wirth:40329] *** An error occurred in MPI_Init\n[wirth:40329] *** on a NULL communicator\n"
           "[wirth:40329] *** Unknown error\n[wirth:40329] *** MPI_ERRORS_ARE_FATAL: your MPI job will now abort\n")
    f = parse_text(old).facts
    assert [(x.layer, x.failed, x.node) for x in f] == [("MPI_Init", "Unknown error", "wirth")]
    ucx = (Path(__file__).resolve().parents[2] / "fixtures/artefacts/ucx_log/ncclt180_connect_docker_bridge.txt").read_text()
    # the banner of another call (MPI_Allgather), or its head alone, is no init failure
    assert parse_text("\n".join(ucx.splitlines()[7:13])).facts == []
    assert not openmpi_help.detect("*** An error occurred in MPI_Allgather\n")
    assert parse_text(text.splitlines()[0] + "\n").facts == []
    # after the init-failure block of the same node: one failure
    block = (FIX / "pyxis88_pmix_psec_munge_not_found.txt").read_text()
    inits = [x for x in parse_text(block + "\n" + text).facts if x.kind == "openmpi_init_failed"]
    assert [x.layer for x in inits] == ["pmix_init"]


def test_openib_init_one_device_btl_error_lines():
    """init_one_device's BTL_ERROR line per process ("[host][[job,vpid],rank][btl_openib_component.c:N:init_one_device]
    error obtaining device attributes for %s errno says %s", open-mpi/ompi#5810 verbatim): one fact a (host, HCA),
    none where the help block of this file already names that host and HCA; the MLNX_OFED line above each is read."""
    text = """ibv_exp_query_device: invalid comp_mask !!! (comp_mask = 0xffffffffffffffff valid_mask = 0x1)
[kube-infi-4][[6526,1],3][btl_openib_component.c:1670:init_one_device] error obtaining device attributes for mlx4_0 errno says Invalid argument
ibv_exp_query_device: invalid comp_mask !!! (comp_mask = 0xffffffffffffffff valid_mask = 0x1)
[kube-infi-5][[6526,1],22][btl_openib_component.c:1670:init_one_device] error obtaining device attributes for mlx4_0 errno says Invalid argument
ibv_exp_query_device: invalid comp_mask !!! (comp_mask = 0xffffffffffffffff valid_mask = 0x1)
[kube-infi-5][[6526,1],4][btl_openib_component.c:1670:init_one_device] error obtaining device attributes for mlx4_0 errno says Invalid argument
--------------------------------------------------------------------------
WARNING: There was an error initializing an OpenFabrics device.

  Local host:   kube-infi-4
  Local device: mlx4_0
--------------------------------------------------------------------------
"""
    res = parse_text(text)
    got = sorted((f.evidence.line, f.node, f.device, f.reason) for f in res.facts)
    assert got == [(4, "kube-infi-5", "mlx4_0", "device_init_error"), (8, "kube-infi-4", "mlx4_0", "device_init_error")]
    assert res.lines_used == 6 + 3
    # the library's line alone names no process or HCA: nothing
    assert parse_text("ibv_exp_query_device: invalid comp_mask !!! (comp_mask = 0x27800000002 valid_mask = 0x1)\n").facts == []


def test_horovod_310_btl_tcp_lines():
    # Open MPI 1.x-2.x BTL_ERROR lines, each inside the poster's backticks
    text = (FIX / "horovod310_btl_tcp_docker0.txt").read_text()
    assert openmpi_help.detect(text)
    res = parse_text(text)
    assert [(f.kind, f.evidence.line) for f in res.facts] == [("openmpi_tcp_unexpected_peer", 1),
                                                               ("openmpi_tcp_connect_failed", 3)]
    peer, conn = res.facts
    assert peer.got == "[[39817,1],3]"
    assert (conn.address, conn.port, conn.error, conn.errno, conn.docker_bridge) == ("172.17.0.1", None, "Connection refused", 111, True)
    assert res.lines_used == 2


@pytest.mark.parametrize("head", ["WARNING: Open MPI failed to TCP connect to a peer MPI process.  This\nshould not happen.\n",
                                  "WARNING: Open MPI failed to TCP connect to a peer MPI process via\nTCP.  This should not happen.\n"])
def test_client_connect_fail_block(head):
    # CONSTRUCTED: help-mpi-btl-tcp.txt [client connect fail] (3.x-4.x, then 5.x's text), values made up
    text = (head + "\nYour Open MPI job may now fail.\n\n  Local host: node7\n  PID:        4242\n"
            "  Message:    connect() to 10.1.0.7:1024 failed\n  Error:      No route to host (113)\n")
    assert openmpi_help.detect(text)
    art = Artefact(path="t.log", text=text, node="node1", node_from_folder=False)
    (f,) = openmpi_help.parse(art).facts
    assert (f.kind, f.node, f.address, f.port, f.error, f.errno, f.docker_bridge) == (
        "openmpi_tcp_connect_failed", "node7", "10.1.0.7", 1024, "No route to host", 113, False)


def test_tcp_words_in_prose_are_not_read():
    # CONSTRUCTED: the function's name in a sentence, no BTL_ERROR prefix
    text = "the hang is in mca_btl_tcp_endpoint_complete_connect, see btl_tcp_endpoint.c:796 where connect() to the peer failed\n"
    assert not openmpi_help.parse(Artefact(path="t.log", text=text, node="node1")).facts
