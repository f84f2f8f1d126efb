"""Never a false HEALTHY, audited on fragments: lines of the readers' real fixtures pasted alone.

A ticket often holds a few lines of an artefact. A fragment that shows nothing of a component's
state (a header, a version line, the head of a report whose body was cut) must not make a bundle
HEALTHY. This samples windows of ``--lines`` consecutive non-blank lines from every file under
fixtures/artefacts/, diagnoses each alone (one file in an otherwise empty bundle, in-process,
``jobs=1``) and prints the verdict counts, then every window that read HEALTHY with the components
it claimed checked, for a person to judge: a claim the lines do not support is a bug of the
reader's ``checks`` / ``context`` in knowledge/coverage.yaml (tests/test_never_false_healthy.py
keeps each one found).

    .venv/bin/python bench/fragment_audit.py --samples 600 --seed 1             # single lines
    .venv/bin/python bench/fragment_audit.py --samples 700 --seed 5 --lines 3   # three-line windows
    .venv/bin/python bench/fragment_audit.py --paths fixtures/harvest/cases --lines 1-5 --per-file 4 --samples 3000 --seed 17

``--paths`` draws from other files or folders (the harvested cases, a corpus outside the tree);
``--lines A-B`` draws each window's size between A and B.

``--mix append|insert|both`` pastes two windows of two artefact kinds into one file, as tickets do
(session 26, A8): ``append`` the second after the first with a blank line between (a kernel window,
then an nvidia-smi one), ``insert`` the second inside the first at a line drawn between its rows (a
traceback among NCCL lines), ``both`` either, drawn per pair. A window's kind is its folder under
fixtures/artefacts, elsewhere its file name's first word (``dmesg``, ``nvidia-smi`` -> ``nvidia``);
the two windows come from files of different kinds. ``--samples`` then counts pairs.

    .venv/bin/python bench/fragment_audit.py --mix both --lines 1-6 --per-file 2 --samples 1200 --seed 119

``--plant`` (session 28, A10) audits the other way round: every file that reads HEALTHY alone is
diagnosed again with one real error line planted in it (``--where``: ``append`` after a newline and
after a blank line, ``prepend``, ``insert`` at half and at a third of its lines); a HEALTHY result
is a false HEALTHY (a reader that counts the foreign line as its own, a joiner that eats it, a
document kind not searched). ``--plant LINE`` (repeatable) replaces the default lines (PLANTS: session 28's 7, and
session 29's 33 more, B4: NCCL WARN in its prefixed, bare, <= 2.3 and launcher-tagged forms, NVRM under journald,
Talos and dmesg -T stamps, nvidia-smi's ERR! row and Unknown Error, a dcgmi diag Fail row, ibstatus/ibstat ports
down, mlx5_core, AER, CUDA errors of PyTorch/CuPy/TF/JAX, the OOM killer, Slurm, k8s, Go, glog, installers' ERROR:
lines; bench/fragment_audit_s29.md).
``--cases`` takes each folder under ``--paths`` as a bundle (fixtures/harvest/cases): a case that
reads HEALTHY alone is diagnosed with the line planted in each of its files in turn.

    .venv/bin/python bench/fragment_audit.py --plant --paths fixtures/artefacts fixtures/bundles
    .venv/bin/python bench/fragment_audit.py --plant --cases --paths fixtures/harvest/cases --where append,insert

Session 16's rounds: 600 single lines (seed 1) 14 HEALTHY, 900 (seed 11) 17, 700 three-line
windows (seed 5) 26; the false claims among them were fixed (commits b52003b, 8c80ff6, f08c934).
Session 17's and 18's rounds (harvest cases, the dev corpus, fixtures/artefacts, 1-5 lines): bench/README.md.
"""
from __future__ import annotations

import argparse
import collections
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".md", ".py", ".yaml", ".gz", ".tgz", ".zip", ".tar", ".xz", ".bz2"}


def files(paths: list[str]) -> list[Path]:
    """The files under ``paths`` (files or folders, relative to the repository root or absolute),
    without documents, code and archives."""
    out: list[Path] = []
    for s in paths:
        p = Path(s) if Path(s).is_absolute() else ROOT / s
        out += [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file())
    return [p for p in dict.fromkeys(out) if p.suffix not in SKIP]


def windows(seed: int, per_file: int, sizes: range, paths: list[str]) -> list[tuple[Path, str]]:
    rng = random.Random(seed)
    out = []
    for p in files(paths):
        try:
            rows = [ln for ln in p.read_text(errors="replace").split("\n") if ln.strip()]
        except OSError:
            continue
        for _ in range(per_file):
            size = rng.choice(sizes) if len(sizes) > 1 else sizes[0]  # one size: session 16's draws
            if len(rows) < size:
                continue
            i = rng.randrange(0, len(rows) - size + 1)
            out.append((p, "\n".join(rows[i:i + size])))
    rng.shuffle(out)
    return out


def kind(p: Path) -> str:
    """The artefact kind a file holds, as far as its path says: its folder under fixtures/artefacts
    (``nccl_log``), elsewhere its name's first word (``nvidia-smi-after-fix.txt`` -> ``nvidia``)."""
    parts = p.parts
    if "artefacts" in parts and parts.index("artefacts") + 2 < len(parts):
        return parts[parts.index("artefacts") + 1]
    return re.split(r"[-_.\d]", p.name.lower(), maxsplit=1)[0] or p.name


# --plant's default lines, each REAL (where it was found):
PLANTS = [
    # harvest 2504 (THUDM/slime#1326), fixtures/harvest/cases/2504-*/app.txt: a bare Python Exception
    "Exception: Server process terminated unexpectedly.",
    # fixtures/artefacts/kernel_log/syslog_xid79_fell_off_bus.log (Ubuntu forum, /var/log/syslog): Xid 79
    "Jun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303884] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
    # the same file: the NVRM line that follows it
    "Jun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303887] NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
    # fixtures/artefacts/nccl_log/rdma_completion_errors.log: an NCCL WARN (IB completion error)
    "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221",
    # fixtures/artefacts/cuda_app/torch_cuda_errors.log: PyTorch's illegal-address RuntimeError
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    # fixtures/artefacts/perftest/perftest126_use_cuda_mr_failed.txt: bash's report of a crashed child
    "Segmentation fault (core dumped)",
    # fixtures/artefacts/kernel_log/dmesg_aer_reltime.log (rwth-i6/returnn#1500): a fatal PCIe AER
    "[  +0.000001] pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0",
    # session 29 (B4): one or more lines of each family the readers know, and some no reader knows
    # fixtures/bundles/rdma-16-peer-link/bundle/gpu-07/nccl.log:10: NCCL WARN with NCCL's host:pid:tid [dev] file:line prefix (IB completion error, transport/net_ib.cc)
    'gpu-07:40682:40859 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.1.0.11<55258> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid fe80::0c42:a103 hca mlx5_3',
    # fixtures/artefacts/nccl_log/completion_error_bare.log:1: a bare NCCL WARN, no host prefix
    'NCCL WARN NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129',
    # fixtures/artefacts/nccl_log/socket_creation_failed_old.log:1: NCCL <= 2.3's 'WARN' without 'NCCL'
    'include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol',
    # fixtures/artefacts/nccl_log/ib_async_catastrophic_nccl230.log:1: an NCCL WARN under a timestamp and mpirun's [1,12]<stdout>: prefix
    '2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-1553839402050-12124-01-000057:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error',
    # fixtures/artefacts/torch_log/srun_ray_prefixes.log:3: torchrun's [default3]:[rank3]: prefixes on ProcessGroupNCCL's watchdog timeout
    '[default3]:[rank3]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600021 milliseconds before timing out.',
    # fixtures/artefacts/cuda_app/torch_cuda_errors.log:9: torchrun's [rank3]: prefix on a CUDA RuntimeError
    '[rank3]:RuntimeError: CUDA error: device-side assert triggered',
    # fixtures/artefacts/kernel_log/talos_xid74_xid154_vllm40652.log:2: talosctl dmesg's framing on an Xid 74
    '192.168.11.119: kern: warning: [2026-04-22T21:26:20.599716692Z]: NVRM: Xid (PCI:0000:48:00): 74, pid=22884, name=VLLM::Worker_TP, NVLink: fatal error detected on link 8(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)',
    # fixtures/artefacts/kernel_log/journal_no_nvidia_gpu_found.log:3: journald's framing on NVRM's 'No NVIDIA GPU found.'
    'Aug 06 09:17:22 gpu-node-07 kernel: NVRM: No NVIDIA GPU found.',
    # fixtures/artefacts/kernel_log/ogkm1080_gsp_rpc_failed_gpu_lost.log:2: journald's framing on a GSP RPC failure
    'May 02 21:43:54 ethan-desktop kernel: NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 10 sequence 12303!',
    # fixtures/bundles/xid45-beside-xid79/bundle/gpu-node11/dmesg.txt:3: dmesg -T's stamp on an Xid 79
    "[Sat Oct 12 18:35:29 2024] NVRM: Xid (PCI:0000:61:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    # fixtures/artefacts/nvidia_smi_table/ogkm446_r525_a40_gpu4_err.txt:25: an nvidia-smi table row of ERR!
    '|   4  ERR!                On   | 00000000:83:00.0 Off |                 ERR! |',
    # fixtures/artefacts/nvml_init/returnn1486_device_handle_unknown_error.txt:2: nvidia-smi's 'Unknown Error' for one device
    'Unable to determine the device handle for GPU0000:03:00.0: Unknown Error',
    # fixtures/artefacts/package_history/mixed_apt_nvidia_smi_cannot_communicate.txt:2: nvidia-smi's driver-unreachable line
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    # fixtures/artefacts/dcgmi_diag/go_dcgm52_memory_fail_busy.txt:3: a dcgmi diag Fail row
    '|                           | Fail - GPU: 0                                  |',
    # fixtures/artefacts/ibstatus/hdr_active_and_polling.txt:14: ibstatus's port state DOWN
    '\tstate:\t\t 1: DOWN',
    # fixtures/artefacts/mlx5_core_log/gpud1164_journald_mixed_access_reg.log:1: a journald mlx5_core command failure
    'Dec 02 09:56:04 node1 kernel: mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)',
    # fixtures/artefacts/mlx5_core_log/linux_rdma_poll_health_fatal_error.log:1: mlx5_core's health poller: fatal error
    '[   36.447442] mlx5_core 0000:00:00.0: poll_health:694:(pid 0): Fatal error 1 detected',
    # fixtures/artefacts/kernel_log/dmesg_aer_hotplug_link_down.log:1: a corrected PCIe AER line
    '[256236.078151] pcieport 0000:89:02.0: AER: Corrected error received: 0000:89:02.0',
    # fixtures/bundles/h200-cuda-arch-missing/bundle/h200/app.txt:5: a traceback's last line alone (torch.AcceleratorError)
    'torch.AcceleratorError: CUDA error: invalid device ordinal',
    # fixtures/bundles/h200-xid31-app/bundle/vm/out:5: CuPy's CUDA driver error
    'cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered',
    # fixtures/artefacts/cuda_app/jax3568_kernel_dso_version_mismatch.log:3: TF's stream executor (under JAX) failing cuInit
    '2020-06-26 10:14:51.996044: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination',
    # fixtures/artefacts/xla_coordination/cleanrl338_disconnect_deadline.log:10: JAX's XlaRuntimeError, a traceback's last line
    'jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Deadline Exceeded',
    # fixtures/artefacts/kernel_log/opennmt_tutorial6_memcg_oom_killed.log:1: the kernel's OOM killer
    'Memory cgroup out of memory: Killed process 629 (onmt_train) total-vm:14119556kB, anon-rss:6538204kB, file-rss:80652kB, shmem-rss:16kB, UID:0 pgtables:13432kB oom_score_adj:0',
    # fixtures/artefacts/slurm_log/knet30_step_oom_killed.out:1: slurmstepd's error: line
    'slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0. Some of your processes may have been killed by the cgroup out-of-memory handler.',
    # fixtures/artefacts/dcgm_exporter_log/gmt94_flag_env_value_not_int_pods_mixed.txt:6: kubectl get pods' CrashLoopBackOff row
    'dcgm-exporter-bvzzq             0/1     CrashLoopBackOff   1          30s',
    # fixtures/artefacts/nvidia_container_cli/k8sdp1400_ldcache_ldconfig_signal_9.txt:1: a k8s/containerd Error: line
    "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy' nvidia-container-cli: ldcache error: process /sbin/ldconfig terminated with signal 9",
    # fixtures/artefacts/k8s_device_plugin/gpu_operator286_mig_single_strategy_panic_v0.log:8: a Go panic: of the device plugin
    'panic: More than one MIG device type present on node',
    # fixtures/artefacts/dcgm_exporter_log/fatal_logrus_dcgmexporter34.log:4: a Go program's logrus level=fatal line (dcgm-exporter)
    'time="2021-12-14T17:28:56Z" level=fatal msg="Error starting nv-hostengine: DCGM initialization error"',
    # fixtures/artefacts/cuda_app/caffe_check_failed.log:2: glog's F-line (Check failed, CUDA out of memory)
    'F1206 16:55:19.914152  3830 parallel.cpp:85] Check failed: error == cudaSuccess (2 vs. 0)  out of memory',
    # fixtures/artefacts/nvidia_installer/bumblebee932_load_error_no_such_device.txt:1: nvidia-installer's ERROR: line
    "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module was built against the wrong or improperly configured kernel sources, with a version of gcc that differs from the one used to build the target kernel, or if a driver such as rivafb, nvidiafb, or nouveau is present and prevents the NVIDIA kernel module from obtaining ownership of the NVIDIA graphics device(s), or no NVIDIA GPU installed in this system is supported by this NVIDIA Linux graphics driver release.",
    # fixtures/artefacts/torch_log/torchtune2676_gloo_barrier_recv_timeout.log:11: torchrun's [rank2]: prefix on a gloo timeout RuntimeError
    '[rank2]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete',
    # fixtures/artefacts/ibstat/rdma_test_roce_active_ib_disabled.txt:26-28: an ibstat port block, State: Down (three lines)
    '        Port 1:\n                State: Down\n                Physical state: Disabled',
    # fixtures/harvest/cases/173-h200-fabric-manager-failure-nvls-hpl-illegal-address/errors.txt:17: CPython's fatal-signal line
    'Fatal Python error: Segmentation fault',
]
PLACES = ("append", "prepend", "insert")


def planted(text: str, line: str, where: str) -> list[tuple[str, str]]:
    """``text`` with ``line`` planted: (place, text) for each form of ``where``."""
    body = text.rstrip("\n")
    if where == "append":
        return [("after a newline", body + "\n" + line + "\n"), ("after a blank line", body + "\n\n" + line + "\n")]
    if where == "prepend":
        return [("prepended", line + "\n" + text)]
    rows = body.split("\n")
    return [(f"at 1/{n} of its lines", "\n".join(rows[:len(rows) // n] + [line] + rows[len(rows) // n:]) + "\n")
            for n in (2, 3)]


def plant_audit(units: list[tuple[str, Path]], lines: list[str], where: list[str]) -> int:
    """Diagnose each unit (a file alone, or a case folder) and, for one that reads HEALTHY, each
    of its files with each line planted in each place; print how many stay HEALTHY and which."""
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    rules = load_rules()
    still: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    tried: collections.Counter[tuple[str, str]] = collections.Counter()
    healthy = 0
    with tempfile.TemporaryDirectory() as d:
        b = Path(d) / "b"

        def load(src: Path) -> dict[str, str] | None:
            members = [src] if src.is_file() else sorted(q for q in src.rglob("*") if q.is_file()
                                                         and q.name not in {"label.yaml", "README.md"})
            try:
                return {str(q.relative_to(src if src.is_dir() else src.parent)): q.read_text() for q in members}
            except (OSError, UnicodeDecodeError):
                return None

        def diag(texts: dict[str, str]) -> str:
            shutil.rmtree(b, ignore_errors=True)
            for name, t in texts.items():
                (b / name).parent.mkdir(parents=True, exist_ok=True)
                (b / name).write_text(t)
            return diagnose_bundle(b, rules, jobs=1).verdict

        for shown, src in units:
            texts = load(src)
            if not texts or diag(texts) != "healthy":
                continue
            healthy += 1
            for name, t in texts.items():
                for line in lines:
                    for w in where:
                        for place, t2 in planted(t, line, w):
                            tried[(line, place)] += 1
                            if diag({**texts, name: t2}) == "healthy":
                                still[(line, place)].append(shown if src.is_file() else f"{shown}/{name}")
                                print(f"STILL HEALTHY ({place}): {line[:60]!r} in {still[(line, place)][-1]}", flush=True)
    print(f"\n{len(units)} unit(s), {healthy} HEALTHY alone; each with one real line planted:")
    for (line, place), n in tried.items():
        print(f"  {len(still[(line, place)])}/{n} still HEALTHY  {place:20}  {line.strip().replace(chr(10), ' / ')[:80]}")
    return 0


def mixed(seed: int, mode: str, pool: list[tuple[Path, str]]) -> list[tuple[str, str]]:
    """Pairs of windows of ``pool`` (already shuffled) from files of two kinds, pasted into one text:
    (what was pasted, the text). Each window is used once."""
    rng = random.Random(seed * 7919 + 1)
    out: list[tuple[str, str]] = []
    rest = list(pool)
    while len(rest) >= 2:
        (pa, a), rest = rest[0], rest[1:]
        j = next((i for i, (pb, _) in enumerate(rest) if kind(pb) != kind(pa)), None)
        if j is None:
            break
        pb, b = rest.pop(j)
        how = mode if mode != "both" else rng.choice(("append", "insert"))
        rows = a.split("\n")
        if how == "insert" and len(rows) > 1:
            at = rng.randrange(1, len(rows))
            text = "\n".join(rows[:at] + b.split("\n") + rows[at:])
            shown = f"{_shown(pb)} inside {_shown(pa)} after its line {at}"
        else:
            text = a + "\n\n" + b
            shown = f"{_shown(pa)}, then {_shown(pb)}"
        out.append((shown, text))
    return out


def _sizes(arg: str) -> range:
    lo, _, hi = arg.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def _shown(p: Path) -> Path:
    return p.relative_to(ROOT) if p.is_relative_to(ROOT) else p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=600, help="windows diagnosed (default 600)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lines", type=_sizes, default=range(1, 2),
                    help="consecutive non-blank lines a window: N, or A-B for a size drawn per window (default 1)")
    ap.add_argument("--per-file", type=int, default=3, help="windows drawn from each fixture (default 3)")
    ap.add_argument("--paths", nargs="+", default=["fixtures/artefacts"],
                    help="files or folders to draw from (default fixtures/artefacts)")
    ap.add_argument("--mix", choices=("append", "insert", "both"),
                    help="paste two windows of two kinds into one file (append, insert, or either per pair)")
    ap.add_argument("--plant", nargs="?", action="append", const=None, metavar="LINE",
                    help="plant a real error line in each file HEALTHY alone (repeatable; bare: the default PLANTS)")
    ap.add_argument("--where", default="append,prepend,insert",
                    help="with --plant: where the line goes, of append,prepend,insert (default all)")
    ap.add_argument("--cases", action="store_true",
                    help="with --plant: each folder directly under --paths is one bundle (fixtures/harvest/cases)")
    a = ap.parse_args()
    if a.plant is not None:
        lines = [x for x in a.plant if x] or PLANTS
        where = [w for w in a.where.split(",") if w in PLACES]
        units: list[tuple[str, Path]] = []
        for s in a.paths:
            p = Path(s) if Path(s).is_absolute() else ROOT / s
            if a.cases:
                units += [(str(_shown(q)), q) for q in sorted(p.iterdir()) if q.is_dir()]
            else:
                units += [(str(_shown(q)), q) for q in files([s]) if q.stat().st_size < 3_000_000]
        return plant_audit(units, lines, where)
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    rules = load_rules()
    drawn = windows(a.seed, a.per_file, a.lines, a.paths)
    sample = (mixed(a.seed, a.mix, drawn) if a.mix else [(str(_shown(p)), t) for p, t in drawn])[:a.samples]
    verdicts: collections.Counter[str] = collections.Counter()
    healthy = []
    with tempfile.TemporaryDirectory() as d:
        paste = Path(d) / "paste.txt"
        for src, text in sample:
            paste.write_text(text + "\n")
            rep = diagnose_bundle(d, rules, jobs=1)
            verdicts[rep.verdict] += 1
            if rep.verdict == "healthy":
                healthy.append((src, text, sorted({c.component for c in rep.checked})))
    size = f"{a.lines[0]}-{a.lines[-1]}" if len(a.lines) > 1 else a.lines[0]
    what = f"pairs ({a.mix}) of windows" if a.mix else "windows"
    print(f"{len(sample)} {what} of {size} line(s), seed {a.seed}: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    for src, text, checked in healthy:
        print(f"\nHEALTHY (checked: {', '.join(checked)}) from {src}:")
        for ln in text.split("\n"):
            print(f"    {ln[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
