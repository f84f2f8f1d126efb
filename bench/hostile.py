"""Hostile inputs for ``steth diagnose``: memory, time and output of each (issue 13).

A benchmark script, not a test. For each input of issue 13's "Why" list it writes the input
into a temporary folder, with a REAL good file beside the bad one (``node1/dmesg.log``: the
Xid 79 capture ``fixtures/artefacts/kernel_log/dmesg_xid79_sxid.log``), runs ``steth
diagnose`` on it in a subprocess and prints per input: wall time, peak memory, exit code,
the first line of standard error, and whether the good file's finding (``gpu_fell_off_bus``
on ``node1``) is still in the report.

Peak memory is measured two ways, sampled every 0.1 s: ``maxrss``, the largest single
process of the run (its ``VmHWM``: what ``/usr/bin/time -v`` prints, without the pages of the
parent that forked it), and ``tree``, the largest sum of PSS (``/proc/PID/smaps_rollup``) over
the run's whole process tree (parse workers included, shared pages counted once). A run past ``--cap-gb`` (tree) or ``--time-cap`` seconds is killed and
shown as such: the figures before a fix are then lower bounds.

    .venv/bin/python bench/hostile.py                    # every input, at the issue's sizes
    .venv/bin/python bench/hostile.py --scale 0.05       # the same inputs, 5 % of the size
    .venv/bin/python bench/hostile.py --only xml_nested,deep_folder
    .venv/bin/python bench/hostile.py --pythonpath /tmp/base   # another checkout (a baseline)

``--pythonpath DIR``: DIR holds a ``stethoscope/`` folder whose ``facts engine cli rules
knowledge`` are links to another checkout's folders (``git archive COMMIT | tar -x``), so
that the same script measures the code before a change.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
GOOD = ROOT / "fixtures/artefacts/kernel_log/dmesg_xid79_sxid.log"
GOOD_CAUSE, GOOD_NODE = "gpu_fell_off_bus", "node1"
MIB, GIB = 1 << 20, 1 << 30
#: a benign kernel line (real shape: dmesg of an H200 host), the filler of the big logs
NOISE = b"[    4.%06d] mlx5_core 0000:0c:00.0: E-Switch: Total vports 10, per vport: max uc(128) max mc(2048)\n"
# the real Xid 79 line of the good file, for lines made hostile
XID_LINE = "[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


@dataclass
class Case:
    name: str
    what: str
    make: Callable[[Path, float], tuple[list[str], Path | None]]  # -> (steth args, bundle)
    check: str = "json"  # json: the good finding in the JSON report; text/markdown: see _found


def _good(folder: Path) -> None:
    (folder / "node1").mkdir(parents=True, exist_ok=True)
    shutil.copy(GOOD, folder / "node1" / "dmesg.log")


def _noise(nbytes: int, vary_every: int = 1) -> bytes:
    """``nbytes`` of filler lines; a new timestamp every ``vary_every`` lines (1: each line
    differs, so it compresses like a real log; large: it compresses like a bomb)."""
    line_len = len(NOISE % 0)
    n = max(1, nbytes // line_len)
    block = b"".join(NOISE % (i % 1_000_000) for i in range(min(n, vary_every)))
    if vary_every >= n:
        return block[: n * line_len]
    reps, rest = divmod(n, vary_every)
    body = bytearray()
    for r in range(reps):
        body += (NOISE % (r % 1_000_000)) + block[line_len:]
    return bytes(body) + block[: rest * line_len]


# --- the inputs --------------------------------------------------------------------------------

def make_xml_nested(d: Path, scale: float):
    """nvidia-smi -q -x of 1.4 MB: one <gpu> holding 200k nested elements."""
    _good(d)
    n = int(200_000 * scale)
    xml = ('<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">\n<nvidia_smi_log>\n'
           '<driver_version>580.159.04</driver_version>\n<attached_gpus>1</attached_gpus>\n'
           '<gpu id="00000000:91:00.0">\n' + "<a>" * n + "</a>" * n + "\n</gpu>\n</nvidia_smi_log>\n")
    (d / "node2").mkdir()
    (d / "node2" / "nvidia-smi-q.xml").write_text(xml)
    return ["--from-logs", str(d), "--format", "json"], d


def _tar(path: Path, members: list[tuple[str, int, int]], good_first: bool = True) -> None:
    """A .tar.gz with the good file first, then ``(name, bytes, vary_every)`` members."""
    with tarfile.open(path, "w:gz", compresslevel=6) as tar:
        if good_first:
            tar.add(GOOD, arcname="bundle/node1/dmesg.log")
        for name, size, vary in members:
            data = _noise(size, vary)
            info = tarfile.TarInfo(f"bundle/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            del data


def make_tar_expanding(d: Path, scale: float):
    """A .tar.gz of about 14 MB that expands to 3.8 GiB, every member and the total inside the limits."""
    per = int(243 * MIB * scale)
    members = [(f"node{2 + i // 4}/kern{i % 4}.log", per, 800) for i in range(16)]
    path = d / "expanding.tar.gz"
    _tar(path, members)
    return ["--from-logs", str(path), "--format", "json"], path


def make_folder_big_logs(d: Path, scale: float):
    """A folder of 10 logs of 200 MiB each."""
    _good(d)
    size = int(200 * MIB * scale)
    for i in range(10):
        node = d / f"node{2 + i // 2}"
        node.mkdir(exist_ok=True)
        (node / f"kern{i % 2}.log").write_bytes(_noise(size, 1))
    return ["--from-logs", str(d), "--format", "json"], d


def make_bomb(d: Path, scale: float):
    """A .tar.gz that expands to 4.3 GiB (past the 4 GiB limit): to be refused or cut short."""
    per = int(245 * MIB * scale)
    n = 18
    members = [(f"node{2 + i // 6}/bomb{i}.log", per, 1 << 30) for i in range(n)]
    path = d / "bomb.tar.gz"
    _tar(path, members)
    return ["--from-logs", str(path), "--format", "json"], path


def make_deep_folder(d: Path, scale: float):
    """A folder nested 1,500 deep (a real Xid log at the bottom too)."""
    _good(d)
    deep = str(d / "node3")
    os.mkdir(deep)
    for _ in range(max(2, int(1500 * scale))):  # pathlib's mkdir(parents=True) recurses
        deep += "/d"
        os.mkdir(deep)
    shutil.copy(GOOD, deep + "/dmesg.log")
    return ["--from-logs", str(d), "--format", "json"], d


def make_single_line(d: Path, scale: float):
    """A 250 MiB single line (an Xid line whose code runs on for 250 MiB)."""
    _good(d)
    (d / "node2").mkdir()
    with open(d / "node2" / "dmesg.log", "wb") as f:
        f.write(b"[6781741.548779] NVRM: Xid (PCI:0000:91:00): ")
        chunk = b"A" * MIB
        for _ in range(int(250 * scale)):
            f.write(chunk)
        f.write(b"\n")
    return ["--from-logs", str(d)], d


def make_nccl_warns(d: Path, scale: float):
    """250k distinct NCCL WARN lines in one log (a real WARN format, peer address varying)."""
    _good(d)
    (d / "node2").mkdir()
    n = int(250_000 * scale)
    with open(d / "node2" / "train.log", "w") as f:
        for i in range(n):
            f.write(f"node2:1552:{1564 + i % 8} [{i % 8}] misc/socket.cc:71 NCCL WARN socketProgress: "
                    f"Connection closed by remote peer 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}<{30000 + i % 30000}>\n")
    return ["--from-logs", str(d), "--format", "json"], d


def make_utf16(d: Path, scale: float):
    """The real Xid capture written as UTF-16 (with BOM) on node2, UTF-16-LE without BOM on node3."""
    _good(d)
    text = GOOD.read_text()
    for node, enc in (("node2", "utf-16"), ("node3", "utf-16-le")):
        (d / node).mkdir()
        (d / node / "dmesg.log").write_bytes(text.replace("\n", "\r\n").encode(enc))
    return ["--from-logs", str(d), "--format", "json"], d


def make_ansi(d: Path, scale: float):
    """ANSI escapes (colour, clear screen, window title, cursor moves) inside an Xid line."""
    _good(d)
    (d / "node2").mkdir()
    line = XID_LINE.replace("GPU has", "\x1b[2J\x1b[H\x1b]0;owned\x07\x1b[31mGPU\x1b[0m has\x1b[1A\x08\x08")
    (d / "node2" / "dmesg.log").write_text(line + "\n")
    return ["--from-logs", str(d)], d


def make_markdown_fence(d: Path, scale: float):
    """A ``` (and a longer ````` run) inside a log line, rendered with --format markdown; a
    lone carriage return (a line break to a markdown reader, not to a log reader) before it."""
    _good(d)
    (d / "node2").mkdir()
    line = XID_LINE.replace("name=<unknown>", "name=\r```\r# injected heading\r`````")
    (d / "node2" / "dmesg.log").write_text(line + "\n")
    return ["--from-logs", str(d), "--format", "markdown"], d


class Drip:
    """An HTTP server that sends its answer one byte a second."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        body = b'{"status":"success","data":{"resultType":"vector","result":[]}}'
        reply = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        with conn:
            try:
                conn.recv(65536)
                for i in range(len(reply)):
                    if self.stop.wait(1.0):
                        return
                    conn.sendall(reply[i:i + 1])
            except OSError:
                return


def make_drip(d: Path, scale: float):
    """--prometheus against a server that drips one byte a second, --timeout 5."""
    srv = Drip()
    make_drip.server = srv  # type: ignore[attr-defined]
    return ["--prometheus", f"http://127.0.0.1:{srv.sock.getsockname()[1]}", "--timeout", "5"], None


class Flood(Drip):
    """An HTTP server whose answer never ends (``endless``: no length, a vector answer padded
    with spaces for ever) or is a gzip bomb (``bomb``: 1 GiB of valid JSON in about 1 MB)."""

    BOMB: bytes | None = None

    def __init__(self, mode: str) -> None:
        self.mode = mode
        if mode == "bomb" and Flood.BOMB is None:
            z = gzip.compress(b'{"status":"success","data":{"resultType":"vector","result":[' + b" " * GIB + b"]}}", 9)
            Flood.BOMB = z
        super().__init__()

    def _drip(self, conn: socket.socket) -> None:  # one answer per connection
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        with conn:
            try:
                conn.recv(65536)
                if self.mode == "bomb":
                    conn.sendall(head + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(self.BOMB) + self.BOMB)
                    return
                conn.sendall(head + b"Connection: close\r\n\r\n" + b'{"status":"success","data":{"result":[')
                pad = b" " * 65536
                while not self.stop.is_set():
                    conn.sendall(pad)
            except OSError:
                return


def make_flood(mode: str):
    def make(d: Path, scale: float):
        srv = Flood(mode)
        make_drip.server = srv  # type: ignore[attr-defined]
        return ["--prometheus", f"http://127.0.0.1:{srv.sock.getsockname()[1]}", "--timeout", "30"], None
    return make


CASES = [
    Case("xml_nested", "nvidia-smi -q -x, 1.4 MB, 200k nested elements", make_xml_nested),
    Case("tar_expanding", ".tar.gz ~14 MB expanding to 3.8 GiB", make_tar_expanding),
    Case("folder_big_logs", "folder of 10 x 200 MiB logs", make_folder_big_logs),
    Case("bomb", ".tar.gz expanding to 4.3 GiB (past the limit)", make_bomb),
    Case("deep_folder", "folder nested 1,500 deep", make_deep_folder),
    Case("single_line", "250 MiB single line", make_single_line, check="text"),
    Case("nccl_warns", "250k distinct NCCL WARN lines", make_nccl_warns),
    Case("utf16", "UTF-16 logs (BOM and none), CRLF", make_utf16),
    Case("ansi", "ANSI escapes in a log line (text report)", make_ansi, check="text"),
    Case("markdown_fence", "``` inside a log line, --format markdown", make_markdown_fence, check="markdown"),
    Case("drip", "--prometheus, 1 byte/s server, --timeout 5", make_drip, check="none"),
    Case("endless_answer", "--prometheus, an answer that never ends, --timeout 30", make_flood("endless"), check="none"),
    Case("bomb_answer", "--prometheus, gzip bomb answer (1 GiB in ~1 MB), --timeout 30", make_flood("bomb"), check="none"),
]


# --- measuring -----------------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    out = [pid]
    i = 0
    while i < len(out):
        try:
            for tid in os.listdir(f"/proc/{out[i]}/task"):
                with open(f"/proc/{out[i]}/task/{tid}/children") as f:
                    out.extend(int(c) for c in f.read().split())
        except OSError:
            pass
        i += 1
    return out


def _hwm(pid: int) -> int:
    """The process's peak RSS since its exec (VmHWM), not the parent's pages before it."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run(args: list[str], pythonpath: str | None, cap: int, time_cap: float) -> dict:
    env = dict(os.environ, STETH_NO_PROGRESS="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out_f, err_f = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    cmd = [sys.executable, "-c", "from stethoscope.cli.main import app; app(prog_name='steth')", "diagnose", "--quiet", *args]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=out_f, stderr=err_f, env=env, start_new_session=True)
    peak, hwm, killed = 0, 0, ""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        pids = _children(proc.pid)
        tree = sum(_pss(p) for p in pids)
        peak = max(peak, tree)
        hwm = max([hwm, *(_hwm(p) for p in pids)])
        elapsed = time.monotonic() - t0
        if not killed and (tree > cap or elapsed > time_cap):
            killed = f"killed at {tree / GIB:.1f} GiB" if tree > cap else f"killed after {time_cap:.0f} s"
            os.killpg(proc.pid, signal.SIGKILL)
        time.sleep(0.1)
    wall = time.monotonic() - t0
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # workers left behind
    except OSError:
        pass
    rc = os.waitstatus_to_exitcode(status)
    out_f.seek(0)
    err_f.seek(0)
    out = out_f.read()
    err = err_f.read().decode("utf-8", "replace").strip().splitlines()
    return {"wall": wall, "maxrss": hwm, "tree": peak, "rc": rc, "killed": killed,
            "stderr": err[0] if err else "", "traceback": any(l.startswith("Traceback") for l in err),
            "out": out}


def _found(case: Case, out: bytes) -> str:
    if case.check == "none":
        return "-"
    text = out.decode("utf-8", "replace")
    if case.check == "json":
        try:
            rep = json.loads(text)
        except ValueError:
            return "no (no JSON)"
        def found(node: str) -> bool:
            return any(f["cause"] == GOOD_CAUSE and node in (f.get("nodes") or [f["entity"].get("node")])
                       for f in rep["findings"])
        hit = found(GOOD_NODE)
        if case.name == "utf16":  # the UTF-16 copies are the same real Xid 79 capture
            missing = [n for n in ("node2", "node3") if not found(n)]
            return ("yes" if hit else "no") + (f" (UTF-16 not read: {', '.join(missing)})" if missing else " (UTF-16 read too)")
        return "yes" if hit else "no"
    ok = GOOD_CAUSE.replace("_", " ") in text or "fell off the bus" in text or "fallen off the bus" in text
    ok = ok and GOOD_NODE in text
    notes = []
    if case.check == "text" or case.name == "ansi":
        if any(c in text for c in "\x1b\x07\x08"):
            notes.append("ESC reached the output")
    if case.check == "markdown":
        notes += _fence_problems(text)
    if len(out) > 16 * MIB:
        notes.append(f"report of {len(out) / MIB:.0f} MiB")
    return ("yes" if ok else "no") + (f" ({'; '.join(notes)})" if notes else "")


def _fence_problems(md: str) -> list[str]:
    """A line outside every code block that came from a log line is a break-out."""
    problems, fence = [], None
    for line in re.split(r"\r\n|\r|\n", md):
        s = line.lstrip()
        if fence is None:
            if s.startswith("```"):
                fence = s[: len(s) - len(s.lstrip("`"))]
            elif s.startswith("# injected"):
                problems.append("log text escaped the code block")
        elif s.startswith(fence) and s.strip("`") == "":
            fence = None
    return problems


def _rmtree(path: Path) -> None:
    """rm -r, which does not recurse in Python (a folder 1,500 deep)."""
    if path.exists():
        subprocess.run(["rm", "-rf", str(path)], check=False)


def _size(n: float) -> str:
    return f"{n / GIB:.2f} GiB" if n >= GIB else f"{n / MIB:.0f} MiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="size factor of the big inputs (1: the issue's sizes)")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--pythonpath", default=None, help="run another checkout (see the docstring)")
    ap.add_argument("--cap-gb", type=float, default=6.0, help="kill a run whose process tree passes this many GiB")
    ap.add_argument("--time-cap", type=float, default=300.0, help="kill a run after this many seconds")
    ap.add_argument("--workdir", default=None, help="where inputs are written (default: a temp dir, removed)")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    opts = ap.parse_args()
    only = {s for s in opts.only.split(",") if s}
    base = Path(opts.workdir or tempfile.mkdtemp(prefix="steth-hostile-"))
    rows = []
    print(f"{'input':16} {'wall s':>7} {'maxrss':>9} {'tree':>9} {'rc':>3}  good found | first stderr line")
    try:
        for case in CASES:
            if only and case.name not in only:
                continue
            d = base / case.name
            _rmtree(d)
            d.mkdir(parents=True)
            args, bundle = case.make(d, opts.scale)
            size = int(subprocess.run(["du", "-sb", str(d)], capture_output=True, text=True).stdout.split()[0]) if bundle else 0
            r = run(args, opts.pythonpath, int(opts.cap_gb * GIB), opts.time_cap)
            if case.name in ("drip", "endless_answer", "bomb_answer"):
                make_drip.server.stop.set()  # type: ignore[attr-defined]
            found = _found(case, r["out"]) if not r["killed"] else "-"
            err = r["killed"] or ("TRACEBACK: " if r["traceback"] else "") + r["stderr"][:110]
            print(f"{case.name:16} {r['wall']:7.1f} {_size(r['maxrss']):>9} {_size(r['tree']):>9} {r['rc']:>3}  {found:10} | {err}",
                  flush=True)
            rows.append({"case": case.name, "input_bytes": size, **{k: v for k, v in r.items() if k != "out"}, "found": found})
            _rmtree(d)
    finally:
        if not opts.workdir:
            _rmtree(base)
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
