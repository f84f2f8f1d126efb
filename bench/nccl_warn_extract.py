#!/usr/bin/env python3
"""Extract every ``WARN("...")`` format string of NCCL's releases into bench/nccl_warn_formats.yaml
(issue 11, "every message form across versions"): the data bench/nccl_warn_audit.py diagnoses.

Run by hand against a local clone of NVIDIA/nccl (a bare git directory is enough); nothing in the
project runs it or reads the clone at run time::

    .venv/bin/python bench/nccl_warn_extract.py --git /path/to/nccl.git           # v2.18 .. newest tag
    .venv/bin/python bench/nccl_warn_extract.py --git DIR --since 2.20            # a later first release
    .venv/bin/python bench/nccl_warn_extract.py --git DIR --since 2.3 --until 2.17 \
        --exclude bench/nccl_warn_formats.yaml --out bench/nccl_warn_formats_old.yaml   # the old releases' own

The old releases v2.3.5-5 .. v2.17.1-1 print a WARN with the same prefix as 2.18 .. 2.25
(v2.3's src/include/debug.h macro, from v2.4 on ncclDebugLog in misc/utils.cu, then src/debug.cc:
``"\n%s:%d:%d [%d] %s:%d NCCL WARN "``, host:pid:tid [dev] file:line); only NCCL 1.x printed
``"WARN %s:%d "`` (src/core.h). Their sources are ``.cu`` files up to v2.5 (all read). ``--exclude``
drops the formats another extracted file already holds, so the old file has only the formats no
release from 2.18 on prints.

For every release tag ``v2.MM.P-R`` from ``--since`` on it reads each file under ``src/`` holding
``WARN`` and takes each ``WARN(`` call (not ``NOWARN``, not the macro's ``#define``): its first
argument's string literals, concatenated as the compiler does (``PRIu64`` and friends become their
conversion; a macro parameter spliced in, as in misc/ibvwrap.cc's ``"Call to " name " failed"``,
becomes ``%s``). A call whose format is no literal (``WARN(msg)``) is kept as ``format: null``.
Formats are deduplicated across releases; each entry keeps where it is in the newest release that
has it, where it was in the oldest, and the releases that have it. ``sample`` is the format with
its conversions filled by :func:`fill` (plausible values picked by the words before them).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import yaml

OUT = Path(__file__).with_name("nccl_warn_formats.yaml")
TAG = re.compile(r"^v2\.(\d+)\.(\d+)-(\d+)$")
CALL = re.compile(r"(?<![A-Za-z0-9_])WARN\s*\(")
TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_]\w*)|(//[^\n]*|/\*.*?\*/))', re.S)
PRI = {"PRIu64": "lu", "PRIx64": "lx", "PRId64": "ld", "PRIi64": "ld", "PRIu32": "u", "PRIx32": "x", "PRId32": "d",
       "PRIu16": "u", "PRIx16": "x"}
ESC = {"\n": "", "n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "r": ""}


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "-C", gitdir, *args], capture_output=True, text=True, check=True).stdout


def calls(text: str):
    """(line, format or None) of each WARN( call in one source file."""
    for m in CALL.finditer(text):
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if before.lstrip().startswith("#define") or "//" in before:
            continue
        pos, parts, literal = m.end(), [], False
        while (t := TOKEN.match(text, pos)):
            if t.group(3):  # a comment between the pieces
                pass
            elif t.group(1) is not None:
                parts.append(t.group(1))
                literal = True
            elif literal and t.group(2) in PRI:
                parts.append(PRI[t.group(2)])
            elif literal:
                parts.append("%s")  # a macro parameter spliced between literals
            else:
                break
            pos = t.end()
        yield text.count("\n", 0, m.start()) + 1, ("".join(parts) if literal else None)


def unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: ESC.get(m.group(1), m.group(1)), s, flags=re.S)


CONV = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|zu|zi|zd|z|j|t|L)?([diouxXeEfgGcspnm%])")
# the words before a conversion -> the value an operator sees there
WORDS: list[tuple[str, str]] = [
    (r"(?:peer|address|addr|remote|connect to|from|to|listen on|server|host)\s*[:=]?\s*\(?$", "10.0.0.12<49152>"),
    (r"(?:dev(?:ice)?|hca|nic|port|ib|name)\s*[:=]?\s*$", "mlx5_0"),
    (r"(?:interface|if|ifname)\s*[:=]?\s*$", "ib0"),
    (r"(?:file|path|shm|shmPath|library|plugin|lib)\s*[:=]?\s*$", "/dev/shm/nccl-Xq3bL2"),
    (r"(?:error|err|errno|failed|failure|reason)\s*[:=]?\s*'?\(?$", "Connection refused"),
    (r"(?:env|variable|NCCL_\w+)\s*[:=]?\s*$", "NCCL_IB_HCA"),
]


def fill(fmt: str) -> str:
    """One line made from a format: each conversion a plausible value."""
    out, pos = [], 0
    for m in CONV.finditer(fmt):
        before = fmt[pos:m.start()]
        out.append(before)
        conv, length = m.group(5), m.group(4) or ""
        ctx = (fmt[max(0, m.start() - 24):m.start()]).lower()
        if conv == "%":
            val = "%"
        elif conv in "di":
            val = "111" if re.search(r"(?:errno|error|err|ret|res|status|code|returned|rc)\s*[:=]?\s*\(?$", ctx) else "1"
        elif conv in "ouxX":
            val = "1b000" if conv in "xX" else ("4194304" if "z" in length or "l" in length else "3")
        elif conv in "eEfgG":
            val = "1.5"
        elif conv == "c":
            val = "x"
        elif conv == "p":
            val = "0x7f3a2c001200"
        elif conv == "m":
            val = "Connection refused"
        else:  # %s
            val = next((v for pat, v in WORDS if re.search(pat, ctx, re.I)), "send")
        out.append(val)
        pos = m.end()
    out.append(fmt[pos:])
    return "".join(out).rstrip("\n")


def pattern(fmt: str) -> re.Pattern[str]:
    """The format as a regex: its constant text literal, a number for %d/%u/%x, any text for the rest."""
    parts, pos = [], 0
    for m in CONV.finditer(fmt):
        parts.append(re.escape(fmt[pos:m.start()]))
        conv = m.group(5)
        parts.append("%" if conv == "%" else r"-?\d+" if conv in "diou" else "[0-9a-fA-F]+" if conv in "xX" else ".*?")
        pos = m.end()
    parts.append(re.escape(fmt[pos:].rstrip("\n")))
    return re.compile("".join(parts), re.S)


# Lines written by hand where a value decides what the line says (a status name, an errno, a CUDA
# error): they replace fill()'s line for every format they are made from. bench/nccl_warn_study.py's
# lines are used the same way.
SAMPLES: list[str] = [
    # net_ib async events (%s: libibverbs' ibv_event_type_str) and completions (status 12 = IBV_WC_RETRY_EXC_ERR)
    "NET/IB : Got async event : port error",
    "NET/IB : mlx5_0:1 Got async event : port error",
    "NET/IB : mlx5_0:1 Got async error event: port error",
    "NET/IB : mlx5_0:1 async fatal event on CQ (0x7f3a2c001200): CQ error",
    "NET/IB : mlx5_0:1 async fatal event on CQ (0x7f3a2c001200) handle=3 cqe=4096: CQ error",
    "NET/IB : mlx5_0:1 async fatal event on QP (0x7f3a2c001200): local work queue catastrophic error",
    "NET/IB : mlx5_0:1 async fatal event on QP (0x55d0c1a2b3c0) qpn=4711 handle=3 send_cq=12 recv_cq=12 state=6 sq_psn=0 "
    "rq_psn=0: local work queue catastrophic error",
    "NET/IB : mlx5_0:1 async fatal event on SRQ, unused for now (0x7f3a2c001200): SRQ catastrophic error",
    "NET/IB : Got completion from peer 10.0.0.12<49152> with status=12 opcode=0 len=0 vendor err 129 (Send) "
    "localGid ::ffff:10.0.0.11 remoteGids::ffff:10.0.0.12",
    "NET/IB: Got completion from peer 10.0.0.12<49152> with status=12 opcode=0 len=0 vendor err 129 (Send) "
    "localGid ::ffff:10.0.0.11 remoteGids::ffff:10.0.0.12 hca mlx5_0",
    "NET/IB: Got completion from peer 10.0.0.12<49152> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) reqSize=0 "
    "vendor_err=129 req_type=Send localGid ::ffff:10.0.0.11 remoteGids::ffff:10.0.0.12 hca mlx5_0",
    "NET/IB/GIN: Got completion from peer 10.0.0.12<49152> with status=12 opcode=0 len=0 vendor err 129 (IPut) "
    "localGid ::ffff:10.0.0.11 remoteGids::ffff:10.0.0.12 hca mlx5_0",
    "NET/IB: mlx5_0: Got CQE with error (devIndex=0, req=0x7f3a2c001200, comm=0x7f3a2c000000 (send), wr_id=17, qp_num=4711)",
    "NET/IB: The error is fatal (No functional devices left). Cannot continue.",
    "NET/IB: mlx5_0: The error is fatal (No functional devices left). Cannot continue.",
    "communicator encountered a fatal error (detected in ncclIbTest)",
    # CUDA driver entry points (500 = CUDA_ERROR_NOT_FOUND) and libcuda
    "Retrieve cuMemCreate failed with 500",
    "Retrieve cuMemCreate failed with 500 status 0",
    "Retrieve cuMemCreate version 10020 failed with 500",
    "Retrieve cuMemCreate version 10020 failed with 500 status 0",
    "Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory",
    "Cuda failure 2 'out of memory'",
    # sockets (strerror texts)
    "socketPollConnect: Connect to 10.0.0.12<49152> returned 111(Connection refused) errno 115(Operation now in progress)",
    "socketPollConnect: connect returned Connection timed out, exceeded error retry count (35)",
    "socketProgressOpt: Call to send to 10.0.0.12<49152> failed : Connection timed out",
    # the old releases' forms (v2.3 .. v2.17): completion status as a bare number, NVML's and CUDA's texts
    "NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129",
    "NET/IB : Got completion from peer 10.0.0.12<49152> with error 12, opcode 0, len 0, vendor err 129",
    "nvmlInit() failed: Driver/library version mismatch",
    "NVML failure 'Driver/library version mismatch'",
    "failed to open CUDA IPC handle : 217 peer access is not supported between these two devices",
    "rank 1 failed to get CUDA IPC handle to device 3 : 217 peer access is not supported between these two devices",
    "ibv_post_send() failed with error Cannot allocate memory",
    "Call to connect timeout : Connection refused",
    "Call to recv failed : Connection reset by peer",
    "Unable to allocate shared memory (9637888 bytes) : No space left on device",
    "shm_open failed to open nccl-shm-recv-1b000-0-1 : Permission denied",
    "Failed to find CUDA library in (null) (NCCL_CUDA_PATH=(null))",
    "Failed to find CUDA library (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory",
    # plugins, RAS, init
    "Error: network IB not found.",
    "NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 2.30.7, remote 2.29.7)",
    "NCCL version mismatch with remote peer 10.0.0.12<49152> (local: 22703, remote 22605)",
    "Detected mixed local Net device counts across ranks (min 4, max 8). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.",
    # NCCL's Windows port (src/os/windows.cc, 2.29 on): WinSock's and Windows' error codes, and FormatMessage's text for
    # them (getWSAErrorMessage; FormatMessage ends its text with CR LF, so in a log the ")" after it starts a line of its own)
    "ncclOsSocketProgressOpt: Call to recv from 10.0.0.12<51234> failed : Connection reset by peer",  # Linux's (os/linux.cc) first
    "ncclOsSocketProgressOpt: Call to recv from 10.0.0.12<51234> failed : 10060 (A connection attempt failed because the "
    "connected party did not properly respond after a period of time, or established connection failed because connected "
    "host has failed to respond.)",
    "ncclOsSocketProgressOpt: Call to send to 10.0.0.12<49152> failed : 10053",
    "WSAStartup failed with error: 10091",
    "ncclOsSocketResetFd: socket() failed with error 10047: An address incompatible with the requested protocol was used.",
    "GetAdaptersAddresses failed with error: 232",
    "Error: failed to create shared memory mapping Local\\nccl-shm-4312-1, error code: 1455",
    "Error: Could not map view of file Local\\nccl-shm-4312-1 size 9637892, error code: 8",
    "Failed to load nvml.dll, error code: 126",
    "SetupDiGetClassDevs failed: 13",
    # round rW4: NCCL_GDRCOPY_ENABLE=1 with libgdrapi.so missing or too old (misc/gdrwrap.cc: GDRAPI_LIBNAME and dlerror(),
    # not fill()'s words; the line without dlerror first, for 2.18-2.29's "Failed to open %s"), Windows' code for a mask
    # outside the allowed set (ERROR_INVALID_PARAMETER; fill() gave 111, which no Windows call returns)
    "Failed to open libgdrapi.so",
    "Failed to open libgdrapi.so - libgdrapi.so: cannot open shared object file: No such file or directory",
    "ncclOsDlsym failed on gdr_runtime_get_version - /usr/lib/x86_64-linux-gnu/libgdrapi.so.2: undefined symbol: gdr_runtime_get_version",
    "dlsym failed on gdr_runtime_get_version - /usr/lib/x86_64-linux-gnu/libgdrapi.so.2: undefined symbol: gdr_runtime_get_version",
    "SetProcessAffinityMask failed with error: 87",
]


def hand_samples() -> list[str]:
    sys.path.insert(0, str(Path(__file__).parent))
    from nccl_warn_study import MESSAGES

    return SAMPLES + [msg for _, _, msg in MESSAGES]


def sample_for(fmt: str, hand: list[str]) -> str:
    if len(re.sub(r"\s", "", CONV.sub("", fmt))) < 8:  # "%s", "%s: %s": no text of its own to match a line by
        return fill(fmt)
    # the first line made from the format (SAMPLES lists "Retrieve %s failed with %d"'s line before the longer forms')
    pats = [pattern(fmt), pattern(fmt.split("\n")[0])]  # a multi-line message: its first line
    return next((line for pat in pats for line in hand if pat.fullmatch(line)), fill(fmt))


def tags(gitdir: str, since: tuple[int, int], until: tuple[int, int] = (2, 999)) -> list[str]:
    found = [t for t in git(gitdir, "tag").split() if (m := TAG.match(t)) and since <= (2, int(m.group(1))) <= until]
    return sorted(found, key=lambda t: tuple(int(x) for x in TAG.match(t).groups()))


def ranges(have: list[str], order: list[str]) -> str:
    """The releases as runs of consecutive tags: 'v2.18.1-1..v2.22.3-1, v2.24.3-1'."""
    idx = sorted(order.index(t) for t in have)
    runs, start = [], idx[0]
    for a, b in zip(idx, idx[1:] + [None]):
        if b != a + 1:
            runs.append(order[start] if start == a else f"{order[start]}..{order[a]}")
            start = b
    return ", ".join(runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", required=True, help="a clone of NVIDIA/nccl (bare is enough)")
    ap.add_argument("--since", default="2.18", help="the first release series (default 2.18)")
    ap.add_argument("--until", default="2.999", help="the last release series (default: the newest)")
    ap.add_argument("--exclude", help="an extracted formats file whose formats are left out")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    since, until = (tuple(int(x) for x in v.split(".")) for v in (args.since, args.until))
    order = tags(args.git, since, until)
    known = set()
    if args.exclude:
        known = {r["format"].rstrip("\n") for r in yaml.safe_load(Path(args.exclude).read_text(encoding="utf-8"))["formats"]
                 if r["format"] is not None}
    found: dict[str, dict] = {}
    for tag in order:
        for hit in git(args.git, "grep", "-l", "WARN", tag, "--", "src").split():
            path = hit.split(":", 1)[1]
            if not re.search(r"\.(?:cc|cu|cuh|h|hpp|cpp|c)$", path):
                continue
            for line, fmt in calls(git(args.git, "show", hit)):
                key = fmt if fmt is not None else f"{path}:{line}"
                e = found.setdefault(key, {"fmt": fmt, "at": {}})
                e["at"][tag] = f"{path}:{line}"
        print(f"{tag}: {len(found)} formats", file=sys.stderr)
    head = git(args.git, "rev-parse", order[-1] + "^{commit}").strip()
    rows, hand = [], hand_samples()
    for e in found.values():
        have = list(e["at"])
        fmt = unescape(e["fmt"]) if e["fmt"] is not None else None
        if fmt is not None and fmt.rstrip("\n") in known:  # 2.18 dropped many formats' trailing "\n"
            continue
        row = {"format": fmt, "source": e["at"][have[-1]], "since": have[0], "last": have[-1],
               "versions": ranges(have, order)}
        if e["at"][have[0]] != e["at"][have[-1]]:
            row["first_source"] = e["at"][have[0]]
        if fmt is not None:
            row["sample"] = sample_for(fmt, hand)
        rows.append(row)
    also = f"\n# Left out: the formats {args.exclude} holds." if args.exclude else ""
    write_formats(args.out, "# NCCL's WARN() format strings, every release from " + order[0] + " to " + order[-1]
                  + ", deduplicated." + also + "\n# Generated by bench/nccl_warn_extract.py; read by bench/nccl_warn_audit.py.\n"
                  "# `source`: file:line in the newest release that has the format (`first_source`: in the oldest,\n"
                  "# when it moved); `versions`: the releases that have it; `sample`: the format filled in.\n",
                  f"NVIDIA/nccl src/ WARN() calls, tags {order[0]} .. {order[-1]} ({head[:10]}); "
                  "extracted by bench/nccl_warn_extract.py", order, rows)
    return 0


def write_formats(out, header: str, source: str, order: list[str], rows: list[dict]) -> None:
    """The extracted formats, sorted by their source file and line, as the YAML data file the
    audits read (``header``: its comment lines); also used by bench/nvrm_extract.py."""
    rows.sort(key=lambda r: (r["source"].rsplit(":", 1)[0], int(r["source"].rsplit(":", 1)[1])))
    doc = {"source": source, "tags": order, "formats": rows}
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(header)
        yaml.safe_dump(doc, fh, sort_keys=False, allow_unicode=True, width=200)
    print(f"{len(rows)} formats from {len(order)} releases -> {out}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
