"""Open MPI's help messages (``opal_show_help``) about the network transports, in any program's
output (mpirun's, a rank's stderr, a batch job's log): the block Open MPI prints from its help
files, and the launcher's count of further copies it held back.

``btl:no-nics`` (opal/mca/btl/base/help-mpi-btl-base.txt; ompi/mca/btl/base/ before 2.0, the same
text since 1.6; the NOTE lines since 1.8), printed by ``mca_btl_base_error_no_nics`` when a
byte-transfer module (openib, usnic, ...) finds no interface it can drive on the node: Open MPI goes
on over another transport::

    %s: A high-performance Open MPI point-to-point messaging module
    was unable to find any relevant network interfaces:

    Module: %s
      Host: %s

    Another transport will be used instead, although this may result in
    lower performance.

    NOTE: You can disable this warning by setting the MCA parameter
    btl_base_warn_component_unused to 0.

and the launcher's aggregation of the same message from other ranks (orte/util/show_help.c:
``"%d more process%s sent help message %s / %s"``, "es have" / " has"). Sample block (real,
hpc/charliecloud#142, Open MPI examples on a node without InfiniBand)::

    [[60665,1],0]: A high-performance Open MPI point-to-point messaging module
    was unable to find any relevant network interfaces:

    Module: OpenFabrics (openib)
      Host: cn626

Also Open MPI 5's one-sided (RMA) UCX component declining a window (ompi/mca/osc/ucx/osc_ucx_component.c
``component_query``: ``OSC_UCX_ERROR("OSC UCX component priority set inside component query failed \\n ")``,
printed as ``[host:pid] osc_ucx_component.c:%d  Error: ...``), which Open MPI's maintainers read as the
normal outcome where UCX has no transport with the RMA/atomic features (only TCP): another osc
component serves the window (open-mpi/ompi#14086)::

    osc_ucx_component.c:379  Error: OSC UCX component priority set inside component query failed

And the openib BTL's ``init-fail-create-q`` block (opal/mca/btl/openib/help-mpi-btl-openib.txt,
ompi/mca/btl/openib/ before 2.0, the same text from 1.x to 4.1; printed by
``mca_btl_openib_show_init_error`` when a verbs call creating one of its queues fails with an errno
other than ENOMEM): the HCA could not give Open MPI a completion/receive queue. Sample (real,
open-mpi/ompi#166, a dual-port ConnectX after ``ibv_resize_cq``)::

    The OpenFabrics (openib) BTL failed to initialize while trying to
    create an internal queue.  This typically indicates a failed
    ...
      Local host:  rc008
      OMPI source: btl_openib.c:190
      Function:    ibv_create_cq()
      Error:       Device or resource busy (errno=16)
      Device:      mlx4_0

And mpirun's runtime reporting its own daemons (ORTE in Open MPI 1.x-4.x:
orte/mca/errmgr/base/help-errmgr-base.txt; PRRTE in Open MPI 5: src/mca/errmgr/base/help-errmgr-base.txt,
"%s was unable ..." filled with "PRTE"): ``failed-daemon-launch`` (mpirun could not start a daemon),
``failed-daemon`` (a daemon died before calling back), ``node-died`` (4.x and PRRTE name the HNP and
the remote daemon; before 2.0 "... with its daemon located on node:" and a ``hostname:`` line), and
the remote shell's answer when it finds no daemon binary, which comes before the launch block.
Samples (real, kubeflow/mpi-operator#152, an MPIJob whose worker pod died, then the restarted
launcher)::

    ORTE has lost communication with a remote daemon.

      HNP daemon   : [[43015,0],0] on node tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-launcher-gdqv7
      Remote daemon: [[43015,0],20] on node tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19

    ORTE was unable to reliably start one or more daemons.
    This usually is caused by:

and the shell's line (kubeflow/mpi-operator#488, an MPIJob whose worker image has no orted on PATH)::

    bash: orted: command not found

And the check Open MPI makes in MPI_INIT that every process selected the same point-to-point layer
(ompi/mca/pml/base/pml_base_select.c ``mca_pml_base_pml_check_selected``, opal_output(0) with the
``[host:pid] `` prefix; the same words from 1.x to 5.x), then its ``mpi_init:startup:pml-add-procs-fail``
block ("MPI_INIT has failed because at least one MPI process is unreachable from another"). Sample
(real, openucx/ucx#4224, Open MPI 4.1.1 with UCX 1.11.2 on one node, a second run of the same job)::

    [ndv2-1:25388] [[64574,1],8] selected pml cm, but peer [[64574,1],0] on ndv2-1 selected pml ucx

And the openib BTL's two blocks of Open MPI 4.x when it leaves an HCA out (opal/mca/btl/openib/
help-mpi-btl-openib.txt, removed with the BTL in 5.0): ``ib port not selected`` (btl_openib.c: 4.0 and
later leave InfiniBand ports to UCX unless btl_openib_allow_ib is true), then ``error in device init``
(btl_openib_component.c ``init_one_device``, its error exit: the device init returned an error, which
the first one makes it do), and the launcher's count of their further copies. Sample (the two
help texts of help-mpi-btl-openib.txt, v4.1.x, filled in as opal_show_help prints them, and
orte/util/show_help.c's "%d more process%s sent help message %s / %s")::

    By default, for Open MPI 4.0 and later, infiniband ports on a device
    are not used by default.  The intent is to use UCX for these devices.
    You can override this policy by setting the btl_openib_allow_ib MCA parameter
    to true.

      Local host:              node7
      Local adapter:           mlx5_0
      Local port:              1

    WARNING: There was an error initializing an OpenFabrics device.

      Local host:   node7
      Local device: mlx5_0
    [node7:1234] 11 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected

And the TCP BTL failing to connect to a peer process (opal/mca/btl/tcp/btl_tcp_endpoint.c
``mca_btl_tcp_endpoint_complete_connect``): in 1.x-2.x a BTL_ERROR line (``"[%s]%s[%s:%d:%s] "`` with
the host, the process name, the file, line and function, then ``connect() to %s failed: %s (%d)``); in
3.x-5.x the ``client connect fail`` block of help-mpi-btl-tcp.txt ("... a peer MPI process.  This" in
3.x-4.x, "... a peer MPI process via" / "TCP.  This" in 5.x), whose Message is ``connect() to %s:%d
failed`` and Error ``%s (%d)``; and the handshake reaching another process than the one dialled
(``mca_btl_tcp_endpoint_recv_connect_ack``: BTL_ERROR ``received unexpected process identifier %s``,
5.x ``received unexpected process identifier: got %s expected %s``), which Open MPI's users meet where
the hosts share an address (Docker's docker0 172.17.0.1 on every host). Samples (real, horovod/horovod#310,
Open MPI under Horovod in Docker containers on two hosts, fixed with ``-mca btl_tcp_if_exclude lo,docker0``)::

    [u10-154-66-206][[39817,1],2][btl_tcp_endpoint.c:638:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier [[39817,1],3]
    [u10-154-66-206][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to 172.17.0.1 failed: Connection refused (111)

Facts: ``openmpi_pml_mismatch`` per pair of layers once a node (the process's host, its layer, the
peer's layer and host). ``openmpi_btl_no_nics`` per block (the module, the host it names) and per aggregation line
(the module unknown, ``count`` the copies held back); ``openmpi_osc_ucx_declined`` per osc/ucx line
(the host of its prefix); ``openmpi_openib_queue_create_failed`` per init-fail-create-q block (the
host it names, the device, function, error and errno); ``openmpi_daemon_failure`` per launch-failure,
daemon-failure or lost-daemon block and per "orted: command not found" line (the lost daemon's node
as the fact's node where the block names it); ``openmpi_openib_device_skipped`` per ib-port-not-selected
or device-init-error block (the host and HCA it names; the port of the first) and per aggregation line
of either (``count``). A device-init-error block for an HCA whose ib-port-not-selected block came
before it in the file (and the init errors' aggregation line after declined ports) is that block's
consequence: its lines are read with it, no fact of its own. The head line alone (a quoted title) is
left to the catch-all. ``openmpi_tcp_connect_failed`` per connect line or client-connect-fail block (the host it
names, the peer's address, port, error and errno; ``docker_bridge`` for 172.17.0.0/16);
``openmpi_tcp_unexpected_peer`` per unexpected-process-identifier line. Empty input, or no such message: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    OpenmpiBtlNoNics, OpenmpiComponentMissing, OpenmpiDaemonFailure, OpenmpiInitFailed, OpenmpiOpenibDeviceSkipped,
    OpenmpiOpenibQueueCreateFailed,
    OpenmpiPmlMismatch,
    OpenmpiOscUcxDeclined, OpenmpiTcpConnectFailed, OpenmpiTcpUnexpectedPeer,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, iter_matches
from stethoscope.facts.parsers.ucx_log import DOCKER_BRIDGE  # Docker's default bridge, 172.17.0.0/16

KIND = "openmpi_help"

# [[60665,1],0]: A high-performance Open MPI point-to-point messaging module
# was unable to find any relevant network interfaces:
_HEAD = re.compile(r"A high-performance Open MPI point-to-point messaging module\s*$")
_HEAD2 = re.compile(r"^\W{0,8}was unable to find any relevant network interfaces:\s*$")
# Module: OpenFabrics (openib)
#   Host: cn626
_MODULE = re.compile(r"^\W{0,8}Module: (?P<module>[^\n]{1,80}?)\s*$")
_HOST = re.compile(r"^\W{0,8}Host: (?P<host>[A-Za-z0-9][\w.-]{0,62})\s*$")
# Another transport will be used instead, although this may result in
# lower performance.
# NOTE: You can disable this warning by setting the MCA parameter
# btl_base_warn_component_unused to 0.
_TAIL = re.compile(r"^\W{0,8}(?:Another transport will be used instead, although this may result in|lower performance\.|"
                   r"NOTE: You can disable this warning by setting the MCA parameter|btl_base_warn_component_unused to 0\.)\s*$")
# [gpu004:10178] 4 more processes have sent help message help-mpi-btl-base.txt / btl:no-nics
_MORE = re.compile(r"(?:\[(?P<host>[A-Za-z][\w.-]{0,62}):\d{1,10}\] )?(?P<count>\d{1,7}) more process(?:es have| has) sent "
                   r"help message help-mpi-btl-base\.txt / btl:no-nics")


# [sdfmilan251:1167543] osc_ucx_component.c:369  Error: OSC UCX component priority set inside component query failed
_OSC_UCX = re.compile(r"(?:\[(?P<host>[A-Za-z][\w.-]{0,62}):\d{1,10}\] )?osc_ucx_component\.c:\d{1,5}\s+Error: "
                      r"OSC UCX component priority set inside component query failed")


# The OpenFabrics (openib) BTL failed to initialize while trying to
# create an internal queue.  This typically indicates a failed
_CREATE_Q_HEAD = "The OpenFabrics (openib) BTL failed to initialize while trying to"
_CREATE_Q_HEAD2 = re.compile(r"^\W{0,8}create an internal queue\.")
#   Local host:  rc008
#   OMPI source: btl_openib.c:190
#   Function:    ibv_create_cq()
#   Error:       Device or resource busy (errno=16)
#   Device:      mlx4_0
_CREATE_Q_FIELD = re.compile(r"^\W{0,8}(?P<key>Local host|OMPI source|Function|Error|Device):[ \t]+(?P<value>[^\n]{1,200}?)\s*$")
_ERRNO = re.compile(r"^(?P<error>.*?) \(errno=(?P<errno>-?\d{1,5})\)$")


# ORTE was unable to reliably start one or more daemons.        (help-errmgr-base.txt [failed-daemon-launch], 1.x-4.x)
# PRTE was unable to reliably start one or more daemons.        (PRRTE's "%s was unable to reliably start ...")
_LAUNCH = re.compile(r"(?:^|[\s>*])(?P<rt>[A-Za-z][\w-]{0,15}) was unable to reliably start one or more daemons\b")
# An ORTE daemon has unexpectedly failed after launch and before  ([failed-daemon]; PRRTE: "An PRTE daemon ...")
_FAILED = re.compile(r"\bAn? (?P<rt>ORTE|PRTE) daemon has unexpectedly failed after launch")
# ORTE has lost communication with a remote daemon.             ([node-died], 2.0-4.x and PRRTE's "PRTE has ...")
# ORTE has lost communication with its daemon located on node:  ([node-died] before 2.0, then "  hostname:  %s")
_LOST = re.compile(r"\b(?P<rt>ORTE|PRTE) has lost communication with (?:a remote daemon|its daemon located on node:)")
#   Remote daemon: [[43015,0],20] on node tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19
_REMOTE = re.compile(r"^\W{0,8}Remote daemon\s*: \S+ on node (?P<node>[A-Za-z0-9(][\w.()-]{0,252})\s*$")
#   hostname:  anode127
_HOSTNAME = re.compile(r"^\W{0,8}hostname:\s+(?P<node>[A-Za-z0-9][\w.-]{0,252})\s*$")
# bash: orted: command not found                     (the remote shell run by ssh or the kubexec agent)
# bash: line 1: prted: command not found
# orted: Command not found.                          (csh, tcsh)
_NOT_FOUND = re.compile(r"(?:^|\b(?:ba|z|k|da|tc|c)?sh(?:: line \d+)?: )(?:/\S*/)?(?P<d>orted|prted): "
                        r"(?:command not found|Command not found\.|No such file or directory)")
_DAEMON_GATES = ("one or more daemons", "daemon has unexpectedly failed", "has lost communication with", "orted: ", "prted: ")


def _daemon_failures(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """The runtime's daemon blocks and the shell's "orted: command not found" lines."""
    lines = artefact.lines
    for n, line in iter_lines_with(_DAEMON_GATES, artefact):
        rt = remote = None
        if (m := _LAUNCH.search(line)) is not None:
            event, rt = "launch_failed", m["rt"]
        elif (m := _FAILED.search(line)) is not None:
            event, rt = "daemon_failed", m["rt"]
        elif (m := _LOST.search(line)) is not None:
            event, rt = "daemon_lost", m["rt"]
            for follow in lines[n:n + 5]:  # a blank, the HNP line, the remote daemon's (or the hostname line)
                if (r := _REMOTE.match(follow) or _HOSTNAME.match(follow)) is not None:
                    remote = r["node"]
                    result.lines_used += 1
                    break
        elif (m := _NOT_FOUND.search(line)) is not None:
            event, rt = "daemon_not_found", "ORTE" if m["d"] == "orted" else "PRTE"
        else:
            continue
        result.lines_used += 1
        fb.add(OpenmpiDaemonFailure, n, node=artefact.node_for(remote), event=event, runtime=rt, remote_node=remote)


# A requested component was not found, or was unable to be opened.  This          (help-mca-base.txt [find-available:not-valid]:
# ...                                                                               opal/mca/base in Open MPI, src/mca/base in PMIx
# PMIx stopped checking at the first component that it did not find.              and PRRTE; "%s stopped checking", the project)
#
# Host:      pgp0202
# Framework: psec
# Component: munge                                                                  (NVIDIA/pyxis#88)
_COMP_HEAD = "A requested component was not found, or was unable to be opened."
_COMP_STOPPED = re.compile(r"(?:^|\s)(?P<project>[A-Za-z][\w ]{0,15}?) stopped checking at the first component that it did not find")
_COMP_FIELD = re.compile(r"^\W{0,8}(?P<key>Host|Framework|Component):[ \t]+(?P<value>[\w.:-]{1,128})\s*$")
# It looks like pmix_init failed for some reason; your parallel process is       (help-*-runtime.txt [*:startup:internal-failure]:
# ...                                                                             opal_init, orte_init, pmix_init, prte_init, MPI_INIT)
#   pmix_psec_base_open failed
#   --> Returned value -46 instead of PMIX_SUCCESS
_INIT = re.compile(r"It looks like (?P<layer>[A-Za-z_]{2,24}) failed for some reason")
_INIT_RETURNED = re.compile(r"^\W{0,8}--> Returned (?:value )?(?P<ret>[^\n]{1,60}?) instead of \w{1,10}_SUCCESS\s*$")


def _init_and_components(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """Each component-not-found block and each init-failure block once a node (help blocks repeat per process)."""
    lines = artefact.lines
    seen: set[tuple] = set()
    hosts: list[tuple[int, str]] = []  # (line, node) of each component block: the process an init block after it is
    for n, line in iter_lines_with((_COMP_HEAD,), artefact):
        got: dict[str, str] = {}
        project = None
        for follow in lines[n:n + 12]:  # the help text's four lines, a blank, the three fields
            if (m := _COMP_FIELD.match(follow)) and m["key"] not in got:
                got[m["key"]] = m["value"]
            elif project is None and (m := _COMP_STOPPED.search(follow)):
                project = m["project"]
            if len(got) == 3:
                break
        if "Framework" not in got or "Component" not in got:
            continue  # the opening alone (a cut paste): nothing says which component
        node = artefact.node_for(got.get("Host"))
        hosts.append((n, node))
        result.lines_used += 1 + len(got)
        if (node, got["Framework"], got["Component"]) not in seen:
            seen.add((node, got["Framework"], got["Component"]))
            fb.add(OpenmpiComponentMissing, n, node=node, project=project, framework=got["Framework"],
                   component=got["Component"])
    for n, line in iter_lines_with(("failed for some reason",), artefact):
        if (m := _INIT.search(line)) is None:
            continue
        failed = returned = None
        for i, follow in enumerate(lines[n:n + 10]):  # the help text, a blank, the step, its returned value
            if (r := _INIT_RETURNED.match(follow)) is not None:
                returned = r["ret"]
                failed = lines[n + i - 1].strip() or None if i else None
                break
        result.lines_used += 1
        node = next((h for ln, h in reversed(hosts) if ln < n), artefact.node)  # the block names no host of its own
        if (node, m["layer"], failed) not in seen:
            seen.add((node, m["layer"], failed))
            fb.add(OpenmpiInitFailed, n, node=node, layer=m["layer"], failed=failed, returned=returned)


# Open MPI's MPI_ERRORS_ARE_FATAL handler (ompi/errhandler/errhandler_predefined.c backend_fatal_aggregate /
# backend_fatal_no_aggregate: "*** An error occurred in %s", then "*** reported by process [%u,%u]", where it
# happened ("*** on communicator %s", "*** on a NULL communicator", "*** before MPI was initialized"), the error
# class string, and "*** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort," "***    and
# potentially your MPI job)"; 1.x: "(your MPI job will now abort)"), with or without the "[host:pid] " prefix:
#   *** An error occurred in MPI_Init_thread                         (NVIDIA-NeMo/Megatron-Bridge#650, torchrun job)
#   *** on a NULL communicator
#   *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,
#   ***    and potentially your MPI job)
#   [10-192-80-132:07356] *** An error occurred in MPI_Allgather     (NVIDIA/nccl-tests#180)
#   [10-192-80-132:07356] *** reported by process [1740308481,1]
#   [10-192-80-132:07356] *** on communicator MPI_COMM_WORLD
#   [10-192-80-132:07356] *** MPI_ERR_OTHER: known error not in list
_FATAL_HEAD = re.compile(r"^(?:\[(?P<host>[\w.-]{1,128}):\d{1,10}\] )?\*\*\* An error occurred in (?P<func>MPI_\w{1,40}?)\s*$")
_FATAL_LINE = re.compile(r"^(?:\[[\w.-]{1,128}:\d{1,10}\] )?\*\*\*[ \t]{1,8}(?P<what>[^\n]{0,158}[^\s])\s*$")
_FATAL_SKIP = ("reported by process ", "on communicator ", "on a NULL ", "before MPI was initialized",
               "after MPI was finalized", "MPI_ERRORS_ARE_FATAL", "and potentially your MPI job")


def _fatal_init(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """MPI_ERRORS_ARE_FATAL's banner for MPI_Init / MPI_Init_thread: the process could not initialise MPI and
    aborts. Once a node, and not beside an init-failure help block of that node (the banner follows it: one
    failure). The banner of another MPI call, or its head without the MPI_ERRORS_ARE_FATAL line (a quote, a cut
    paste), is left alone."""
    lines = artefact.lines
    earlier = sorted((f.evidence.line, f.node) for f in result.facts if f.kind == "openmpi_init_failed")
    have = {node for _, node in earlier}
    for n, line in iter_lines_with(("*** An error occurred in MPI_Init",), artefact):
        if (m := _FATAL_HEAD.match(line)) is None or m["func"] not in ("MPI_Init", "MPI_Init_thread"):
            continue
        follow = []
        for nxt in lines[n:n + 6]:  # reported by, where, the error class, the two closing lines
            if (f := _FATAL_LINE.match(nxt)) is None or f["what"].startswith("An error occurred in "):
                break
            follow.append(f["what"])
        if not any(w.startswith("MPI_ERRORS_ARE_FATAL") for w in follow):
            continue
        result.lines_used += 1 + len(follow)
        # a banner without the "[host:pid] " prefix after an init-failure block: the process that printed the block
        node = artefact.node_for(m["host"]) if m["host"] else next((nd for ln, nd in reversed(earlier) if ln < n), artefact.node)
        if node in have:
            continue
        have.add(node)
        cls = next((w for w in follow if not w.startswith(_FATAL_SKIP)), None)
        fb.add(OpenmpiInitFailed, n, node=node, layer=m["func"], failed=cls)


# [ndv2-1:25388] [[64574,1],8] selected pml cm, but peer [[64574,1],0] on ndv2-1 selected pml ucx
#   (pml_base_select.c: "%s selected pml %s, but peer %s on %s selected pml %s", OMPI_NAME_PRINT of both processes;
#    the peer's host "unknown" when the modex has none)
_PML = re.compile(r"(?:\[(?P<host>[\w.-]{1,128}):\d{1,10}\] )?\[\[\d{1,10},\d{1,10}\],\d{1,10}\] selected pml (?P<mine>\w{1,32}), "
                  r"but peer \[\[\d{1,10},\d{1,10}\],\d{1,10}\] on (?P<peer_host>\S{1,128}) selected pml (?P<theirs>\w{1,32})")


def _pml_mismatches(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    seen: set[tuple] = set()
    for n, m in iter_matches(_PML, artefact):
        result.lines_used += 1
        node = artefact.node_for(m["host"])
        if (node, m["mine"], m["theirs"]) not in seen:  # every process of the other layer prints one
            seen.add((node, m["mine"], m["theirs"]))
            fb.add(OpenmpiPmlMismatch, n, node=node, local_pml=m["mine"], peer_pml=m["theirs"],
                   peer_host=None if m["peer_host"] == "unknown" else m["peer_host"])


# By default, for Open MPI 4.0 and later, infiniband ports on a device      (help-mpi-btl-openib.txt [ib port not selected])
# are not used by default.  The intent is to use UCX for these devices.
#   Local host:              node7
#   Local adapter:           mlx5_0
#   Local port:              1                                                (its "%s"/"%d" filled in)
_PORT_HEAD = "By default, for Open MPI 4.0 and later, infiniband ports on a device"
# WARNING: There was an error initializing an OpenFabrics device.           ([error in device init])
#   Local host:   node7
#   Local device: mlx5_0
_INIT_HEAD = "There was an error initializing an OpenFabrics device."
_OPENIB_FIELD = re.compile(r"^\W{0,8}(?P<key>Local host|Local adapter|Local device|Local port):[ \t]+(?P<value>[\w.:-]{1,128})\s*$")
# [node7:1234] 11 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected
#   (orte/util/show_help.c opal_output(0, "%d more process%s sent help message %s / %s"), its "[host:pid] " as in
#   "[gpu004:10178] 4 more processes have sent help message help-mpi-btl-base.txt / btl:no-nics")
_OPENIB_MORE = re.compile(r"(?:\[(?P<host>[A-Za-z][\w.-]{0,62}):\d{1,10}\] )?(?P<count>\d{1,7}) more process(?:es have| has) sent "
                          r"help message help-mpi-btl-openib\.txt / (?P<topic>ib port not selected|error in device init)")
_OPENIB_GATES = (_PORT_HEAD, _INIT_HEAD, "help-mpi-btl-openib.txt / ")
# [kube-infi-4][[6526,1],3][btl_openib_component.c:1670:init_one_device] error obtaining device attributes for mlx4_0 errno says Invalid argument
#   (open-mpi/ompi#5810, #5914; BTL_ERROR of opal/mca/btl/base/btl_base_error.h prints "[%s]%s[%s:%d:%s] " with the node
#   name, OPAL_NAME_PRINT, __FILE__, __LINE__, __func__; btl_openib_component.c init_one_device: "error obtaining device
#   attributes for %s errno says %s", "error obtaining device context for %s errno says %s"): the verbs query or open
#   of the HCA failed in that process, init_one_device takes its error exit (the [error in device init] block after it)
_BTL_INIT = re.compile(r"^\[(?P<host>[^\]\[\s]{1,253})\]\[\[\d{1,10},\d{1,10}\],\d{1,10}\]\[btl_openib_component\.c:\d{1,6}:init_one_device\] "
                       r"error obtaining device (?:attributes|context) for (?P<dev>[\w.:-]{1,64}) errno says ")
# ibv_exp_query_device: invalid comp_mask !!! (comp_mask = 0xffffffffffffffff valid_mask = 0x1)
#   (open-mpi/ompi#5810, #5914: MLNX_OFED 4.x's experimental verbs refusing the attribute mask Open MPI's openib passed,
#   printed by that libibverbs on the line above the BTL_ERROR it causes; Open MPI fixed the uninitialised mask in
#   open-mpi/ompi#6038, "btl/openib: fix a problem with ib query")
_EXP_COMP_MASK = re.compile(r"^\s*ibv_exp_query_device: invalid comp_mask !!! \(comp_mask = 0x[0-9a-fA-F]{1,16} valid_mask = 0x[0-9a-fA-F]{1,16}\)")


def _openib_skipped(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """The openib BTL's ib-port-not-selected and device-init-error blocks, and their aggregation lines."""
    lines = artefact.lines
    declined: set[tuple[str, str | None]] = set()  # (node, HCA) of each ib-port-not-selected block so far
    blocks: set[tuple[str, str | None]] = set()  # (node, HCA) of each device-init-error block read
    for n, line in iter_lines_with(_OPENIB_GATES, artefact):
        if (m := _OPENIB_MORE.search(line)) is not None:
            result.lines_used += 1
            node = artefact.node_for(m["host"])
            port_topic = m["topic"] == "ib port not selected"
            if port_topic:
                declined.add((node, None))
            elif any(d[0] == node for d in declined):
                continue  # the other processes' init errors that follow their declined ports: read with them
            fb.add(OpenmpiOpenibDeviceSkipped, n, node=node, reason="ib_port_not_selected" if port_topic else "device_init_error",
                   count=int(m["count"]))
            continue
        if _PORT_HEAD in line:
            reason, span, device_key = "ib_port_not_selected", 10, "Local adapter"  # the help text's four lines, a blank, three fields
        elif _INIT_HEAD in line:
            reason, span, device_key = "device_init_error", 4, "Local device"  # a blank, two fields
        else:
            continue
        got: dict[str, str] = {}
        for follow in lines[n:n + span]:
            if (f := _OPENIB_FIELD.match(follow)) and f["key"] not in got:
                got[f["key"]] = f["value"]
        if not got:
            continue  # the head line alone (a quoted title, a cut paste): nothing says which host or HCA
        result.lines_used += 1 + len(got)
        port = got.get("Local port")
        node, device = artefact.node_for(got.get("Local host")), got.get(device_key)
        if reason == "ib_port_not_selected":
            declined.add((node, device))
        elif (node, device) in declined:
            continue  # the init error the declined port makes init_one_device return: read with that block
        fb.add(OpenmpiOpenibDeviceSkipped, n, node=node, reason=reason, device=device,
               port=int(port) if port and port.isdigit() else None)
        blocks.add((node, device))
    _openib_init_errors(artefact, fb, result, blocks | declined)


def _openib_init_errors(artefact: Artefact, fb: FactBuilder, result: ParseResult, known: set[tuple[str, str | None]]) -> None:
    """init_one_device's BTL_ERROR lines (and the experimental-verbs line that causes one): a device-init error once a
    (node, HCA) that no help block of this file already reports (one process prints the block, every process the line)."""
    lines = artefact.lines
    for n, line in iter_lines_with(("init_one_device] error obtaining device ",), artefact):
        if (m := _BTL_INIT.match(line)) is None:
            continue
        result.lines_used += 1
        if n >= 2 and _EXP_COMP_MASK.match(lines[n - 2]):
            result.lines_used += 1
        key = (artefact.node_for(m["host"]), m["dev"])
        if key in known:
            continue
        known.add(key)
        fb.add(OpenmpiOpenibDeviceSkipped, n, node=key[0], reason="device_init_error", device=key[1])


# The TCP BTL's BTL_ERROR prefix "[%s]%s[%s:%d:%s] " (host, process name, __FILE__, __LINE__, __func__; __FILE__ a path
# in VPATH builds), then the connect failure (1.x-2.x) or the handshake's wrong peer (1.x-5.x):
# [u10-154-66-206][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to 172.17.0.1 failed: Connection refused (111)
# [u10-154-66-206][[39817,1],2][btl_tcp_endpoint.c:638:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier [[39817,1],3]
#   (horovod/horovod#310; 5.x: "received unexpected process identifier: got [[x,y],z] expected [[x,y],w]")
_BTL_PREFIX = r"\[(?P<host>[^\]\s]{1,253})\]\[\[[^\]\s]{1,40}\],[^\]\s]{1,20}\]\[[^\]\s]{0,200}?btl_tcp_endpoint\.c:\d{1,5}:\w{1,60}\] "
_TCP_CONNECT = re.compile(_BTL_PREFIX + r"connect\(\) to (?P<addr>[0-9A-Fa-f.:]{2,45}?) failed: (?P<err>[A-Za-z][A-Za-z ]{0,60}?) "
                          r"\((?P<errno>\d{1,4})\)")
_TCP_PEER = re.compile(_BTL_PREFIX + r"received unexpected process identifier:? (?:got )?(?P<got>\[\[[^\]\s]{1,40}\],[^\]\s]{1,20}\])?")
# WARNING: Open MPI failed to TCP connect to a peer MPI process.  This      (help-mpi-btl-tcp.txt [client connect fail], 3.x-4.x)
# WARNING: Open MPI failed to TCP connect to a peer MPI process via         (5.x, "TCP.  This should not happen." next)
_TCP_HELP = "WARNING: Open MPI failed to TCP connect to a peer MPI process"
#   Local host: node1
#   PID:        1234
#   Message:    connect() to 172.17.0.1:1024 failed
#   Error:      Connection refused (111)
_TCP_FIELD = re.compile(r"^\W{0,8}(?P<key>Local host|PID|Message|Error):[ \t]+(?P<value>[^\n]{1,200}?)\s*$")
_TCP_MESSAGE = re.compile(r"connect\(\) to (?P<addr>[0-9A-Fa-f.:]{2,45}):(?P<port>\d{1,5}) failed")


def _tcp_failures(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    text = artefact.text
    if "btl_tcp_endpoint.c:" in text:
        for n, line in iter_lines_with(("btl_tcp_endpoint.c:",), artefact):
            if m := _TCP_CONNECT.search(line):
                result.lines_used += 1
                fb.add(OpenmpiTcpConnectFailed, n, node=artefact.node_for(m["host"]), address=m["addr"],
                       error=m["err"].strip(), errno=int(m["errno"]), docker_bridge=DOCKER_BRIDGE.match(m["addr"]) is not None)
            elif m := _TCP_PEER.search(line):
                result.lines_used += 1
                fb.add(OpenmpiTcpUnexpectedPeer, n, node=artefact.node_for(m["host"]), got=m["got"])
    lines = artefact.lines
    for n, _line in iter_lines_with((_TCP_HELP,), artefact):
        got: dict[str, str] = {}
        for follow in lines[n:n + 12]:  # the rest of the text, a blank, the four fields
            if (m := _TCP_FIELD.match(follow)) and m["key"] not in got:
                got[m["key"]] = m["value"]
        msg = _TCP_MESSAGE.search(got.get("Message", ""))
        em = _ERRNO_PAREN.match(got.get("Error", ""))
        result.lines_used += 1 + len(got)
        addr = msg["addr"] if msg else None
        fb.add(OpenmpiTcpConnectFailed, n, node=artefact.node_for(got.get("Local host")), address=addr,
               port=int(msg["port"]) if msg else None, error=em["error"] if em else got.get("Error"),
               errno=int(em["errno"]) if em else None,
               docker_bridge=addr is not None and DOCKER_BRIDGE.match(addr) is not None)


#: the help block's Error field: "Connection refused (111)"
_ERRNO_PAREN = re.compile(r"^(?P<error>.*?) \((?P<errno>-?\d{1,5})\)$")


def detect(head: str) -> bool:
    return (_TCP_HELP in head or ("btl_tcp_endpoint.c:" in head and (_TCP_CONNECT.search(head) or _TCP_PEER.search(head)) is not None)
            or "A high-performance Open MPI point-to-point messaging module" in head or _MORE.search(head) is not None
            or _CREATE_Q_HEAD in head
            or ("osc_ucx_component" in head and _OSC_UCX.search(head) is not None)
            or (any(g in head for g in _DAEMON_GATES) and any(r.search(head) for r in (_LAUNCH, _FAILED, _LOST, _NOT_FOUND)))
            or _COMP_HEAD in head or ("failed for some reason" in head and _INIT.search(head) is not None)
            or ("*** An error occurred in MPI_Init" in head
                and any(_FATAL_HEAD.match(line) for line in head.splitlines() if "*** An error occurred in MPI_Init" in line))
            or ("selected pml" in head and _PML.search(head) is not None)
            or _PORT_HEAD in head or _INIT_HEAD in head or _OPENIB_MORE.search(head) is not None
            or ("init_one_device] error obtaining device " in head
                and any(_BTL_INIT.match(line) for line in head.splitlines() if "init_one_device]" in line)))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    for n, line in iter_lines_with(("A high-performance Open MPI point-to-point messaging module",), artefact):
        if not _HEAD.search(line) or n >= len(lines) or not _HEAD2.match(lines[n]):
            continue
        module = host = None
        used = 2
        for follow in lines[n + 1:n + 11]:  # Module, Host and the closing text follow within ten lines
            if (m := _MODULE.match(follow)) and module is None:
                module = m["module"]
            elif (m := _HOST.match(follow)) and host is None:
                host = m["host"]
            elif not _TAIL.match(follow):
                continue
            used += 1
        result.lines_used += used
        fb.add(OpenmpiBtlNoNics, n, node=artefact.node_for(host), module=module)
    for n, m in iter_matches(_MORE, artefact):
        result.lines_used += 1
        fb.add(OpenmpiBtlNoNics, n, node=artefact.node_for(m["host"]), count=int(m["count"]))
    for n, line in iter_lines_with((_CREATE_Q_HEAD,), artefact):
        if n >= len(lines) or not _CREATE_Q_HEAD2.match(lines[n]):
            continue
        got: dict[str, str] = {}
        for follow in lines[n + 1:n + 16]:  # the help text's remaining five lines, a blank, the five fields
            if (m := _CREATE_Q_FIELD.match(follow)) and m["key"] not in got:
                got[m["key"]] = m["value"]
        if "Function" not in got and "Device" not in got:
            continue  # the opening lines alone: nothing says which call or HCA
        em = _ERRNO.match(got.get("Error", ""))
        result.lines_used += 2 + len(got)
        fb.add(OpenmpiOpenibQueueCreateFailed, n, node=artefact.node_for(got.get("Local host")),
               device=got.get("Device"), function=got.get("Function", "").removesuffix("()") or None,
               error=em["error"] if em else got.get("Error"), errno=int(em["errno"]) if em else None,
               source=got.get("OMPI source"))
    for n, m in iter_matches(_OSC_UCX, artefact):
        result.lines_used += 1
        fb.add(OpenmpiOscUcxDeclined, n, node=artefact.node_for(m["host"]))
    _daemon_failures(artefact, fb, result)
    _init_and_components(artefact, fb, result)
    _fatal_init(artefact, fb, result)
    _pml_mismatches(artefact, fb, result)
    _openib_skipped(artefact, fb, result)
    _tcp_failures(artefact, fb, result)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"A high-performance Open MPI point-to-point messaging module",
              r"\d more process(?:es have| has) sent help message help-mpi-btl-base\.txt / btl:no-nics",
              r"osc_ucx_component\.c:\d+\s+Error: OSC UCX component priority set inside component query failed",
              r"The OpenFabrics \(openib\) BTL failed to initialize while trying to",
              r"(?:ORTE|PRTE) was unable to reliably start one or more daemons",
              r"An? (?:ORTE|PRTE) daemon has unexpectedly failed after launch",
              r"(?:ORTE|PRTE) has lost communication with (?:a remote daemon|its daemon located on node:)",
              r"\b(?:ba|z|k|da)?sh(?:: line \d+)?: (?:/\S*/)?(?:orted|prted): command not found",
              r"A requested component was not found, or was unable to be opened\.", r"It looks like [A-Za-z_]{2,24} failed for some reason",
              r"\*\*\* An error occurred in MPI_Init(?:_thread)?\b",
              _PML.pattern, r"By default, for Open MPI 4\.0 and later, infiniband ports on a device",
              r"There was an error initializing an OpenFabrics device\.", _OPENIB_MORE.pattern,
              r"\[btl_openib_component\.c:\d+:init_one_device\] error obtaining device (?:attributes|context) for ",
              r"btl_tcp_endpoint\.c:\d+:\w+\] (?:connect\(\) to \S+ failed: |received unexpected process identifier)", _TCP_HELP)
