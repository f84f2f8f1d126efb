"""WARN messages of an NCCL debug log about collectives, HCA events, net plugins and kernel
resources. Called by :mod:`stethoscope.facts.parsers.nccl_log` for each WARN line (its message
part); the fact classes are in :mod:`stethoscope.facts.parsers.nccl_log_facts`.

Real sample lines (public threads)::

    `init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39. ...`   (nccl#296)
    [0] init.cc:1256 NCCL WARN Your program may be hanging, this may be caused by a collective mismatch around rank 1. ...   (Lightning#8214)
    [2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available   (aws-ofi-nccl#1020)
    register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument   (aws-ofi-nccl#584)
    algo-1:249:249 [0] ofi_init:1339 NCCL WARN NET/OFI aws-ofi-nccl initialization failed   (aws-ofi-nccl#174)
    [7] create_nccl_ofi_component:459 NCCL WARN NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument   (aws-ofi-nccl#24)

and NCCL's own format strings (``git grep`` over NVIDIA/nccl v2.4.8-1 to v2.28.9-1, src/)::

    WARN("Mismatched collective detected, please check your collective calls at and around rank %d. ...")   (2.4-2.5 init.cc)
    WARN("Your program may be hanging, this may be caused by a collective mismatch around rank %d. ...")    (the same
      init.cc, ncclCommGetAsyncError's case ncclDevSuspectedMismatch: the device-side check suspects, not asserts)
    WARN("NET/IB : Got async event : %s", str)                                  (2.4-2.21 net_ib.cc; %s: ibv_event_type_str)
    WARN("NET/IB : %s:%d Got async event : %s", dev->devName, dev->portNum, str)          (2.22)
    WARN("NET/IB : %s:%d Got async error event: %s", dev->devName, dev->portNum, str)     (2.23-2.28.3)
    WARN("NET/IB : %s:%d Got non-fatal async event: %s(%d)", ..., str, event.event_type)  (2.28.9 and later)
    WARN("NET/IB : %s:%d async fatal event: %s", ...)        WARN("NET/IB : %s:%d async fatal event on QP (%p): %s", ...)
    WARN("NET/IB : %s:%d GID table changed", ...)            (2.28; IBV_EVENT_GID_CHANGE)
    WARN("NET/IB : %s:%d unknown event type (%d)", ...)      (2.23 and later; GID change was one of them before 2.28)
    WARN("cudaArch %d ncclMaxSharedMem %d exceeds device/fn maxSharedMem %zu", ...)      (enqueue.cc, to 2.29.3)
    WARN("cudaArch %d dynamic smem %d exceeds device/fn maxSharedMem %d", ...)           (enqueue.cc, 2.29.7 on)
    WARN("[Proxy Service %d] Failed to execute operation %s from rank %d, retcode %d", ...)   (2.12 and later proxy.cc)
    WARN("Proxy Call to rank %d failed (%s)", ...)    WARN("Socket recv failed while polling for opId=%p", ...)
"""
from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from stethoscope.facts import knowledge
from stethoscope.facts.parsers.base import last_line
from stethoscope.facts.parsers.nccl_log_facts import (
    NcclCollectiveMismatch,
    NcclIbAsyncEvent,
    NcclNetPluginError,
    NcclProxyFailure,
    NcclSharedMemExceeds,
)

if TYPE_CHECKING:
    from stethoscope.facts.parsers.nccl_log import NcclLogState

# Cheap test before any regex: every message handled here holds one of these.
_KEYS_RE = re.compile(r"Mismatched collective|collective mismatch|async|NET/OFI|NET/GPUDirectTCPX|NET/FasTrak|fn maxSharedMem|Proxy|Service thread|polling for opId|GID table changed|incoming CPU|Maximum retry reached for "
                      r"|unknown event type|timeout cnt|timeout poll|timeout error")

# Mismatched collective detected, please check your collective calls at and around rank 39. You can use NCCL_DEBUG=INFO ...
_MISMATCH = re.compile(r"^Mismatched collective detected, please check your collective calls at and around rank (?P<rank>\d+)")
# Your program may be hanging, this may be caused by a collective mismatch around rank 1. Please check your collective calls at and around this rank. ...   (Lightning#8214)
_MISMATCH_SUSPECTED = re.compile(r"^Your program may be hanging, this may be caused by a collective mismatch around rank (?P<rank>\d+)")
# NET/IB : Got async event : port error                                  (the 2.4-2.21 format with its %s)
# NET/IB : mlx5_0:1 Got async event : local access violation work queue error   (nccl#1710, NCCL 2.22)
# NET/IB : mlx5_0:1 Got non-fatal async event: port error(10)            (the 2.28.9+ format above, filled in)
# NET/IB : mlx5_0:1 Got async error event: port error                    (the 2.23-2.28.3 format above, filled in:
#   no public sample of it was found; before this form was read, a port error of those versions went unread)
# NET/IB : %s:%d async fatal event on QP (%p): %s      (net_ib.cc ncclIbAsyncThreadMain's WARN for IBV_EVENT_QP_FATAL,
#   QP_REQ_ERR and QP_ACCESS_ERR, the string ibv_event_type_str's, e.g. "invalid request local work queue error")
_ASYNC = re.compile(
    r"^NET/IB\w* ?: ?(?:(?P<dev>[^\s:]+):(?P<port>\d+) )?"
    r"(?:Got (?P<nonfatal>non-fatal )?async (?P<errev>error )?event ?: ?|async (?P<fatal>fatal) event(?: on \w+(?: \([^)]*\))?[^:]*)?: )"
    r"(?P<event>.+?)(?:\(\d+\))?\s*$"
)
# NET/IB : mlx5_0:1 GID table changed         (the 2.28 format above, filled in: IBV_EVENT_GID_CHANGE, libibverbs'
#   "GID table change": a GID entry of the port changed, e.g. an address reassigned on a RoCE port)
_GID_CHANGED = re.compile(r"^NET/IB\w* ?: ?(?:(?P<dev>[^\s:]+):(?P<port>\d+) )?GID table changed\s*$")
# NET/IB : mlx5_0:1 unknown event type (18)   (the 2.23+ format above, filled in; the number is libibverbs'
#   enum ibv_event_type, 18 its IBV_EVENT_GID_CHANGE)
_UNKNOWN_EVENT = re.compile(r"^NET/IB\w* ?: ?(?:(?P<dev>[^\s:]+):(?P<port>\d+) )?unknown event type \((?P<num>\d+)\)\s*$")
# NET/OFI OFI fi_getinfo() call failed: No data available
_OFI_CALL = re.compile(r"^NET/OFI (?:OFI )?(?P<call>fi_\w+)\(\) call failed: ?(?P<err>.*\S|[^\S\n])\s*$")
# NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument          (aws-ofi-nccl#584)
# aws-ofi-nccl's NCCL_OFI_WARN("Unable to register memory (type = %d) for device %d. RC: %d, Error: %s"); type is
# NCCL's NCCL_PTR_HOST 1, NCCL_PTR_CUDA 2, NCCL_PTR_DMABUF 4 (src/include/nccl_net.h)
_OFI_REGISTER = re.compile(
    r"^NET/OFI Unable to register memory \(type = (?P<type>\d+)\) for device (?P<dev>\d+)\.? RC: (?P<rc>-?\d+), Error: (?P<err>.*\S|[^\S\n])\s*$"
)
_PTR_TYPES = {1: "host", 2: "cuda", 4: "dmabuf"}
# A failed completion of the plugin's libfabric request (the provider's error code and name):
# NET/OFI Request 0x7f14cc5b60c0 completed with error. RC: 113. Error: 2 (UNDELIVERABLE). Completed length: 0   (nccl#1928)
# aws-ofi-nccl's NCCL_OFI_WARN("Request %p [seq %d ]completed with error. RC: %d. Error: %d (%s). Completed length: %ld[, Request: %s]")
# (RC: the fi_cq_err_entry err, an errno; Error: prov_errno and its fi_cq_strerror text); v1.14-v1.16 add "Flags: %ld. ",
# the RDMA protocol's "Remote write completed with error. RC: %d. [Flags: %ld. ]Error: %d (%s). Completed length: %ld"
_OFI_REQUEST = re.compile(
    r"^NET/OFI (?:Request (?:0x[0-9a-fA-F]+ |\(nil\) )?(?:seq \d+ )?|Remote write )completed with error\. RC: (?P<rc>-?\d+)\. "
    r"(?:Flags: -?\d{1,20}\. )?Error: (?P<prov>-?\d+) \((?P<err>[^)]*)\)\.?"
)
# v1.3-v1.9 (before 1.10.0-aws): the provider's fi_cq_strerror text alone, EFA's with the two ends' addresses:
# NET/OFI Request 0x7f08c0001d30 completed with error. RC: 5. Error: Invalid receiver queue pair number (QPN) My EFA addr: fi_addr_efa://[fe80::30:43ff:fe60:456b]:0:657145598 My host id: i-00ee91ea93e985ee0 Peer EFA addr: fi_addr_efa://[fe80::ed:61ff:fe1d:a3b3]:0:229342137 Peer host id: i-08d8a345a75ab52a0. Completed length: 0, Request: { dev: 2, size: 0, state: CREATED, type: SEND_CTRL }   (awslabs/awsome-distributed-ai#312)
# aws-ofi-nccl v1.3.0-v1.9.2: NCCL_OFI_WARN("Request %p completed with error. RC: %d. Error: %s. Completed length: %ld, Request: %s")
#   (the text is cut before EFA's " My EFA addr: ..." details)
_OFI_REQUEST_TEXT = re.compile(
    r"^NET/OFI Request (?:0x[0-9a-fA-F]+ |\(nil\) )?completed with error\. RC: (?P<rc>-?\d+)\. "
    r"Error: (?P<err>[^\n]{1,300}?)(?: My EFA addr: [^\n]{0,400}?)?\. Completed length: "
)


# aws-ofi-nccl giving up on its libfabric provider or on itself during init (its NCCL_OFI_WARN strings, git grep over
# aws/aws-ofi-nccl v0.9 to v1.21.1, src/): NCCL then carries on without the plugin (its own IB, or sockets) or fails.
# NET/OFI Only EFA provider is supported                (aws-ofi-nccl#174; v1.0.1-v1.5.0 ofi_init: libfabric's provider is not efa)
# NET/OFI Couldn't find any optimal provider            (v1.1.0-v1.8.1 get_ofi_provider; "Could not find ..." v0.9-v1.8.1)
_OFI_NO_PROVIDER = re.compile(r"^NET/OFI (?P<err>Only EFA provider is supported|Could(?:n't| not) find any optimal provider)\s*$")
# NET/OFI aws-ofi-nccl initialization failed            (aws-ofi-nccl#174, awsome-distributed-ai#386; NCCL_OFI_WARN(PACKAGE_NAME
#   " initialization failed"), v1.1.4-v1.21.1; PACKAGE_NAME is configure.ac's AC_INIT name, aws-ofi-nccl)
# NET/OFI Failed to initialize rdma protocol            (v1.7.0-v1.21.1; "... sendrecv protocol" likewise)
# NET/OFI Initializing base plugin failed: Invalid argument    (v1.10.0-v1.16.3 "Initializing base plugin failed: %s", filled in)
# NET/OFI Caught exception in plugin init: ...          (v1.17.0-v1.21.1 "Caught exception in plugin init: %s")
# NET/OFI Insufficient Libfabric devices found          (v1.7.0-v1.21.1)
# NET/OFI Initializing plugin failed                    (v1.13.0-v1.21.1 nccl_net_ofi_init, src/nccl_ofi_api.c(pp):
#   NCCL_OFI_WARN("Initializing plugin failed"), after nccl_net_ofi_create_plugin's own "... initialization failed")
_OFI_INIT_FAILED = re.compile(
    r"^NET/OFI (?P<err>[\w.-]+ initialization failed|Failed to initialize (?:rdma|sendrecv) protocol|Initializing plugin failed"
    r"|Initializing base plugin failed: .*\S|Caught exception in plugin init: .*\S|Insufficient Libfabric devices found)\s*$"
)
# The plugin refusing an EFA endpoint without GPUDirect RDMA on an instance type that needs it (v1.7.4-aws to v1.21.1,
# src/platform-aws.c(pp) config_endpoint: NCCL_OFI_WARN("GDR disabled on GDR-supported instance type %s"), -EINVAL; the
# plugin found libfabric's EFA provider without FI_HMEM, or could not set FI_OPT_CUDA_API_PERMITTED on the endpoint):
# NET/OFI GDR disabled on GDR-supported instance type p4d.24xlarge        (the format filled with a name of platform-aws.cpp's platform table)
_OFI_GDR_REQUIRED = re.compile(r"^NET/OFI GDR disabled on GDR-supported instance type (?P<type>\S{1,60})\s*$")
# The endpoint the plugin could not create (its domain's, v1.14.0-v1.16.x with the error, v1.17.0-v1.21.1 without):
# NET/OFI Creating new endpoint for domain 0x55d1c2a0 failed: Invalid argument    (v1.14.0..v1.16.3 nccl_ofi_net.c(pp): "Creating new
#   endpoint for domain %p failed: %s", fi_strerror(-ret) of -EINVAL; from v1.17.0 without ": %s")
# (err ends on a non-blank, greedy: a lazy err before \s*$ rescanned a run of blanks before the last word once per step)
_OFI_ENDPOINT = re.compile(r"^NET/OFI Creating new endpoint for domain (?:0x[0-9a-fA-F]{1,16}|\(nil\)) failed(?:: (?P<err>[^\n]{0,199}\S))?\s*$")
# A libfabric object the plugin could not open, create, bind or enable, with libfabric's return code and fi_strerror:
# NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument     (aws-ofi-nccl#24, #22: v0.9-v1.21.1)
# the other objects of the same format ("Couldn't %s %s. RC: %d, ERROR: %s" strings, v0.9-v1.21.1): "open a fabric
# provider", "open a fabric access domain", "open CQ", "allocate endpoint", "bind EP-AV", "bind EP-CQ", "enable endpoint",
# "create fabric", "create domain", "create completion queue"
_OFI_RESOURCE = re.compile(
    r"^NET/OFI Couldn't (?P<verb>open|create|allocate|bind|enable) (?P<obj>[\w -]{1,40}?)\. RC: (?P<rc>-?\d+), ERROR: (?P<err>.*\S|[^\S\n])\s*$"
)


def read_ofi_setup(msg: str) -> dict[str, Any] | None:
    """The ``nccl_net_plugin_error`` fields of aws-ofi-nccl failing to set itself up (no usable
    provider, a libfabric object it could not open, its init given up), or None; also for the
    message PyTorch forwards after ``Last error:``."""
    msg = msg.strip()
    if not msg.startswith("NET/OFI "):
        return None
    if m := _OFI_NO_PROVIDER.match(msg):
        return dict(plugin="OFI", call="provider", error=m["err"])
    if m := _OFI_RESOURCE.match(msg):
        return dict(plugin="OFI", call="libfabric_setup", resource=f"{m['verb']} {m['obj'].strip()}", error=m["err"].strip(),
                    code=int(m["rc"]))
    if m := _OFI_INIT_FAILED.match(msg):
        return dict(plugin="OFI", call="init", error=m["err"])
    if m := _OFI_GDR_REQUIRED.match(msg):
        return dict(plugin="OFI", call="gdr_required", error=f"GDR disabled on GDR-supported instance type {m['type']}")
    if m := _OFI_ENDPOINT.match(msg):
        # 1.14-1.16 print fi_strerror(-ret): for an errno it is strerror's text, which gives the return code back
        return dict(plugin="OFI", call="libfabric_setup", resource="create endpoint", error=m["err"] or "failed",
                    code=_ERRNO_OF_TEXT.get(m["err"] or ""))
    return None


# aws-ofi-nccl's other WARN forms, grouped by what they mean (bench/ofi_warn_formats.yaml: every NCCL_OFI_WARN format of
# v1.7.0-aws..v1.21.1; bench/ofi_warn_audit.py counts them). The newest failed-completion form (include/nccl_ofi_platform.h,
# v1.17.0 on: "Request %p (%s) completed with error: err: %d, flags: %ld, prov_errno: %d, strerror: %s, len: %ld"), filled in:
# NET/OFI Request 0x7f3a2c001200 (SEND) completed with error: err: 113, flags: 0, prov_errno: 2, strerror: Unreachable remote, len: 0
_OFI_REQUEST_V17 = re.compile(
    r"^NET/OFI Request (?:0x[0-9a-fA-F]{1,16}|\(nil\)) \((?P<op>[^()\n]{1,40})\) completed with error: err: (?P<rc>-?\d{1,6}), "
    r"flags: -?\d{1,20}, prov_errno: (?P<prov>-?\d{1,6}), strerror: (?P<err>[^\n]{1,300}?), len: -?\d{1,20}"
)
# The plugin's GPUDirect RDMA refused by libfabric after it told NCCL it had it (v1.7.x-v1.21.1 ofiutils / platform-aws):
# NET/OFI GDR support reported to NCCL but then couldn't be configured on an endpoint.  Cannot continue.
# NET/OFI Failed to set FI_OPT_CUDA_API_PERMITTED. RC: -92, ERROR: Protocol not available      (the format filled in)
# NET/OFI Using Libfabric 1.18 API with GPUDirect RDMA support, and FI_OPT_CUDA_API_PERMITTED is not declared.
_OFI_GDR_FAILED = re.compile(
    r"^NET/OFI (?P<err>GDR support reported to NCCL but then couldn't be configured on an endpoint(?:\. {1,3}Cannot continue)?"
    r"|Failed to set FI_OPT_CUDA_API_PERMITTED\. RC: -?\d{1,10}, ERROR: [^\n]{1,200}?"
    r"|Using Libfabric 1\.18 API with GPUDirect RDMA support, and FI_OPT_CUDA_API_PERMITTED is not declared)\.?[ \t\r]{0,8}$"
)
# A libfabric older than the plugin needs (platform-aws, v1.9-v1.21.1): "EFA provider requires at least libfabric version 1.22.0."
_OFI_OLD_LIBFABRIC = re.compile(r"^NET/OFI (?P<err>EFA provider requires at least libfabric version \d{1,3}\.\d{1,3}\.\d{1,3})\.?[ \t\r]{0,8}$")
# A libfabric call the plugin names with its return code and fi_strerror text, one structure over many objects and verbs:
# NET/OFI Unable to bind MR to EP (type = 2) for device 0. RC: -22, Error: Invalid argument
# NET/OFI Couldn't set FI_OPT_EFA_WRITE_IN_ORDER_ALIGNED_128_BYTES. RC: -92, ERROR: Protocol not available
# NET/OFI Unable to insert remote address into address vector for device 2. RC: Invalid argument
# NET/OFI fi_sendmsg failed with RC -113       NET/OFI Error posting RDMA ctrl request. RC: -113, Error: No route to host
# NET/OFI Unable to retrieve completion queue entries. RC: -5, ERROR: Input/output error        (the formats filled in)
_OFI_RC = re.compile(
    r"^NET/OFI (?P<what>[^\n]{4,160}?)[.;:,]? (?:with )?RC:? (?:(?P<rc>-?\d{1,10})|(?P<rctext>[A-Z][^\n.]{2,120}))"
    r"(?:[.,]? (?:Flags: -?\d{1,20}\. )?(?:ERROR|Error):? (?P<err>[^\n]{1,300}?))?\.?[ \t\r]{0,8}$"
)
# Setting up an endpoint or domain, with no return code: "Creating new endpoint for device %s failed: %s",
# "Could not create Libfabric endpoint on rail %u", "Initializing a new domain for device %s failed", "Creating domain failed: %d"
# NET/OFI Could not create Libfabric endpoint on rail 3          (the format filled in)
_OFI_SETUP_NO_RC = re.compile(
    r"^NET/OFI (?P<what>(?:Creating|Initializing|Could not create|Failed to create) (?:a )?(?:new |base )?(?:Libfabric )?"
    r"(?:endpoint|domain)(?: (?:for|on) (?:device|rail) [^\s:]{1,40})?)(?: failed)?(?:: (?P<err>[^\n]{1,200}?))?[ \t\r]{0,8}$"
)
# Memory registration without a return code: "Could not register memory on data rail %u with flag %lu",
# "Local endpoint memory registration failed: %d", "Failed to register memory for the control mailbox: %d"
_OFI_REGISTER_OTHER = re.compile(
    r"^NET/OFI (?P<what>(?:Could not|Failed to) register memory (?:on|for) [^\n]{1,80}?|Local endpoint memory registration failed"
    r"|Could not register dummy buffer for flush[^\n]{0,40}?)(?:: (?P<rc>-?\d{1,10}))?[ \t\r]{0,8}$"
)
# Host memory the plugin could not allocate: "Unable to allocate send communicator", "Could not allocate memory for cache",
# "Memory allocation (msgbuff) failed", "Failed to allocate memory for freelist handle" (calloc/malloc NULL)
_OFI_ALLOC = re.compile(
    r"^NET/OFI (?:Unable to allocate|Could not allocate|Failed to allocate memory for|Memory allocation \((?=[^\n]{1,40}\) failed))"
    r" ?(?P<what>[^\n]{1,80}?)(?:\) failed)?[ \t\r]{0,8}$"
)
# The host topology the plugin reads (hwloc) or writes for NCCL (NCCL_TOPO_FILE):
# NET/OFI Unable to load hardware topology.   NET/OFI hwloc failed detecting PCI NIC info.   NET/OFI Failed to create NCCL OFI topology
_OFI_TOPOLOGY = re.compile(
    r"^NET/OFI (?P<err>Unable to (?:load|initialize) hardware topology|hwloc failed detecting PCI NIC info"
    r"|Failed to (?:create|populate|write)(?: NCCL OFI| anonymous| NCCL)? topology(?: file| to NCCL topology file)?[^\n]{0,200}?"
    r"|Unable to set NCCL_TOPO_FILE\. ?ERROR: [^\n]{1,200}?)\.?[ \t\r]{0,8}$"
)
# what the plugin could not do, as the verb phrase the rules print ("could not {resource}"): "Couldn't set X" -> "set X",
# "Creating new endpoint for device d" -> "create new endpoint for device d", "fi_sendmsg failed" -> "fi_sendmsg"
_OFI_LEAD = re.compile(r"^(?:Couldn't|Could not|Unable to|Failed to|Failed call to|Error in call to|Call to|Error)\s")
_OFI_GERUND = {"Creating": "create", "Initializing": "initialize", "Retrieving": "retrieve", "posting": "post"}


def _ofi_action(what: str) -> str:
    what = _OFI_LEAD.sub("", what.strip(), count=1).removesuffix(" failed with").removesuffix(" failed").removesuffix(" failed;")
    first, _, rest = what.partition(" ")
    return f"{_OFI_GERUND[first]} {rest}" if first in _OFI_GERUND else what


_OFI_TEARDOWN = re.compile(r"(?i)clean ?up|de-?regist|clos(?:e|ing)|free|destroy|unlink|unmap|unpin|leak")
_OFI_MR = re.compile(r"(?i)regist|\bMR\b|memory region")
_OFI_POST = re.compile(r"(?i)\bfi_(?:t?send|read|write|inject)|post|\bsend\b|issue read")
_OFI_CQ = re.compile(r"(?i)completion queue entries|fi_cq_readerr")


def read_ofi_other(msg: str) -> dict[str, Any] | None:
    """The ``nccl_net_plugin_error`` fields of aws-ofi-nccl's other failures, grouped by what they
    mean (a libfabric call with its return code, GDR refused, libfabric too old, memory
    registration, host allocation, topology), or None; teardown and internal checks stay None."""
    msg = msg.strip()
    if not msg.startswith("NET/OFI "):
        return None
    if m := _OFI_REQUEST_V17.match(msg):
        return dict(plugin="OFI", call="request_completion", error=f"{m['err'].strip()} (provider error {m['prov']})",
                    code=int(m["rc"]), resource=m["op"])
    if m := _OFI_GDR_FAILED.match(msg):
        return dict(plugin="OFI", call="gdr_required", error=m["err"])
    if m := _OFI_OLD_LIBFABRIC.match(msg):
        return dict(plugin="OFI", call="libfabric_version", error=m["err"])
    if m := _OFI_TOPOLOGY.match(msg):
        return dict(plugin="OFI", call="topology", error=m["err"].strip())
    if m := _OFI_REGISTER_OTHER.match(msg):
        return dict(plugin="OFI", call="register_mr", resource=_ofi_action(m["what"]), error="failed",
                    code=int(m["rc"]) if m["rc"] else None)
    if m := _OFI_ALLOC.match(msg):
        return dict(plugin="OFI", call="allocate", resource=_ofi_action(m["what"]), error="host memory allocation failed")
    if m := _OFI_SETUP_NO_RC.match(msg):
        return dict(plugin="OFI", call="libfabric_setup", resource=_ofi_action(m["what"]), error=(m["err"] or "failed").strip())
    m = _OFI_RC.match(msg)
    if m is None or _OFI_TEARDOWN.search(m["what"]):
        return None
    what = _ofi_action(m["what"])
    code = int(m["rc"]) if m["rc"] else _ERRNO_OF_TEXT.get(m["rctext"] or "")
    err = (m["err"] or m["rctext"] or "failed").strip()
    if what.endswith("completed with error"):  # a failed completion cut before its "Completed length" (a paste cut mid-line)
        return dict(plugin="OFI", call="request_completion", error=err, code=code)
    if _OFI_MR.search(what):
        t = re.search(r"\(type = (\d{1,2})\)", what)
        return dict(plugin="OFI", call="register_mr", resource=what, error=err, code=code,
                    memory_type=_PTR_TYPES.get(int(t[1]), t[1]) if t else None)
    if _OFI_CQ.search(what):
        return dict(plugin="OFI", call="completion_queue", resource=what, error=err, code=code)
    if _OFI_POST.search(what):
        return dict(plugin="OFI", call="post", resource=what, error=err, code=code)
    return dict(plugin="OFI", call="libfabric_setup", resource=what, error=err, code=code)


#: strerror's text -> the negative errno libfabric returned (fi_strerror of an errno below FI_ERRNO_OFFSET is strerror)
_ERRNO_OF_TEXT = {os.strerror(n): -n for n in range(1, 134)}


# Google's GPUDirect-TCPX (A3 High) and GPUDirect-TCPXO "FasTrak" (A3 Mega) net plugins, on GCP:
# NET/GPUDirectTCPX failed to connect socket      (google/nccl-plugin-gpudirecttcpx src/connect.cc WARN("NET/" PRODUCT_NAME
#   " failed to connect socket"), PRODUCT_NAME "GPUDirectTCPX"; forwarded by PyTorch, cut, in container-engine-accelerators#414)
# NET/GPUDirectTCPX : no ctrl interface found     NET/GPUDirectTCPX/CUDA : no cuDevices found      (connect.cc, cuda_wrapper.cu)
# NET/FasTrak ...: INVALID_ARGUMENT: Buffer registration request does not have a valid fd set.   (Megatron-LM#4660, its time
#   elided as posted; google/nccl-plugin-gpudirect-tcpxo fastrak_offload/init.cc logs every absl line of WARNING and above as
#   WARN "NET/FasTrak %s: %s" with absl::FormatTime of its time, an absl::Status's code name first)
# NET/FasTrak: Number of GPUs (9) is larger than maximum number: 8      (nccl_cuda/cuda_common.cc, no time; filled in)
_GCP_PLUGIN = re.compile(
    r"^NET/(?P<plugin>GPUDirectTCPX|FasTrak)(?:/\w+)?(?: ?: | [^\s:]{1,40}(?::[^\s:]{1,40}){0,6}: | )"
    r"(?:(?P<code>[A-Z][A-Z_]{2,40}): )?(?P<err>\S.*?)\s*$"
)


# GPUDirect-TCPX's slowness reports (google/nccl-plugin-gpudirecttcpx at 4b8ea7f, on when NCCL_GPUDIRECTTCPX_SLOWNESS_SWITCH
# and _SLOWNESS_REPORT name the check): a connection polled cnt times over nanos ns (past the plugin's TimeoutThresholdNs)
# without progress; the flow is fdToString's "<local><-<peer> rx" (a receiving connection) or "<local>-><peer> tx".
# 0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout cnt 7331502, nanos 10000000585
#   (NVIDIA/nccl#1652, A3 High: tcpxCommProgress, src/net_tcpx.cc:1238 WARN("%p:%p, nic %d, %s, %s %s ctrl timeout cnt %lu,
#    nanos %lu", ...): a receive waiting for the sender's control message, RX_CTRL)
# 0x7f3a1c0:0x7f3a200, nic 1, enp134s0, 172.16.0.49<45259>->172.16.0.48<52929> tx send timeout error 11, Resource temporarily
#   unavailable: [0/524288]/4194304 cnt 20417, nanos 10000000321
#   (src/stats/tracepoint.cc tcpxTpSendRecvSlowness, "%p:%p, nic %d, %s, %s %s timeout error %d, %s: [%zu/%zu]/%zu cnt %lu,
#    nanos %lu", SENDRECV: a socket send or recv that keeps getting EAGAIN; the format filled in)
# 0x7f3a200 nic 1, enp134s0 172.16.0.49<45259>->172.16.0.48<52929> tx tx comp timeout poll upper 12, lower 9, cnt 5000, nanos 10000000000, range (0 0)
#   (tracepoint.cc tcpxTpCompletionSlow, "%p nic %d, %s %s tx comp timeout poll upper %u, lower %u, cnt %u, nanos %lu, range
#    (%lu %lu)", TX_COMP: zero-copy send completions that do not come back; the format filled in)
_TCPX_SLOW = re.compile(
    r"^(?:0x[0-9a-fA-F]{1,16}|\(nil\))(?::(?:0x[0-9a-fA-F]{1,16}|\(nil\)),)? nic (?P<nic>\d{1,3}), (?P<dev>[^\s,]{1,40}),? "
    r"(?P<local>[^\s<>]{1,64}<\d{1,5}>)(?P<dir><-|->)(?P<peer>[^\s<>]{1,64}<\d{1,5}>) (?:rx|tx) "
    r"(?:(?P<ctrl>rx|tx) ctrl timeout cnt|(?P<op>send|recv) timeout error (?P<errno>\d{1,4}), [^\n:]{1,80}: "
    r"\[\d{1,20}/\d{1,20}\]/\d{1,20} cnt|(?P<comp>tx) comp timeout poll upper \d{1,10}, lower \d{1,10}, cnt) "
    r"(?P<cnt>\d{1,20}), nanos (?P<ns>\d{1,20})")


def read_tcpx_stall(msg: str) -> dict[str, Any] | None:
    """The ``nccl_net_plugin_error`` fields of a GPUDirect-TCPX slowness report, or None: ``call`` the
    check (rx_ctrl_timeout, send_timeout, tx_completion_timeout ...), ``resource`` the connection
    (``<local><-<peer>``), ``error`` how long it went without progress."""
    m = _TCPX_SLOW.match(msg.strip())
    if m is None:
        return None
    secs, polls = int(m["ns"]) / 1e9, int(m["cnt"])
    if m["ctrl"]:
        call, what = f"{m['ctrl']}_ctrl_timeout", "no control message from the peer"
    elif m["op"]:
        call, what = f"{m['op']}_timeout", f"a socket {m['op']} not progressing (errno {m['errno']})"
    else:
        call, what = "tx_completion_timeout", "no send completion"
    return dict(plugin="GPUDirectTCPX", call=call, resource=f"{m['local']}{m['dir']}{m['peer']}",
                error=f"{what} for {secs:.1f} s ({polls} polls) on nic {m['nic']} ({m['dev']})")


# Google's FastSocket net plugin (GCP, before GPUDirect-TCPX) places each data socket on a NIC receive queue: it reads the
# CPU a connection's packets arrive on (getsockopt SO_INCOMING_CPU), keeps the socket when that CPU maps to the queue it
# wants and reconnects otherwise; after MAX_CONNECT_RETRY (1000) reconnects it takes any free socket and goes on
# (google/nccl-fastsocket net_fastsocket.cc ncclSocketAsyncConnectV2 / ncclSocketAcceptV2):
# full-debug2-test-1:4024:4048 [0] net_fastsocket.cc:765 NCCL WARN Cannot get incoming CPU.          (WARN("Cannot get incoming CPU."))
# full-debug2-test-0:4300:4325 [0] net_fastsocket.cc:785 NCCL WARN Maximum retry reached for accept 3. (WARN("Maximum retry reached for accept %d.", i))
# full-debug2-test-1:4024:4055 [0] net_fastsocket.cc:674 NCCL WARN Maximum retry reached for connect 3. (... "for connect %d.")
#   (google/nccl-fastsocket#4, each followed by "NET/FastSocket : Connected after 1000 retries."). GPUDirect-TCPX has the
#   same getsockopt WARN (src/connect.cc getSoIncomingCpu, the CPU then -1), with no retry limit of its own.
_FLOW_PLACEMENT = re.compile(r"^(?:Cannot get incoming CPU\.|Maximum retry reached for (?P<side>connect|accept) (?P<sock>\d{1,4})\.)$")


def read_flow_placement(msg: str, src: str | None) -> dict[str, Any] | None:
    """The ``nccl_net_plugin_error`` fields of a socket plugin's flow-placement WARN above, or None:
    ``call`` incoming_cpu (SO_INCOMING_CPU not readable) or flow_placement (the retries spent, a
    socket taken off its queue); ``plugin`` FastSocket where the source file or the form says so."""
    m = _FLOW_PLACEMENT.match(msg.strip())
    if m is None:
        return None
    fast = m["side"] is not None or (src or "").startswith("net_fastsocket")
    plugin = "FastSocket" if fast else "FastSocket/GPUDirectTCPX"
    if m["side"] is None:
        return dict(plugin=plugin, call="incoming_cpu", error="getsockopt(SO_INCOMING_CPU) failed: the CPU a connection arrives on is unknown")
    return dict(plugin=plugin, call="flow_placement", resource=f"{m['side']} socket {m['sock']}",
                error=f"{m['side']} socket {m['sock']} kept off its receive queue after 1000 reconnects, placed on any free socket")


def read_gcp_plugin(msg: str) -> dict[str, Any] | None:
    """The ``nccl_net_plugin_error`` fields of a GPUDirect-TCPX / -TCPXO plugin's WARN (also as
    PyTorch forwards it after ``Last error:``), or None."""
    m = _GCP_PLUGIN.match(msg.strip())
    if m is None:
        return None
    return dict(plugin=m["plugin"], call=m["code"], error=m["err"])


def read_ofi_request(msg: str) -> dict[str, Any] | None:
    """The ``nccl_net_plugin_error`` fields of an aws-ofi-nccl failed request, or None (also
    for a message PyTorch forwards after ``Last error:``)."""
    m = _OFI_REQUEST.match(msg.strip())
    if m is not None:
        return dict(plugin="OFI", call="request_completion", error=f"{m['err']} (provider error {m['prov']})", code=int(m["rc"]))
    m = _OFI_REQUEST_TEXT.match(msg.strip())
    if m is not None:
        return dict(plugin="OFI", call="request_completion", error=m["err"].strip(), code=int(m["rc"]))
    return None
# NCCL's proxy reporting an operation that failed (src/proxy.cc, 2.12 and later):
# [Proxy Service 0] Failed to execute operation Connect from rank 0, retcode 2       (nccl-tests#166; "[Proxy Service %d] Failed to execute operation %s from rank %d, retcode %d")
# Proxy Call to rank 3 failed (Connect)                                               (xgboost#7982; "Proxy Call to rank %d failed (%s)")
# Socket recv failed while polling for opId=0x7f6f18cb7f40                           (nccl-tests#166; "Socket recv failed while polling for opId=%p")
_PROXY_SERVICE = re.compile(r"^\[Proxy Service \d+\] Failed to execute operation (?P<op>\w+) from rank (?P<rank>\d+), retcode (?P<rc>\d+)")
_PROXY_CALL = re.compile(r"^Proxy Call to rank (?P<rank>\d+) failed \((?P<op>\w+)\)")
_PROXY_POLL = re.compile(r"^Socket recv failed while polling for opId=")
# The proxy service thread dropping a local rank's connection, and a call to another process's proxy over its
# UNIX socket that failed (src/proxy.cc at NVIDIA/nccl 5067397c, the formats filled in):
# [Service thread] Error encountered progressing operation=Connect, res=3, closing connection
#   (proxy.cc:1861 "[Service thread] Error encountered progressing operation=%s, res=%d, closing connection")
# [Service thread] Could not receive type from localRank 2, res=6, closed=0
#   (proxy.cc:1874 "[Service thread] Could not receive type from localRank %d, res=%u, closed=%d")
# ncclProxyCallBlockingUDS call to tpRank 1(8f3e2a1b4c5d6e7f) failed : 2      (proxy.cc:1275 "... call to tpRank %d(%lx) failed : %d")
# ncclProxyClientGetFd call to tpRank 1 handle 0x7f3a2c001200 failed : 2      (proxy.cc:1299; ncclProxyClientQueryFdBlocking:1333)
# ncclProxyClientConvertFd call to top parent rank 1 failed                    (v2.18.6-1 proxy.cc:1092)
_PROXY_SERVICE_THREAD = re.compile(
    r"^\[Service thread\] (?:Error encountered progressing operation=(?P<op>\w+), res=(?P<res>\d+)"
    r"|Could not receive type from localRank (?P<lrank>\d+), res=(?P<rres>\d+))"
)
_PROXY_UDS = re.compile(
    r"^ncclProxy(?:CallBlockingUDS|ClientGetFd|ClientQueryFdBlocking|ClientConvertFd) call to (?:tpRank|top parent rank) "
    r"(?P<rank>\d+)\b.*? failed(?: : (?P<rc>\d+))?"
)
# cudaArch 800 ncclMaxSharedMem 90112 exceeds device/fn maxSharedMem 65536   (the format above, filled in)
# cudaArch 1200 dynamic smem 82240 exceeds device/fn maxSharedMem 79856         (2.29.7 on: the same check, reworded)
_SHARED_MEM = re.compile(r"^cudaArch (?P<arch>\d+) (?:ncclMaxSharedMem|dynamic smem) (?P<req>\d+) exceeds device/fn maxSharedMem (?P<avail>\d+)")


def read_proxy(msg: str) -> dict[str, Any] | None:
    """The ``nccl_proxy_failure`` fields of one of the proxy's messages above, or None; also for the
    message PyTorch forwards after ``Last error:`` (verl#108: ``[Service thread] Error encountered
    progressing operation=Connect, res=3, closing connection`` under a DistBackendError)."""
    if m := _PROXY_SERVICE.match(msg):
        return dict(what="service_operation", operation=m["op"], rank=int(m["rank"]), retcode=int(m["rc"]))
    if m := _PROXY_CALL.match(msg):
        return dict(what="proxy_call", operation=m["op"], rank=int(m["rank"]))
    if _PROXY_POLL.match(msg):
        return dict(what="poll_recv")
    if m := _PROXY_SERVICE_THREAD.match(msg):
        return dict(what="service_thread", operation=m["op"], retcode=int(m["res"] or m["rres"]))
    if m := _PROXY_UDS.match(msg):
        return dict(what="uds_call", rank=int(m["rank"]), retcode=int(m["rc"]) if m["rc"] else None)
    return None


def async_event_cut(p: "NcclLogState", no: int, msg: str) -> bool:
    """A WARN of an HCA async event cut inside the event's name on the text's last line (a stored
    excerpt or a paste that ended there) is a capture cut short, not an error nobody can explain:
    a ``cut_short`` limit (never a healthy verdict) and no fact. Real sample
    (deepspeedai/DeepSpeedExamples#310, the excerpt's last line, after four whole ones):
    gpu1:5026:5383 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistr
    False (the line read as before) for a whole name, one the catalogue lacks (an unknown event,
    reported as such), or the start of a name with text after it."""
    if "async" not in msg or (m := _ASYNC.match(msg)) is None:
        return False
    event = m["event"].strip()
    key = " ".join(event.split()).lower()
    events = knowledge.load("ib_async_events.yaml")
    if len(key) < 3 or events.entry(key) is not None:
        return False
    whole = next((e.event for e in events.events if e.event.lower().startswith(key)), None)
    if whole is None:
        return False
    if no < last_line(p.b.artefact.lines):
        return False
    p.b.limit(no, "cut_short", f"NCCL's async event WARN on the text's last line is cut inside the event's name "
                               f"('{event}', the start of '{whole}'): what the HCA reported is not read")
    return True


def handle(p: "NcclLogState", no: int, node: str, msg: str, ctx: dict[str, Any], src: str | None = None) -> bool:
    """Add the fact of one WARN message (``src`` the source file NCCL printed, if any); True when the
    message was one of this module's kinds."""
    if not _KEYS_RE.search(msg):
        return False
    pid = ctx["pid"]
    if m := _MISMATCH.match(msg):
        p.once(NcclCollectiveMismatch, no, node, (pid, m["rank"]), rank=int(m["rank"]), **ctx)
    elif m := _MISMATCH_SUSPECTED.match(msg):
        p.once(NcclCollectiveMismatch, no, node, (pid, m["rank"], "suspected"), rank=int(m["rank"]), suspected=True, **ctx)
    elif m := _ASYNC.match(msg):
        # NCCL files the events it prints as "async error event" under non-fatal (ncclIbAsyncThreadMain)
        fatal = True if m["fatal"] else (False if m["nonfatal"] or m["errev"] else None)
        p.b.add(NcclIbAsyncEvent, no, node=node, event=m["event"].strip(), device=m["dev"],
                port=int(m["port"]) if m["port"] else None, fatal=fatal, **ctx)
    elif m := _GID_CHANGED.match(msg) or _UNKNOWN_EVENT.match(msg):
        num = m.groupdict().get("num")
        entry = knowledge.load("ib_async_events.yaml").by_number(int(num)) if num is not None else None
        event = "GID table change" if num is None else (entry.event if entry else f"unknown event type ({num})")
        p.b.add(NcclIbAsyncEvent, no, node=node, event=event, device=m["dev"], port=int(m["port"]) if m["port"] else None,
                unknown_to_nccl=num is not None, **ctx)
    elif m := _OFI_CALL.match(msg):
        p.once(NcclNetPluginError, no, node, (pid, "OFI", m["call"], m["err"]), plugin="OFI", call=m["call"],
               error=m["err"], **ctx)
    elif msg.startswith(("NET/GPUDirectTCPX", "NET/FasTrak")) and (fields := read_gcp_plugin(msg)):
        p.once(NcclNetPluginError, no, node, (pid, fields["plugin"], fields["call"], fields["error"]), **fields, **ctx)
    elif (msg.startswith("Cannot get") or msg.startswith("Maximum retry")) and (fields := read_flow_placement(msg, src)):
        p.once(NcclNetPluginError, no, node, (pid, fields["plugin"], fields["call"], fields.get("resource")), **fields, **ctx)
    elif " nic " in msg and (fields := read_tcpx_stall(msg)):
        # one fact per connection and check: the plugin repeats the report while the wait goes on
        p.once(NcclNetPluginError, no, node, (pid, "GPUDirectTCPX", fields["call"], fields["resource"]), **fields, **ctx)
    elif fields := read_ofi_setup(msg):
        p.once(NcclNetPluginError, no, node, (pid, "OFI", fields["call"], fields["error"]), **fields, **ctx)
    elif fields := read_ofi_request(msg):
        p.once(NcclNetPluginError, no, node, (pid, "OFI", "request_completion", fields["error"], fields["code"]), **fields, **ctx)
    elif m := _OFI_REGISTER.match(msg):
        p.once(NcclNetPluginError, no, node, (pid, "OFI", "register_mr", m["type"], m["err"]), plugin="OFI",
               call="register_mr", error=m["err"], code=int(m["rc"]), memory_type=_PTR_TYPES.get(int(m["type"]), m["type"]),
               **ctx)
    elif fields := read_ofi_other(msg):
        p.once(NcclNetPluginError, no, node, (pid, "OFI", fields["call"], fields.get("resource"), fields["error"]), **fields, **ctx)
    elif (fields := read_proxy(msg)) is not None:
        # one fact per line (each WARN line is an error to account for; the findings merge them)
        p.b.add(NcclProxyFailure, no, node=node, **fields, **ctx)
    elif m := _SHARED_MEM.match(msg):
        p.once(NcclSharedMemExceeds, no, node, (pid, m["arch"]), cuda_arch=int(m["arch"]), requested=int(m["req"]),
               available=int(m["avail"]), **ctx)
    else:
        return False
    return True
