"""NVSHMEM's error lines: the GPU-initiated communication library under DeepEP, TensorRT-LLM's and
vLLM's/SGLang's expert-parallel all-to-all, printing why a step of its set-up or a call failed.

NVSHMEM reports errors through the macros of src/include/non_abi/nvshmemx_error.h (NVIDIA/nvshmem):
``NVSHMEMI_NZ_ERROR_JMP``/``_RET``, ``NVSHMEMI_NE_ERROR_*``, ``NVSHMEMI_ERROR_JMP``,
``NVSHMEMI_NULL_ERROR_*`` and ``NVSHMEMI_NZ_EXIT``, each ``fprintf(stderr, "%s:%d: ...",
__FILE__, __LINE__, ...)`` and then the caller's message. The releases differ in the middle part::

    "%s:%d: non-zero status: %d "                    (2.x-3.2 _JMP; every release's _RET)
    "%s:%d: error status: %d (%s) "                  (later _JMP: the nvshmemx_status name, NVSHMEMX_ERROR_*)
    "%s:%d: non-zero status: %d: %s, exiting... "    (_NZ_EXIT: strerror(errno))
    "%s:%d: NULL value "                             (_NULL_ERROR_*)

Sample content, real lines (NVIDIA/TensorRT-LLM#17060, a GB200 NVL72 node whose DeepEP low-latency path could not
set up NVSHMEM's symmetric heap; the reporter shortened the path)::

    .../src/host/mem/mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed
    .../src/host/mem/mem_heap.cpp:1590: non-zero status: 7 allocate_physical_memory_to_heap failed

Facts: ``nvshmem_device_skipped`` (an IB transport's ``WARN: device <name> is not enumerated as an mlx5 device.
Skipping...``: IBGDA and IBDEVX take mlx5 NICs only) and ``nvshmem_error`` (source file and line, status number, the ``NVSHMEMX_*`` name where the line
gives it, the message: the failed step in NVSHMEM's words). The chain of a failure prints one line
per level (the step that failed, then each caller's ``... failed``); each is a fact, the rule cites
them together.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import NvshmemDeviceSkipped, NvshmemError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "nvshmem_log"

# .../src/host/mem/mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed
# /dvs/p4/build/sw/rel/gpgpu/toolkit/r12.0/nvshmem/src/host/init/init.cu:842: non-zero status: 7 nvshmem setup heap failed   (format filled)
# src/host/init/init.cu:1011: error status: 7 (NVSHMEMX_ERROR_INTERNAL) nvshmemi_common_init failed ...                      (format filled)
# src/host/bootstrap/bootstrap.cpp:73: non-zero status: 2: No such file or directory, exiting... bootstrap_loader_init failed (format filled)
# src/host/topo/topo.cpp:311: NULL value get cpu_set_t failed                                                               (format filled)
#   (the message ends on a non-blank, as the shortest one before \s*$ did: lazily, a run of blanks before its last
#   word was scanned to its end once per step into it)
_FORM = (
    r"(?P<file>[\w./-]*\w\.(?:cpp|cu|cc|c|h|hpp|cuh)):(?P<line>\d+): "
    r"(?:non-zero status: (?P<nz>-?\d+)(?:: (?P<errno>[^,\n]+), exiting\.\.\.)?|error status: (?P<es>-?\d+) \((?P<name>NVSHMEMX?_\w+)\)"
    r"|(?P<null>NULL value)) ?(?P<msg>(?:.*?\S)??)\s*$"
)
#   the path read from its first character only (a later start in the same path only fails too): from every start, a
#   long run of path characters was scanned to its end and back
_LINE = re.compile(r"(?<![\w./-])" + _FORM)
_LINE_ANY = re.compile(_FORM, re.M)  # an RE2 signature (SIGNATURES): no look-behind; RE2 is linear, Python's re is
#   not: a head of 'status: ' then a long run of path characters (a/b/a/b...) searched from every start took 140 s
#   at 120,000 characters, so detect() searches with _LINE_M, whose look-behind starts a path at its first character
#   only (a match of _LINE_ANY inside a run of path characters is also one of _LINE from the run's start)
_LINE_M = re.compile(_LINE.pattern, re.M)  # _LINE over a head of many lines


# The bootstrap plugins' own errors (src/modules/bootstrap/common/bootstrap_util.h BOOTSTRAP_ERROR_PRINT:
# fprintf(stderr, "%s:%s:%d: ", __FILE__, __FUNCTION__, __LINE__) then the message), a function name between the file
# and the line; real line (ByteDance-Seed/Triton-distributed#122, NVSHMEM 3.2 from the nvidia-nvshmem-cu12 wheel):
# /dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem/src/modules/bootstrap/uid/bootstrap_uid.cpp:bootstrap_net_init:160: No socket interface found
# and bootstrap_uid.cpp's other interface message (NVSHMEM_BOOTSTRAP_UID_SESSION_ID set, no interface in its subnet):
# .../src/modules/bootstrap/uid/bootstrap_uid.cpp:bootstrap_net_init:151: No usable listening interface found   (format filled)
def _function_form(name: str, func: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The ``<path>/<name>.<ext>:<func>:<line>: <message>`` form (a path read from its first character only, as
    _LINE) and its RE2 signature: no look-behind, and no optional path before the file name (from every start of a
    long path it rescanned up to 400 characters: 0.6 s on a 120,000-character line in bench/redos.py)."""
    source = rf"{name}\.(?:cpp|cu|cc|c)"
    form = (rf"(?P<file>(?:[\w./-]{{0,400}}/)?{source}):(?P<func>{func}):(?P<line>\d{{1,6}}): "
            r"(?P<msg>\S(?:[^\n]{0,498}\S)?)\s*$")
    return re.compile(r"(?<![\w./-])" + form), re.compile(rf"{source}:{func}:\d{{1,6}}: \S", re.M)


_BOOT, _BOOT_ANY = _function_form(r"bootstrap_\w{1,64}", r"\w{1,128}")
_BOOT_LITERAL = "bootstrap_"

# The core's own fatal checks and error prints (src/include/non_abi/nvshmemx_error.h NVSHMEMI_ERROR_EXIT and
# NVSHMEMI_ERROR_PRINT: fprintf(stderr, "%s:%s:%d: ", __FILE__, __FUNCTION__, __LINE__) then the message), a function
# name between the file and the line as the bootstrap plugins print; read where the function is one of NVSHMEM's
# (nvshmem*, nvshmemi_*, nvshmemx_*), the other files' functions being left to _BOOT; real line (pytorch/pytorch#161232,
# NVSHMEM initialised by torch's symmetric memory before the CUDA runtime was):
# src/host/init/init.cu:nvshmemi_check_state_and_init:1117: nvshmem initialization failed, exiting
#   (the message as printed ends 'exiting ' then the newline the macro adds)
_CORE, _CORE_ANY = _function_form(r"\w{1,128}", r"nvshmem\w{0,124}")
_CORE_LITERAL = ":nvshmem"
_CORE_M = re.compile(_CORE.pattern, re.M)

# The IB transports' warning that they leave an RDMA device out (src/include/non_abi/nvshmemx_error.h NVSHMEMI_WARN_PRINT:
# fprintf(stdout, "WARN: ") then the message): IBGDA and IBDEVX drive the NIC through mlx5 Direct Verbs and take only
# mlx5 devices. src/modules/transport/ibgda/ibgda.cpp (v3.4.5-0, and ibdevx.cpp): "device %s is not enumerated as an mlx5
# device. Skipping..." (the device lacks mlx5 capabilities; before 3.4 also where its name holds no "mlx5") and "device
# %s is not supported (expected HCA interface: %s). Skipping..." (3.4: a name with neither "mlx5" nor "ibp", or not the
# NVSHMEM_HCA_PREFIX asked for); real line (deepseek-ai/DeepEP#202, DeepEP's low-latency test on Alibaba Cloud eRDMA):
# WARN: device erdma_0 is not enumerated as an mlx5 device. Skipping...
# and 3.4.5's other form, its format string (the second %s: NVSHMEM_HCA_PREFIX where set, else "mlx5 or ibp"):
#   "device %s is not supported (expected HCA interface: %s). Skipping...\n"
_SKIP = re.compile(r"\bWARN: device (?P<device>[\w.:-]{1,64}) (?:is not enumerated as an (?P<mlx5>mlx5) device"
                   r"|is not supported \(expected HCA interface: (?P<expected>[^()\n]{1,64})\))\. Skipping\.\.\.")
_SKIP_LITERAL = "WARN: device "
_SKIP_M = re.compile(_SKIP.pattern, re.M)

#: the literal every form holds: lines without one are not looked at
_LITERALS = ("status: ", ": NULL value ", _BOOT_LITERAL, _CORE_LITERAL, _SKIP_LITERAL)


_BOOT_M = re.compile(_BOOT.pattern, re.M)


def detect(head: str) -> bool:
    if not any(lit in head for lit in _LITERALS):
        return False
    return (_LINE_M.search(head) is not None or (_BOOT_LITERAL in head and _BOOT_M.search(head) is not None)
            or (_CORE_LITERAL in head and _CORE_M.search(head) is not None)
            or (_SKIP_LITERAL in head and _SKIP_M.search(head) is not None))


def _status(m: re.Match[str]) -> int | None:
    status = m["nz"] or m["es"]
    return int(status) if status is not None else None


# NVSHMEM's NVLS (multicast) steps, NVIDIA/nvshmem#40 (8 x H200, the fabric state out of sync):
# /home/szegel/Nvshmem/src/host/team/team_internal_nvls.cpp:254: non-zero status: 401 cuMemMap failed to map 274877906944 bytes handle at address: 0x1320000000 offset 0 on device 7
# /home/szegel/Nvshmem/src/host/mem/mem_heap.cpp:1573: non-zero status: 7 Mapping mem size 274877906944 to MC group 101602722380032 failed
# /home/szegel/Nvshmem/src/host/team/team_internal.cpp:786: non-zero status: 7 Mapping multicast groups for UC heap failed for pe 7 team ID 1
_NVLS_FILE = "team_internal_nvls."
_NVLS_WORDS = (" MC group ", "multicast")


def _nvls(source_file: str, message: str) -> bool:
    return source_file.rsplit("/", 1)[-1].startswith(_NVLS_FILE) or any(w in message for w in _NVLS_WORDS)


# NVSHMEM's IB transports moving a queue pair RESET -> INIT -> RTR -> RTS (src/modules/transport/ibrc/ibrc.cpp,
# ibgda, ibdevx). Releases to 3.x print one message for every move; real line (NVIDIA/nvshmem#42, the move to RTR):
# main_nvshmem/src/modules/transport/ibrc/ibrc.cpp:420: non-zero status: 22 ibv_modify_qp failed.
# later releases name the transport and the move (ibrc.cpp ep_connect, format string):
#   "IBRC QP modify INIT->RTR failed: pe %d device %s devid %d port %d link_layer %s local_qpn %u ..."
#   (also "IBRC QP modify RESET->INIT failed: ..." in ep_create and "IBRC QP modify RTR->RTS failed: ..." in ep_connect)
_QP_OLD = "ibv_modify_qp failed"
_QP_NEW = re.compile(r"\b[A-Z]{2,8} QP modify (?P<move>(?:RESET|INIT|RTR)->(?:INIT|RTR|RTS)) failed\b")


def _qp_move(message: str) -> tuple[bool, str | None]:
    if (m := _QP_NEW.search(message)) is not None:
        return True, m["move"]
    if message.startswith(_QP_OLD):
        return True, "unnamed"
    return False, None


# NVSHMEM's IB transports creating an address handle (ibv_create_ah) for a DCT or a RoCE connection: every release's
# src/modules/transport/ibgda/ibgda.cpp (ibgda_create_dct_shared_objects, and the RC move to RTR on RoCE) and
# ibdevx/ibdevx.cpp (2.x's gic transport the same): NVSHMEMI_NULL_ERROR_JMP(ah, status, NVSHMEMX_ERROR_INTERNAL, out,
# "Unable to create ah.\n"); real line (NVIDIA-NeMo/Megatron-Bridge#5050, NVSHMEM 3.4.5 on B300):
# /dvs/p4/build/sw/rel/gpgpu/toolkit/r13.0/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:2234: NULL value Unable to create ah.
_AH = "Unable to create ah"


def _function_line(line: str) -> re.Match[str] | None:
    """A bootstrap plugin's or the core's ``file:function:line:`` line."""
    for literal, form in ((_BOOT_LITERAL, _BOOT), (_CORE_LITERAL, _CORE)):
        if literal in line and (m := form.search(line)) is not None:
            return m
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in iter_lines_with(_LITERALS, artefact):
        if (m := _LINE.search(line)) is not None:
            errno_text = m["errno"] + ": " if m["errno"] else ""
            message = errno_text + (m["msg"] or ("NULL value" if m["null"] else ""))
            qp_modify, qp_transition = _qp_move(m["msg"] or "")
            b.add(NvshmemError, n, source_file=m["file"], source_line=int(m["line"]), status=_status(m),
                  status_name=m["name"], message=message, nvls=_nvls(m["file"], message),
                  qp_modify=qp_modify, qp_transition=qp_transition, address_handle=(m["msg"] or "").startswith(_AH))
            result.lines_used += 1
        elif (m := _function_line(line)) is not None:
            b.add(NvshmemError, n, source_file=m["file"], source_line=int(m["line"]), status=None,
                  message=m["msg"], nvls=_nvls(m["file"], m["msg"]))
            result.lines_used += 1
        elif _SKIP_LITERAL in line and (m := _SKIP.search(line)) is not None:
            b.add(NvshmemDeviceSkipped, n, device=m["device"], expected=m["mlx5"] or m["expected"])
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_LINE_ANY, _BOOT_ANY, _CORE_ANY, _SKIP_M)
