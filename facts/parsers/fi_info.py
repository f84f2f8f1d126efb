"""``fi_info`` (libfabric's provider query, ``fi_info -p efa``): which fabric providers answer.

Sample content (aws/aws-graviton-getting-started HPC/README.md; aws/aws-ofi-nccl#1020)::

    fi_info -p efa
    fi_getinfo: -61
    provider: efa
        fabric: EFA-fe80::94:3dff:fe89:1b70
        domain: efa_0-rdm
    $ fi_info -p efa
    -61

libfabric's own log lines, printed by fi_info or any program under ``FI_LOG_LEVEL`` (ofiwg/libfabric
src/log.c: 1.5-1.8 ``libfabric:<prov>:<subsys>:<func>():<line><<level>> ``, 1.9-1.14 with the pid
first, 1.15-2.x ``libfabric:<pid>:<time>:<log prefix>:<prov>:<subsys>:...``)::

    libfabric:...:efa:ep_data:efa_device_construct_gid():47<warn> ibv_open_device failed! errno: 2   (libfabric#12708)
    libfabric:...:core:core:fi_getinfo_():1391<warn> fi_getinfo: provider efa output empty list
    libfabric:151205:1753871244::core:core:fi_getinfo_():1385<info> fi_getinfo: provider ofi_rxm returned -61 (No data available)   (libfabric#11256)

are read at ``<warn>`` only: core's "fi_getinfo: provider X output empty list" and "... returned -N
(...)" (src/fabric.c: a warning only for the provider asked for by name; info for the others a
layered provider tries) as ``fi_info_error`` of that provider, any other warning as
``libfabric_warning``; the EFA provider's report of an operation that completed with an error
(``efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address My EFA addr: ... Peer host
id: i-0ce6d3d57139f053c (7)``, aws-ofi-nccl#346) is one with what ``operation_error``, its numbers,
text and peer. Info, debug and trace lines are libfabric's progress, not a result: they
count for nothing (a log of them alone shows no provider working).

The EFA installer's self-test (``efa_installer.sh`` runs ``/opt/amazon/efa/test/efa_test.sh`` after
installing; people run the script by hand too) says which step failed, on stderr::

    Error: required libfabric binaries not found.
    Error: EFA libfabric provider not detected.          (its ``fi_info -p efa`` found no device)
    Error: fi_pingpong test timed out.                   (its loopback fi_pingpong over EFA, 8 s)
    Error: fi_pingpong test returned 103.                (aws/aws-cdi-sdk#48)

and the installer then closes with its own words (before 1.2x, aws-samples/aws-efa-nccl-baseami-pipeline#2;
later, wrapped over three lines)::

    An EFA device has been detected but a ping test has failed. Please consult the
    EFA documentation to verify your configuration.
    EFA installation is complete and an EFA device has
    been detected but a ping test failed. Please consult
    the EFA documentation to verify your configuration.

each read as one ``efa_self_test`` (the installer's closing words join the step's fact before
them as ``device_detected``; alone they are a failed ping test).

Facts: ``fi_provider`` per provider entry (provider, fabric, domain), and ``fi_info_error``
when the query failed: ``fi_getinfo: -N`` (libfabric's own message, ``(No data available)``
after it from 1.x on), or a bare ``-N`` on the line right after an ``fi_info`` command, as
people paste it. -61 is FI_ENODATA: no provider of that name found a device, the usual
answer in a container without the EFA/verbs devices or on a host without the driver.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    EfaSelfTest, FiInfoError, FiProvider, LibfabricWarning,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "fi_info"


# $ fi_info -p efa
# fi_info -p lnx -c FI_TAGGED -t FI_EP_RDM
_COMMAND = re.compile(r"^(?:\S*[$#>]\s*)?(?:sudo\s+)?(?:\S*/)?fi_info\b(?P<args>[^\n]*)$", re.M)
_PROVIDER_ARG = re.compile(r"(?:-p|--provider)[ =](?P<p>[\w;+:-]+)")
# fi_getinfo: -61
# fi_getinfo: -61 (No data available)
_GETINFO = re.compile(r"^\s*fi_getinfo: (?P<code>-\d+)(?: \((?P<msg>[^)\n]*)\))?\s*$", re.M)
# -61        (the line right after `$ fi_info -p efa`, aws-ofi-nccl#1020)
_BARE = re.compile(r"^\s*(?P<code>-\d+)\s*$")
# provider: efa
#     fabric: EFA-fe80::94:3dff:fe89:1b70
#     domain: efa_0-rdm
_ENTRY = re.compile(r"^provider: (?P<provider>\S+)[ \t]*\n[ \t]+fabric: (?P<fabric>\S+)[ \t]*\n(?:[ \t]+domain: (?P<domain>\S+))?", re.M)
# libfabric:...:efa:ep_data:efa_device_construct_gid():47<warn> ibv_open_device failed! errno: 2          (libfabric#12708)
# libfabric:151205:1753871244:ofi_rxm:core:core:ofi_layering_ok():1275<info> Need core provider, skipping ofi_rxm   (libfabric#11256)
# libfabric:72089:efa:fabric:efa_get_matching_info():705<info> found match for interface (null) EFA-fe80::d0:59ff:feea:faa   (1.9-1.14)
# the fields before the function: [pid:[time:]][log prefix:]provider:subsystem (the provider and subsystem are the last two)
_LOG = re.compile(r"^libfabric:(?P<fields>[^\s()<>]{0,200}):(?P<func>\w+)\(\):(?P<line>\d+)<(?P<level>warn|trace|info|debug)> ?(?P<msg>(?:.*\S)?)\s*$", re.M)
# the classifier's signature of such a line (no bounded run: the RE2 set stays small)
_LOG_SIGNATURE = re.compile(r"^libfabric:[^\n]*\(\):\d+<(?:warn|trace|info|debug)>", re.M)
# fi_getinfo: provider efa output empty list       fi_getinfo: provider efa returned -61 (No data available)   (src/fabric.c)
_LOG_GETINFO = re.compile(r"^fi_getinfo: provider (?P<prov>[\w;+-]+) (?:output empty list|returned (?P<code>-\d+)(?: \((?P<msg>[^)]*)\))?)")
# The EFA provider failing to open a device while it builds its device list (prov/efa/src/efa_device.c, 1.16-2.6):
# ibv_open_device failed! errno: 2        efa_device_construct_gid failed for device_idx 0, err=-2   (libfabric#12708)
# efa_device_construct_data failed for device rdmap79s0, err=-1                                       (2.x, filled in)
_DEVICE_OPEN = re.compile(r"^(?:ibv_open_device failed|efa_device_construct_(?:gid|data) failed for device)")
# The EFA provider reporting a send, receive or RMA that completed with an error (prov/efa; the number in
# parentheses is the device's completion status, efa_errno.h EFA_IO_COMP_STATUS_*, or the provider's own above 4096):
# err: 5, message: Invalid address My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 Peer host id: i-0ce6d3d57139f053c (7)
#   (aws/aws-ofi-nccl#346, efa_rdm_txe_handle_error(); rdm/efa_rdm_ope.c v1.18.0-v2.3.0 EFA_WARN "err: %d, message: %s (%d)",
#    the message efa_rdm_write_error_msg's "%s My EFA addr: %s My host id: %s Peer EFA addr: %s Peer host id: %s")
# rxr_cq_write_tx_error: err: 20, prov_err: Not a directory (20)
#   (aws/aws-ofi-nccl#156; rxr/rxr_cq.c v1.14.0-v1.16.x "rxr_cq_write_%s_error: err: %d, prov_err: %s (%d)", v1.17 adds
#    " our address: %s, peer address %s")
# EFA provider internal txe failure err: 13, message: Unresponsive remote (was previously responsive) (13)
#   (rdm/efa_rdm_ope.c at af8ddbe92, an operation of the provider's own protocol; the format filled in)
# Failed to write CQ error entry for TXE err: 5, message: Unresponsive remote (was previously responsive) (13). Falling back to EQ
#   (rdm/efa_rdm_cq.h efa_rdm_cq_write_error at af8ddbe92; the format filled in)
_OP_ERROR = re.compile(
    r"^(?:rxr_cq_write_(?:tx|rx)_error: |EFA provider internal (?:txe|rxe) failure |Failed to write CQ error entry for \w{1,16} )?"
    r"err: (?P<err>\d{1,5}), (?:message|prov_err): (?P<text>[^\n]{1,2000}?) \((?P<prov>-?\d{1,6})\)"
    r"(?:\. Falling back to EQ| our address: \S{1,300}, peer address (?P<peer>\S{1,300}))?\s*$")
# the peer in efa_rdm_write_error_msg's message: its EC2 instance (host id 0: not yet learnt by the handshake), else its address
_PEER_HOST = re.compile(r" Peer host id: (?P<id>i-[0-9a-f]{1,32})\b")
_PEER_ADDR = re.compile(r" Peer EFA addr: (?P<addr>\S{1,300})")
# The EFA installer's test script, one line per failed step (efa-installer efa_test.sh, the echo lines):
# Error: required libfabric binaries not found.
# Error: EFA libfabric provider not detected.            (aws-samples/aws-efa-nccl-baseami-pipeline#2)
# Error: fi_pingpong test timed out.
# Error: fi_pingpong test returned 103.                  (aws/aws-cdi-sdk#48)
_EFA_TEST = re.compile(
    r"^[ \t]*Error: (?:(?P<binaries>required libfabric binaries not found)|(?P<provider>EFA libfabric provider not detected)"
    r"|fi_pingpong test (?:(?P<timeout>timed out)|returned (?P<code>\d{1,4})))\.[ \t]*$", re.M)
# The installer's closing words after a failed test (efa_installer.sh test_efa's caller; the first line of each):
# An EFA device has been detected but a ping test has failed. Please consult the      (aws-efa-nccl-baseami-pipeline#2)
# EFA installation is complete and an EFA device has                                   (later installers, then
#   "been detected but a ping test failed. Please consult" / "the EFA documentation to verify your configuration.")
_EFA_SUMMARY = re.compile(r"^[ \t]*(?:An EFA device has been detected but a ping test has failed\.|EFA installation is complete and an EFA device has[ \t]*$)", re.M)
# the lines that go on the installer's closing words, and its heading of the test step
_EFA_SUMMARY_REST = re.compile(
    r"^[ \t]*(?:been detected but a ping test failed\. Please consult|(?:the )?EFA documentation to verify your configuration\.|== Testing EFA device ==)[ \t]*$")
# libfabric's PSM3 provider (Intel's PSM over verbs, on any RDMA NIC: ConnectX, E810) reports a failed verbs set-up of its
# endpoint through _HFI_ERROR, whose prefix is "<host>:rank<N>.<program>: " (or ":pid<N>." before the rank is known), in
# prov/psm3/psm3 verbs ep code: modify_ud_qp_to_init/_rtr/_rts "Failed to modify UD QP to INIT|RTR|RTS on %s: %s",
# psm3_ep_open_verbs "Unable to alloc PD on %s: %s", "Unable to create send|recv CQ of size %u on %s: %s", "Unable to create
# UD QP on %s" (the device, then strerror(errno)):
# spartan-bm035.hpc.unimelb.edu.au:rank0.mpi-pingpong: Failed to modify UD QP to INIT on mlx5_bond_0: Invalid argument
#   (openucx/ucx#9468: Open MPI with OFED 5.8 on a RoCE LAG bond; every rank prints it, the job then runs over UCX)
_PSM3 = re.compile(
    r"^[ \t]*(?P<host>[A-Za-z0-9][\w.-]{0,252}):(?:rank|pid)\d{1,10}\.[^\s:]{1,128}: "
    r"(?P<msg>(?P<what>Failed to modify UD QP to (?P<state>INIT|RTR|RTS)|Unable to alloc PD|Unable to create (?P<cq>send|recv) CQ of size \d{1,10}"
    r"|Unable to create UD QP) on (?P<dev>[A-Za-z][\w.-]{0,63})(?:: (?P<err>[A-Z][A-Za-z' /-]{1,60}?))?)[ \t\r]*$", re.M)
_PSM3_SIGNATURE = r":(?:rank|pid)\d+\.[^\s:]+: (?:Failed to modify UD QP to (?:INIT|RTR|RTS)|Unable to alloc PD|Unable to create (?:send |recv )?(?:CQ|UD QP)) "
#: libfabric's error numbers as fi_info prints them (include/rdma/fi_errno.h)
FI_ERRORS = {61: "No data available (FI_ENODATA: no provider found a device)", 22: "Invalid argument", 38: "Function not implemented"}


def detect(text: str) -> bool:
    if (" UD QP " in text or "Unable to " in text) and _PSM3.search(text) is not None:
        return True
    if ("EFA" in text or "fi_pingpong" in text) and (_EFA_TEST.search(text) is not None or _EFA_SUMMARY.search(text) is not None):
        return True
    return ("libfabric:" in text and _LOG_SIGNATURE.search(text) is not None) or ("fi_getinfo: " in text and _GETINFO.search(text) is not None) or (
        "fi_info" in text and _COMMAND.search(text) is not None) or ("provider: " in text and _ENTRY.search(text) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    asked: str | None = None
    # a provider libfabric's log said found nothing, for fi_getinfo's own line after it (libfabric#12708)
    named = _log_lines(artefact, b, result) if "libfabric:" in artefact.text else []
    for i, raw in enumerate(lines):
        n = i + 1
        line = raw.strip()
        if m := _COMMAND.match(line):
            p = _PROVIDER_ARG.search(m["args"])
            asked = p["p"] if p else None
            result.lines_used += 1
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if (bare := _BARE.match(nxt)):
                code = -int(bare["code"])
                b.add(FiInfoError, n + 1, code=-code, provider=asked, message=FI_ERRORS.get(code))
                result.lines_used += 1
        elif m := _GETINFO.match(raw):
            code = int(m["code"])
            logged = [p for no, p in named if no < n]
            b.add(FiInfoError, n, code=code, provider=asked or (logged[-1] if logged else None), message=m["msg"] or FI_ERRORS.get(-code))
            result.lines_used += 1
    if "EFA" in artefact.text or "fi_pingpong" in artefact.text:
        _efa_self_test(lines, b, result)
    if " UD QP " in artefact.text or "Unable to " in artefact.text:
        _psm3(artefact, b, result)
    for m in _ENTRY.finditer(artefact.text):
        n = artefact.line_of(m.start())
        b.add(FiProvider, n, provider=m["provider"], fabric=m["fabric"], domain=m["domain"])
        result.lines_used += 1 + bool(m["fabric"]) + bool(m["domain"])
    return result


def _efa_self_test(lines: list[str], b: FactBuilder, result: ParseResult) -> None:
    """The EFA installer's self-test: a fact per failed step; the installer's closing words
    mark the step before them as seen on a detected device, or stand for a failed ping test."""
    steps: list[tuple[int, dict]] = []
    for i, raw in enumerate(lines):
        if m := _EFA_TEST.match(raw):
            stage = "binaries" if m["binaries"] else "provider" if m["provider"] else "pingpong"
            steps.append((i + 1, {"stage": stage, "timed_out": bool(m["timeout"]),
                                  "code": int(m["code"]) if m["code"] else (124 if m["timeout"] else None)}))
        elif _EFA_SUMMARY.match(raw):
            if steps and "device_detected" not in steps[-1][1]:
                steps[-1][1]["device_detected"] = True
            else:
                steps.append((i + 1, {"stage": "pingpong", "device_detected": True}))
        elif not _EFA_SUMMARY_REST.match(raw):
            continue
        result.lines_used += 1
    for n, fields in steps:
        b.add(EfaSelfTest, n, **fields)


def _psm3(artefact: Artefact, b: FactBuilder, result: ParseResult) -> None:
    """PSM3's failed verbs set-up of its endpoint: one fact per device, step and error (every rank prints the same)."""
    seen: set[tuple[str, str, str]] = set()
    for m in _PSM3.finditer(artefact.text):
        result.lines_used += 1
        step = (f"modify_ud_qp_to_{m['state'].lower()}" if m["state"] else "alloc_pd" if "PD" in m["what"]
                else f"create_{m['cq']}_cq" if m["cq"] else "ud_qp_create")
        key = (m["dev"], step, m["err"] or "")
        if key in seen:
            continue
        seen.add(key)
        host = m["host"] if re.fullmatch(r"[\d.]+", m["host"]) else m["host"].split(".", 1)[0]  # the name up to the first dot, as syslog's
        b.add(LibfabricWarning, artefact.line_of(m.start()), node=artefact.node_for(host), provider="psm3",
              function=step, message=m["msg"], what="verbs_setup", error_text=m["err"])


def _log_lines(artefact: Artefact, b: FactBuilder, result: ParseResult) -> list[tuple[int, str]]:
    """libfabric's ``<warn>`` log lines (the others are progress: not read, not counted); the
    (line, provider) of each that says a provider found nothing."""
    named: list[tuple[int, str]] = []
    for m in _LOG.finditer(artefact.text):
        if m["level"] != "warn":
            continue
        n = artefact.line_of(m.start())
        fields = m["fields"].split(":")
        provider = fields[-2] if len(fields) >= 2 and fields[-2] else None
        if g := _LOG_GETINFO.match(m["msg"]):
            code = int(g["code"]) if g["code"] else -61  # an empty list: fi_getinfo's FI_ENODATA
            named.append((n, g["prov"]))
            b.add(FiInfoError, n, code=code, provider=g["prov"],
                  message=g["msg"] or ("provider output empty list" if not g["code"] else FI_ERRORS.get(-code)))
        elif (op := _OP_ERROR.match(m["msg"])) is not None:
            text, _, where = op["text"].partition(" My EFA addr: ")
            host, addr = _PEER_HOST.search(where), _PEER_ADDR.search(where)
            b.add(LibfabricWarning, n, provider=provider, subsystem=fields[-1] or None, function=m["func"], message=m["msg"],
                  what="operation_error", error=int(op["err"]), prov_errno=int(op["prov"]), error_text=text.strip(),
                  peer=host["id"] if host else (addr["addr"] if addr else op["peer"]))
        else:
            b.add(LibfabricWarning, n, provider=provider, subsystem=fields[-1] or None, function=m["func"], message=m["msg"],
                  what="device_open" if _DEVICE_OPEN.match(m["msg"]) else None)
        result.lines_used += 1
    return named


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_GETINFO, _COMMAND, _ENTRY, _LOG_SIGNATURE, _EFA_TEST, _EFA_SUMMARY, _PSM3_SIGNATURE)
