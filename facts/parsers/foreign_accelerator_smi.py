"""Another vendor's accelerator management tool, or its GPU runtime's fault, as people paste it beside (or instead of)
NVIDIA's: Huawei Ascend's
``npu-smi info``, MetaX's ``mx-smi``, AMD's ``rocm-smi`` and ``amd-smi``, Intel's ``xpu-smi``, Moore Threads'
``mthreads-gmi``, Cambricon's ``cnmon``, Intel Habana's (Gaudi) ``hl-smi``. gpu-stethoscope diagnoses NVIDIA GPUs:
such output is out of its scope and checks nothing, but it is recognised as what it is (coverage names the tool),
never left "unrecognised", never taken for ``nvidia-smi -q`` (mx-smi's head prints nvidia-smi -q's own
``Attached GPUs  :`` key), and never evidence of health.

Sample content (real, each from a public thread)::

    +------------------------------------------------------------------------------------------------+
    | npu-smi 26.0.rc2                            Version: 26.0.rc2                                                    |
    | NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
        (vllm-project/vllm-ascend#2534, #12980: npu-smi info of Ascend 910 hosts, the banner cut in some pastes)
    =================== MetaX System Management Interface Log ===================
    | MX-SMI 2.1.12                       Kernel Mode Driver Version: 2.12.13         |
        (gpustack/gpustack#4832: mx-smi 2.1.12 of eight MetaX C500)
    ========================ROCm System Management Interface========================
    ==============================End of ROCm SMI Log ==============================
        (ROCm/ROC-smi#86, #90: rocm-smi 3.3's summary table)
    Timestamp, DeviceId, GPU Utilization (%), GPU Power (W), GPU Frequency (MHz), GPU Core Temperature (Celsius Degree)
        (intel/xpumanager#98: xpu-smi dump of six Data Center GPU Max 1550)
        mthreads-gmi:1.14.0          Driver Version:2.7.0
        (gpustack/gpustack docs/tutorials/running-inference-with-moorethreads-gpus.md: an MTT S80)
    | CNMON v5.10.13                                               Driver v5.10.13 |
        (PaddlePaddle/docs docs/hardware_support/mlu/install_cn.md: two MLU370-X8)
    | HL-SMI Version:                              hl-1.21.1-fw-59.2.3.0          |
        (vdwarakn/scripts-and-utils gaudi/README.md: eight Gaudi 2 HL-225)
    | AMD-SMI 26.2.2+e1a6bc5663    amdgpu version: 6.16.13  ROCm version: 7.2.1    |
        (CONSTRUCTED from the form of amd-smi 26.x's default view)

AMD ROCm's HSA runtime prints a GPU's memory access fault before it aborts the process (real, EleutherAI/gpt-neox#1310,
MI250X on LUMI; ROCR-Runtime src/core/runtime/runtime.cc VMFaultHandler: ``"Memory access fault by GPU node-%u (Agent
handle: %p) on address %p%s. Reason: %s.\n"``, before ROCm 3.x without the agent handle, ``%s`` "(may not be exact
address)" for an imprecise fault; ``GPU core dump failed`` is the same handler's, where KFD could not dump the GPU)::

    GPU core dump failed
    Memory access fault by GPU node-9 (Agent handle: 0x7d5f990) on address 0x14a1cfe01000. Reason: Unknown.

The same runtime's hardware exception, where KFD reset a hung GPU or saw an ECC error (real, segurac/force-host-alloction-APU#2;
runtime.cc HwExceptionHandler: ``"HW Exception by GPU node-%u (Agent handle: %p) reason :%s\n"``, "GPU Hang" or "ECC")::

    HW Exception by GPU node-1 (Agent handle: 0x632d71637310) reason :GPU Hang

amd-smi's ECC counts (``amd-smi metric --ecc --ecc-blocks``, ``amd-smi metric`` whole; amdsmi's CLI templates
metricEccErrorCountTemplate and metricEccBlockErrorCountTemplate, the same lines in its Python CLI; real lines,
ROCm/device-metrics-exporter#368, an MI300X's UMC block grepped out of ``amd-smi metric -g 0 -k``)::

    GPU: 0
        ECC:
            TOTAL_CORRECTABLE_COUNT: 0
            TOTAL_UNCORRECTABLE_COUNT: 0
        ECC_BLOCKS:
            UMC:
                CORRECTABLE_COUNT: 2
                UNCORRECTABLE_COUNT: 0
                DEFERRED_COUNT: 0

Facts: one ``foreign_accelerator_tool`` per tool a file shows (its vendor and tool, citing the first line that names
it); one ``foreign_gpu_fault`` per file and event for ROCm's fault lines (a memory access fault, a hardware exception:
the first cited, their count and GPU nodes; a memory error where a reason names ECC). Lines
read: the tool's own (its banners, table rules and rows, its dump's records), the runtime's fault lines; any other
line of the file is left to the readers that know it.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import ForeignAcceleratorTool, ForeignGpuEccCount, ForeignGpuFault  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "foreign_accelerator_smi"

# | npu-smi 26.0.rc2                            Version: 26.0.rc2                                                    |   (vllm-ascend#12980)
# | NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|   (vllm-ascend#2534)
_NPU_SMI = re.compile(r"^\| npu-smi \d[\w.-]{0,30} {1,60}Version: |^\| NPU {1,8}Name {1,40}\| Health {1,20}\| Power\(W\)", re.M)
# =================== MetaX System Management Interface Log ===================                       (gpustack#4832)
# | MX-SMI 2.1.12                       Kernel Mode Driver Version: 2.12.13         |
# mx-smi  version: 2.1.12
_MX_SMI = re.compile(r"^=+ MetaX System Management Interface Log =+[ \t]*\r?$|^\| MX-SMI \d|^mx-smi {1,4}version: \d", re.M)
# ========================ROCm System Management Interface========================                     (ROC-smi#86)
# (blanks between the rules and the title admitted: the banner's padding is not the same in every rocm-smi release)
# ==============================End of ROCm SMI Log ==============================
_ROCM_SMI = re.compile(r"^=+[ \t]{0,8}(?:ROCm System Management Interface|End of ROCm SMI Log)[ \t]{0,8}=+[ \t]*\r?$", re.M)
# Timestamp, DeviceId, GPU Utilization (%), GPU Power (W), ...                     (xpu-smi dump's header, xpumanager#98)
# | Device ID | Device Information                                                                   |   (xpu-smi discovery)
_XPU_SMI = re.compile(r"^Timestamp, DeviceId, |^\| Device ID \| Device Information {1,120}\|", re.M)
# | AMD-SMI 26.2.2+e1a6bc5663    amdgpu version: 6.16.13  ROCm version: 7.2.1    |   (amd-smi's default view, ROCm 6.4 on;
#   CONSTRUCTED: the form of amd-smi 26.x's banner, no citable paste found)
_AMD_SMI = re.compile(r"^\| AMD-SMI \d[\w.+-]{0,40} {1,40}amdgpu version: ", re.M)
#     mthreads-gmi:1.14.0          Driver Version:2.7.0                     (gpustack/gpustack docs/tutorials/
#                                                                            running-inference-with-moorethreads-gpus.md)
_MT_GMI = re.compile(r"^ {0,8}mthreads-gmi:\d[\w.-]{0,30} {1,40}Driver Version:", re.M)
# | CNMON v5.10.13                                               Driver v5.10.13 |   (PaddlePaddle/docs
# | Card  VF  Name       Firmware |               Bus-Id | Util        Ecc-Error |    docs/hardware_support/mlu/install_cn.md)
_CNMON = re.compile(r"^\| CNMON v\d[\w.-]{0,30} |^\| Card {1,4}VF {1,4}Name {1,12}Firmware \|", re.M)
# | HL-SMI Version:                              hl-1.21.1-fw-59.2.3.0          |   (vdwarakn/scripts-and-utils
# | AIP  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncor-Events|    gaudi/README.md)
_HL_SMI = re.compile(r"^\| HL-SMI Version: {1,60}hl-\d|^\| AIP {1,4}Name {1,12}Persistence-M\|", re.M)

# Memory access fault by GPU node-9 (Agent handle: 0x7d5f990) on address 0x14a1cfe01000. Reason: Unknown.  (gpt-neox#1310)
# Memory access fault by GPU node-1 on address 0x7f52c3f5f000. Reason: Page not present or supervisor privilege.
#   (CONSTRUCTED from ROCR-Runtime's older format, without the agent handle). Not anchored: a progress bar without
#   its newline may stand before it ("... 4.2%Memory access fault by GPU node-1 ..."); the literal keeps it cheap.
_ROCM_FAULT = re.compile(r"Memory access fault by GPU node-(\d{1,5})(?: \(Agent handle: (?:0x)?[0-9a-fA-F]{1,16}\))?"
                         r"(?: on address (0x[0-9a-fA-F]{1,16}|\(nil\)))?[^\n.]{0,40}\. ?Reason: ([^\n]{0,120}?)\.?[ \t]*\r?$", re.M)
_ROCM_CORE_DUMP = re.compile(r"^GPU core dump failed[ \t]*\r?$", re.M)
# HW Exception by GPU node-1 (Agent handle: 0x632d71637310) reason :GPU Hang      (segurac/force-host-alloction-APU#2)
# (runtime.cc HwExceptionHandler: "HW Exception by GPU node-%u (Agent handle: %p) reason :%s\n", "ECC" where KFD's reset
#   cause was an ECC error, else "GPU Hang"). Not anchored, as the fault's line: a progress bar may stand before it.
_ROCM_HW_EXCEPTION = re.compile(r"HW Exception by GPU node-(\d{1,5})(?: \(Agent handle: (?:0x)?[0-9a-fA-F]{1,16}\))?"
                                r" ?reason ?: ?([^\n]{1,60}?)[ \t]*\r?$", re.M)
# the reasons whose fault is the GPU memory's, not the program's (runtime.cc: "DRAM ECC failure", "SRAM ECC failure",
# "ECC failure (if supported by HW)")
_ECC_REASON = re.compile(r"ECC failure|^ECC$")

# amd-smi metric's ECC section and its blocks (amdsmi's CLI templates; indentation two levels deeper under a host's
# "GPU: 0" / a guest's nesting):
#         ECC:
#             TOTAL_CORRECTABLE_COUNT: 0            (CONSTRUCTED from metricEccErrorCountTemplate)
#         UMC:
#             CORRECTABLE_COUNT: 2                  (ROCm/device-metrics-exporter#368)
#             UNCORRECTABLE_COUNT: 0
_AMD_SMI_ECC = re.compile(r"^[ \t]{0,16}ECC:[ \t]*\r?\n[ \t]{0,20}TOTAL_CORRECTABLE_COUNT: (?:\d{1,12}|N/A)[ \t]*\r?$"
                          r"|^[ \t]{0,16}[A-Z][A-Z0-9_]{1,15}:[ \t]*\r?\n[ \t]{0,20}CORRECTABLE_COUNT: (?:\d{1,12}|N/A)[ \t]*\r?\n"
                          r"[ \t]{0,20}UNCORRECTABLE_COUNT: (?:\d{1,12}|N/A)[ \t]*\r?$", re.M)
# one line of amd-smi's ECC output: a GPU's head, a block's name, a count
_AMD_ECC_LINE = re.compile(r"^[ \t]{0,20}(?:GPU: (?P<gpu>\d{1,4})|(?P<block>[A-Z][A-Z0-9_]{1,15}):"
                           r"|(?P<total>TOTAL_)?(?P<what>CORRECTABLE|UNCORRECTABLE|DEFERRED)_COUNT: (?P<n>\d{1,12}|N/A))[ \t]*\r?$")

#: (vendor, tool, its signature), in the order a file is looked at
TOOLS = (("Huawei", "npu-smi", _NPU_SMI), ("MetaX", "mx-smi", _MX_SMI), ("AMD", "rocm-smi", _ROCM_SMI),
         ("Intel", "xpu-smi", _XPU_SMI), ("AMD", "amd-smi", _AMD_SMI), ("Moore Threads", "mthreads-gmi", _MT_GMI),
         ("Cambricon", "cnmon", _CNMON), ("Intel Habana", "hl-smi", _HL_SMI), ("AMD", "amd-smi", _AMD_SMI_ECC))
#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_NPU_SMI, _MX_SMI, _ROCM_SMI, _XPU_SMI, _AMD_SMI, _MT_GMI, _CNMON, _HL_SMI, _ROCM_FAULT, _ROCM_HW_EXCEPTION,
              _AMD_SMI_ECC)
# literals one of which a text holds where a signature may match (a text without any is not searched)
_GATES = ("npu-smi", "| NPU ", "MetaX System", "MX-SMI", "mx-smi", "ROCm S", "Timestamp, DeviceId", "| Device ID |",
          "AMD-SMI", "mthreads-gmi:", "CNMON", "| Card ", "HL-SMI", "| AIP ", "Memory access fault by GPU",
          "HW Exception by GPU", "CORRECTABLE_COUNT: ")

# the tools' own lines: table rules and rows ("+---", "|===", "| 0  Ascend910  | OK |"), banners ("=== ... ==="), the
# dump's records ("08:08:16.817,    0,  N/A, 281.13, ..."), rocm-smi's summary rows ("1    24.0c  3.0W    852Mhz ..."),
# mx-smi's head ("Timestamp   : Mon Mar  9 ...", "Attached GPUs   : 8")
_OWN_LINE = re.compile(r"^(?:[+|=][^\n]*|\d\d:\d\d:\d\d\.\d{1,6},[^\n]*|GPU {1,4}Temp {1,4}AvgPwr[^\n]*"
                       r"|\d{1,3} {1,8}\d{1,3}\.\dc {1,8}[^\n]*|(?:Timestamp|Attached GPUs) {2,}: [^\n]*|Timestamp, DeviceId, [^\n]*"
                       r"|(?:mx|xpu|npu|rocm|amd|hl)-smi(?: [^\n]*)?|mthreads-gmi(?:[: ][^\n]*)?|cnmon"
                       # mthreads-gmi's rules, header and rows ("-----", "ID   Name   |PCIe ...", "0    MTT S80   |...",
                       # "Physical       |16x(16x) ...", "Processes:", "0    120   .../llama-box   2MiB")
                       r"|-{20,}|ID {2,}(?:Name|PID)[^\n]*|\d{1,3} {2,}(?:MTT [^\n]*|\d{1,9} {2,}[^\n]*)|(?:Physical|Virtual) [^\n]*\|[^\n]*"
                       r"|Processes:|Device Type {2,}[^\n]*|Usage)$")


def detect(head: str) -> bool:
    return any(g in head for g in _GATES) and (any(sig.search(head) is not None for _v, _t, sig in TOOLS)
                                               or ("Memory access fault by GPU" in head and _ROCM_FAULT.search(head) is not None)
                                               or ("HW Exception by GPU" in head and _ROCM_HW_EXCEPTION.search(head) is not None))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    for vendor, tool, sig in TOOLS:
        m = sig.search(text)
        if m is not None:
            b.add(ForeignAcceleratorTool, artefact.line_of(m.start()), vendor=vendor, tool=tool)
    tools = {f.tool for f in result.facts}
    if "amd-smi" in tools and "CORRECTABLE_COUNT: " in text:
        _amd_smi_ecc(b, artefact, result)
    if result.facts:
        result.lines_used += sum(1 for line in artefact.lines if line.strip() and _OWN_LINE.match(line.strip()))
    if "Memory access fault by GPU" in text:
        faults = list(_ROCM_FAULT.finditer(text))
        if faults:
            _fault(b, artefact, faults, "memory_access_fault", faults[0].group(2), 3)
            result.lines_used += len(faults) + len(_ROCM_CORE_DUMP.findall(text))
    if "HW Exception by GPU" in text:
        faults = list(_ROCM_HW_EXCEPTION.finditer(text))
        if faults:
            _fault(b, artefact, faults, "hw_exception", None, 2)
            result.lines_used += len(faults)
    return result


def _fault(b: FactBuilder, artefact: Artefact, faults: list, event: str, address: str | None, reason_group: int) -> None:
    """One foreign_gpu_fault for a file's runtime lines of one kind: the first cited, the count and the GPU nodes; a
    memory error if any line's reason names ECC (the GPU memory's, not the program's)."""
    first = faults[0]
    reasons = [m.group(reason_group).strip() for m in faults]
    b.add(ForeignGpuFault, artefact.line_of(first.start()), vendor="AMD", runtime="ROCm (HSA runtime)", event=event,
          gpu_node=int(first.group(1)), address=address, reason=reasons[0],
          memory_error=any(_ECC_REASON.search(r) for r in reasons), faults=len(faults),
          gpu_nodes=", ".join(map(str, dict.fromkeys(int(m.group(1)) for m in faults))))


def _amd_smi_ecc(b: FactBuilder, artefact: Artefact, result: ParseResult) -> None:
    """One ``foreign_gpu_ecc_count`` per GPU of amd-smi's ECC lines: the TOTAL lines' counts (else the blocks' sums), the
    blocks that counted uncorrectable errors."""
    gpus: list[dict] = []
    cur: dict | None = None
    block = None
    for n, line in enumerate(artefact.lines, 1):
        if "COUNT: " not in line and "GPU: " not in line and not line.rstrip().endswith(":"):
            continue
        m = _AMD_ECC_LINE.match(line)
        if m is None:
            continue
        if m["gpu"] is not None:
            cur, block = None, None
            gpus.append({"line": n, "gpu": int(m["gpu"]), "total": {}, "blocks": {}})
            cur = gpus[-1]
            continue
        if m["block"] is not None:
            block = m["block"]
            continue
        if cur is None:  # counts without a "GPU: N" line before them (a grep of one block)
            gpus.append({"line": n, "gpu": None, "total": {}, "blocks": {}})
            cur = gpus[-1]
        value = None if m["n"] == "N/A" else int(m["n"])
        if m["total"] is not None:
            cur["total"][m["what"]] = value
        elif block is not None:
            cur["blocks"].setdefault(block, {})[m["what"]] = value
        result.lines_used += 1
    for g in gpus:
        if not g["total"] and not g["blocks"]:
            continue
        counts = {}
        for what in ("CORRECTABLE", "UNCORRECTABLE", "DEFERRED"):
            v = g["total"].get(what)
            if v is None:
                vals = [bl[what] for bl in g["blocks"].values() if bl.get(what) is not None]
                v = sum(vals) if vals else None
            counts[what] = v
        bad = [name for name, bl in g["blocks"].items() if (bl.get("UNCORRECTABLE") or 0) > 0]
        b.add(ForeignGpuEccCount, g["line"], vendor="AMD", tool="amd-smi", gpu=g["gpu"],
              correctable=counts["CORRECTABLE"], uncorrectable=counts["UNCORRECTABLE"], deferred=counts["DEFERRED"],
              blocks=", ".join(bad) or None, memory_error="UMC" in bad)
