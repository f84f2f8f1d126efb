"""``nvidia-smi -q`` and ``nvidia-smi -q -d SECTION`` (text): full per-GPU state.

Sample content (``nvidia-smi -q`` on a 2 x H200 host, driver 580.159.04)::

    ==============NVSMI LOG==============
    Driver Version                                         : 580.159.04
    GPU 00000000:00:06.0
        Clocks Event Reasons
            HW Slowdown                                    : Not Active
                HW Thermal Slowdown                        : Not Active

Older drivers (R470 and before R535) say ``Clocks Throttle Reasons``, ``Power Readings`` with
``Power Draw``/``Power Limit``/``Enforced Power Limit``, ``Ecc Mode``, and ECC counts in
``Single Bit``/``Double Bit`` blocks of ``Device Memory``, ``Register File``, ...; both are read.

The block runs from the ``NVSMI LOG`` banner to the first unindented line that is neither a
top-level ``Key   : value`` line nor a ``GPU <bus id>`` line, so a terminal paste with a shell
prompt before and other output after is read for the nvidia-smi part only. Every line of
the block counts as used. Sections are told apart by their 4-space indentation. A GPU block laid
out like one read before (the same text but the values: a fleet node prints 8 GPUs alike) is
read from that one's plan (_Plan), its rows never split.

Facts emitted (classes in :mod:`gpu_state_facts`, the same as the XML parser's): ``gpu_info``,
``gpu_clock_reason``, ``gpu_temperature``, ``gpu_power``, ``gpu_ecc_mode``, ``gpu_ecc_count``,
``gpu_ecc_threshold``, ``gpu_memory_repair``, ``gpu_retired_pages``, ``gpu_row_remap``,
``gpu_pcie_link``, ``gpu_fabric``, ``gpu_platform`` (a rack-scale GPU's place), ``gpu_vgpu_license`` (a vGPU or GRID
driver's ``License Status``); each only when its section is in the output (``-d``
prints a few sections). Empty input, or output without the banner (``Failed to parse
--display/-d flags``), yields no facts and no errors: it says nothing about the GPUs.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from stethoscope.facts.ids import pci_bus_id
from stethoscope.facts.parsers import foreign_accelerator_smi
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.gpu_state_facts import Columns, GpuRecord, ecc_counter_of, emit_gpu_facts

KIND = "nvidia_smi_q"

# ==============NVSMI LOG==============
BANNER = re.compile(r"^=+NVSMI LOG=+[ \t]*\r?$", re.MULTILINE)
# GPU 00000000:00:06.0
GPU_HEADER = re.compile(r"^GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
# Driver Version                                         : 580.159.04
# (each pattern linear in the line: a key ends on its last non-blank, a value likewise; the lazy
# forms were quadratic on a long line, bench/fuzz.py seed 5)
TOP_KEY = re.compile(r"^(?P<key>[A-Z](?:[A-Za-z0-9 ./()-]*[A-Za-z0-9./()-])?)\s{2,}: ?(?P<value>(?:.*\S)?)\s*$")
#         Current                                        : 5
KEY_LINE = re.compile(r"^(?P<indent> +)(?P<key>[^\s:](?:[^:]*[^\s:])?)\s+: ?(?P<value>(?:.*\S)?)\s*$")
#     GPU Memory Power Readings
SECTION_LINE = re.compile(r"^(?P<indent> +)(?P<name>[^\s:](?:[^:]*[^\s:])?)\s*$")


def _power_keys() -> dict[tuple[str, ...], str]:
    names = {"power draw": "draw", "instantaneous power draw": "instant", "average power draw": "average",
             "power limit": "limit", "current power limit": "current_limit",
             "requested power limit": "requested_limit", "enforced power limit": "enforced_limit",
             "default power limit": "default_limit", "min power limit": "min_limit",
             "max power limit": "max_limit"}
    return {(sec, k): f"power.{v}" for sec in ("gpu power readings", "power readings") for k, v in names.items()}


#: lowercased section path + key -> record key of :mod:`gpu_state_facts`
KEYS: dict[tuple[str, ...], str] = {
    ("product name",): "info.name", ("gpu uuid",): "info.uuid", ("serial number",): "info.serial",
    ("vbios version",): "info.vbios", ("product architecture",): "info.arch",
    ("persistence mode",): "info.persistence", ("gpu recovery action",): "info.recovery_action",
    ("gpu reset status", "reset required"): "info.reset_required",
    ("gpu reset status", "drain and reset recommended"): "info.drain_and_reset",
    ("temperature", "gpu current temp"): "temp.gpu", ("temperature", "memory current temp"): "temp.memory",
    # drivers before R346 name the reading ``Gpu`` (the only Temperature line they print):
    #     Temperature
    #         Gpu                     : 49 C      (mikaku/Monitorix#28, 304.108, GeForce 6200; 325.15, GeForce 9400M;
    #                                              the same under 290.10 and 304.88 in other public pastes)
    ("temperature", "gpu"): "temp.gpu",
    ("temperature", "gpu shutdown temp"): "temp.shutdown", ("temperature", "gpu slowdown temp"): "temp.slowdown",
    ("temperature", "gpu max operating temp"): "temp.max_operating",
    ("temperature", "memory max operating temp"): "temp.max_memory",
    ("temperature", "gpu t.limit temp"): "temp.tlimit",
    ("temperature", "gpu shutdown t.limit temp"): "temp.shutdown_tlimit",
    ("temperature", "gpu slowdown t.limit temp"): "temp.slowdown_tlimit",
    ("temperature", "gpu max operating t.limit temp"): "temp.max_operating_tlimit",
    ("temperature", "memory max operating t.limit temp"): "temp.max_memory_tlimit",
    **_power_keys(),
    ("ecc mode", "current"): "ecc_mode.current", ("ecc mode", "pending"): "ecc_mode.pending",
    ("ecc errors", "aggregate", "sram threshold exceeded"): "ecc.threshold",
    ("ecc errors", "channel repair pending"): "ecc.channel_repair",
    ("ecc errors", "tpc repair pending"): "ecc.tpc_repair",
    ("ecc errors", "unrepairable memory"): "ecc.unrepairable",
    ("retired pages", "single bit ecc"): "retired.sbe", ("retired pages", "double bit ecc"): "retired.dbe",
    ("retired pages", "pending page blacklist"): "retired.pending_blacklist",
    ("retired pages", "pending"): "retired.pending_blacklist",
    ("retired pages", "pending page retirement"): "retired.pending_retirement",
    ("remapped rows", "correctable error"): "remap.corr",
    ("remapped rows", "inactive correctable error"): "remap.corr_inactive",
    ("remapped rows", "uncorrectable error"): "remap.unc",
    ("remapped rows", "inactive uncorrectable error"): "remap.unc_inactive",
    ("remapped rows", "pending"): "remap.pending",
    ("remapped rows", "remapping failure occurred"): "remap.failure",
    **{("remapped rows", "bank remap availability histogram", k): f"remap.bank_{k}"
       for k in ("max", "high", "partial", "low", "none")},
    ("pci", "gpu link info", "pcie generation", "max"): "pcie.gen_max",
    ("pci", "gpu link info", "pcie generation", "current"): "pcie.gen_current",
    ("pci", "gpu link info", "pcie generation", "device current"): "pcie.gen_device_current",
    ("pci", "gpu link info", "pcie generation", "device max"): "pcie.gen_device_max",
    ("pci", "gpu link info", "pcie generation", "host max"): "pcie.gen_host_max",
    ("pci", "gpu link info", "link width", "max"): "pcie.width_max",
    ("pci", "gpu link info", "link width", "current"): "pcie.width_current",
    ("pci", "replays since reset"): "pcie.replay", ("pci", "replay number rollovers"): "pcie.rollover",
    # clocks and load (issue 15: was a benchmark taken at pinned clocks, on an idle GPU)
    ("clocks", "graphics"): "clocks.graphics", ("clocks", "sm"): "clocks.sm", ("clocks", "memory"): "clocks.memory",
    ("applications clocks", "graphics"): "clocks.app_graphics", ("applications clocks", "memory"): "clocks.app_memory",
    ("default applications clocks", "graphics"): "clocks.default_app_graphics",
    ("default applications clocks", "memory"): "clocks.default_app_memory",
    ("max clocks", "graphics"): "clocks.max_graphics", ("max clocks", "memory"): "clocks.max_memory",
    ("utilization", "gpu"): "usage.util",
    # where a GB200 / GB300 GPU sits (NVIDIA/k8s-test-infra#642, a real 4-GPU GB300 tray, driver 580.173.02):
    #     Platform Info
    #         Chassis Serial Number                              : 1823825185529
    #         Slot Number                                        : 5
    #         Tray Index                                         : 4
    #         Host ID                                            : 1
    #         Peer Type                                          : Switch Connected
    #         Module Id                                          : 2
    #         GPU Fabric GUID                                    : 0x21ac5b6a528f7cf5
    ("platform info", "chassis serial number"): "platform.chassis_serial", ("platform info", "slot number"): "platform.slot",
    ("platform info", "tray index"): "platform.tray", ("platform info", "host id"): "platform.host_id",
    ("platform info", "peer type"): "platform.peer_type", ("platform info", "module id"): "platform.module_id",
    ("platform info", "gpu fabric guid"): "platform.fabric_guid",
    ("fabric", "state"): "fabric.state", ("fabric", "status"): "fabric.status",
    ("fabric", "cliqueid"): "fabric.clique_id", ("fabric", "clusteruuid"): "fabric.cluster_uuid",
    ("fabric", "health", "summary"): "fabric.health_summary",
    # a vGPU guest's (or a GRID / vCS driver's) license (NVIDIA/gpu-operator#628, 'nvidia-smi -q' in the driver container):
    #     vGPU Software Licensed Product
    #         Product Name                      : NVIDIA Virtual Compute Server
    #         License Status                    : Unlicensed (Restricted)
    ("vgpu software licensed product", "license status"): "info.vgpu_license",
}
#: section lines whose line is the evidence of their fact
SECTIONS = {("gpu power readings",): "power.section", ("power readings",): "power.section",
            ("retired pages",): "retired.section"}
REASON_SECTIONS = ("clocks event reasons", "clocks throttle reasons")
REASON_NAMES = {"idle": "gpu_idle", "display clock setting": "display_clock_setting"}
COUNTER_NAMES = {"sw power capping": "sw_power_cap", "hw power braking": "hw_power_brake_slowdown"}


#: sections printed at the GPU level of ``nvidia-smi -q`` (4 spaces in a whole output): a
#: fragment pasted without banner or GPU header is recognised, and its depth found, from these
GPU_SECTIONS = frozenset({
    "clocks event reasons", "clocks throttle reasons", "clocks event reasons counters",
    "clocks throttle reasons counters", "remapped rows", "retired pages", "ecc errors", "ecc mode",
    "temperature", "gpu power readings", "power readings", "pci", "fabric", "gpu reset status", "platform info",
    "vgpu software licensed product",
})
#: keys printed at the GPU level that start a fragment on their own
GPU_KEYS = frozenset({"product name", "gpu uuid", "gpu recovery action", "persistence mode", "vbios version"})
#: keys that nvidia-smi -q prints in one section only, so that a key line pasted without its
#: section header is read in that section, of an anonymous GPU (keys shared by several
#: sections, ``Pending`` of Ecc Mode and Remapped Rows, are read only after one of these):
#:         Uncorrectable Error                            : 0     (Remapped Rows: nvidia-smi-q-ROW_REMAPPER.txt, H200)
#:         Pending                                        : No
#:         Double Bit ECC                                 : N/A   (Retired Pages: nvidia-smi-q-PAGE_RETIREMENT.txt)
#:         Channel Repair Pending                         : No    (ECC Errors, the lines after its SRAM sources: nvidia-smi-q.txt,
#:                                                                 H200; what `nvidia-smi -q | grep -C3 Pending` shows of it)
KEY_SECTIONS = {
    **dict.fromkeys(("correctable error", "uncorrectable error", "inactive correctable error",
                     "inactive uncorrectable error", "remapping failure occurred"), "Remapped Rows"),
    **dict.fromkeys(("single bit ecc", "double bit ecc", "pending page blacklist", "pending page retirement"),
                    "Retired Pages"),
    **dict.fromkeys(("channel repair pending", "tpc repair pending", "unrepairable memory"), "ECC Errors"),
    # the Fabric section's own keys (the GPU's NVLink fabric registration, R550 on):
    #         CliqueId                          : 2    (kubernetes-sigs/dra-driver-nvidia-gpu#626: grep -E -C3 "ClusterUUID|CliqueId")
    #     CliqueId                          : 0       (harvest 800, Azure/azhpc-images#506: a ticket's two lines without the
    #                                                    section's header; beside a healthy table they read HEALTHY, claimed and
    #                                                    skipped: bench/plant_prefix_probe.py, wild sweep H3)
    **dict.fromkeys(("cliqueid", "clusteruuid"), "Fabric"),
    #         License Status                    : Unlicensed (Restricted)   (NVIDIA/gpu-operator#628; printed under
    #                                                                        vGPU Software Licensed Product only)
    "license status": "vGPU Software Licensed Product",
}
#: lines of the PCI section that place a paste begun inside it (no banner, GPU header or ``PCI``
#: line): the sections each is printed in, as shown (a section line, or a key line with ``:``):
#:             Link Width                          (fangq/mcx#18: pasted from PCIe Generation's Max on)
#:         Replays since reset         : 0         (fangq/mcx#18, an older driver; nvidia-docker#1090: "Since Reset")
#:         GPU Link Info                           (nvidia-smi-q.txt, H200; above it Bus Id : 00000000:00:06.0)
#: (the detect gate looks for "PCIe Generation" and "Link Width", which follow "GPU Link Info")
PCI_PLACES = {("gpu link info", False): ("PCI",), ("pcie generation", False): ("PCI", "GPU Link Info"),
              ("link width", False): ("PCI", "GPU Link Info"), ("bus id", True): ("PCI",),
              ("replays since reset", True): ("PCI",)}
#: the keys of such a section that say whether the GPU needs a reset: a headerless paste without
#: one of them cannot be judged (a count of remapped rows alone is no healthy GPU)
DECISIVE_KEYS = {"remapped rows": {"pending", "remapping failure occurred"},
                 "retired pages": {"pending page blacklist", "pending page retirement"},
                 # its repair flags without its error counts (printed under Volatile and Aggregate, above them) show no
                 # healthy memory: such a paste is judged by what it shows wrong only
                 "ecc errors": set(),
                 # the registration's outcome: its State, and its Status once the State is Completed (NVML
                 # nvmlGpuFabricInfo_t: the status "must be checked only if state returns complete"), so no Status without it
                 "fabric": {"state"},
                 # the license's state is the section's one reading (its Product Name says what was asked for)
                 "vgpu software licensed product": {"license status"}}
#: what a headerless section without its decisive keys leaves unshown (DECISIVE_KEYS), where it is not the reset
UNSHOWN = {"fabric": "whether the GPU registered with the NVLink fabric",
           "vgpu software licensed product": "whether the vGPU is licensed"}
# Fragment signatures (detect and parse without the banner), from real pastes:
#     Clocks Throttle Reasons                      (kubeflow/kubeflow issue 68: nvidia-smi -q | grep -A8 'Clocks Throttle')
#         Idle                        : Active
#         CliqueId                          : 2    (kubernetes-sigs/dra-driver-nvidia-gpu issue 626: grep -E -C3 "ClusterUUID|CliqueId")
#     Remapped Rows
#         GPU Current Temp                               : 32 C   (a -q -d TEMPERATURE section on its own: H200 capture)
FRAGMENT = re.compile(
    r"^ *(?:Clocks (?:Event|Throttle) Reasons|Remapped Rows|Retired Pages|GPU Reset Status|ECC Errors|Ecc Mode"
    r"|FB Memory Usage|BAR1 Memory Usage|GPU Link Info|PCIe Generation|Link Width|Platform Info"
    r"|vGPU Software Licensed Product)\s*$"
    r"|^ *(?:CliqueId|ClusterUUID|GPU Recovery Action|Remapping Failure Occurred|Pending Page Blacklist"
    r"|HW Slowdown|SW Power Cap|Pending Page Retirement|GPU Current Temp|GPU Shutdown(?: T\.Limit)? Temp"
    r"|GPU Slowdown(?: T\.Limit)? Temp|GPU T\.Limit Temp"
    r"|(?:Inactive )?(?:Uncorrectable|Correctable) Error|(?:Single|Double) Bit ECC|Bus Id|Replays [Ss]ince [Rr]eset"
    r"|License Status"
    # the head of -q pasted from its first key on (no banner): keys only nvidia-smi -q prints
    #   Attached GPUs                             : 1        (Project-HAMi/HAMi#602)
    #     Product Architecture                  : Turing
    r"|Attached GPUs|Product Architecture|Accounting Mode Buffer Size|VBIOS Version|MultiGPU Board)\s+: ",
    re.MULTILINE,
)
_FRAGMENT_KEYS = ("Clocks ", "Remapped Rows", "Retired Pages", "GPU Reset Status", "CliqueId", "ClusterUUID",
                  "GPU Recovery Action", "Remapping Failure", "Pending Page", "HW Slowdown", "SW Power Cap",
                  "GPU Current Temp", "GPU Shutdown", "GPU Slowdown", "GPU T.Limit", "ECC Errors", "Ecc Mode",
                  "Memory Usage", "Attached GPUs", "Product Architecture", "Accounting Mode", "VBIOS Version",
                  "MultiGPU Board", "orrectable Error", "Bit ECC", "PCIe Generation", "Link Width",
                  "Bus Id", "Replays ", "Platform Info", "vGPU Software Licensed", "License Status")
# --      (the separator grep -A/-B/-C prints between matches)
GREP_SEPARATOR = "--"


def detect(head: str) -> bool:
    if "NVSMI LOG" in head and BANNER.search(head) is not None:  # "NVSMI LOG": a cheap gate
        return True
    # (another vendor's tool that prints nvidia-smi -q's head keys, MetaX's mx-smi "Attached GPUs  : 8" under its own
    # banner, gpustack/gpustack#4832: facts/parsers/foreign_accelerator_smi.py reads it, not this reader)
    return any(k in head for k in _FRAGMENT_KEYS) and FRAGMENT.search(head) is not None and not foreign_accelerator_smi.detect(head)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    builder = FactBuilder(artefact, result)
    banners = list(_banners(artefact.text))
    after = 1  # the first line no block read
    for i, m in enumerate(banners):
        at = artefact.line_of(m.start())
        if after < at and _holds_fragment(artefact, after, at):
            result.lines_used += _parse_fragment(artefact, builder, after, at)
        used, after, tail = _parse_block(artefact, builder, at, m.end())
        result.lines_used += used
        # what follows the block up to the next one: a section pasted after it, out of its section (a tail) or
        # after a line that ends the block (a shell prompt, a sentence), is read as a fragment, as it is alone
        # (a -q, then '$ nvidia-smi -q | grep -B1 CliqueId' and Fabric's Status / CliqueId rows: HEALTHY, 3 lines
        # skipped, wild sweep J3)
        stop = artefact.line_of(banners[i + 1].start()) if i + 1 < len(banners) else len(artefact.lines) + 1
        if after < stop and (tail or _holds_fragment(artefact, after, stop)):
            result.lines_used += _parse_fragment(artefact, builder, after, stop)
    if not banners and FRAGMENT.search(artefact.text) is not None:
        result.lines_used += _parse_fragment(artefact, builder)
    return result


#: lines holding a "=" looked at before _banners seeks the literal instead (a log of key=value lines)
EQUALS_LINES = 64


def _banners(text: str) -> Iterator[re.Match[str]]:
    """BANNER's matches, as its finditer gives them, found from the literal each holds (a
    multiline ``^`` is tried at every offset of the text: 1 ms on a 110 kB -q). A banner line
    starts with "=": the lines holding one are found by str.find of that one character (memchr:
    ~10 us a 110 kB -q, where "NVSMI LOG" is sought at ~2 ns a character), while there are few;
    past EQUALS_LINES of them, by the literal."""
    find = text.find
    pos = tries = 0
    while (at := find("=", pos)) != -1:
        if (tries := tries + 1) > EQUALS_LINES:
            break
        if (m := BANNER.match(text, text.rfind("\n", 0, at) + 1)):
            yield m
        if (pos := find("\n", at)) == -1:
            return
    else:
        return  # every line holding a "=" looked at
    pos = find("NVSMI LOG", pos)
    while pos != -1:
        if (m := BANNER.match(text, text.rfind("\n", 0, pos) + 1)):
            yield m
        end = find("\n", pos)
        if end == -1:
            return
        pos = find("NVSMI LOG", end)


def _depth(indent: int) -> int:
    """A line's section depth from its indentation: nvidia-smi indents 4 spaces a level; a
    launcher's label that took one blank with it (PyTorch's ``[rank0]: `` over a report printed
    by a rank) or added one leaves 3 or 5, read as the nearest level."""
    return (indent + 2) // 4


def _parse_fragment(artefact: Artefact, b: FactBuilder, first: int = 1, stop: int | None = None) -> int:
    """Sections pasted without the banner (``nvidia-smi -q | grep -A8 ...``, a section copied
    on its own): the GPU is the ``GPU <bus id>`` line above a section when there is one, else
    one anonymous GPU (``unknown-1``, ``unknown-2``, ...) per block, or the ``Bus Id`` of a pasted
    PCI section (PCI_PLACES: a paste begun inside it); a section that repeats
    without a GPU line between starts the next GPU. Depth is counted from the section line's
    indentation, so a section at column 0 reads like one at 4 spaces. ``first`` to ``stop`` (lines,
    ``stop`` excluded): the part of a text to read (a block's tail, _parse_block), else all of it."""
    records: list[GpuRecord] = []
    rec: GpuRecord | None = None
    seen: set[str] = set()  # sections read into ``rec``
    stack: list[str] = []
    shown: list[str] = []
    headerless: list[tuple[int, str, set[str]]] = []  # (line, section, keys read) of sections without header
    base = 0  # indentation of the GPU level minus 4
    used = 0
    # the head of -q pasted from its first key on (no banner): "Attached GPUs : N" above the first GPU
    # (Project-HAMi/HAMi#602); with no grep separator it is a whole capture's start, checked as one
    head: tuple[int, str] | None = None
    grepped = False
    last = 0  # the last line that is not blank
    # key lines just above, outside any section we know, at one indentation: a headerless section's keys printed before
    # the one that names it ("Status : Insufficient Resources" above "CliqueId : 0", harvest 800), read into it then
    above: list[tuple[int, int, str, str]] = []  # (line, indent, key, value)

    def new_record(bus: str, no: int) -> GpuRecord:
        nonlocal seen
        seen = set()
        records.append(GpuRecord(pci_bus_id=bus, line=no))
        return records[-1]

    def anonymous() -> str:
        return f"unknown-{sum(r.pci_bus_id.startswith('unknown-') for r in records) + 1}"

    for no, line in enumerate(artefact.lines[first - 1:None if stop is None else stop - 1], first):
        if not line.strip():
            above.clear()
            continue
        last = no
        if line.strip() == GREP_SEPARATOR:
            stack, shown = [], []
            grepped = True
            used += 1
            continue
        indent = len(line) - len(line.lstrip(" "))
        if (g := GPU_HEADER.match(line.strip())):
            rec, stack, shown, base = new_record(pci_bus_id(g["bus"]), no), [], [], indent
            used += 1
            continue
        k, sec = KEY_LINE.match(" " + line), SECTION_LINE.match(" " + line)
        name = (k["key"] if k else sec["name"] if sec else "").strip()
        if name.lower() in GPU_SECTIONS and k is None or (k is not None and name.lower() in GPU_KEYS and not stack):
            base = indent - 4
            if rec is None or name.lower() in seen:
                rec = new_record(anonymous(), no)
            seen.add(name.lower())
            stack, shown = [], []
        elif k is not None and not stack and (implied := KEY_SECTIONS.get(name.lower())):
            base = indent - 8  # the key line of a section pasted without its header
            if rec is None or implied.lower() in seen:
                rec = new_record(anonymous(), no)
            seen.add(implied.lower())
            stack, shown = [implied.lower()], [implied]
            headerless.append((no, implied, set()))
            for at, _indent, key, value in (a for a in above if a[1] == indent and (implied.lower(), a[2]) in KEYS):
                _take(rec, (implied.lower(), key), value, at, implied)
                headerless[-1][2].add(key)
                used += 1
        elif not stack and (place := PCI_PLACES.get((name.lower(), k is not None))):
            base = indent - 4 * (len(place) + 1)  # a line of the PCI section, pasted from inside it
            if rec is None or "pci" in seen:
                rec = new_record(anonymous(), no)
            seen.add("pci")
            stack, shown = [p.lower() for p in place], list(place)
        if rec is None:
            if k is not None and name.lower() == "attached gpus" and head is None:
                head = (no, k["value"])
                used += 1
            _above(above, no, indent, k, name)
            continue  # a shell prompt or other output before the first section
        depth = _depth(indent - base)
        if depth < 1 or (depth > 1 and not stack):
            _above(above, no, indent, k, name)
            continue  # outside any section we know (a chunk of grep output that starts mid-section)
        above.clear()
        del stack[depth - 1:], shown[depth - 1:]
        if k is not None:
            _take(rec, tuple(stack) + (name.lower(),), k["value"], no, shown[0] if shown else "")
            if stack == ["pci"] and name.lower() == "bus id" and rec.pci_bus_id.startswith("unknown-"):
                _name_gpu(rec, k["value"])
            if headerless and stack and headerless[-1][1].lower() == stack[0]:
                headerless[-1][2].add(name.lower())
        elif sec is not None:
            stack.append(name.lower())
            shown.append(name)
            if (key := SECTIONS.get(tuple(stack))):
                rec.values[key] = ("", no)
        used += 1
    if rec is not None and last and (k := KEY_LINE.match(" " + artefact.lines[last - 1])) is not None and not k["value"].strip():
        # a section pasted without the banner whose last line is a field and its " : " with nothing after:
        # the paste was cut inside that line (NVIDIA/nvidia-docker#1070's stored excerpt ends at
        # "        GPU Current Temp            :"), as in a whole capture (_gpu_blocks): not read, a limit,
        # rather than a malformed value
        rec.values = {f: v for f, v in rec.values.items() if v[1] != last}
        rec.counters = {f: v for f, v in rec.counters.items() if v[1] != last}
        b.limit(last, "cut_short", f"nvidia-smi -q ends at {k['key'].strip()!r} with no value after it (the output cut "
                                   "inside the line): that field and those after it were not read")
    for r in records:
        emit_gpu_facts(b, r)
    if head is not None and not grepped and records:
        # a capture's head that stops inside a GPU block, or shows fewer GPUs than it says are attached,
        # did not check what it leaves out, as with the banner (fixtures/artefacts/nvidia_smi_q/
        # k8sdp110_cut_inside_persistence_mode.txt's first lines alone were HEALTHY on a product name)
        _check_whole(artefact, b, head[0], last, records, head[1].strip())
    for no, section, keys in headerless:
        decisive = DECISIVE_KEYS[section.lower()]
        if not keys & decisive:
            missing = " or ".join(sorted(decisive)) if decisive else "its error counts"
            unshown = UNSHOWN.get(section.lower(), "whether the GPU needs a reset")
            b.limit(no, "cut_short", f"nvidia-smi -q's {section} pasted in part, without its header and without "
                                     f"{missing}: {unshown} is not shown")
    return used


def _above(above: list[tuple[int, int, str, str]], no: int, indent: int, k: re.Match[str] | None, name: str) -> None:
    """Keep a key line outside any section (its key lowercased) while the lines above it are key lines at its
    indentation; another line starts over."""
    if k is None or (above and above[-1][1] != indent):
        above.clear()
    if k is not None:
        above.append((no, indent, name.lower(), k["value"]))


def _name_gpu(rec: GpuRecord, bus: str) -> None:
    """An anonymous GPU named by the ``Bus Id`` of its pasted PCI section (kept anonymous when
    the value is no bus id)."""
    try:
        rec.pci_bus_id = pci_bus_id(bus)
    except ValueError:
        pass


#: one row per line of a block (one findall over the block, not two matches a line): (indent,
#: what precedes the first colon, the colon or "", the value after it). _parse_block reads it as
#: KEY_LINE does where there is a colon (the key: ``head.rstrip()``, when ``head`` starts with
#: no blank and ends with one) and as SECTION_LINE does where there is none. No backtracking:
#: KEY_LINE's over the padding before the colon cost ~4 us a line.
#:         Current                                        : 5      ("        ", "Current      ...   ", ":", "5")
#:     GPU Power Readings                                          ("    ", "GPU Power Readings ", "", "")
ROW = re.compile(r"^( *)([^:\n]*)(:?) ?([^\n]*)$", re.MULTILINE)
# a line that starts with something other than a blank: where a block may end
LINE_START_UNINDENTED = re.compile(r"\n[^ \n]")  # (its character taken, not looked ahead at: 15 % less)
#: section paths (lowercased, from the first section down) below which _take reads a line:
#: the proper prefixes of KEYS' paths, the clock reason sections, ``Processes``; below ``ECC
#: Errors`` its ``Volatile`` and ``Aggregate`` blocks at any depth, and ``... Counters`` (_reads_below)
READ_PREFIXES = frozenset({p[:i] for p in KEYS for i in range(1, len(p))}
                          | {(s,) for s in (*REASON_SECTIONS, "processes", "ecc errors")})
#: rows indented this much or more are passed over (``skip_from``): none
NO_SKIP = 1 << 30


def _skip_from(stack: list[str]) -> int:
    """The indentation from which rows are passed over below the sections in ``stack``: a row
    that deep leaves them on the stack (its path starts with them), so where no path _take
    reads starts with them it changes nothing that is read; ``4 * len + 2`` blanks: depth
    ``len + 1`` (_depth)."""
    if not stack or tuple(stack) in READ_PREFIXES:
        return NO_SKIP
    first = stack[0]
    if first == "ecc errors" and stack[1] in ("volatile", "aggregate"):  # ecc_counter's scopes
        return NO_SKIP
    if len(stack) == 1 and first.startswith(REASON_SECTIONS) and first.endswith(" counters"):
        return NO_SKIP
    return 4 * len(stack) + 2


def _block_end(text: str, pos: int) -> tuple[int, list[tuple[int, int]]]:
    """The offset of the first unindented line after ``pos`` (a line end) that is neither a
    ``GPU <bus id>`` line nor a top-level key (where a block stops), else the text's length; and
    (offset, line end) of each unindented line before it that is not blank (for _gpu_blocks: the
    text is scanned for such lines once)."""
    find = text.find
    starts: list[tuple[int, int]] = []
    for m in LINE_START_UNINDENTED.finditer(text, pos):
        start = m.start() + 1
        end = find("\n", start)
        line = text[start:] if end == -1 else text[start:end]
        # a trailing "\r" (kept here, cut from artefact.lines) is read alike: both patterns end in \s*$
        if line.strip():
            if GPU_HEADER.match(line) is None and TOP_KEY.match(line) is None:
                return start, starts
            starts.append((start, len(text) if end == -1 else end))
    return len(text), starts


#: a key line's value: what follows the line's first colon and one blank (ROW's last group); the
#: text between values is a GPU block's layout (_Plan)
#:         Current                                        : 5      (":", "5")
VALUE = re.compile(r": ?([^\n]*)")


def _gpu_blocks(text: str, banner_end: int, end: int, banner_line: int,
                starts: list[tuple[int, int]]) -> dict[int, tuple[int, int, int]]:
    """The line of each ``GPU <bus id>`` line of a block -> (offset of the line after it, offset of
    the next unindented line that is not blank or the block's end, the rows between: ROW's, the
    row at the block's end included). Nothing but a GPU or top-level key line is unindented and not
    blank inside a block (_block_end: ``starts``, each such line's offset and end): a GPU block's
    rows run from its header to the next such line."""
    out: dict[int, tuple[int, int, int]] = {}
    at: list[int] = []  # the line of each of ``starts``: the text's line ends counted once
    no, pos = banner_line, banner_end
    for start, _stop in starts:
        no += text.count("\n", pos, start)
        pos = start
        at.append(no)
    for i, (start, stop) in enumerate(starts):
        if stop < end and GPU_HEADER.match(text[start:stop]):
            if i + 1 < len(starts):  # the rows between the GPU line's end and the next such line
                until, rows = starts[i + 1][0], at[i + 1] - at[i] - 1
            else:
                until, rows = end, text.count("\n", stop + 1, end) + 1
            out[at[i]] = (stop + 1, until, rows)
    return out


def _rows(text: str, banner_end: int, end: int, blocks: dict[int, tuple[int, int, int]],
          planned: list[bool]) -> Iterator[tuple[str, str, str, str]]:
    """ROW's rows of the block, as ``ROW.findall(text, banner_end + 1, end)`` gives them, split
    GPU block by GPU block so that a block read from a plan (``planned`` set when its GPU line is
    read) is never split: each part ends before a line end (a part that ended after one would
    give one more, empty, row), but for the last, which ends where the block does."""
    if banner_end >= end:
        return
    pos = banner_end + 1
    for start, stop, _n in blocks.values():
        yield from ROW.findall(text, pos, start - 1)  # up to the GPU line, that one included
        pos = start
        if planned:
            planned.clear()
        elif stop == end:  # the last part: its rows as ROW.findall to the block's end gives them
            yield from ROW.findall(text, start, end)
        elif start < stop:
            yield from ROW.findall(text, start, stop - 1)
        pos = stop
        if pos >= end:
            return
    yield from ROW.findall(text, pos, end)


class _Plan:
    """How _parse_block read a GPU block, for the next block laid out alike (the same text but its
    values, VALUE): fleets print 8 GPUs alike, and a layout read once a process is read again from
    its values alone. The same rows give the same paths, sections and actions: only the values
    differ, and they are taken as the rows would give them (``_apply`` included)."""

    __slots__ = ("columns", "stack", "skip_from", "section")

    def __init__(self, ops: list[tuple[int, str | None, tuple | None, str | None, int]], stack: list,
                 skip_from: int, section: str | None):
        """``ops``: (value number or -1, record key, action, section name, line below the GPU line)."""
        entries, sections, others = [], [], []
        for k, field, action, sect, below in ops:
            kind = action[0] if action is not None else None
            if kind in ("reason", "counter", "ecc"):
                column = {"reason": "reasons", "counter": "counters", "ecc": "ecc"}[kind]
                entries.append((column, (action[1], sect) if kind == "reason" else action[1], k, below))
            elif action is not None:  # a process: counted
                others.append((action, k, below, None))
            elif k >= 0:
                entries.append(("keys", field, k, below))
            else:
                sections.append((field, below))
        self.columns = Columns.of(entries, sections, others)
        self.stack, self.skip_from, self.section = stack, skip_from, section

    def read(self, rec: GpuRecord, values: list[str], header: int) -> None:
        """The record of a block laid out alike, whose GPU line is ``header``."""
        self.columns.fill(rec, values, header, str.rstrip, _apply_other)


#: plans by layout, kept a process (a fleet's outputs repeat one or two layouts)
_PLANS: dict[tuple[str, ...], _Plan] = {}
_PLANS_KEPT = 64


def _keep_plan(layout: tuple[str, ...], header: int, ops: list, stack: list, skip_from: int,
               section: str | None) -> None:
    """Keep how the block of ``layout`` was read (ops recorded by _parse_block: (line, record
    key, action, section)), unless an action took a section from the block before (the layout
    does not fix it)."""
    # the value on each line of the block (lines counted from the one after the GPU line)
    at: dict[int, int] = {}
    line = 0
    for k, part in enumerate(layout[:-1]):
        line += part.count("\n")
        at[line] = k
    planned = []
    for no, field, action, sect in ops:
        if field is None and action is None:
            return  # an action with the section of the block before
        k = -1 if sect is None and action is None else at.get(no - header - 1, -1)
        if k < 0 and (action is not None or sect is not None):
            return
        planned.append((k, field, action, sect, no - header))
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.clear()
    _PLANS[layout] = _Plan(planned, list(stack), skip_from, section)


def _parse_block(artefact: Artefact, b: FactBuilder, banner_line: int, banner_end: int) -> tuple[int, int, bool]:
    """Read one NVSMI LOG block whose banner line ends at offset ``banner_end``; returns the lines
    it spans, the line after it, and whether a tail ends it: a key that nvidia-smi prints in one
    section only (KEY_SECTIONS) outside that section, after a blank line (_MISPLACED), with the
    run of that section's keys just above it (_tail_start), which parse reads as a fragment. One findall splits every line of the block (ROW); the rows of a section no table
    reads below its first level, and every indented row outside a GPU block, are passed over by
    one length test (``skip_from``): they change nothing that is read."""
    text, lines = artefact.text, artefact.lines
    records: list[GpuRecord] = []
    top: dict[str, str] = {}
    rec: GpuRecord | None = None
    stack: list[_Section] = []  # the open sections by depth
    section = ""  # the first section as printed
    end, starts = _block_end(text, banner_end)
    blocks = _gpu_blocks(text, banner_end, end, banner_line, starts) if banner_end < end else {}
    planned: list[bool] = []  # set at a GPU line whose block is read from a plan: its rows are not split
    last: tuple[list[str] | None, _Plan | None] = (None, None)  # the layout of the last block read from a plan, its plan
    it = _rows(text, banner_end, end, blocks, planned)
    # a GPU block whose layout has no plan yet is read row by row, its reading kept as one
    # (_Plan): ops, its layout, its header line; whether a section of its own was open for each
    ops: list[tuple[int, str | None, tuple | None, str]] | None = None
    layout: tuple[str, ...] = ()
    header = 0
    sectioned = True
    skip_from = 1  # no GPU block open: every indented row is passed over
    foreign: list[int] = []  # lines of the block that are no -q row (another program's, indented like one)
    marked = 0  # len(foreign) where the GPU block now read row by row began
    misplaced = 0  # the first line of a tail (_MISPLACED, after a blank line): the block ends above it
    no = banner_line
    for indent, head, sep, value in it:
        no += 1
        if len(indent) >= skip_from:
            continue
        if not indent:
            line = lines[no - 1] if no <= len(lines) else ""
            if not line.strip():
                if rec is not None:  # nvidia-smi prints no blank line inside a GPU block: the rows after one may be
                    skip_from = NO_SKIP  # a tail (_MISPLACED), looked at even below a section no table reads
                continue
            if ops is not None:  # the GPU block read row by row ends here: its reading is kept
                if len(foreign) == marked:  # (not a block holding a line no -q prints: its layout's plan would
                    _keep_plan(layout, header, ops, stack, skip_from, section if sectioned else None)  # pass it over)
                ops = None
            if (g := GPU_HEADER.match(line)):
                rec = GpuRecord(pci_bus_id=pci_bus_id(g["bus"]), line=no)
                records.append(rec)
                stack = []
                skip_from = NO_SKIP
                sectioned = False
                if (block := blocks.get(no)) is not None:
                    start, stop, n = block
                    pieces = VALUE.split(text[start:stop])
                    if (between := pieces[0::2]) == last[0]:  # laid out as the block before (compared, not hashed)
                        plan = last[1]
                    else:
                        layout = tuple(between)
                        plan = _PLANS.get(layout)
                        last = (between, plan) if plan is not None else last
                    if plan is None:
                        ops, header, marked = [], no, len(foreign)
                    else:  # laid out as a block read before: its rows are passed over
                        plan.read(rec, pieces[1::2], no)
                        stack, skip_from = list(plan.stack), plan.skip_from
                        if plan.section is not None:
                            section, sectioned = plan.section, True
                        planned.append(True)
                        no += n
            elif (t := TOP_KEY.match(line)):
                if records and t["key"].lower() in KEY_SECTIONS and (first := _tail_start(lines, no)) > 1 \
                        and not lines[first - 2].strip():
                    # a section's own key at the margin after the GPU blocks, after a blank line: nvidia-smi prints
                    # its top keys (Timestamp, Driver Version, ...) before the first GPU only, so it is a tail pasted
                    # after the block with its indentation lost (logcli's TrimSpace, a runner's "##[error]" taken
                    # off: bench/plant_prefix_probe.py, wild sweep K3), read as a fragment as an indented one is
                    misplaced = first
                    break
                top[t["key"].lower()] = t["value"]
                rec, skip_from = None, 1
            continue
        if not head or head[0].isspace() or (sep and not head[-1].isspace()):
            if head.strip():
                # neither a key line nor a section line: nvidia-smi prints none (every row is "<key padded> : <value>"
                # or a section's name), so another program's line pasted in or under the block, indented with it
                # ('    time="2022-07-19T14:22:41Z" level=fatal msg="Error getting device busid: ..."' four blanks deep
                # under a -q's ECC section read HEALTHY, bench/plant_prefix_probe.py): not one of its rows (below)
                foreign.append(no)
            continue  # blank, or neither a key line nor a section line
        depth = (len(indent) + 2) // 4  # _depth
        keep = depth - 1 if depth > 1 else 0
        if keep < len(stack):
            del stack[keep:]
            skip_from = stack[-1].skip_from if stack else NO_SKIP
        parent = stack[-1] if stack else _GPU_LEVEL
        if sep:  # _take, its answer for the path found once (by the key as printed, padding and all)
            field, action = parent.fields.get(head) or parent.field(head)
            if field:
                rec.values[field] = (value.rstrip(), no)  # type: ignore[union-attr]  # a GPU block
                if ops is not None:
                    ops.append((no, field, None, ""))
            elif action:
                if action[0] == _MISPLACED:  # a section's own key outside it
                    if (first := _tail_start(lines, no)) > 1 and not lines[first - 2].strip():
                        misplaced, ops = first, None  # pasted after the block: its tail (no plan: the block ends here)
                        break
                    if (action := action[1]) is None:  # inside the block (a row's indentation lost): as any row read
                        continue
                _apply(rec, action, value.rstrip(), no, section)  # type: ignore[arg-type]
                if ops is not None:
                    ops.append((no, None, action, section) if sectioned else (no, None, None, ""))
        else:
            node = parent.children.get(head) or parent.child(head)
            stack.append(node)
            if len(stack) == 1:
                section, sectioned = head.rstrip(), True
                if (field := SECTIONS.get(node.path)):
                    rec.values[field] = ("", no)  # type: ignore[union-attr]  # a GPU block
                    if ops is not None:
                        ops.append((no, field, None, None))
            skip_from = node.skip_from
    if ops is not None and len(foreign) == marked:
        _keep_plan(layout, header, ops, stack, skip_from, section if sectioned else None)
    stop = artefact.line_of(end) if end < len(text) else len(lines) + 1  # the line that ended the block
    if misplaced:
        stop, end = misplaced, -1  # (end: not the text's end, the tail's reader looks at that)
        if rec is not None:  # what the run's lines above its misplaced key gave, read at the wrong level
            rec.values = {f: v for f, v in rec.values.items() if v[1] < misplaced}
            rec.counters = {f: v for f, v in rec.counters.items() if v[1] < misplaced}
            rec.ecc = [e for e in rec.ecc if e[-1] < misplaced]
            rec.reasons = [r for r in rec.reasons if r[2] < misplaced]
    last = stop - 1  # the block's last line that is not blank (every such line is read or passed over)
    alien = set(foreign)
    while last > banner_line and (not lines[last - 1].strip() or last in alien):
        last -= 1  # (a line no -q prints after its last row is not the block's: the fallback readers read it)
    if end == len(text) and last > banner_line and rec is not None and lines[last - 1][0] == " " \
            and KEY_LINE.match(lines[last - 1]) is None and SECTION_LINE.match(lines[last - 1]) is not None:
        # the text's last line is a header or a field name with nothing after it (no " : value", no
        # field under it): nvidia-smi prints every field with its value on one line, so the capture
        # was cut there (ollama#13552: "        GPU Slowdown T.Limit Temp" where the paste ends)
        b.limit(last, "cut_short", f"nvidia-smi -q ends at {lines[last - 1].strip()!r} without its "
                                   "value (the output cut): the fields after it were not read")
    elif end == len(text) and last > banner_line and rec is not None \
            and (k := KEY_LINE.match(lines[last - 1])) is not None and not k["value"]:
        # the text's last line is a field and its " : " with nothing after: the paste was cut inside that
        # line (NVIDIA/k8s-device-plugin#110's stored excerpt ends at "    Persistence Mode                :"),
        # so what nvidia-smi printed there is unknown: not read, rather than read as a malformed value
        rec.values = {f: v for f, v in rec.values.items() if v[1] != last}
        rec.counters = {f: v for f, v in rec.counters.items() if v[1] != last}
        b.limit(last, "cut_short", f"nvidia-smi -q ends at {k['key']!r} with no value after it (the output cut "
                                   "inside the line): that field and those after it were not read")
    attached = top.get("attached gpus", "").strip()
    complete = attached.isdecimal() and int(attached) == len(records)
    _check_whole(artefact, b, banner_line, last, records, attached)
    for i, r in enumerate(records):
        r.index = i if complete else None
        r.driver_version = top.get("driver version") or None
        r.cuda_version = top.get("cuda version") or None
        r.taken_at = top.get("timestamp") or None
        emit_gpu_facts(b, r)
    # the block's non-blank lines, not its span: a blank line counted as read would hide as many unread lines
    # from parse_one's count, and a stray line after the block ('Exception: ...' after a healthy -q, wild sweep
    # A2) read HEALTHY where the same line alone reads an unexplained error (engine/foreign_runs.py searches only
    # where the readers' own count leaves a non-blank line unread); the block's span is read (ParseResult.spans),
    # so that such a line is not taken for one of its rows (its rows without a fact on them)
    # (the lines no -q prints inside it are left out of the span and the count: engine/foreign_runs.py reads them)
    first = banner_line
    for n in sorted(x for x in alien if x < last):
        if n > first:
            b.result.spans.append((first + artefact.line_offset, n - 1 + artefact.line_offset))
        first = n + 1
    b.result.spans.append((first + artefact.line_offset, last + artefact.line_offset))
    # (counted by C passes, as Artefact.nonblank_lines counts: a generator over a 2,000-line -q took ~0.16 ms)
    span = lines[banner_line - 1:last]
    return len(span) - span.count("") - sum(map(str.isspace, span)) - sum(
        1 for n in alien if banner_line <= n < banner_line + len(span) and lines[n - 1] and not lines[n - 1].isspace()), stop, bool(misplaced)


def _holds_fragment(artefact: Artefact, first: int, stop: int) -> bool:
    """Whether lines ``first`` to ``stop`` (excluded) hold a line FRAGMENT finds, as detect asks."""
    part = "\n".join(artefact.lines[first - 1:stop - 1])
    return any(k in part for k in _FRAGMENT_KEYS) and FRAGMENT.search(part) is not None


def _tail_start(lines: list[str], misplaced: int) -> int:
    """The first line of the tail that ``misplaced`` (the line of a section's own key outside its
    section) begins: it, and the key lines just above it at its indentation that its section prints
    (KEYS), as the fragment reader takes them (``above``):
        <blank>
            Status                            : Insufficient Resources   (Fabric's, printed above CliqueId)
            CliqueId                          : 0"""
    line = lines[misplaced - 1]
    indent = len(line) - len(line.lstrip(" "))
    section = KEY_SECTIONS[KEY_LINE.match(" " + line)["key"].strip().lower()].lower()
    first = misplaced
    while first > 1:
        above = lines[first - 2]
        k = KEY_LINE.match(" " + above)
        if k is None or len(above) - len(above.lstrip(" ")) != indent or (section, k["key"].strip().lower()) not in KEYS:
            break
        first -= 1
    return first


# $ nvidia-smi -q -i 1          (a terminal paste: the command asked for one GPU of the eight)
ONE_GPU_ASKED = re.compile(r"nvidia-smi\b.*\s(?:-i|--id)(?:\s|=)")


def _check_whole(artefact: Artefact, b: FactBuilder, banner_line: int, last: int,
                 records: list[GpuRecord], attached: str) -> None:
    """An output that stops before its end, or that shows fewer GPUs than it says are attached,
    did not check what it leaves out: a limit for the coverage (the verdict cannot be healthy).
    A full ``-q`` block (one with ``Product Name``) ends with ``Processes`` in every driver
    since R3xx; nvidia-smi killed while it hangs on a sick GPU, or a paste of the first screen,
    stops before it (so does ``| head``, or a stray unindented line that ends the block). ``Attached GPUs : 8`` over 7 blocks is a GPU nvidia-smi could not read
    (its "Unable to determine the device handle" went to stderr), unless the command asked
    for one GPU (``-i``), which shows when the command line was pasted with it."""
    lines = artefact.lines
    if records and "info.name" in records[-1].values and not (
            {"usage.processes", "usage.no_processes"} & set(records[-1].values)):
        b.limit(last, "cut_short", f"nvidia-smi -q ends inside GPU {records[-1].pci_bus_id}'s block, before its "
                                   "Processes section (nvidia-smi killed or hung, or the output cut): its later sections were not read")
    asked = any(ONE_GPU_ASKED.search(ln) for ln in lines[max(0, banner_line - 4):banner_line - 1])
    # -d SECTION blocks show every GPU too (nvidia-smi-q-TEMPERATURE.txt: 'Attached GPUs : 2' over both GPUs' sections):
    # such a head over fewer blocks, its other GPUs cut off, was HEALTHY until session 24 (bench/fragment_audit_s24.md)
    if attached.isdecimal() and int(attached) > len(records) and not asked:
        b.limit(banner_line, "gpus_not_shown", f"nvidia-smi -q says {attached} GPU(s) are attached and shows {len(records)}"
                                               " (a GPU it could not read, or -i): the others were not checked by it")


def _take(rec: GpuRecord, path: tuple[str, ...], value: str, no: int, section: str) -> None:
    """One key line into the record, if a table reads its path; ``section``: the path's first
    section as printed (the clock reasons' section name)."""
    if (name := KEYS.get(path)):
        rec.values[name] = (value, no)
    else:
        _take_other(rec, path, value, no, section)


def _take_other(rec: GpuRecord, path: tuple[str, ...], value: str, no: int, section: str) -> None:
    """_take for a path not in KEYS: processes, clock reasons and their counters, ECC counts."""
    if (action := _leaf_action(path)):
        _apply(rec, action, value, no, section)


@lru_cache(maxsize=1024)
def _leaf_action(path: tuple[str, ...]) -> tuple | None:
    """What _take_other does with a key line at ``path``, whatever its value: ("pid",) counts a
    process, ("processes",) a ``Processes : None``, ("reason", name) a clock reason, ("counter",
    name) its counter, ("ecc", (scope, type, location)) an ECC count; None: nothing."""
    first = path[0]
    if first == "processes":
        if path == ("processes", "process id"):  # one per process the GPU lists
            return ("pid",)
        return ("processes",) if len(path) == 1 else None
    if len(path) == 2:
        if first in REASON_SECTIONS:
            return ("reason", REASON_NAMES.get(path[1], path[1].replace(" ", "_")))
        if first.startswith(REASON_SECTIONS) and first.endswith(" counters"):
            return ("counter", COUNTER_NAMES.get(path[1], path[1].replace(" ", "_")))
    elif first == "ecc errors" and len(path) >= 3 and (c := ecc_counter_of(path)):
        return ("ecc", c)
    return None


def _apply_other(rec: GpuRecord, action: tuple, value: str, no: int) -> None:
    """_apply of a process line (its section is not read): Columns.fill's ``other``."""
    _apply(rec, action, value, no, "")


def _apply(rec: GpuRecord, action: tuple, value: str, no: int, section: str) -> None:
    """A key line's value into the record, as _leaf_action says."""
    what = action[0]
    if what == "reason":
        rec.reasons.append((action[1], value, no, section))
    elif what == "ecc":
        rec.ecc.append((*action[1], value, no))
    elif what == "counter":
        rec.counters[action[1]] = (value, no)
    elif what == "pid":
        count = int(rec.values.get("usage.processes", ("0", no))[0]) + 1
        rec.values["usage.processes"] = (str(count), no)
    elif value.strip().lower() == "none":  # "processes": Processes : None
        rec.values["usage.no_processes"] = ("0", no)


class _Section:
    """A section path (lowercased names, from the GPU level down) as _parse_block reads it: the
    indentation from which its rows are passed over (_skip_from), what a key line right below it
    gives (its record key, or _take_other's action), its subsections; each found once a
    process (every GPU block of a fleet repeats the same few hundred paths)."""

    __slots__ = ("path", "skip_from", "fields", "children")

    def __init__(self, path: tuple[str, ...]):
        self.path = path
        self.skip_from = _skip_from(list(path))
        #: keyed by the key or section name as printed (``head``: padding and case kept)
        self.fields: dict[str, tuple[str | None, tuple | None]] = {}
        self.children: dict[str, _Section] = {}

    def field(self, head: str) -> tuple[str | None, tuple | None]:
        """(record key, action) of a key line in this section, its key as printed (``head``)."""
        name = head.rstrip().lower()
        path = self.path + (name,)
        # of the GPU level's keys only "Processes : None" goes to _take_other
        got = (KEYS.get(path), _leaf_action(path) if self.path or name == "processes" else None)
        if (own := KEY_SECTIONS.get(name)) is not None and self.path != (own.lower(),):
            got = (None, (_MISPLACED, got[1]))  # (what it gives where it is not a tail)
        if len(self.fields) < _KEPT:  # a hostile text's names are not all kept
            self.fields[head] = got
        return got

    def child(self, head: str) -> _Section:
        """The subsection named ``head`` (as printed)."""
        node = _Section(self.path + (head.rstrip().lower(),))
        if len(self.children) < _KEPT:
            self.children[head] = node
        return node


_KEPT = 512
#: the action of a key that nvidia-smi prints right under one section only (KEY_SECTIONS) read anywhere else: not a
#: row of the block it stands in, but that section's rows pasted after it without their header (harvest 800,
#: Azure/azhpc-images#506's two Fabric rows, appended after a whole -q in bench/plant_prefix_probe.py, were taken as
#: the last GPU's rows at its GPU level, where no table reads them: the -q read HEALTHY; wild sweep J3)
#:                                                                    (the block's last row, then a blank line)
#:     Status                            : Insufficient Resources    (GPU level: Fabric's State/Status/CliqueId are
#:     CliqueId                          : 0                          printed 8 blanks deep, under "    Fabric")
#: A run of such keys after a blank line (where nvidia-smi ends a GPU block) is that tail: the block ends above it and the
#: tail is read as a fragment (an anonymous GPU's section, cut_short without its decisive keys); one inside the rows of
#: a block (its indentation lost) is read as before. Its action: (_MISPLACED, the action it had, or None).
_MISPLACED = "misplaced"
#: the GPU level: no section open
_GPU_LEVEL = _Section(())


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (BANNER, FRAGMENT)
