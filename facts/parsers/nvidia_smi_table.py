"""``nvidia-smi`` with no arguments: the summary table of every GPU and the process table.

Sample content (R550 layout, NVIDIA/nvidia-container-toolkit#394; R450-R530 layouts add the
``MIG M.`` row in narrower cells, facebookresearch/vissl#422; R390 and older have no CUDA
version and no third row, NVIDIA/k8s-device-plugin#60)::

    | NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |
    |=========================================+========================+======================|
    |   0  NVIDIA GeForce RTX 3060        Off |   00000000:81:00.0  On |                  N/A |
    |  0%   32C    P0             38W /  170W |       9MiB /  12288MiB |      0%      Default |
    |                                         |                        |                  N/A |

    |   4  A100-SXM4-40GB      Off  | 00000000:B5:00.0 Off |                    0 |
    | N/A   29C    P0    51W / 400W |      3MiB / 40536MiB |      0%      Default |
    |                               |                      |             Disabled |

    |  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
    |    0   N/A  N/A      2261      C   python                                      30042MiB |

A GPU is read from its first row (index, name, persistence mode, bus id, the volatile
uncorrectable ECC count) and the row after it (fan, temperature, performance state, power
draw and cap, memory use, utilisation, compute mode), then the MIG mode row when present.
Facts emitted, of the same kinds as ``nvidia-smi -q`` where one fits (:mod:`gpu_state_facts`):
``gpu_info`` (index, name, driver and CUDA version, persistence), ``gpu_temperature``,
``gpu_power`` (draw; the cap as the enforced limit), ``gpu_ecc_count`` (volatile,
uncorrectable, ``total``) when a number is shown; and ``gpu_usage`` (memory, utilisation,
performance state, compute and MIG mode) and ``gpu_process`` (one per process row);
``gpu_process_panel`` per process table (its rows, and whether it was printed empty: neither a
row nor ``No running processes found``, which is what nvidia-smi shows inside a container
whose PID namespace hides the processes that hold the GPUs, NVIDIA/nvidia-docker#1460). The
process table alone, pasted without the GPU rows, is recognised from its title rows::

    | Processes:                                                       GPU Memory |
    |  GPU       PID   Type   Process name                             Usage      |
``N/A`` cells give None. A first GPU row without its second row is a ParseError, unless the text
ends there (at the GPU row, or at its second row cut short): a capture cut short, a limit. So is a
table with lines of its GPU rows left out by the poster (an elision line, ``...``, or a GPU's second
row without its first). Text without the table yields nothing.
"""
from __future__ import annotations

import re
from itertools import islice

from stethoscope.facts.ids import pci_bus_id
from stethoscope.facts.kinds.gpu import (  # noqa: F401 - the fact classes live in facts/kinds
    GpuProcess, GpuProcessPanel, GpuUsage,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.host import NvidiaDriverVersion
from stethoscope.facts.parsers.gpu_state_facts import GpuEccCount, GpuInfo, GpuPower, GpuTemperature

KIND = "nvidia_smi_table"

# | NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |
# | NVIDIA-SMI 610.43.03              KMD Version: 610.43.03     CUDA UMD Version: 13.3     |
#   (R610's banner names the kernel-mode driver and the CUDA user-mode driver: projectbluefin/finpilot#160)
_HEADER = re.compile(r"NVIDIA-SMI (?P<smi>\S+)\s+(?:Driver|KMD) Version: (?P<drv>\S+)"
                     r"(?:\s+CUDA (?:UMD )?Version: (?P<cuda>[\d.]+|N/A))?")
# |   0  NVIDIA GeForce RTX 3060        Off |   00000000:81:00.0  On |                  N/A |
# |   0  GeForce GTX 108...  Off  | 00000000:04:00.0 Off |                  N/A |
# |   0  GeForce GTX 680     Off  | 0000:03:00.0     N/A |                  N/A |   (R331: Disp.A N/A, cBio/cbio-cluster#38)
_GPU_ROW = re.compile(r"^\|\s+(?P<idx>\d+)\s+(?P<name>\S(?:.*?\S)??)\s+(?P<pers>On|Off|WDDM|TCC)\s*\|\s*(?P<bus>[0-9A-Fa-f]{4,8}:"
                      r"[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s+(?P<disp>On|Off|N/A)\s*\|\s*(?P<ecc>\S+)\s*\|\s*$")
# |  0%   32C    P0             38W /  170W |       9MiB /  12288MiB |      0%      Default |
# | N/A   37C    P0    36W / 300W |      0MiB / 16130MiB |      0%   E. Process |   (R418 on Summit's V100s, NVIDIA/AMGX#106:
#   the table abbreviates the exclusive compute modes, "E. Process" and "E. Thread", in two words; -q prints Exclusive_Process)
_STATE_ROW = re.compile(r"^\|\s*(?P<fan>\d+%|N/A|ERR!)\s+(?P<temp>-?\d+C|N/A|ERR!)\s+(?P<perf>P\d+|N/A|ERR!)\s+"
                        r"(?:(?P<draw>\d+(?:\.\d+)?W|N/A|ERR!)\s*/\s*(?P<cap>\d+(?:\.\d+)?W|N/A|ERR!))?\s*\|\s*"
                        r"(?P<used>\d+)MiB\s*/\s*(?P<total>\d+)MiB\s*\|\s*(?P<util>\d+%|N/A|ERR!)\s+(?P<mode>E\. (?:Process|Thread)|\S+)\s*\|\s*$")
# what each cell of gpu_usage.unreadable_fields is, in the table's order
_CELL_NAMES = ("fan", "temperature", "performance state", "power draw", "power cap", "GPU utilisation",
               "volatile uncorrectable ECC count")
# the table's abbreviations of the compute modes, in -q's words (gpu_usage.compute_mode)
_MODES = {"E. Process": "Exclusive_Process", "E. Thread": "Exclusive_Thread"}
# |                                         |                        |             Disabled |
# |                               |                      |                 ERR! |   (open-gpu-kernel-modules#446: NVML failed the query)
_MIG_ROW = re.compile(r"^\|\s+\|\s+\|\s+(?P<mig>Enabled|Disabled|N/A|ERR!)\s*\|\s*$")
# |    0   N/A  N/A      2261      C   python                                      30042MiB |
# |    0      1234      C   python                            30000MiB |   (before R450: no GI/CI)
# |    0   N/A  N/A             434      C   python3                               12339... |   (R580: a wide memory figure cut)
_PROCESS_ROW = re.compile(r"^\|\s+(?P<gpu>\d+)\s+(?:(?P<gi>\d+|N/A)\s+(?P<ci>\d+|N/A)\s+)?(?P<pid>\d+)\s+(?P<type>C\+G|G\+C|C|G|M|M\+C)"
                          # the name up to its last non-space (greedy: a lazy run tried every split of the
                          # spaces before the memory column, quadratic in a padded row)
                          r"\s+(?P<name>\S(?:.*\S)?)\s+(?P<mem>\d+MiB|N/A|\d+\.\.\.)\s*\|\s*$")
# |  No running processes found                                                 |
_NO_PROCESSES = re.compile(r"^\|\s+No running processes found\s*\|\s*$")
# | Processes:                                                       GPU Memory |
_PANEL_TITLE = re.compile(r"^\|\s*Processes:\s+(?:GPU Memory\s*)?\|\s*$")
# |  GPU       PID   Type   Process name                             Usage      |
# |  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
_PANEL_COLUMNS = re.compile(r"^\|\s+GPU\s+(?:GI\s+CI\s+)?PID\s+Type\s+Process name\s+(?:GPU Memory|Usage)\s*\|\s*$")
# |                                         |                        |                  N/A
#   (gpu-operator#1982: the excerpt ends in GPU 1's MIG row) a table row cut before its closing bar
_CUT_ROW = re.compile(r"^\|(?!.*[|+]\s*$)")
# |                                         |                      |
#   (mlcommons/algorithmic-efficiency#572's excerpt: GPU 1's MIG row ends after its second cell's bar)
# |                               |
#   (lucidrains/flash-cosine-sim-attention#4's: after its first) a MIG row cut at a cell's bar: nvidia-smi prints
#   no row of empty cells narrower than the table (the MIG row's last cell always holds Enabled, Disabled or N/A)
_CUT_AT_BAR = re.compile(r"^\|(?:[ \t]+\|){1,2}[ \t]*$")
# +-------------------------------+----------------------+---------
#   (deepspeedai/DeepSpeedExamples#310's excerpt: R470's border after GPU 0's block, cut before its last "+";
#   the job's NCCL log shows 8 ranks) the border after a GPU's block cut inside it: nvidia-smi ends every
#   +---+ border with "+" (R390 on), so a dash-only end is a capture that stopped there
_CUT_BORDER = re.compile(r"^\+[-+]*-[ \t]*$")
# |    0      146
#   (NVIDIA/nvidia-docker#480's excerpt, R384: the process table ends inside its first row, after the GPU index and
#   PID) a process row cut before its type, name and memory: the text ends there, a capture cut short; the row
#   was there, so the table was not printed empty
_CUT_PROCESS_ROW = re.compile(r"^\|\s+(?P<gpu>\d+)\s+(?:(?:\d+|N/A)\s+){0,3}(?:\d+|N/A)?(?:\s+\S[^|]*)?$")
# ...
# | N/A   N/A   P12    N/A /  N/A |    137MiB /  5301MiB |      0%      Default |
#   (NVIDIA/gdrcopy#92: R390's table of eight Tesla M2070s, the poster's '...' after the header's border, then a GPU's
#   second row whose first row was left out, then GPU 7's block) a poster's mark of lines left out, alone on its line
#   (as nvidia_smi_nvlink's), or a GPU's second row with no first row above it: GPUs of the table were not shown
_ELIDED = re.compile(r"^\s*(?:\.{3,}|\u2026+|\[(?:\.{3}|\u2026)\])\s*$")
# | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |   (the GPU columns' first title row)
_GPU_COLUMNS = re.compile(r"^\|\s*GPU\s+Name\b")
# +---...---+, |===...===|, |---+---|, and the column-title rows
_FRAME = re.compile(r"^[+|][-=+|]+\s*$|^\|\s*(?:GPU\s+Name|Fan\s+Temp|GPU\s+GI\s+CI|Processes:|\s*ID\s+ID|\s+\|\s+\|\s+MIG M\.)")


def detect(head: str) -> bool:
    if not ("NVIDIA-SMI" in head or "MiB /" in head or "Process name" in head):
        return False
    return _HEADER.search(head) is not None or any(
        _GPU_ROW.match(ln) or _PROCESS_ROW.match(ln) or _NO_PROCESSES.match(ln) or _PANEL_TITLE.match(ln) or _PANEL_COLUMNS.match(ln)
        for ln in head.splitlines() if ln.startswith("|"))


def _int(raw: str | None, unit: str = "") -> int | None:
    if raw is None or raw in ("N/A", "ERR!"):
        return None
    return int(float(raw.removesuffix(unit)))


def _float(raw: str | None, unit: str) -> float | None:
    return None if raw is None or raw in ("N/A", "ERR!") else float(raw.removesuffix(unit))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    driver = cuda = None
    banner = columns = None  # the lines of the banner and of the GPU columns' title row
    buses: dict[int, str] = {}
    panel: dict | None = None  # the process table being read: its title line, rows, "none running"
    panels: list[dict] = []
    elided = False  # the poster left lines of the GPUs' rows out (one limit a table)
    n = 0
    while n < len(lines):
        line = lines[n].rstrip()
        no = n + 1
        n += 1
        if "NVIDIA-SMI" in line and (h := _HEADER.search(line)):
            driver, cuda = h["drv"], (h["cuda"] if h["cuda"] != "N/A" else None)
            banner = banner or no
            result.lines_used += 1
        elif (g := _GPU_ROW.match(line)) is not None:
            result.lines_used += 1
            state = _STATE_ROW.match(lines[n].rstrip()) if n < len(lines) else None
            if state is None:
                after = list(islice((k + 1 for k in range(n, len(lines)) if lines[k].strip()), 2))
                if not after or after == [n + 1]:
                    # the text ends at the GPU row, or at the row after it cut inside its cells (an excerpt
                    # that stops there: "|  0%   38C    P8             15W /  300W |" and nothing after, as
                    # tests/parsers/test_fragment_readers.py cuts NVIDIA/gpu-operator#1982's table):
                    # a capture cut short, no malformed table
                    b.limit(no if not after else after[0], "cut_short", f"nvidia-smi table ends inside GPU {g['idx']}'s block "
                            f"({pci_bus_id(g['bus'])}), before its fan/temperature/memory row is complete")
                    continue
                b.error(no, "nvidia-smi table: GPU row without its fan/temperature/memory row")
                continue
            n += 1
            result.lines_used += 1
            mig = _MIG_ROW.match(lines[n].rstrip()) if n < len(lines) else None
            if mig is not None:
                n += 1
                result.lines_used += 1
            _gpu(b, no, g, state, mig, driver, cuda)
            buses[int(g["idx"])] = pci_bus_id(g["bus"])
            rest = next(((k + 1, ln.rstrip()) for k, ln in enumerate(lines[n:], start=n) if ln.strip()), None)
            if (rest is None or _CUT_ROW.match(rest[1]) or _CUT_AT_BAR.match(rest[1])
                    or (_CUT_BORDER.match(rest[1]) and not any(ln.strip() for ln in lines[rest[0]:]))):
                # nvidia-smi closes every GPU's block with a +---+ border (R390 on): text that stops
                # inside one, at its last row, at a row cut before its bar, at a MIG row cut at a
                # cell's bar, or inside the border itself (its last line), is a capture cut short
                b.limit(n if rest is None else rest[0], "cut_short", f"nvidia-smi table ends inside GPU {g['idx']}'s block "
                                        f"({pci_bus_id(g['bus'])}), before the border after it")
        elif (p := _PROCESS_ROW.match(line)) is not None:
            gpu = int(p["gpu"])
            b.add(GpuProcess, no, gpu_index=gpu, pci_bus_id=buses.get(gpu), pid=int(p["pid"]), process_type=p["type"],
                  process_name=p["name"], used_memory_mib=None if p["mem"].endswith("...") else _int(p["mem"], "MiB"))
            if panel is not None:
                panel["rows"] += 1
            result.lines_used += 1
        elif _PANEL_TITLE.match(line) or (panel is None and _PANEL_COLUMNS.match(line)):
            panel = {"line": no, "rows": 0, "none": False}
            panels.append(panel)
            result.lines_used += 1
        elif _NO_PROCESSES.match(line):
            if panel is not None:
                panel["none"] = True
            result.lines_used += 1
        elif (panel is not None and _CUT_PROCESS_ROW.match(line) is not None
              and not any(ln.strip() for ln in lines[n:])):
            panel["cut"] = True
            result.lines_used += 1
            b.limit(no, "cut_short", "nvidia-smi's process table ends inside a process row (the output cut): "
                                     "the processes from that row on were not read")
        elif _PANEL_COLUMNS.match(line) or (line.startswith(("|", "+")) and _FRAME.match(line)):
            if columns is None and _GPU_COLUMNS.match(line):
                columns = no
            result.lines_used += 1
        elif panel is None and not elided and (driver is not None or buses) and (
                ("." in line or "\u2026" in line) and _ELIDED.match(line) or line.startswith("|") and _STATE_ROW.match(line)):
            # lines left out of the GPUs' part of the table (the process table's own rows are not the GPUs'): the GPUs
            # in them were not read, whatever the rows shown say; never a healthy verdict on the table
            elided = True
            result.lines_used += 1
            b.limit(no, "cut_short", "nvidia-smi table with lines left out (line "
                                     f"{no}: {line.strip()[:40]!r}): the GPUs in them were not read")
    for pn in panels:
        b.add(GpuProcessPanel, pn["line"], process_rows=pn["rows"], says_none_running=pn["none"],
              printed_empty=pn["rows"] == 0 and not pn["none"] and not pn.get("cut"))
    if banner is not None and not buses:
        # the banner without a GPU row (an issue template's "Driver Version" line, a table cut or trimmed to its head):
        # the driver's versions, which no GPU's gpu_info carries here
        b.add(NvidiaDriverVersion, banner, version=driver, cuda_version=cuda)
        if columns is not None and not result.limits:
            # nvidia-smi prints "No devices were found" rather than a table when it finds no GPU: a table's column heads
            # with no GPU row under them were cut or trimmed (whatever follows: a process panel's "No running processes
            # found" says nothing of the GPUs), never a node without faults
            b.limit(columns, "cut_short", "nvidia-smi table without any GPU row under its column heads: the GPUs' rows "
                                          "were left out of the paste, no GPU was read")
    return result


def _gpu(b: FactBuilder, no: int, g: re.Match[str], s: re.Match[str], mig: re.Match[str] | None,
         driver: str | None, cuda: str | None) -> None:
    bus, idx = pci_bus_id(g["bus"]), int(g["idx"])
    b.add(GpuInfo, no, pci_bus_id=bus, index=idx, name=g["name"], driver_version=driver, cuda_version=cuda,
          persistence_mode={"On": True, "Off": False}.get(g["pers"]))
    state_line = no + 1
    if (temp := _int(s["temp"], "C")) is not None:
        b.add(GpuTemperature, state_line, pci_bus_id=bus, gpu_temp_c=temp)
    draw, cap = _float(s["draw"], "W"), _float(s["cap"], "W")
    if draw is not None or cap is not None:
        b.add(GpuPower, state_line, pci_bus_id=bus, draw_w=draw, enforced_limit_w=cap, current_limit_w=cap)
    if g["ecc"].isdecimal():
        b.add(GpuEccCount, no, pci_bus_id=bus, scope="volatile", error_type="uncorrectable", location="total",
              count=int(g["ecc"]))
    cells = (s["fan"], s["temp"], s["perf"], s["draw"], s["cap"], s["util"], g["ecc"])
    failed = (["name"] * (g["name"] == "ERR!") + [what for what, c in zip(_CELL_NAMES, cells) if c == "ERR!"]
              + ["MIG mode"] * (mig is not None and mig["mig"] == "ERR!"))
    if failed:
        # an ERR! is a query NVML failed, not a field the GPU lacks (N/A): never silence, as -q's
        # '[Unknown Error]' (gpu_state_facts._failed); three or more are gpu_unreadable_nvidia_smi's,
        # whose finding cites this line
        b.error(state_line, f"GPU {bus} (index {idx}): nvidia-smi printed ERR! for {', '.join(failed)}: "
                            "NVML's query of the GPU failed, the value was not read")
    b.add(GpuUsage, state_line, pci_bus_id=bus, index=idx, memory_used_mib=int(s["used"]),
          memory_total_mib=int(s["total"]), utilization_pct=_int(s["util"], "%"),
          performance_state=None if s["perf"] in ("N/A", "ERR!") else s["perf"], fan_pct=_int(s["fan"], "%"),
          compute_mode=_MODES.get(s["mode"], s["mode"]), mig_mode=None if mig is None or mig["mig"] in ("N/A", "ERR!") else mig["mig"],
          unreadable_fields=sum(1 for c in cells if c == "ERR!"))


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_HEADER, "(?m)" + _GPU_ROW.pattern, "(?m)" + _PROCESS_ROW.pattern, "(?m)" + _NO_PROCESSES.pattern,
              "(?m)" + _PANEL_TITLE.pattern, "(?m)" + _PANEL_COLUMNS.pattern)
