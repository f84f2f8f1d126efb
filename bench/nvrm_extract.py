#!/usr/bin/env python3
"""Extract the NVIDIA kernel driver's own error/warning messages (the ``NVRM: `` lines) of its
releases into bench/nvrm_formats.yaml (issue 11 item 2, "NVRM messages beyond Xid"): the data
bench/nvrm_audit.py diagnoses.

Run by hand against a local clone of NVIDIA/open-gpu-kernel-modules (a bare git directory is
enough); nothing in the project runs it or reads the clone at run time::

    .venv/bin/python bench/nvrm_extract.py --git /path/to/open-gpu-kernel-modules.git

What reaches the kernel log with the ``NVRM: `` prefix at error or warning level, in the tags of
``TAGS`` (the last release of each branch 515 .. 595):

- kernel-open/nvidia/*.c (not the Tegra SoC files of ``SOC``): ``nv_printf(NV_DBG_ERRORS|
  NV_DBG_WARNINGS, "NVRM: ...")`` as written; ``NV_DEV_PRINTF(level, nv, fmt)`` and
  ``NV_DEV_PRINTF_STATUS(level, nv, status, fmt)`` (os-interface.h) with the prefix they add,
  ``NVRM: GPU %04x:%02x:%02x.%x: `` (and `` (0x%x)`` after the status form);
- the resource manager files of ``RM_FILES`` (initialisation, GSP and FSP, the RPC path, the
  thread watchdog, robust-channel recovery): the same calls, and ``NV_PRINTF(LEVEL_ERROR|
  LEVEL_WARNING, fmt)``, which a release build prints (nvprintf.h: ``NV_PRINTF_LEVEL`` is
  LEVEL_NOTICE without debug strings) as ``NVRM: <function>: fmt``; ``portDbgPrintf("NVRM: ...")``;
- the assertion helpers of src/nvidia/src/libraries/utils/nvassert.c, which print
  ``NVRM: nvAssertFailedNoLog: Assertion failed: %s @ %s:%d`` and friends.

Pieces of a format: string literals concatenated as the compiler does, ``NV_PCI_DEV_FMT`` and
``NvU64_fmt*`` expanded, any other macro spliced in as ``%s``. A value that decides what a line
says (an NV_STATUS name, an Xid number, a status code) is filled by ``SAMPLES``, written by hand.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent))
from nccl_warn_extract import CONV, fill, git, pattern, ranges, unescape, write_formats  # noqa: E402

OUT = Path(__file__).with_name("nvrm_formats.yaml")
TAGS = ["515.105.01", "525.147.05", "535.288.01", "545.29.06", "550.163.01", "555.58.02", "560.35.03",
        "565.77", "570.211.01", "575.64.05", "580.142", "590.48.01", "595.45.04"]
# Tegra SoC glue: display, GPIO, I2C, clocks, backlight, platform devices (no data-centre GPU prints these)
SOC = re.compile(r"nv-(?:dsi|gpio|i2c|clk|imp|bpmp|backlight|platform|host1x|soc|ipc-soc|dmabuf|caps-imex|acpi|"
                 r"nano-timer|procfs|memdbg|pat|vtophys|mmap|vm|cray|ibmnpu|report-err|rsync|frontend|kthread-q|"
                 r"usermap|modeset|dma|p2p|caps|tracepoint)|libspdm|os-registry|os-mlock|nvlink_caps|nv-pci-table")
RM_FILES = [
    "src/nvidia/arch/nvalloc/unix/src/osinit.c", "src/nvidia/arch/nvalloc/unix/src/osapi.c",
    "src/nvidia/arch/nvalloc/unix/src/os.c", "src/nvidia/src/kernel/gpu/gsp/", "src/nvidia/src/kernel/gpu/fsp/",
    "src/nvidia/src/kernel/vgpu/rpc.c", "src/nvidia/src/kernel/core/thread_state.c",
    "src/nvidia/src/kernel/gpu/gpu.c", "src/nvidia/src/kernel/gpu/rc/kernel_rc.c",
    "src/nvidia/src/libraries/utils/nvassert.c", "src/nvidia/src/kernel/gpu/gpu_timeout.c",
]
LEVELS = r"(?:NV_DBG_ERRORS|NV_DBG_WARNINGS|LEVEL_ERROR|LEVEL_WARNING)"
CALL = re.compile(r"(?<![\w])(?P<fn>nv_printf|NV_DEV_PRINTF_STATUS|NV_DEV_PRINTF|NV_PRINTF|NV_ASSERT_PRINTF|portDbgPrintf)\s*\(")
ARGS = {"nv_printf": 1, "NV_DEV_PRINTF": 2, "NV_DEV_PRINTF_STATUS": 3, "NV_PRINTF": 1, "NV_ASSERT_PRINTF": 1, "portDbgPrintf": 0}
TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_]\w*)|(//[^\n]*|/\*.*?\*/))', re.S)
MACROS = {"NV_PCI_DEV_FMT": "%04x:%02x:%02x.%x", "NvU64_fmtx": "llx", "NvU64_fmtX": "llX", "NvU64_fmtu": "llu",
          "NvU64_fmto": "llo", "NvP64_fmt": "%p", "NV_ASSERT_FAILED_PRINTF_FMT": "%s @ %s:%d\n",
          "PRIx64": "llx", "PRIu64": "llu", "PRId64": "lld", "NV_VERSION_STRING": "%s"}
# a C function's first line (at column 0), for NV_PRINTF's "<function>: " prefix
FUNC = re.compile(r"^(?!(?:if|for|while|switch|return|else|do)\b)(?:[A-Za-z_][\w \t\*]*?[ \t\*])?(\w+)\s*\((?![^\n]*;\s*$)", re.M)
# values an NVRM line has where fill() (NCCL's words) would guess: (regex over the format, value)
FILL: list[tuple[str, str]] = [
    (r"%04x:%02x:%02x\.%x", "0000:41:00.0"), (r"%04x:%02x:%02x", "0000:41:00"),
    (r"PCI ID: %04x:%04x", "PCI ID: 10de:2330"), (r"(?<=version )%s", "550.54.14"),
    (r"'%s' \(pid %u\)", "'python3' (pid 4242)"), (r"(?<=GPU)%[ud]", "1"),
]

# Lines written by hand where a value decides what the line says; they replace fill()'s line for
# the format they match (its pattern, first line).
SAMPLES: list[str] = [
    "NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x62:0x40:2168)",
    "NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x24:0x65:1185)",
    "NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827",
    "NVRM: nvAssertOkFailed: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827",
    "NVRM: nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827",
    "NVRM: nvCheckOkFailed: Check failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from status @ kernel_fifo.c:1220",
    "NVRM: nvAssertFailedNoLog: Assertion failed: pKernelGsp != NULL @ kernel_gsp.c:4077",
    "NVRM: nvAssertFailed: Assertion failed: pKernelGsp != NULL @ kernel_gsp.c:4077",
    "NVRM: nvCheckFailedNoLog: Check failed: pKernelGsp != NULL @ kernel_gsp.c:4077",
    "NVRM: nvCheckFailed: Check failed: pKernelGsp != NULL @ kernel_gsp.c:4077",
    "NVRM: Xid (PCI:0000:41:00): 79, pid=4242, name=python3, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:41:00): 79, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:41:00 GPU-I:05): 79, pid=4242, name=python3, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:41:00 GPU-I:05): 79, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:41:00 GPU-I:05 GPU-CI:01): 79, pid=4242, name=python3, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:41:00 GPU-I:05 GPU-CI:01): 79, GPU has fallen off the bus.",
]


def calls(text: str, rm: bool):
    """(line, printed format, error|warning) of each error/warning print in one source file."""
    funcs = [(m.start(), m.group(1)) for m in FUNC.finditer(text)]
    for m in CALL.finditer(text):
        fn = m["fn"]
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if before.lstrip().startswith(("#define", "//", "*")) or (fn in ("NV_PRINTF", "NV_ASSERT_PRINTF") and not rm):
            continue
        pos = m.end()
        args = []
        for _ in range(ARGS[fn]):  # the arguments before the format
            depth, start = 0, pos
            while pos < len(text) and not (depth == 0 and text[pos] == ","):
                depth += text[pos] in "(" and 1 or (-1 if text[pos] == ")" else 0)
                pos += 1
            args.append(text[start:pos].strip())
            pos += 1
        if args and not re.fullmatch(LEVELS, args[0]) and fn != "NV_ASSERT_PRINTF":  # nvCheck*: its caller's level
            continue  # another level (info, setup) or a level in a variable
        parts, literal = [], False
        while (t := TOKEN.match(text, pos)):
            if t.group(3):
                pass
            elif t.group(1) is not None:
                parts.append(t.group(1))
                literal = True
            elif t.group(2) in MACROS and (literal or t.group(2) == "NV_PCI_DEV_FMT"):
                parts.append(MACROS[t.group(2)])
                literal = True
            elif literal:
                parts.append("%s")
            else:
                break
            pos = t.end()
        if not literal:
            continue
        fmt = unescape("".join(parts))
        if fn in ("NV_DEV_PRINTF", "NV_DEV_PRINTF_STATUS"):
            fmt = "NVRM: GPU %04x:%02x:%02x.%x: " + (fmt.rstrip("\n") + " (0x%x)\n" if fn == "NV_DEV_PRINTF_STATUS" else fmt)
        elif fn in ("NV_PRINTF", "NV_ASSERT_PRINTF"):
            func = next((name for at, name in reversed(funcs) if at < m.start()), "?")
            fmt = f"NVRM: {func}: {fmt}"
        if not fmt.startswith("NVRM"):
            continue  # printed without the prefix (a continuation, a helper's own text)
        level = "warning" if args and "WARN" in args[0] else "error"
        yield text.count("\n", 0, m.start()) + 1, fmt, level


def sample_for(fmt: str) -> str:
    first = fmt.split("\n")[0]
    pats = [pattern(fmt), pattern(first)]
    hand = next((line for pat in pats for line in SAMPLES if pat.fullmatch(line)), None)
    if hand is not None:
        return hand
    for conv, value in FILL:
        fmt = re.sub(conv, value, fmt)
    return fill(fmt)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", required=True, help="a clone of NVIDIA/open-gpu-kernel-modules (bare is enough)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    have = set(git(args.git, "tag").split())
    order = [t for t in TAGS if t in have]
    found: dict[str, dict] = {}
    for tag in order:
        paths = [p for p in git(args.git, "ls-tree", "-r", "--name-only", tag, "--", "kernel-open/nvidia").split()
                 if p.endswith(".c") and not SOC.search(p)]
        rm = [p for p in git(args.git, "ls-tree", "-r", "--name-only", tag, "--", *RM_FILES).split() if p.endswith(".c")]
        for path in paths + rm:
            for line, fmt, level in calls(git(args.git, "show", f"{tag}:{path}"), path.startswith("src/")):
                e = found.setdefault(fmt, {"at": {}, "level": level})
                e["at"][tag] = f"{path}:{line}"
        print(f"{tag}: {len(found)} formats", file=sys.stderr)
    rows = []
    for fmt, e in found.items():
        tags = list(e["at"])
        row = {"format": fmt.rstrip("\n"), "level": e["level"], "source": e["at"][tags[-1]], "since": tags[0], "last": tags[-1],
               "versions": ranges(tags, order)}
        if e["at"][tags[0]] != e["at"][tags[-1]]:
            row["first_source"] = e["at"][tags[0]]
        row["sample"] = sample_for(fmt)
        rows.append(row)
    write_formats(args.out, "# The NVIDIA kernel driver's NVRM error/warning format strings (kernel-open/nvidia and the RM's\n"
                  "# init/GSP/FSP/RPC/assert paths), releases " + ", ".join(order) + ", deduplicated.\n"
                  "# Generated by bench/nvrm_extract.py; read by bench/nvrm_audit.py. `source`: file:line in the newest\n"
                  "# release that has the format (`first_source`: in the oldest, when it moved); `versions`: the\n"
                  "# releases of the list that have it; `sample`: the format filled in.\n",
                  f"NVIDIA/open-gpu-kernel-modules, tags {order[0]} .. {order[-1]}; extracted by bench/nvrm_extract.py",
                  order, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
