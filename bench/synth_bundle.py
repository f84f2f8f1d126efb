"""Make an N-node, 8-GPU-per-node incident bundle out of the real 2xH200 captures.

The only inputs are files already in ``fixtures/``:

- ``fixtures/bundles/h200-healthy/bundle/vm/*``: nccl-tests text and JSON, NCCL INFO logs,
  ``nvidia-smi -q`` text and XML, a torchrun log, all from one 2xH200 VM called ``vm``;
- ``fixtures/artefacts/kernel_log/dmesg-nvrm.log`` (driver load lines) and a few Xid lines
  from the other ``fixtures/artefacts/kernel_log`` files.

Each capture is rewritten to look like it came from an 8-GPU node ``node0001`` ...: the host
``vm`` becomes the node name in NCCL prefixes (``vm:1428:1439 [0]``) and in nccl-tests device
lines (``on vm device``); lines of device 1 are repeated for devices 1..7; the GPU blocks of
``nvidia-smi -q`` are repeated for 8 distinct PCI bus ids; a ``dmesg -T`` is made of boot
noise, the driver load lines and, for a few nodes, an Xid. The content is plausible, not
exact: the point is realistic volume and line mix. The nccl-tests tables are scaled to the 8 x
H200 figures of knowledge/expected_perf.yaml (_scaled_table), so that a healthy node's runs are
judged within band, as a healthy fleet's are, and only the planted faults are blamed.

Deterministic: the same ``seed`` and node count give byte-identical bundles.
Run alone: ``python bench/synth_bundle.py OUT_DIR --nodes 64``.
"""
from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from stethoscope.facts.parsers.nccl_tests_facts import busbw_factor  # busbw / algbw, nccl-tests' PERFORMANCE.md

ROOT = Path(__file__).resolve().parent.parent
VM = ROOT / "fixtures/bundles/h200-healthy/bundle/vm"
KLOG = ROOT / "fixtures/artefacts/kernel_log"

GPUS = 8
# PCI bus numbers of the eight GPUs of an HGX H100/H200 board (as a DGX reports them)
BUSES = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
# the fixture VM's two GPUs are 0000:00:06.0 and 0000:00:07.0 (device 6 and 7 on bus 0)
SRC_DEV = {0: "06", 1: "07"}

# nccl-tests: "#  Rank  1 Group  0 Pid   1428 on         vm device  1 [0000:00:07] NVIDIA H200"
NT_RANK = re.compile(r"^#  Rank +\d+ Group +\d+ Pid +\d+ on +vm device ")
# NCCL prefix: "vm:1428:1439 [0] NCCL INFO ..."
NCCL_PFX = re.compile(r"^vm:(\d+):(\d+) \[(\d+)\](.*)$", re.S)


@dataclass
class Templates:
    """Node-independent texts: 'vm', pid and IP placeholders are filled per node."""

    nccl_logs: dict[str, str] = field(default_factory=dict)  # out name -> text with "vm:<pid>:" prefixes
    nccl_pids: dict[str, int] = field(default_factory=dict)
    tests: dict[str, str] = field(default_factory=dict)  # out name -> nccl-tests text with @@RANKS@@
    tests_json: str = ""
    smi_q: str = ""
    smi_xml: str = ""
    rank_logs: list[str] = field(default_factory=list)
    driver_lines: list[str] = field(default_factory=list)


def _bus_for(dev: int) -> str:
    return BUSES[dev]


def _retarget(text: str, src: str, dev: int) -> str:
    """Point every id of the fixture GPU with PCI device ``src`` at GPU ``dev`` of the node."""
    bus = _bus_for(dev)
    text = text.replace(f"0000:00:{src}", f"0000:{bus}:00")
    # NCCL prints the bus id as a hex number: 0000:00:06.0 -> 60, 0000:18:00.0 -> 18000
    text = re.sub(rf"\b(busId (?:0x)?){int(src)}0\b", rf"\g<1>{int(bus, 16):x}000", text)
    return text


def _rank_line(rest: str, dev: int) -> str:
    """A device-1 NCCL line body rewritten for device ``dev`` (2..7)."""
    rest = _retarget(rest, "07", dev)
    rest = re.sub(r"\b(rank|localRank|local rank|cudaDev|nvmlDev) 1\b", rf"\g<1> {dev}", rest)
    return rest.replace("1[1]", f"{dev}[{dev}]")


def _expand_nccl(text: str, only_dev: int | None = None) -> str:
    """Repeat device-1 lines for devices 1..7; rank-0 lines stay once."""
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        m = NCCL_PFX.match(line)
        if not m:
            if only_dev is None:
                out.append(line)
            continue
        pid, tid, dev, rest = int(m[1]), int(m[2]), int(m[3]), m[4]
        rest = rest.replace("nranks 2", f"nranks {GPUS}")
        if dev == 0:
            if only_dev in (None, 0):
                out.append(f"vm:{pid}:{tid} [0]{_retarget(rest, '06', 0)}")
            continue
        for d in range(1, GPUS):
            if only_dev is None or only_dev == d:
                # one thread per device; keep the fixture's pid so the per-node rename finds it
                out.append(f"vm:{pid}:{tid + 16 * (d - 1)} [{d}]{_rank_line(rest, d)}")
    return "".join(out)


def _split_blocks(text: str, start: re.Pattern[str]) -> tuple[str, list[str]]:
    starts = [m.start() for m in start.finditer(text)]
    return text[: starts[0]], [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


def _smi_q_template(text: str) -> str:
    head, blocks = _split_blocks(text, re.compile(r"^GPU 00000000:", re.M))
    head = re.sub(r"(Attached GPUs\s+: )\d+", rf"\g<1>{GPUS}", head)
    out = [head]
    for i in range(GPUS):
        src = SRC_DEV[i % 2]
        b = _retarget(blocks[i % 2], src, i)
        b = re.sub(r"(?m)^(\s+Bus\s+: )0x00$", rf"\g<1>0x{_bus_for(i)}", b)
        b = re.sub(r"(?m)^(\s+Device\s+: )0x0[67]$", r"\g<1>0x00", b)
        b = re.sub(r"(?m)^(\s+Minor Number\s+: )\d+$", rf"\g<1>{i}", b)
        b = re.sub(r"(?m)^(    Serial Number\s+: )\d+$", rf"\g<1>@@SERIAL{i}@@", b)
        b = re.sub(r"(?m)^(    GPU UUID\s+: )GPU-[0-9a-f-]+$", rf"\g<1>@@UUID{i}@@", b)
        out.append(b)
    return "".join(out)


def _smi_xml_template(text: str) -> str:
    head, blocks = _split_blocks(text, re.compile(r"^\t<gpu id=", re.M))
    last = blocks[-1]
    cut = last.index("\t</gpu>") + len("\t</gpu>\n\n")
    blocks[-1], tail = last[:cut], last[cut:]
    head = re.sub(r"<attached_gpus>\d+<", f"<attached_gpus>{GPUS}<", head)
    out = [head]
    for i in range(GPUS):
        b = _retarget(blocks[i % 2], SRC_DEV[i % 2], i)
        b = re.sub(r"<pci_bus>00<", f"<pci_bus>{_bus_for(i)}<", b)
        b = re.sub(r"<pci_device>0[67]<", "<pci_device>00<", b)
        b = re.sub(r"<minor_number>\d+<", f"<minor_number>{i}<", b)
        b = re.sub(r"<serial>\d+<", f"<serial>@@SERIAL{i}@@<", b)
        b = re.sub(r"<uuid>GPU-[0-9a-f-]+<", f"<uuid>@@UUID{i}@@<", b)
        out.append(b)
    out.append(tail)
    return "".join(out)


# nccl-tests result row: "  1073741824     134217728     float    none      -1  1979.35  542.47  271.24       0  1872.18 ..."
NT_ROW = re.compile(r"^ +(\d+) +\d+ +\w+ +\w+ +-?\d+ +[\d.]+ +[\d.]+ +[\d.]+ +\S+ +[\d.]+ +[\d.]+ +[\d.]+ +\S+ *$")
# "# Avg bus bandwidth    : 67.42 "
NT_AVG = re.compile(r"^# Avg bus bandwidth +: +[\d.]+", re.M)
#: out-of-place busbw of 8 x H200 (knowledge/expected_perf.yaml h200-sxm-8gpu-nvswitch, sources
#: there) at one size of each capture's sweep: the 2-GPU table is scaled to it (_scaled_table)
PLATFORM_BUSBW = {"all_reduce.txt": (4294967296, 475.0), "all_gather.txt": (1073741824, 350.0),
                  "reduce_scatter.txt": (1073741824, 349.36), "sendrecv.txt": (1073741824, 370.0)}
COLLECTIVE = {"all_reduce.txt": "all_reduce", "all_gather.txt": "all_gather", "reduce_scatter.txt": "reduce_scatter",
              "sendrecv.txt": "sendrecv"}


def _respaced(line: str, values: dict[int, str]) -> str:
    """``line`` with its whitespace-separated tokens at these indexes replaced, each right-aligned
    where the old one ended (nccl-tests' fixed-width columns)."""
    out = ""
    for i, m in enumerate(re.finditer(r"\S+", line)):
        tok = values.get(i, m.group())
        out += " " * max(1 if out else 0, m.end() - len(out) - len(tok)) + tok
    return out + "\n"


def _time_text(us: float) -> str:
    return f"{us:.2f}" if us < 10000 else f"{us:.0f}"


def scale_row(size: int, time_us: float, collective: str, k: float) -> tuple[float, float, float]:
    """(time us, algbw, busbw) of an 8-rank row whose busbw is ``k`` times that of the 2-rank
    row of this size and time (a 0-byte row keeps its time: latency only)."""
    if size == 0:
        return time_us, 0.0, 0.0
    busbw = size / time_us / 1e3 * busbw_factor(collective, 2) * k
    algbw = busbw / busbw_factor(collective, GPUS)
    return size / algbw / 1e3, algbw, busbw


def _scaled_table(name: str, text: str) -> str:
    """The 2-GPU capture's table as 8 x H200 would print it: every row's bus bandwidth times the
    ratio of the platform's figure (PLATFORM_BUSBW) to the capture's at that size, time and
    algbw to match for 8 ranks; a sweep that stops below that size (all_reduce: -e 2G, the figure
    is at 4 GiB) goes on to it, each doubling gaining what the capture's last one did."""
    coll = COLLECTIVE[name]
    ref_size, ref_busbw = PLATFORM_BUSBW[name]
    lines = text.splitlines(keepends=True)
    rows = [(i, NT_ROW.match(ln)) for i, ln in enumerate(lines)]
    rows = [(i, m) for i, m in rows if m]
    tok = [lines[i].split() for i, _ in rows]
    sizes = [int(t[0]) for t in tok]
    times = [(float(t[5]), float(t[9])) for t in tok]
    extra = []
    while sizes[-1] < ref_size:  # sweep on: each doubling gains as the capture's last one did
        gain = (sizes[-1] / times[-1][0]) / (sizes[-2] / times[-2][0])
        sizes.append(sizes[-1] * 2)
        times.append((times[-1][0] * 2 / gain, times[-1][1] * 2 / gain))
        extra.append(len(sizes) - 1)
    at = sizes.index(ref_size)
    k = ref_busbw / (ref_size / times[at][0] / 1e3 * busbw_factor(coll, 2))
    busbws: list[float] = []
    out_rows: list[str] = []
    for j, size in enumerate(sizes):
        base = lines[rows[min(j, len(rows) - 1)][0]]
        count = int(tok[j][1]) if j < len(tok) else int(tok[-1][1]) * size // sizes[len(tok) - 1]
        vals: dict[int, str] = {0: str(size), 1: str(count)}
        for col, t in ((5, times[j][0]), (9, times[j][1])):
            t8, alg, bus = scale_row(size, t, coll, k)
            vals.update({col: _time_text(t8), col + 1: f"{alg:.2f}", col + 2: f"{bus:.2f}"})
            busbws.append(bus)
        out_rows.append(_respaced(base, vals))
    first, last = rows[0][0], rows[-1][0]
    text = "".join(lines[:first]) + "".join(out_rows) + "".join(lines[last + 1:])
    text = re.sub(r"\bmaxBytes \d+", f"maxBytes {sizes[-1]}", text)
    return NT_AVG.sub(f"# Avg bus bandwidth    : {sum(busbws) / len(busbws):.2f}", text)


def _scaled_json(js: dict) -> dict:
    """The all_reduce JSON capture (-e 1G) as 8 x H200 would write it, like _scaled_table: swept
    on to the platform's 4 GiB figure, each doubling gaining what the capture's last one did,
    every result's bus bandwidth scaled to that figure."""
    ref_size, ref_busbw = PLATFORM_BUSBW["all_reduce.txt"]
    res = js["results"]
    while res[-1]["size"] < ref_size:
        a, b = res[-2], res[-1]
        gain = (b["size"] / b["out_of_place"]["time"]) / (a["size"] / a["out_of_place"]["time"])
        new = json.loads(json.dumps(b))
        new["size"], new["count"] = b["size"] * 2, b["count"] * 2
        for side in ("out_of_place", "in_place"):
            new[side]["time"] = b[side]["time"] * 2 / gain
        res.append(new)
    top = res[-1]
    k = ref_busbw / (top["size"] / top["out_of_place"]["time"] / 1e3 * busbw_factor("all_reduce", 2))
    for r in res:
        for side in ("out_of_place", "in_place"):
            t, alg, bus = scale_row(r["size"], r[side]["time"], "all_reduce", k)
            r[side].update(time=round(t, 5), alg_bw=round(alg, 6), bus_bw=round(bus, 6))
    js["config"]["maximum_bytes"] = top["size"]
    js["args"] = ["4G" if prev == "-e" else a for prev, a in zip([""] + js["args"], js["args"])]
    return js


def _tests_template(text: str, name: str) -> str:
    text = _scaled_table(name, text)
    text = re.sub(r"\bnGpus 2\b", f"nGpus {GPUS}", text)
    lines = text.splitlines(keepends=True)
    rank = [i for i, ln in enumerate(lines) if NT_RANK.match(ln)]
    assert rank, "nccl-tests capture without device lines"
    return "".join(lines[: rank[0]]) + "@@RANKS@@" + "".join(ln for i, ln in enumerate(lines) if i > rank[0] and i not in rank)


def load_templates() -> Templates:
    t = Templates()
    for src, dst in [("allreduce.log", "all_reduce.nccl.log"), ("allgather.log", "all_gather.nccl.log"),
                     ("reducescatter.log", "reduce_scatter.nccl.log"), ("sendrecv.log", "sendrecv.nccl.log")]:
        raw = (VM / src).read_text()
        t.nccl_logs[dst] = _expand_nccl(raw)
        t.nccl_pids[dst] = int(NCCL_PFX.match(raw)[1])  # type: ignore[index]
    for src, dst in [("allreduce.txt", "all_reduce.txt"), ("ag.out", "all_gather.txt"),
                     ("rs.out", "reduce_scatter.txt"), ("sendrecv.txt", "sendrecv.txt")]:
        t.tests[dst] = _tests_template((VM / src).read_text(), dst)
    js = _scaled_json(json.loads((VM / "allreduce.json").read_text()))
    js["config"]["ngpus"] = GPUS
    js["args"] = [str(GPUS) if a == "2" and prev == "-g" else a for prev, a in zip([""] + js["args"], js["args"])]
    t.tests_json = json.dumps(js, indent=1)
    t.smi_q = _smi_q_template((VM / "smi.txt").read_text())
    t.smi_xml = _smi_xml_template((VM / "smi.xml").read_text())
    rank0 = (VM / "rank0.log").read_text()
    torch_head = "".join(ln for ln in rank0.splitlines(keepends=True) if ln.startswith("W1129"))
    for r in range(GPUS):
        body = _expand_nccl(rank0, only_dev=r)
        body = body.replace("vm:1709:", "vm:1708:") if r else body  # one pid token per rank file
        t.rank_logs.append(torch_head + body + f"rank {r} done 64.0\n")
    t.driver_lines = [re.sub(r"^\[[^\]]*\] ", "", ln) for ln in (KLOG / "dmesg-nvrm.log").read_text().splitlines()
                      if "Xid" not in ln and "GPU at" not in ln and "Serial Number" not in ln]
    return t


# Boot noise for dmesg: real kernel message shapes that none of our parsers care about.
_NOISE = [
    "BIOS-e820: [mem 0x{a:016x}-0x{b:016x}] usable",
    "ACPI: SSDT 0x{a:016X} 00{n:04X} (v02 INTEL  SpsNm    00000002 INTL 20210331)",
    "pci 0000:{bus:02x}:{dev:02x}.{fn}: [8086:{n:04x}] type 00 class 0x088000 conventional PCI endpoint",
    "pci 0000:{bus:02x}:{dev:02x}.{fn}: BAR 0 [mem 0x{a:x}-0x{b:x} 64bit pref]",
    "pci 0000:{bus:02x}:{dev:02x}.{fn}: PME# supported from D0 D3hot D3cold",
    "pci_bus 0000:{bus:02x}: resource 1 [mem 0x{a:x}-0x{b:x}]",
    "iommu: Adding device 0000:{bus:02x}:{dev:02x}.{fn} to group {n}",
    "mlx5_core 0000:{bus:02x}:00.{fn}: firmware version: 28.39.1002",
    "mlx5_core 0000:{bus:02x}:00.{fn}: Rate limit: 127 rates are supported, range: 0Mbps to 97656Mbps",
    "mlx5_core 0000:{bus:02x}:00.{fn}: E-Switch: Total vports 18, per vport: max uc(128) max mc(2048)",
    "EDAC skx: ECC is enabled.",
    "systemd[1]: Started systemd-udevd.service - Rule-based Manager for Device Events and Files.",
    "EXT4-fs (nvme0n1p{fn}): mounted filesystem {a:08x}-{n:04x} r/w with ordered data mode. Quota mode: none.",
    "audit: type=1400 audit({b}.{n:03d}:{fn}): apparmor=\"STATUS\" operation=\"profile_load\" name=\"nvidia_modprobe\" pid={n}",
    "IPv6: ADDRCONF(NETDEV_CHANGE): ib{fn}: link becomes ready",
    "perf: interrupt took too long ({n} > {dev}), lowering kernel.perf_event_max_sample_rate to {b}",
]

# Xid lines taken from fixtures/artefacts/kernel_log, the PCI id made a placeholder
_XIDS = [
    ["NVRM: GPU at PCI:@@PCI@@: @@UUID@@", "NVRM: GPU Board Serial Number: @@SERIAL@@",
     "NVRM: Xid (PCI:@@PCI@@): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
     "NVRM: GPU @@PCI@@.0: GPU has fallen off the bus."],
    ["NVRM: Xid (PCI:@@PCI@@): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter"],
    ["NVRM: GPU at PCI:@@PCI@@: @@UUID@@", "NVRM: GPU Board Serial Number: @@SERIAL@@",
     "NVRM: Xid (PCI:@@PCI@@): 31, pid=1883, name=python3, channel 0x0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x8344_f3e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE"],
]


def _stamp(sec: int) -> str:
    # dmesg -T shape, on the fixture's day: "[Sun Nov 29 18:28:40 2026]"
    h, rem = divmod(18 * 3600 + 28 * 60 + sec, 3600)
    return f"[Sun Nov 29 {h:02d}:{rem // 60:02d}:{rem % 60:02d} 2026]"


def _dmesg(t: Templates, rng: random.Random, node: str, ids: dict[str, str], xid: int | None, lines: int) -> str:
    out = [f"{_stamp(0)} Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024 (Ubuntu 6.8.0-49.49-generic 6.8.12)",
           f"{_stamp(0)} Command line: BOOT_IMAGE=/vmlinuz-6.8.0-49-generic root=UUID=5c3c6a33-{rng.getrandbits(16):04x} ro iommu=pt pci=realloc=off"]
    for i in range(lines):
        tpl = _NOISE[rng.randrange(len(_NOISE))]
        a = rng.getrandbits(40) << 12
        out.append(_stamp(i * 30 // lines) + " " + tpl.format(a=a, b=a + rng.getrandbits(24), n=rng.randrange(4096),
                                                               bus=rng.randrange(256), dev=rng.randrange(32), fn=rng.randrange(8)))
    out += [f"{_stamp(40)} {ln}" for ln in t.driver_lines]
    out.append(f"{_stamp(44)} systemd[1]: Started nvidia-persistenced.service - NVIDIA Persistence Daemon.")
    if xid is not None:
        gpu = rng.randrange(GPUS)
        for ln in _XIDS[xid % len(_XIDS)]:
            ln = ln.replace("@@PCI@@", f"0000:{_bus_for(gpu)}:00").replace("@@UUID@@", ids[f"@@UUID{gpu}@@"])
            out.append(f"{_stamp(253)} {ln.replace('@@SERIAL@@', ids[f'@@SERIAL{gpu}@@'])}")
    return "\n".join(out) + "\n"


def _fill(text: str, ids: dict[str, str]) -> str:
    for k, v in ids.items():
        text = text.replace(k, v)
    return text


@dataclass
class BundleInfo:
    path: Path
    nodes: int
    files: int
    bytes: int
    xid_nodes: list[str]


def make_bundle(out: Path, nodes: int, seed: int = 1, xid_fraction: float = 0.03, dmesg_lines: int = 2000,
                templates: Templates | None = None) -> BundleInfo:
    """Write ``nodes`` node folders ``node0001/`` ... under ``out``; returns what was written."""
    t = templates or load_templates()
    rng = random.Random(f"{seed}:{nodes}")
    names = [f"node{i:04d}" for i in range(1, nodes + 1)]
    xid_nodes = sorted(rng.sample(names, max(1, round(nodes * xid_fraction)))) if xid_fraction > 0 else []
    files = size = 0
    for k, node in enumerate(names):
        d = out / node
        (d / "nccl-tests").mkdir(parents=True, exist_ok=True)
        (d / "train").mkdir(exist_ok=True)
        ids: dict[str, str] = {}
        for g in range(GPUS):
            h = f"{rng.getrandbits(128):032x}"
            ids[f"@@UUID{g}@@"] = f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
            ids[f"@@SERIAL{g}@@"] = str(1653724000000 + rng.randrange(100000))
        ip = f"10.{k // 250 % 250}.{k % 250}.{rng.randrange(2, 250)}"
        pid = rng.randrange(2000, 60000)

        def node_text(text: str, src_pid: int) -> str:
            text = text.replace(f"vm:{src_pid}:", f"{node}:{pid}:")
            return text.replace("192.0.2.2", ip)

        docs: dict[str, str] = {}
        for name, text in t.nccl_logs.items():
            docs[f"nccl-tests/{name}"] = node_text(text, t.nccl_pids[name])
        ranks = "".join(f"#  Rank {r:2d} Group  0 Pid {pid:6d} on {node:>10} device {r:2d} [0000:{_bus_for(r)}:00] NVIDIA H200\n"
                        for r in range(GPUS))
        for name, text in t.tests.items():
            docs[f"nccl-tests/{name}"] = text.replace("@@RANKS@@", ranks)
        docs["nccl-tests/all_reduce.json"] = t.tests_json.replace('"hostname": "vm"', f'"hostname": "{node}"')
        docs["nvidia-smi-q.txt"] = _fill(t.smi_q, ids)
        docs["nvidia-smi-q.xml"] = _fill(t.smi_xml, ids)
        for r, text in enumerate(t.rank_logs):
            docs[f"train/rank{r}.log"] = text.replace("vm:1708:", f"{node}:{pid + 100 + r}:").replace("192.0.2.2", ip)
        xid = xid_nodes.index(node) if node in xid_nodes else None
        docs["dmesg.log"] = _dmesg(t, rng, node, ids, xid, dmesg_lines)
        for rel, text in docs.items():
            data = text.encode()
            (d / rel).write_bytes(data)
            files += 1
            size += len(data)
    return BundleInfo(out, nodes, files, size, xid_nodes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--xid-fraction", type=float, default=0.03)
    ap.add_argument("--dmesg-lines", type=int, default=2000)
    a = ap.parse_args()
    info = make_bundle(a.out, a.nodes, a.seed, a.xid_fraction, a.dmesg_lines)
    print(f"{info.nodes} nodes, {info.files} files, {info.bytes / 1e6:.1f} MB in {info.path}; Xid on {', '.join(info.xid_nodes)}")


if __name__ == "__main__":
    main()
