"""UCX's verbs errors, printed on stderr by any program that uses UCX (Open MPI's pml ucx, Horovod,
Spark's RAPIDS shuffle, ucx-py, ``ucx_info``), so they are looked for anywhere in a file.

UCX logs a failed verbs call as ``<call>(<args>) failed: <strerror>``; since UCX 1.13 it names the
device first, and for ENOMEM it adds the process's locked-memory limit unless that is unlimited
(``uct_ib_memlock_limit_msg``, src/uct/ib/base/ib_log.c: "Please set max locked memory (ulimit -l)
to 'unlimited' (current: %llu kbytes)"; UCX's own reading of ENOMEM from a verbs call). Sample
lines (real, from the public threads named)::

    [1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory    (open-mpi/ompi#6300)
    [1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)    (openucx/ucx#8746)
    ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.    (quoted without its prefix, NVIDIA/cudf-spark#7632)
    ib_iface.c:618  UCX  ERROR ibv_create_cq(cqe=4096) failed: Invalid argument    (openucx/ucx#4556)

Facts: ``ucx_verbs_failure`` per line: the verbs call (``ibv_create_cq``, ``ibv_reg_mr``,
``mlx5dv_create_cq``, ...), the device when printed, the strerror text and the memlock limit UCX
printed (KiB). Lines of other programs that call verbs (NCCL's ``Call to ibv_x failed``) are not
UCX's and are left to their readers. Empty input, or no UCX verbs error: nothing.

UCX's mlx5 transports also log a failed work completion (an error CQE) with its hardware syndrome,
``uct_ib_mlx5_completion_with_err`` (src/uct/ib/mlx5/ib_mlx5_log.c), in three forms over the
releases, every one with ``(synd 0x%x vend 0x%x``::

    v1.3:   "Error on QP 0x%x wqe[%d]: %s (synd 0x%x vend 0x%x) opcode %s"
    v1.5:   "Error on %s:%d QP 0x%x wqe[%03d]: %s (synd 0x%x vend 0x%x hw_synd %d/%d) opcode %s"
    v1.8-:  "%s on %s:%d/%s (synd 0x%x vend 0x%x hw_synd %d/%d)\n%s QP 0x%x wqe[%d]: %s"  (device:port/IB|RoCE)

Sample lines (real, from the public threads named)::

    [1516700569.600192] [clx-orion-010:31714:0]    ib_mlx5_log.c:113  UCX  ERROR Error on QP 0x61f5 wqe[0]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND    (openucx/ucx#1920)
    [cn355:11558:0:11678] ib_mlx5_log.c:171  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)    (StanfordLegion/legion#1650)
    [cn355:11558:0:11678] ib_mlx5_log.c:171  RC QP 0x1cc0 wqe[1069]: SEND --e [inl len 84] [rqpn 0x1040 dlid=88 sl=0 port=1 src_path_bits=0]
    [mgmt:24113:0:24113] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)    (openucx/ucx#6000)
    Transport retry count exceeded (synd 0x15 vend 0x81) opcode RDMA_READ    (an issue title, openucx/ucx#2434)

Facts: ``ucx_completion_error`` per such line: the syndrome, what it is as a libibverbs
``ibv_wc_status`` (``status``, numbered as knowledge/ib_wc_status.yaml is: the mlx5 provider's own
translation), UCX's text (``message``), the vendor syndrome, the device, port and link layer when printed, the
QP type and opcode (from the v1.8+ continuation line, or the older ``opcode`` tail) and the node
UCX's ``[host:pid:...]`` prefix names.

UCX's verbs transports (rc_verbs, dc_verbs: no mlx5 direct verbs) log a failed work completion by
libibverbs' ``ibv_wc_status_str()`` only, no syndrome (src/uct/ib/rc/verbs/rc_verbs_iface.c
``uct_rc_verbs_handle_failure``, src/uct/ib/dc/verbs/dc_verbs.c, src/uct/ib/rc/verbs/rc_verbs_common.h),
in these forms over the releases::

    v1.2:        "Send completion with error: %s"   ("Receive completion with error: %s", fatal)
    v1.3-1.6:    "send completion with error: %s"
    v1.3-1.5:    "Send completion with error on qp 0x%x: %s syndrome 0x%x"   (dc_verbs; the syndrome is wc->vendor_err)
    v1.2-1.5:    "Receive completion with error on XRQ: %s"   (fatal)
    v1.7-1.10:   "send completion with error: %s qpn 0x%x wrid 0x%lx vendor_err 0x%x"
    v1.11-1.15:  "send completion with error: %s [qpn 0x%x wrid 0x%lx" "vendor_err 0x%x]\n%s"  (no space: 'wrid 0x149vendor_err')
    v1.16-:      "send completion with error: %s [qpn 0x%x wrid 0x%lx vendor_err 0x%x]\n%s"  (then the peer: "[rqpn .. dlid=..]")
    v1.3-:       "%s completion[%d] with error on %s/%p: %s, vendor_err 0x%x wr_id 0x%lx"  (fatal: "receive" of the verbs
                 RX poll, src/uct/ib/base/ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_ERR; "send" of EFA's srd, 1.19; the device named)

Sample lines (real, from the public threads named)::

    [1466599688.714393] [vegas30:25196:0] rc_verbs_iface.c:47   UCX  ERROR Send completion with error: transport retry counter exceeded    (openucx/ucx#844)
    Tue Jun 12 18:14:48 2018[1,15]<stderr>:[clx-orion-097:26451:0:26451] rc_verbs_iface.c:63   FATAL: send completion with error: transport retry counter exceeded    (openucx/ucx#2684)
    Sun Oct  1 17:01:10 2017[1,30]<stdout>:[1506866470.744682] [clx-hercules-065:1411 :0]       dc_verbs.c:633  UCX  ERROR Send completion with error on qp 0x10e55: transport retry counter exceeded syndrome 0x81    (openucx/ucx#1880)
    [compute-18:26540:0:26540] rc_verbs_iface.c:65   send completion with error: local QP operation error qpn 0x350406 wrid 0x38 vendor_err 0x70    (openucx/ucx#5318)
    [swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  send completion with error: local protection error [qpn 0xf9db wrid 0x149vendor_err 0x51]    (openucx/ucx#7774)

UCX's System V shared-memory allocation (src/ucs/sys/sys.c ``ucs_sysv_alloc``, used by its mm/sysv
shared-memory transport and memory pools) logs a failed ``shmget`` in these forms::

    v1.0-1.6:  "shmget(size=%zu, flags=0x%x) returned unexpected error: %m. Please check shared memory limits by 'ipcs -l'."
               "shmget failed: %s. (size=%zu). The max number of shared memory segments in the system is = %ld. ..."
    v1.4-:     "shmget(size=%zu flags=0x%x) for %s failed: %s" + ", allocation size exceeds /proc/sys/kernel/shmmax (=%zu)",
               the ENOSPC/EPERM checks' words, or ", please check shared memory limits by 'ipcs -l'"

Sample line (real, open-mpi/ompi#6084: UCX 1.4 on a Cray XC40; the same in Rmpi's and other MPI programs'
notes of working runs)::

    [1542291969.934067] [nid02068:7234 :0]            sys.c:619  UCX  ERROR shmget(size=2097152 flags=0xfb0) for mm_recv_desc failed: Operation not permitted, please check shared memory limits by 'ipcs -l'

Facts: ``ucx_shm_alloc_failed`` per line (what the segment was for, size, flags and whether they ask
for huge pages: SHM_HUGETLB 0x800, which an unprivileged process may not use, so UCX retries without).

UCX's GPU-initiated (device) API (src/ucp/core/ucp_device.c, UCX 1.20 and later; NIXL EP and other
GPU-initiated kernels call it) logs an endpoint with no transport lane for a GPU's memory in these forms::

    v1.20:   "failed to select lane for local device %s"   (ucs_topo_sys_device_get_name: "GPU0")
    v1.21-:  "no lane found for ep=%p"
    then:    "failed to create handle: %s"                 (ucs_status_string(UCS_ERR_NO_DEVICE): "No such device")

Sample lines (real, ai-dynamo/nixl#1110: NIXL EP's elastic benchmark on a GB200 NVL72 node whose container set
UCX_TLS=^cuda_ipc; unsetting it made the benchmark pass)::

    [1765457011.052824] [nvl72119-T17:1222683:0]      ucp_device.c:415  UCX  ERROR failed to select lane for local device GPU0
    [1765457011.052846] [nvl72119-T17:1222683:0]      ucp_device.c:593  UCX  ERROR failed to create handle:

UCX's wire-up finding no transport that copies between host and GPU memory (src/ucp/wireup/select.c,
``ucs_error("no %s transport to %s: %s", criteria->title, <peer>, <each transport's reason>)`` with the title
"copy across memory types"), and Open MPI's pml ucx failing on it (pml_ucx.c "Failed to create UCP worker", then
pml_base_select.c "PML %s cannot be selected"). Sample lines (real, openucx/ucx#3174: Open MPI 3.1.3 + UCX 1.3.1 on GPU
nodes)::

    [1549236370.714691] [r3657:2445 :0]         select.c:312  UCX  ERROR no copy across memory types transport to <no debug data>: Unsupported operation
    [r3657:02445] ../../../../../../../ompi/mca/pml/ucx/pml_ucx.c:208 Error: Failed to create UCP worker
    [r3657:02445] PML ucx cannot be selected

Facts: ``ucx_memtype_copy_missing`` per such line (the peer, the first reason, whether the pml failed after it).

UCX's cuda_ipc transport failing to map a peer's GPU buffer (src/uct/cuda/cuda_ipc/cuda_ipc_cache.c, ucs_fatal
``"%s: failed to open ipc mem handle. addr:%p len:%lu (%s)"`` with the cache's name and ucs_status_string, or without
the status; the driver call under it by UCT_CUDADRV_FUNC_LOG_ERR ``"%s() failed: %s"``, cuIpcOpenMemHandle and its
CUDA error string; UCX 1.4-1.8's runtime form ``"%s is failed. ret:%s"``). Sample lines (real, openucx/ucx#3192; and
the format as ucs_fatal prints it: src/ucs/debug/log.c ``"[%s:%-5d:%s:%d] "``, assert.c ``"%13s:%-4u %s"``, filled)::

    cuda_ipc_cache.c:154  UCX Fatal: dest:5221: failed to open ipc mem handle. addr:0x7f7647415c00 len:89088 (Element already exists)
    [node1:52210:0:52210] cuda_ipc_cache.c:751  Fatal: dest:52211: failed to open ipc mem handle. addr:0x7f7647415c00 len:89088 (Element already exists)

Facts: ``ucx_cuda_ipc_open_failed`` per peer cache and address (the same message again, as a debugger's frame
quoting it, is read with it): the cache (``dest:<peer pid>``), address, length, the status and whether it says the handle is mapped
already (CUDA_ERROR_ALREADY_MAPPED, UCS_ERR_ALREADY_EXISTS "Element already exists").

Facts: ``ucx_device_lane_missing`` per lane error (the GPU when named, the node of UCX's prefix); the
"failed to create handle" line after it is its consequence, read with it.

UCX's context finding none of the transports or devices it was asked for (src/ucp/core/ucp_context.c
ucp_check_resources: ``ucs_error("no usable transports/devices (asked %s)", info_str)``, UCS_ERR_NO_DEVICE; the asked
string is UCX_TLS's names, "on ", then each device type's UCX_*_DEVICES as "<type>:<names> ", or "all devices"), after
ucp_report_unavailable's warning naming the asked ones this node lacks (``"%s%s%s %s %s not available, please use one
or more of: %s"``: "transport"/"s", the quoted names, "is"/"are", the available ones). Sample lines (real,
openucx/ucx#9610: MPICH over UCX on TACC Frontera with UCX_TLS=knem,dc_x,rc)::

    [1705555968.594314] [c204-009:189455:0]     ucp_context.c:1081 UCX  WARN  transports 'knem','dc_x','rc' are not available, please use one or more of: mm, posix, self, shm, sm, sysv, tcp
    [1705555968.594329] [c204-009:189455:0]     ucp_context.c:1345 UCX  ERROR no usable transports/devices (asked knem,dc_x,rc on all devices)

Facts: ``ucx_no_usable_transport`` per such error line: the transports and devices asked, and from the same host's
warning before it the asked names this node lacks and the ones it has (the warning is read with it).

The status string is read as libibverbs' ``ibv_wc_status`` by its exact name
(knowledge/ib_wc_status.yaml lists the names of rdma-core libibverbs/enum_strs.c, unchanged since
2008), into the same ``ucx_completion_error`` fact (``transport`` "verbs", no syndrome; the vendor
error when printed). A string that names no listed status (interleaved output that cut it, "TM error")
makes no fact: the line stays an error nobody read.
"""
from __future__ import annotations

import re

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    OpenmpiUcxPeerFailed, UcxCompletionError, UcxCudaIpcOpenFailed, UcxDeviceLaneMissing, UcxMemtypeCopyMissing,
    UcxNoUsableTransport, UcxGidEmpty, UcxRkeyEndpointMismatch, UcxShmAllocFailed, UcxSocketConnectFailed, UcxVerbsFailure,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, iter_matches, lines_with

KIND = "ucx_log"

# [1548304905.378218] [mpi11:4770 :0]       ib_iface.c:690  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory
# ... ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)
# ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.
#   (the call with its parenthesised arguments, then " failed: ": UCX's form; NCCL writes "Call to ibv_x failed")
# The address handle of a UD/DC peer or a RoCE QP's path names the device after the call, and since UCX 1.18 what it
# was for (src/uct/ib/base/ib_device.c uct_ib_device_create_ah "ibv_create_ah(%s) on %s failed: %m", ib_iface.c
# "ibv_create_ah(%s) on %s:%d failed: %m"; then "... for %s on %s failed: %m"):
# [1745499308.854013] [9fd0c21b0f7c:760  :0]       ib_device.c:1332 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 dgid=fe80::5aa2:e1ff:fefe:c130 flow_label=0xffffffff sgid_index=0 traffic_class=0) for UD mlx5 connect on mlx5_0 failed: No such device
#   (ai-dynamo/dynamo#814: NIXL's UCX between two RoCE nodes)
# A DevX command the firmware refused names the device and the command's syndrome after "failed" (src/uct/ib/mlx5/dv/
# ib_mlx5_dv.c "mlx5dv_devx_obj_create(%s) failed on %s, syndrome 0x%x: %m", "mlx5dv_devx_general_cmd(%s) failed on
# %s, syndrome 0x%x: %m"):
# [1784273406.684686] [iv-ydzf15rfggbw80bfv8sr:994396:0]      ib_mlx5_dv.c:452  UCX  ERROR   mlx5dv_devx_obj_create(CQ) failed on mlx5_1, syndrome 0x2aac7c: Remote I/O error
#   (sgl-project/sglang#27894: NIXL's UCX GPU-initiated channel in a CI job)
# strerror's EIO is "Input/output error", with a slash ("Remote I/O error" is EREMOTEIO)
# Two older forms put no "failed: " in the line: the DevX QP modify before UCX 1.9 gives the command's opcode and the
# firmware's syndrome in hex without "0x" (src/uct/ib/mlx5/dv/ib_mlx5_dv.c uct_ib_mlx5_devx_modify_qp
# "mlx5dv_devx_qp_modify(%x) failed, syndrome %x: %m"), and the DC transport's DCI set-up a blank before the colon
# (src/uct/ib/dc/dc_mlx5.c "ibv_modify_qp(DCI, RTR) failed : %m"):
# Mon Apr  6 14:58:07 2020[1,1]<stdout>:[1586174287.331106] [clx-hercules-015:32494:0]     ib_mlx5_dv.c:217  UCX  ERROR mlx5dv_devx_qp_modify(503) failed, syndrome 0: Invalid argument
#   (openucx/ucx#4986: an MTT run with UCX_IB_SL=2, Open MPI's --timestamp-output --tag-output before UCX's prefix)
# [1665103135.306110] [hpap13n2:7391 :0]         dc_mlx5.c:456  UCX  ERROR ibv_modify_qp(DCI, RTR) failed : Invalid argument
# `ib_mlx5_dv.c:223  UCX  ERROR mlx5dv_devx_qp_modify(502) failed, syndrome 0: Invalid argument`
#   (openucx/ucx#8604: UCX 1.13 and then 1.8 over MLNX_OFED 4.9's rdma-core with a SLES kernel's mlx5; quoted in
#   backticks in a comment, so a closing quote or backtick may end the line)
# UCX's failed address handle (src/uct/ib/base/ib_device.c uct_ib_device_create_ah, openucx/ucx at 9466d10):
# ucs_error("ibv_create_ah(%s) for %s on %s failed: %m", uct_ib_ah_attr_str(...), usage, uct_ib_device_name(dev)), the
# attributes "dlid=%d sl=%d port=%d src_path_bits=%d" and, for a global route, " dgid=%s flow_label=0x%x sgid_index=%d
# traffic_class=%d"; 1.9-1.11 without " for %s", 1.5-1.8 without the device, 1.1-1.4 " on %s:%d" (UCT_IB_IFACE_FMT);
# no even thread's paste of it was found (CONSTRUCTED from the format):
# [1733414400.123456] [node07:20411:0]       ib_device.c:1455 UCX  ERROR ibv_create_ah(dlid=49152 sl=0 port=1 src_path_bits=0 dgid=::ffff:10.20.0.7 flow_label=0xffffffff sgid_index=3 traffic_class=106) for UD verbs connect on mlx5_1 failed: Invalid argument
_LINE = re.compile(
    r"^[^\n]*?\bERROR\s+(?:(?P<dev>[A-Za-z]\w{0,31}): )?(?P<verb>(?:ibv|mlx5dv)_\w{1,40})\((?P<args>[^)\n]{0,200})\)"
    r"(?: for (?P<purpose>[\w ]{1,60}?))?(?: on (?P<dev_on>[A-Za-z]\w{0,31})(?::\d{1,3})?)? failed"
    r"(?: on (?P<dev_after>[A-Za-z]\w{0,31}), syndrome 0x[0-9a-fA-F]{1,8}|, syndrome [0-9a-fA-F]{1,8})? ?: "
    r"(?P<err>[A-Za-z][A-Za-z /]{0,60}?)[ \t]*[`'\"]?(?:[.:]|$)(?P<rest>[^\n]*)$", re.M)
# ... Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)
_MEMLOCK = re.compile(r"\(current: (?P<kb>\d{1,20}) kbytes\)")
# UCX's query of the HCA (src/uct/ib/base/ib_verbs.h uct_ib_query_device, ib_device.c): "<call>(%s) returned %d: %m",
# the call ibv_query_device_ex / ibv_query_device, or MLNX_OFED's experimental ibv_exp_query_device in builds against it:
# [1581627489.217854] [upstreamhost1:195530:0]       ib_verbs.h:84   UCX  ERROR ibv_exp_query_device(mlx5_0) returned 38: No space left on device   (openucx/ucx#4770)
# ... UCX  ERROR ibv_query_device_ex(mlx5_0) returned 95: Operation not supported                                                     (format filled)
_RETURNED = re.compile(
    r"^[^\n]*?\bERROR\s+(?P<verb>(?:ibv|mlx5dv)_\w{1,40})\((?P<dev>[A-Za-z]\w{0,31})\) returned (?P<ret>-?\d{1,6}): "
    r"(?P<err>[A-Za-z](?:[A-Za-z ]{0,59}?[A-Za-z])??)[ \t]*+\.?[ \t\r]*$", re.M)


# ... sys.c:619  UCX  ERROR shmget(size=2097152 flags=0xfb0) for mm_recv_desc failed: Operation not permitted, please check shared memory limits by 'ipcs -l'
# ... UCX  ERROR shmget(size=4194304 flags=0x7b0) for ucp_am_bufs failed: No space left on device, total shared memory pages in the system (...) would exceed the limit in /proc/sys/kernel/shmall (=...)   (sys.c, filled)
# ... UCX  ERROR shmget(size=2097152, flags=0x7b0) returned unexpected error: Invalid argument. Please check shared memory limits by 'ipcs -l'.   (v1.0-1.6)
#   the detail ends at a character that is no blank (or is one blank): a lazy detail tried the line's end after each
#   blank of a long run before the last word (bench/redos.py, session 19: 0.38 s at 120,000 characters, now 5 ms);
#   the same answers on every real line of fixtures/, tests/ and the dev corpus (also _SHMGET_OLD's)
_SHMGET = re.compile(r"\bshmget\(size=(?P<size>\d{1,20}),? flags=0x(?P<flags>[0-9a-fA-F]{1,8})\) "
                     r"(?:for (?P<purpose>\S{1,64}) failed|returned unexpected error): (?P<err>[A-Za-z][A-Za-z ]{0,60}?)"
                     r"(?:[.,] ?(?P<detail>[^\n]{0,299}\S|[^\S\n]))?[ \t\r]*$", re.M)
# ... UCX  ERROR shmget failed: No space left on device. (size=2097152). The max number of shared memory segments in the system is = 4096. Please try to increase this value through /proc/sys/kernel/shmmni
_SHMGET_OLD = re.compile(r"\bshmget failed: (?P<err>[A-Za-z][A-Za-z ]{0,60}?)\. \(size=(?P<size>\d{1,20})\)\. (?P<detail>[^\n]{0,299}\S|[^\S\n])[ \t\r]*$", re.M)
_SHM_HUGETLB = 0x800

# UCX's own QP creation for a transport (src/uct/ib/base/ib_iface.c uct_ib_iface_create_qp; EFA's srd and the
# ud verbs transport print the same), the verbs call being ibv_create_qp / ibv_create_qp_ex, in these forms:
#   "iface=%p: failed to create %s QP TX wr:%d sge:%d inl:%d RX wr:%d sge:%d inl %d: %m"                    (1.5-1.8)
#   "iface=%p: failed to create %s QP TX wr:%d sge:%d inl:%d resp:%d RX wr:%d sge:%d resp:%d: %m"            (1.9-)
#   "iface=%p: failed to create %s QP on <dev>:<port> TX wr:... resp:%d: %m"                                  (srd, 1.14-)
#   "iface %p failed to create %s QP TX wr:... resp:%d: %m[. Please set max locked memory ...]"               (1.16-)
# [1588956223.719348] [vinci115:55453:0]       ib_iface.c:623  UCX  ERROR iface=0x2535490: failed to create UD QP TX wr:256 sge:2 inl:64 RX wr:4096 sge:1 inl 0: Invalid argument
#   (openucx/ucx#5148: QLogic FastLinQ, the qedr provider refusing the UD QP)
_CREATE_QP = re.compile(r"\biface[= ](?:0x[0-9a-fA-F]{1,16}|\(nil\)):? failed to create (?P<qpt>\w{1,12}) QP (?:on (?P<dev>[A-Za-z]\w{0,31}):\d{1,3} )?"
                        r"TX wr:\d{1,9} [^\n]{0,120}?RX wr:\d{1,9} sge:\d{1,4} (?:inl|resp)[: ]\d{1,9}: (?P<err>[A-Za-z][A-Za-z ]{0,60}?)[ \t]*(?:[.]|$)"
                        r"(?P<rest>[^\n]*)$", re.M)

# UCX before 1.5 said only "failed to create qp: %m" (src/uct/ib/rc/base/rc_iface.c uct_rc_iface_qp_create; openucx/ucx#2764
# added the QP type and sizes, the form above):
# Mon Jul  2 19:35:38 2018[1,936]<stdout>:[1530549338.253029] [clx-hercules-007:20497:0]       rc_iface.c:966  UCX  ERROR failed to create qp: Invalid argument
#   (openucx/ucx#2718: an MTT run of 3136 ranks, Open MPI's --timestamp-output --tag-output before UCX's own prefix)
_CREATE_QP_OLD = re.compile(r"\bUCX\s{1,4}ERROR\s{1,4}failed to create qp: (?P<err>[A-Za-z][A-Za-z ]{0,60}?)[ \t\r]*\.?$", re.M)

# UCX's socket connect (src/ucs/sys/sock.c ucs_socket_connect: "connect(fd=%d, dest_addr=%s) failed: %m"), used by its
# tcp transport, tcp sockcm and the wire-up of the peers' addresses:
# [1700554343.440877] [10-192-80-132:7356 :0]            sock.c:323  UCX  ERROR   connect(fd=48, dest_addr=172.17.0.1:42887) failed: Connection refused
#   (NVIDIA/nccl-tests#180: mpirun over UCX, every peer's address Docker's default bridge 172.17.0.1)
_CONNECT = re.compile(r"\bconnect\(fd=\d{1,9}, dest_addr=(?P<addr>\[?[0-9A-Fa-f.:]{2,45}?\]?):(?P<port>\d{1,5})\) failed: "
                      r"(?P<err>[A-Za-z][A-Za-z ]{0,60}?)[ \t\r]*$", re.M)
#: Docker's default bridge network (docker0, 172.17.0.0/16): every Docker host has the same addresses on it, so a
#: peer's address there names the connecting host's own bridge, never the peer (dockerd's default bip 172.17.0.1/16)
DOCKER_BRIDGE = re.compile(r"^172\.17\.\d{1,3}\.\d{1,3}$")


def _qp_and_connect(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    text = artefact.text
    if " QP " in text and "failed to create" in text:
        for n, m in iter_matches(_CREATE_QP, artefact):
            result.lines_used += 1
            limit = _MEMLOCK.search(m["rest"])
            fb.add(UcxVerbsFailure, n, node=_node_before(artefact, m.start()), verb="ibv_create_qp", device=m["dev"],
                   error=m["err"].strip(), qp_type=m["qpt"], memlock_kb=int(limit["kb"]) if limit else None)
    if "failed to create qp: " in text:
        for n, line in iter_lines_with(("failed to create qp: ",), artefact):
            if (m := _CREATE_QP_OLD.search(line)) is None:
                continue
            result.lines_used += 1
            host = _HOST.search(line[:m.start()])
            fb.add(UcxVerbsFailure, n, node=artefact.node_for(host["host"] if host else None), verb="ibv_create_qp",
                   error=m["err"].strip())
    if "connect(fd=" in text:
        for n, line in iter_lines_with(("connect(fd=",), artefact):
            if (m := _CONNECT.search(line)) is None:
                continue
            result.lines_used += 1
            addr = m["addr"].strip("[]")
            host = _HOST.search(line[:m.start()])
            fb.add(UcxSocketConnectFailed, n, node=artefact.node_for(host["host"] if host else None), address=addr,
                   port=int(m["port"]), error=m["err"].strip(), docker_bridge=DOCKER_BRIDGE.match(addr) is not None)


# Open MPI's UCX components (MCA_COMMON_UCX_ERROR: "<file>:<line> Error: " after opal_output's "[host:pid] "; one or
# two blanks before "Error:" over the releases) when a peer rank cannot be reached:
# [n097:127549] pml_ucx.c:421  Error: ucp_ep_create(proc=108) failed: Destination is unreachable    (openucx/ucx#8448)
# [n097:127549] pml_ucx.c:472  Error: Failed to resolve UCX endpoint for rank 108                      (its consequence, Open MPI 4.x)
# [10-192-80-132.cls-gebgk6vq.ecp.shopeemobile.com:07356] pml_ucx.c:424  Error: ucp_ep_create(proc=3) failed: Destination is unreachable   (NVIDIA/nccl-tests#180)
# [host:1234] spml_ucx.c:264  Error: ucp_ep_create(proc=142/224) failed: Destination is unreachable   (OpenSHMEM's form, spml_ucx.c, filled)
# pml_ucx.c:178  Error: Failed to receive UCX worker address: Not found (-13)                          (pml_ucx.c mca_pml_ucx_recv_worker_address, filled)
# [host:1234] spml_ucx.c:306  Error: add procs FAILED rc=-2                                             (spml_ucx.c, after its ucp_ep_create)
_OMPI_UCX = re.compile(r"(?:\[(?P<host>[\w.-]{1,253}):\s{0,8}\d{1,10}\] {0,4})?(?P<layer>pml|spml|osc|common)_ucx\w{0,30}\.c:\d{1,6}\s{1,4}Error: "
                       r"(?:ucp_ep_create\(proc=(?P<rank>\d{1,9})(?:/\d{1,9})?\) failed: (?P<status>[A-Za-z][\w ,'/-]{0,80}?)"
                       r"|Failed to receive UCX worker address: (?P<addr>[A-Za-z][\w ,'/-]{0,80}?) \(-?\d{1,6}\)"
                       r"|Failed to resolve UCX endpoint for rank (?P<rank2>\d{1,9})|add procs FAILED rc=-?\d{1,6})[ \t\r]*$")

_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")

# [1765457011.052824] [nvl72119-T17:1222683:0]      ucp_device.c:415  UCX  ERROR failed to select lane for local device GPU0   (ai-dynamo/nixl#1110, UCX 1.20)
# ... ucp_device.c:497  UCX  ERROR no lane found for ep=0x7f3a2c01b0c0   (UCX 1.21's ucp_device.c, filled)
#   (quoted in a ticket's prose: a closing quote or backtick after it)
_DEVICE_LANE = re.compile(r"\bUCX\s{1,4}ERROR\s{1,4}(?:failed to select lane for local device (?P<dev>[^\s\"'`]{1,64})"
                          r"|no lane found for ep=(?:0x[0-9a-fA-F]{1,16}|\(nil\)))[\"'`]?[ \t\r]*$")
# [1765457011.052846] [nvl72119-T17:1222683:0]      ucp_device.c:593  UCX  ERROR failed to create handle:   (ai-dynamo/nixl#1110, cut)
# ... UCX  ERROR failed to create handle: No such device   (ucp_device.c: ucs_status_string(UCS_ERR_NO_DEVICE), filled)
_DEVICE_HANDLE = re.compile(r"\bUCX\s{1,4}ERROR\s{1,4}failed to create handle:(?: [^\n]{0,80})?$")


def _device_lanes(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """The lane error makes the fact; the "failed to create handle" after it (its consequence) is read with it."""
    lines = artefact.lines
    for n, line in iter_lines_with(("select lane", "no lane found"), artefact):
        if (m := _DEVICE_LANE.search(line)) is None:
            continue
        result.lines_used += 1
        if n < len(lines) and _DEVICE_HANDLE.search(lines[n]) is not None:
            result.lines_used += 1
        host = _HOST.search(line[:m.start()])
        fb.add(UcxDeviceLaneMissing, n, node=artefact.node_for(host["host"] if host else None), device=m["dev"])


# [1549236370.714691] [r3657:2445 :0]         select.c:312  UCX  ERROR no copy across memory types transport to <no debug data>: Unsupported operation   (openucx/ucx#3174, UCX 1.3.1)
# ... select.c:634  UCX  ERROR   no copy across memory types transport to node-a:9574: self/memory - Destination is unreachable, tcp/lo - no put short   (select.c's "no %s transport to %s: %s", filled)
_MEMTYPE = re.compile(r"\bno copy across memory types transport to (?P<peer><no debug data>|[\w.-]{1,253}:\d{1,10}|[^\s:]{1,253}): "
                      r"(?P<reason>[^,\n]{0,160}[^,\s])")
# [r3657:02445] ../../../../../../../ompi/mca/pml/ucx/pml_ucx.c:208 Error: Failed to create UCP worker   (openucx/ucx#3174)
# [r3657:02445] PML ucx cannot be selected   (ompi/mca/pml/base/pml_base_select.c "PML %s cannot be selected", openucx/ucx#3174)
_PML_FAILED = re.compile(r"pml_ucx\.c:\d{1,6}\s{1,4}Error: Failed to create UCP worker|\bPML ucx cannot be selected\b")


def _memtype(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """One fact per line; the pml's failure lines after the first are its consequence, read with it."""
    found = [(n, m, line) for n, line in iter_lines_with(("copy across memory types",), artefact)
             if (m := _MEMTYPE.search(line)) is not None]
    if not found:
        return
    pml = [n for n, _line in iter_lines_with(("Failed to create UCP worker", "PML ucx cannot"), artefact)
           if _PML_FAILED.search(_line) is not None]
    result.lines_used += len(found) + len(pml)
    for n, m, line in found:
        host = _HOST.search(line[:m.start()])
        peer = None if m["peer"] == "<no debug data>" else m["peer"]
        fb.add(UcxMemtypeCopyMissing, n, node=artefact.node_for(host["host"] if host else None), peer=peer,
               reason=m["reason"].strip(), pml_not_selected=any(p > n for p in pml))


# [1705555968.594329] [c204-009:189455:0]     ucp_context.c:1345 UCX  ERROR no usable transports/devices (asked knem,dc_x,rc on all devices)   (openucx/ucx#9610)
#   (ucp_resource_config_str: "<tl>,<tl> " + "on " + "<devtype>:<dev>,<dev> " per device type, or "all devices"; every list
#   ends with a blank, so ") " may follow one: "(asked rc on network:mlx5_ib0:1 )")
_NO_USABLE = re.compile(r"\bno usable transports/devices \(asked (?P<asked>(?:(?P<tls>[^\s()]{1,200}) on )?(?P<devs>[^()\n]{0,200}?)) ?\)")
# [1705555968.594314] [c204-009:189455:0]     ucp_context.c:1081 UCX  WARN  transports 'knem','dc_x','rc' are not available, please use one or more of: mm, posix, self, shm, sm, sysv, tcp   (openucx/ucx#9610)
#   (ucp_report_unavailable: "%s%s%s %s %s not available, please use one or more of: %s"; the same for devices, "network
#   device 'x' is not available")
_UNAVAILABLE = re.compile(r"\b(?P<what>transport|[a-z]{1,20} device)s? (?P<names>'[^'\n]{1,64}'(?:,'[^'\n]{1,64}'){0,31}) "
                          r"(?:is|are) not available, please use one or more of: (?P<avail>[^\n]{0,600})")


def _no_usable(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """One fact per error line, with the same host's last transport warning before it."""
    warned: dict[str | None, tuple[list[str], list[str]]] = {}
    for n, line in iter_lines_with(("not available, please use", "no usable transports/devices"), artefact):
        host = _HOST.search(line)
        key = host["host"] if host else None
        if (w := _UNAVAILABLE.search(line)) is not None:
            result.lines_used += 1
            if w["what"] == "transport":
                warned[key] = ([x.strip("'") for x in w["names"].split(",")],
                               [x.strip() for x in w["avail"].split(",") if x.strip()])
            continue
        if (m := _NO_USABLE.search(line)) is None:
            continue
        result.lines_used += 1
        lacks, has = warned.get(key, ([], []))
        lacks_s, has_s = ", ".join(lacks) or None, ", ".join(has) or None
        words = f"lacks {lacks_s}; has {has_s or 'none'}" if lacks_s else "no warning before it"
        fb.add(UcxNoUsableTransport, n, node=artefact.node_for(key), asked=m["asked"].strip(), asked_transports=m["tls"],
               asked_devices=m["devs"].strip() or "all devices", unavailable=lacks_s, available=has_s, warning=words)


# cuda_ipc_cache.c:154  UCX Fatal: dest:5221: failed to open ipc mem handle. addr:0x7f7647415c00 len:89088 (Element already exists)   (openucx/ucx#3192)
# [node1:52210:0:52210] cuda_ipc_cache.c:751  Fatal: dest:52211: failed to open ipc mem handle. addr:0x7f7647415c00 len:89088 (Element already exists)
#   (cuda_ipc_cache.c ucs_fatal("%s: failed to open ipc mem handle. addr:%p len:%lu (%s)") under log.c's "[%s:%-5d:%s:%d] "
#   and assert.c's "%13s:%-4u %s", filled)
_IPC_OPEN = re.compile(r"(?P<cache>[\w.:-]{1,64}): failed to open ipc mem handle\. addr:(?P<addr>0x[0-9a-fA-F]{1,16}|\(nil\))"
                       r"(?: len:(?P<len>\d{1,20})(?: \((?P<status>[A-Za-z][\w ,'-]{0,80})\))?)?")
# ... cuda_ipc_cache.c:284  UCX  ERROR cuIpcOpenMemHandle() failed: invalid device context   (UCT_CUDADRV_FUNC_LOG_ERR "%s() failed: %s", filled)
# ... cuda_ipc_md.c:105  UCX  ERROR cudaIpcOpenMemHandle(...) is failed. ret:peer mapping resources exhausted   (UCX 1.4-1.8 "%s is failed. ret:%s", filled)
_IPC_CALL = re.compile(r"\b(?:cuIpcOpenMemHandle|cudaIpcOpenMemHandle)(?:\([^()\n]{0,200}\))?(?:\(\))? (?:failed: |is failed\. ret:)"
                       r"(?P<err>[A-Za-z][\w ,'-]{0,80}[\w'])")
_ALREADY = ("Element already exists", "already mapped")


def _cuda_ipc(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    seen: set[tuple[str, str]] = set()
    calls: list[tuple[int, str, str]] = []
    for n, line in iter_lines_with(("open ipc mem handle", "IpcOpenMemHandle"), artefact):
        if (m := _IPC_OPEN.search(line)) is not None:
            result.lines_used += 1
            if any(c == m["cache"] and (a.startswith(m["addr"]) or m["addr"].startswith(a)) for c, a in seen):
                continue  # the same fatal message again (a debugger's frame quoting it, cut where the frame wraps)
            seen.add((m["cache"], m["addr"]))
            host = _HOST.search(line[:m.start()])
            length = int(m["len"]) if m["len"] else None
            status = m["status"].strip() if m["status"] else None
            fb.add(UcxCudaIpcOpenFailed, n, node=artefact.node_for(host["host"] if host else None), cache=m["cache"],
                   address=m["addr"], length=length, status=status,
                   already_mapped=bool(status and any(a in status for a in _ALREADY)))
        elif (c := _IPC_CALL.search(line)) is not None:
            result.lines_used += 1
            host = _HOST.search(line[:c.start()])
            calls.append((n, host["host"] if host else "", c["err"].strip()))
    if not seen:  # the driver call alone: the fatal line after it was not pasted
        for n, host, err in calls:
            fb.add(UcxCudaIpcOpenFailed, n, node=artefact.node_for(host or None), status=err,
                   already_mapped=any(a in err for a in _ALREADY))


def _openmpi_peers(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """A consequence line ("Failed to resolve UCX endpoint", "add procs FAILED") is read with the failure before it in
    the file; alone, it is a fact of its own (stage resolve), which no rule explains."""
    caused = False
    for n, line in iter_lines_with(("_ucx",), artefact):
        if "Error: " not in line or (m := _OMPI_UCX.search(line)) is None:
            continue
        result.lines_used += 1
        host = m["host"]
        if host and not _IPV4.match(host):  # opal_output prints gethostname(), UCX and the other lines its first label
            host = host.split(".", 1)[0]
        node = artefact.node_for(host)
        if m["status"] or m["addr"]:
            caused = True
            fb.add(OpenmpiUcxPeerFailed, n, node=node, stage="endpoint" if m["status"] else "address", layer=m["layer"],
                   peer_rank=int(m["rank"]) if m["rank"] else None, status=(m["status"] or m["addr"]).strip())
        elif not caused:
            fb.add(OpenmpiUcxPeerFailed, n, node=node, stage="resolve", layer=m["layer"],
                   peer_rank=int(m["rank2"]) if m["rank2"] else None)


def _shm(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    for n, line in iter_lines_with(("shmget",), artefact):
        m = _SHMGET.search(line) or _SHMGET_OLD.search(line)
        if m is None:
            continue
        result.lines_used += 1
        got = m.groupdict()
        flags = int(got["flags"], 16) if got.get("flags") else None
        host = _HOST.search(line[:m.start()])
        fb.add(UcxShmAllocFailed, n, node=artefact.node_for(host["host"] if host else None), purpose=got.get("purpose"), size=int(m["size"]), flags=flags,
               hugetlb=bool(flags is not None and flags & _SHM_HUGETLB), error=m["err"].strip(), detail=got.get("detail"))


# [1652847615.199257] [gnu-ompi-mtt-cn-1:57362:0]        rma_send.c:277  UCX  ERROR cannot use a remote key on a different endpoint than it was unpacked on   (open-mpi/ompi#10410; src/ucp/rma/rma.inl UCP_RKEY_RESOLVE)
# sgl[1]: rkey 0x7f.. was unpacked on ep 0x7f.., but sgl[0] rkey 0x7f.. was unpacked on ep 0x7f.., all rkeys must belong to the same endpoint   (format filled: UCX's protocol v2 scatter-gather check)
_RKEY_EP = re.compile(r"\b(?:cannot use a remote key on a different endpoint than it was unpacked on"
                      r"|(?P<sgl>sgl\[\d{1,9}\]: rkey (?:0x[0-9a-fA-F]{1,16}|\(nil\)) was unpacked on ep [^\n]{0,120}?"
                      r"all rkeys must belong to the same endpoint))")


def _rkey_endpoints(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    for n, m in iter_matches(_RKEY_EP, artefact):
        result.lines_used += 1
        host = _HOST.search(artefact.lines[n - 1])
        fb.add(UcxRkeyEndpointMismatch, n, node=artefact.node_for(host["host"] if host else None),
               form="sgl" if m["sgl"] else "resolve")


# [1585882859.110274] [149a368e-ef8d-493a-b46f-2e23bde3f0a1:63427:0]      ib_device.c:918  UCX  ERROR Invalid gid[0] on mlx5_6:1   (openucx/ucx#4966)
#   (src/uct/ib/base/ib_device.c uct_ib_device_query_gid, and uct_ib_iface_init_gid in ib_iface.c before 1.9:
#   ucs_error("Invalid gid[%d] on %s:%d", gid_index, uct_ib_device_name(dev), port_num) where the GID table's entry
#   is all zero: the same words in every release)
_GID_EMPTY = re.compile(r"\bInvalid gid\[(?P<idx>\d{1,3})\] on (?P<dev>[A-Za-z]\w{0,31}):(?P<port>\d{1,3})\b")


def _gid_empty(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    for n, line in iter_lines_with(("Invalid gid[",), artefact):
        m = _GID_EMPTY.search(line)
        if m is None:
            continue
        result.lines_used += 1
        host = _HOST.search(line[:m.start()])
        fb.add(UcxGidEmpty, n, node=artefact.node_for(host["host"] if host else None), device=m["dev"],
               port=int(m["port"]), gid_index=int(m["idx"]))


def detect(head: str) -> bool:
    if "unpacked on" in head and _RKEY_EP.search(head) is not None:
        return True
    if "Invalid gid[" in head and _GID_EMPTY.search(head) is not None:
        return True
    if "shmget" in head and (_SHMGET.search(head) or _SHMGET_OLD.search(head)) is not None:
        return True
    if " vend 0x" in head and _cqe_search(head) is not None:
        return True
    if "retry count exceeded" in head and _CQE_TEXT.search(head) is not None:
        return True
    if ("completion with error" in head or "] with error on " in head) and _VERBS.search(head) is not None:
        return True
    if "failed to create" in head and (" QP " in head and _CREATE_QP.search(head) is not None
                                       or "create qp: " in head and _CREATE_QP_OLD.search(head) is not None):
        return True
    if "connect(fd=" in head and _CONNECT.search(head) is not None:
        return True
    if "_ucx" in head and "Error: " in head and any(_OMPI_UCX.search(line) for _s, line in lines_with(head, ("_ucx",))):
        return True
    if ") returned " in head and _RETURNED.search(head) is not None:
        return True
    if "copy across memory types" in head and _MEMTYPE.search(head) is not None:
        return True
    if "no usable transports/devices" in head and _NO_USABLE.search(head) is not None:
        return True
    if ("open ipc mem handle" in head and _IPC_OPEN.search(head) is not None
            or "IpcOpenMemHandle" in head and _IPC_CALL.search(head) is not None):
        return True
    if " lane " in head and any(_DEVICE_LANE.search(line) for _s, line in lines_with(head, ("select lane", "no lane found"))):
        return True
    return (("failed: " in head or ", syndrome " in head or "failed : " in head)
            and _LINE.search(head) is not None)


def _node_before(artefact: Artefact, at: int) -> str:
    """The node of the line that holds text position ``at``: the host of UCX's ``[host:pid:tid]`` prefix before it
    (the folder's node wins; none: the file's), as every fact of this reader takes it:
    [1784273406.684686] [iv-ydzf15rfggbw80bfv8sr:994396:0]      ib_mlx5_dv.c:452  UCX  ERROR   mlx5dv_devx_obj_create(CQ) ...
    """
    text = artefact.text
    host = _HOST.search(text, text.rfind("\n", 0, at) + 1, at)
    return artefact.node_for(host["host"] if host else None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        limit = _MEMLOCK.search(m["rest"])
        fb.add(UcxVerbsFailure, n, node=_node_before(artefact, m.start("verb")), verb=m["verb"],
               device=m["dev"] or m["dev_on"] or m["dev_after"], error=m["err"].strip(),
               memlock_kb=int(limit["kb"]) if limit else None, experimental=m["verb"].startswith("ibv_exp_"),
               arguments=m["args"].strip() or None, purpose=m["purpose"])
    if ") returned " in artefact.text:
        for n, m in iter_matches(_RETURNED, artefact):
            result.lines_used += 1
            fb.add(UcxVerbsFailure, n, node=_node_before(artefact, m.start("verb")), verb=m["verb"], device=m["dev"],
                   error=m["err"].strip(), returned=int(m["ret"]), experimental=m["verb"].startswith("ibv_exp_"))
    _completions(artefact, fb, result)
    _verbs_completions(artefact, fb, result)
    _shm(artefact, fb, result)
    _qp_and_connect(artefact, fb, result)
    if "_ucx" in artefact.text:
        _openmpi_peers(artefact, fb, result)
    if " lane " in artefact.text:
        _device_lanes(artefact, fb, result)
    if "copy across memory types" in artefact.text:
        _memtype(artefact, fb, result)
    if "no usable transports/devices" in artefact.text:
        _no_usable(artefact, fb, result)
    if "IpcOpenMemHandle" in artefact.text or "open ipc mem handle" in artefact.text:
        _cuda_ipc(artefact, fb, result)
    if "unpacked on" in artefact.text:
        _rkey_endpoints(artefact, fb, result)
    if "Invalid gid[" in artefact.text:
        _gid_empty(artefact, fb, result)
    return result


# [1516700569.600192] [clx-orion-010:31714:0]    ib_mlx5_log.c:113  UCX  ERROR Error on QP 0x61f5 wqe[0]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND
# [cn355:11558:0:11678] ib_mlx5_log.c:171  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)
# Transport retry count exceeded (synd 0x15 vend 0x81) opcode RDMA_READ
# [mtt] transport retry count exceeded on (synd 0x15 vend 0x81 hw_synd 0/0)
#   (UCX's error text, "Error on [dev:port ]QP ...: " before it up to v1.5, " on dev:port[/IB|RoCE]" after it from v1.6
#   (src/uct/ib/mlx5/ib_mlx5_log.c v1.6.0: "%s on "UCT_IB_IFACE_FMT"/%s (synd 0x%x vend 0x%x hw_synd %d/%d)"); an issue
#   title quotes it lower-cased with the device left out, " on (synd ...": openucx/ucx#4184, its text kept as written)
_CQE = re.compile(
    r"(?:Error on (?:(?P<dev0>[A-Za-z]\w{0,31}):(?P<port0>\d{1,3}) )?QP 0x[0-9a-fA-F]{1,8} wqe\[\d{1,6}\]: )?"
    r"(?P<text>[A-Za-z][A-Za-z -]{2,60}?)"
    r"(?: on (?P<dev>[A-Za-z]\w{0,31}):(?P<port>\d{1,3})(?:/(?P<ll>IB|RoCE))?| on)?"
    r" \(synd 0x(?P<synd>[0-9a-fA-F]{1,2}) vend 0x(?P<vend>[0-9a-fA-F]{1,2})(?: hw_synd \d{1,3}/\d{1,3})?\)"
    r"(?: opcode (?P<op>[A-Z_]{0,20}))?")
_SYND = re.compile(r" \(synd 0x")


def _cqe_search(text: str) -> re.Match[str] | None:
    """_CQE's first match, tried only near each ``" (synd 0x"``: what it needs before the syndrome (the optional 1.3/1.5
    prefix, a text of at most 61 letters, the device) fits in 200 characters, and nothing before the syndrome can
    cross a ``(``, so no match for one syndrome starts before the one before it: each character is tried as a start
    once, and this is _CQE.search's answer without trying every letter of a long line (a search from each of 120,000
    letters took 0.9 s)."""
    after = 0
    for a in _SYND.finditer(text):
        m = _CQE.search(text, max(after, a.start() - 200), a.end() + 80)
        if m is not None:
            return m
        after = a.start() + 1
    return None
# Error: Transport retry count exceeded on mlx5_0:1/RoCE                 (1.6+'s line cut before its syndrome: an issue title)
# [mtt] Transport retry count exceeded RoCE                               (openucx/ucx#3390's title: the text alone)
# Transport retry count exceeded in the orig_ring_2_rings test            (openucx/ucx#2346's title)
#   (the two retry texts of uct_ib_mlx5_completion_with_err, as UCX writes them from 1.3 to today, are its own words:
#   libibverbs' ibv_wc_status_str() says "transport retry counter exceeded" / "RNR retry counter exceeded"; the status
#   is known from the text, the syndrome is not: MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR = 12, RNR_RETRY_EXC_ERR = 13)
_CQE_TEXT = re.compile(
    r"\b(?P<text>Transport retry count exceeded|Receive-no-ready retry count exceeded)\b"
    r"(?: on (?P<dev>[A-Za-z]\w{0,31}):(?P<port>\d{1,3})(?:/(?P<ll>IB|RoCE))?)?")
_TEXT_STATUS = {"Transport retry count exceeded": 12, "Receive-no-ready retry count exceeded": 13}
# [cn355:11558:0:11678] ib_mlx5_log.c:171  RC QP 0x1cc0 wqe[1069]: SEND --e [inl len 84] [rqpn 0x1040 dlid=88 sl=0 port=1 src_path_bits=0]
# [mgmt:24113:0:24113] ib_mlx5_log.c:143  DCI QP 0x1510 wqe[0]: SEND s-e [rqpn 0x223a4 rmac 0c:42:a1:7d:df:c8 sgix 0 dgid fe80::e42:a1ff:fe7d:dfc8 tc 0] [inl len 18]
#   (v1.8+'s second line: the QP type, then the failed WQE's opcode)
_WQE = re.compile(r"\b(?P<qp>[A-Z]{2,5}) QP 0x[0-9a-fA-F]{1,8} wqe\[\d{1,6}\]: (?P<op>[A-Z_]{2,20})\b")
# [cn355:11558:0:11678] ib_mlx5_log.c:171  ...     [1516700569.600192] [clx-orion-010:31714:0]    ib_mlx5_log.c:113 ...
# [10-192-80-132:7356 :0]            sock.c:323  UCX  ERROR   connect(fd=48, ...)   (NVIDIA/nccl-tests#180: a name that starts with a digit)
#   (ucs_log's "[host:pid:thread[:tid]]" prefix; a timestamp in brackets may come first; a host name may start with a
#   digit (RFC 1123), but all digits is a clock's "[12:34:56]", not a host)
_HOST = re.compile(r"\[(?P<host>(?!\d{1,63}:)[A-Za-z0-9][\w.-]{0,62}):\s{0,8}\d{1,10}\s{0,8}:\d{1,6}(?::\d{1,10})?\]")

#: the mlx5 CQE syndrome -> libibverbs' ibv_wc_status, as rdma-core's mlx5 provider translates it
#: (providers/mlx5/mlx5dv.h MLX5_CQE_SYNDROME_*; providers/mlx5/cq.c mlx5_handle_error_cqe(), any
#: other syndrome IBV_WC_GENERAL_ERR = 21)
_SYNDROME_STATUS = {0x01: 1, 0x02: 2, 0x04: 4, 0x05: 5, 0x06: 6, 0x10: 7, 0x11: 8, 0x12: 9, 0x13: 10, 0x14: 11,
                    0x15: 12, 0x16: 13, 0x22: 16}


def _completions(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    lines = artefact.lines
    for n, line in iter_lines_with((" vend 0x", "retry count exceeded"), artefact):
        m = _cqe_search(line) if " vend 0x" in line else None
        if m is None:
            t = _CQE_TEXT.search(line)
            if t is None:
                continue
            result.lines_used += 1  # the text without its syndrome: a line cut before it, or an issue title quoting it
            host = _HOST.search(line[:t.start()])
            fb.add(UcxCompletionError, n, node=artefact.node_for(host["host"] if host else None),
                   status=_TEXT_STATUS[t["text"]], message=t["text"], device=t["dev"],
                   port=int(t["port"]) if t["port"] else None, link_layer=t["ll"])
            continue
        result.lines_used += 1
        synd = int(m["synd"], 16)
        qp_type, opcode = None, m["op"] or None
        w = _WQE.search(lines[n]) if n < len(lines) else None  # v1.8+: "RC QP 0x.. wqe[..]: SEND" follows
        if w is not None and opcode is None:
            qp_type, opcode = w["qp"], w["op"]
            result.lines_used += 1
        host = _HOST.search(line[:m.start()])
        fb.add(UcxCompletionError, n, node=artefact.node_for(host["host"] if host else None),
               status=_SYNDROME_STATUS.get(synd, 21), syndrome=synd, vendor_err=int(m["vend"], 16),
               message=m["text"].strip(), device=m["dev"] or m["dev0"], port=int(m["port"] or m["port0"] or 0) or None,
               link_layer=m["ll"], qp_type=qp_type, opcode=opcode)


# [1466599688.714393] [vegas30:25196:0] rc_verbs_iface.c:47   UCX  ERROR Send completion with error: transport retry counter exceeded
# ... rc_verbs_iface.c:63   FATAL: send completion with error: transport retry counter exceeded
# ... dc_verbs.c:633  UCX  ERROR Send completion with error on qp 0x10e55: transport retry counter exceeded syndrome 0x81
# [compute-18:26540:0:26540] rc_verbs_iface.c:65   send completion with error: local QP operation error qpn 0x350406 wrid 0x38 vendor_err 0x70
# [swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  send completion with error: local protection error [qpn 0xf9db wrid 0x149vendor_err 0x51]
# ... Fatal: receive completion[0] with error on mlx5_0/0x1f2e3d0: Work Request Flushed Error, vendor_err 0xf9 wr_id 0x7f3c   (ib_iface.h, filled)
#   (the status string, then whatever the release adds; "Receive completion with error[ on XRQ]: %s" likewise)
_VERBS = re.compile(r"\b(?:[Ss]end|[Rr]eceive) completion(?:\[\d{1,6}\])? with error"
                    r"(?: on (?:qp 0x[0-9a-fA-F]{1,8}|XRQ|(?P<dev>[A-Za-z][\w.-]{0,31})/(?:0x[0-9a-fA-F]{1,16}|\(nil\))))?: (?P<rest>[^\n]{1,300})")
# ... vendor_err 0x70     ... [qpn 0xf9db wrid 0x149vendor_err 0x51]     ... exceeded syndrome 0x81 (dc_verbs: wc->vendor_err)
_VERBS_VENDOR = re.compile(r"(?:vendor_err|^ syndrome) 0x(?P<vend>[0-9a-fA-F]{1,8})\b")
# [swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  [rqpn 0xf9e9 dlid=10 sl=0 port=1 src_path_bits=0]   (v1.11+: the peer, next line)
_VERBS_PEER = re.compile(r"\] \S+\.c:\d+\s+\[rqpn 0x[0-9a-fA-F]+ ")


def _verbs_completions(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    table = knowledge.load("ib_wc_status.yaml")
    lines = artefact.lines
    for n, line in iter_lines_with(("completion with error", "] with error on "), artefact):
        m = _VERBS.search(line)
        entry = table.leading_name(m["rest"]) if m is not None else None
        if m is None or entry is None:
            continue  # not UCX's form, or a string that names no status: left unread
        result.lines_used += 1
        tail = m["rest"][len(entry.name):]
        vend = _VERBS_VENDOR.search(tail)
        if n < len(lines) and _VERBS_PEER.search(lines[n]):
            result.lines_used += 1
        host = _HOST.search(line[:m.start()])
        fb.add(UcxCompletionError, n, node=artefact.node_for(host["host"] if host else None), status=entry.status,
               vendor_err=int(vend["vend"], 16) if vend else None, message=entry.name, transport="verbs", device=m["dev"])


#: line signatures (facts/classify.py)
SIGNATURES = (r"\bno copy across memory types transport to \S", r"\bno usable transports/devices \(asked ", r": failed to open ipc mem handle\. addr:",
              r"\b(?:cuIpcOpenMemHandle|cudaIpcOpenMemHandle)(?:\([^()\n]*\))?(?:\(\))? (?:failed: |is failed\. ret:)[A-Za-z]",
              r"ERROR\s+(?:\w+: )?(?:ibv|mlx5dv)_\w+\([^)\n]*\)(?: for [\w ]+)?(?: on \w+(?::\d+)?)? failed(?: on \w+, syndrome 0x[0-9a-fA-F]+|, syndrome [0-9a-fA-F]+)? ?: ", r"ERROR\s+(?:ibv|mlx5dv)_\w+\(\w+\) returned -?\d+: ",
              r"\biface[= ](?:0x[0-9a-fA-F]+|\(nil\)):? failed to create \w+ QP (?:on \w+:\d+ )?TX wr:\d+ ",
              r"\bconnect\(fd=\d+, dest_addr=[^)\n]+\) failed: [A-Za-z]",
              r"\bUCX\s+ERROR\s+failed to create qp: [A-Za-z]",
              r"shmget\(size=\d+,? flags=0x[0-9a-fA-F]+\) (?:for \S+ failed|returned unexpected error): ",
              r"shmget failed: [A-Za-z][A-Za-z ]*\. \(size=\d+\)",
              r"\(synd 0x[0-9a-fA-F]+ vend 0x[0-9a-fA-F]+[ )]", r"\b(?:Transport|Receive-no-ready) retry count exceeded\b",
              r"\b(?:pml|spml|osc|common)_ucx\w*\.c:\d+\s+Error: (?:ucp_ep_create\(proc=|Failed to receive UCX worker address: |Failed to resolve UCX endpoint |add procs FAILED )",
              r"\b(?:[Ss]end|[Rr]eceive) completion(?:\[\d+\])? with error(?: on (?:qp 0x[0-9a-fA-F]+|XRQ|[\w.-]+/(?:0x[0-9a-fA-F]+|\(nil\))))?: [A-Za-z]",
              r"\bUCX\s+ERROR\s+(?:failed to select lane for local device \S|no lane found for ep=)",
              r"\bcannot use a remote key on a different endpoint than it was unpacked on",
              r"\bsgl\[\d+\]: rkey \S+ was unpacked on ep \S+, but sgl\[0\] rkey ",
              r"\bInvalid gid\[\d+\] on [A-Za-z]\w*:\d")
