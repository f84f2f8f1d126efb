"""Never a false HEALTHY (issue 10's principle, audited as an adversarial operator would).

Each case is a real healthy bundle (fixtures/bundles/h200-healthy: nccl-tests, NCCL logs,
nvidia-smi -q, a two-rank PyTorch job; fixtures/bundles/device-h200-collect: dmesg -T,
nvidia-smi -q and -q -x, a PyTorch job) with ONE thing wrong, as operators find it: a crash
line nobody parsed, an empty capture, a node with nothing that checks its GPUs, an output cut
short, a GPU nvidia-smi could not read. Every one of them said HEALTHY before. The near misses
at the end are healthy runs with lines that look alarming and are not.
"""
import re
import shutil
from pathlib import Path

import pytest

from stethoscope.engine.pipeline import diagnose_bundle

ROOT = Path(__file__).resolve().parent.parent
A = ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle"  # vm/rank0.log, vm/smi.txt, vm/allreduce.txt, ...
B = ROOT / "fixtures" / "bundles" / "device-h200-collect" / "bundle"  # vm/dmesg.txt, vm/nvidia-smi-q.txt, ...
ART = ROOT / "fixtures" / "artefacts"


def _copy(tmp_path: Path, base: Path) -> Path:
    dst = tmp_path / "bundle"
    shutil.copytree(base, dst)
    return dst


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def _cited(rep) -> list[str]:
    """The lines that serious findings quote: a rule that reads the line, or unexplained_error."""
    return [ev.text for f in rep.findings if f.severity != "info" for ev in f.evidence]


def test_the_bases_are_healthy(ruleset):
    for base in (A, B):
        rep = diagnose_bundle(base, ruleset, jobs=1)
        assert rep.verdict == "healthy", (base, rep.reason, [f.summary for f in rep.findings])


# --- a failure line in a log that its readers did not read ---------------------------------

TRACEBACK = ("Traceback (most recent call last):\n"
             '  File "/root/train.py", line 41, in <module>\n'
             "    main()\n"
             '  File "/root/train.py", line 33, in main\n'
             "    loss = step(batch)\n")


@pytest.mark.parametrize("tail, quoted", [
    ("Segmentation fault (core dumped)\n", "Segmentation fault (core dumped)"),
    ("Killed\n", "Killed"),
    # an exception type no rule knows: the finding quotes the traceback's last line
    (TRACEBACK + "trainer.errors.CheckpointCorrupted: shard 3 of 8 has a bad checksum\n",
     "trainer.errors.CheckpointCorrupted: shard 3 of 8 has a bad checksum"),
    (TRACEBACK + "ValueError: Expected input batch_size (32) to match target batch_size (16).\n",
     "ValueError: Expected input batch_size (32) to match target batch_size (16)."),
    ("ERROR: rank 1 reported loss=nan at step 1200, aborting\n", "ERROR: rank 1 reported loss=nan"),
    ("[2026-11-29 18:30:41] step 1200 FAILED: gradient all-reduce returned mismatched sizes\n", "step 1200 FAILED"),
], ids=["segfault", "killed", "unknown_exception", "valueerror", "error_word", "failed_word"])
def test_a_crash_line_in_a_training_log_is_never_healthy(ruleset, tmp_path, tail, quoted):
    b = _copy(tmp_path, A)
    _append(b / "vm" / "rank0.log", tail)
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert any(quoted in t for t in _cited(rep)), _cited(rep)


STAMP = "[Sun Nov 29 20:31:02 2026] "


OOM_KILL = ["python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
            "Out of memory: Killed process 1708 (python3) total-vm:81234567kB, anon-rss:65432100kB, file-rss:0kB, "
            "shmem-rss:0kB, UID:0 pgtables:130000kB oom_score_adj:0"]


def test_the_oom_killer_is_never_healthy_and_is_named(ruleset, tmp_path):
    """The kernel log's reader reads the kill line (host_oom_kill): rule host_oom_killed names it."""
    b = _copy(tmp_path, B)
    _append(b / "vm" / "dmesg.txt", "".join(STAMP + ln + "\n" for ln in OOM_KILL))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert rep.findings[0].cause == "host_memory_oom_killed" and "pid 1708" in rep.findings[0].summary


@pytest.mark.parametrize("lines", [
    ["INFO: task python3:1708 blocked for more than 122 seconds."],
    ["watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [nvidia-smi:2211]"],
    ["BUG: unable to handle page fault for address: ffffb1c2c0a01000", "Oops: 0000 [#1] PREEMPT SMP NOPTI"],
    ["python3[1708]: segfault at 0 ip 00007f3a1c2b4e10 sp 00007ffd3c1a2b40 error 4 in "
     "libcuda.so.580.159.04[7f3a1c000000+2a00000] likely on CPU 5 (core 5, socket 0)"],
], ids=["hung_task", "soft_lockup", "oops", "segfault"])
def test_a_kernel_failure_without_nvrm_is_never_healthy(ruleset, tmp_path, lines):
    b = _copy(tmp_path, B)
    _append(b / "vm" / "dmesg.txt", "".join(STAMP + ln + "\n" for ln in lines))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert any(any(ln in t for ln in lines) for t in _cited(rep)), _cited(rep)


# --- a missing signal ----------------------------------------------------------------------

def test_an_empty_capture_is_a_missing_signal(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    (b / "vm" / "nvidia-smi-q.txt").write_text("")
    (b / "vm" / "dmesg.log").write_text("\n \n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    skipped = {s.path: s.reason for s in rep.coverage.skipped}
    assert skipped.keys() == {"vm/nvidia-smi-q.txt", "vm/dmesg.log"} and all("empty" in r for r in skipped.values())
    assert "vm/nvidia-smi-q.txt" in rep.reason


def test_a_node_with_nothing_that_checks_its_gpus_keeps_the_bundle_from_healthy(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    (b / "node2").mkdir()
    shutil.copy(ART / "top" / "top_1_w512_dev_host.txt", b / "node2" / "top.txt")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert "node2: node2/top.txt" in rep.reason


def test_a_kernel_log_without_the_nvidia_driver_checks_no_gpu(ruleset, tmp_path):
    # the boot banner is a fact, but the log says nothing of any GPU: the driver never loaded,
    # or its lines rotated out of the ring buffer
    b = _copy(tmp_path, B)
    for f in (b / "vm").iterdir():
        if f.name != "dmesg.txt":
            f.unlink()
    p = b / "vm" / "dmesg.txt"
    p.write_text("".join(ln for ln in p.read_text().splitlines(keepends=True)
                         if "NVRM" not in ln and "nvidia" not in ln.lower()))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert rep.checked == []


# --- an output cut short, GPUs left out ----------------------------------------------------

def test_nvidia_smi_q_cut_inside_a_gpu_block_is_incomplete(ruleset, tmp_path):
    b = _copy(tmp_path, B)
    p = b / "vm" / "nvidia-smi-q.txt"
    lines = p.read_text().splitlines(keepends=True)
    cut = next(n for n, ln in enumerate(lines) if "ECC Errors" in ln) + 3
    p.write_text("".join(lines[:cut]))  # nvidia-smi killed while it hangs on a sick GPU
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "capture(s) incomplete" in rep.reason and f"vm/nvidia-smi-q.txt:{cut}:" in rep.reason
    assert [h.limit for h in rep.coverage.limits] == ["cut_short"]


def test_nvidia_smi_q_showing_fewer_gpus_than_attached_is_incomplete(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    p = b / "vm" / "smi.txt"
    text = p.read_text()
    p.write_text(text[: text.index("GPU 00000000:00:07.0")])  # "Attached GPUs : 2", one block
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "says 2 GPU(s) are attached and shows 1" in rep.reason


def test_nvidia_smi_q_of_one_gpu_asked_with_i_is_complete(ruleset, tmp_path):
    # near miss: "$ nvidia-smi -q -i 1" pasted with its command shows one GPU of the eight attached
    b = tmp_path / "bundle" / "node1"
    b.mkdir(parents=True)
    shutil.copy(ART / "nvidia_smi_q" / "v100_r470_q_i1.txt", b / "nvidia-smi-q.txt")
    rep = diagnose_bundle(b.parent, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


@pytest.mark.parametrize("field, value", [("GPU Current Temp", "Unknown Error"), ("Graphics", "GPU is lost")])
def test_a_field_nvidia_smi_failed_to_query_is_never_silent(ruleset, tmp_path, field, value):
    b = _copy(tmp_path, A)
    p = b / "vm" / "smi.txt"
    text = p.read_text()
    i = text.index("GPU 00000000:00:07.0")
    p.write_text(text[:i] + re.sub(rf"(        {field}\s+: ).*", rf"\g<1>{value}", text[i:], count=1))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "faulty", (rep.reason, [f.summary for f in rep.findings])
    assert any(f"could not read it ('{value}')" in f.summary for f in rep.findings), [f.summary for f in rep.findings]


def test_nccl_tests_table_without_its_footer_is_incomplete(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    p = b / "vm" / "allreduce.txt"
    lines = p.read_text().splitlines(keepends=True)
    stop = next(n for n, ln in enumerate(lines) if ln.strip().startswith("1048576 "))
    p.write_text("".join(lines[:stop]))  # the run died at 1 MiB
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "vm/allreduce.txt" in rep.reason and "stops after 524288 bytes without its footer" in rep.reason


# --- near misses: alarming words on healthy runs -------------------------------------------

def test_nccl_net_plugin_fallback_info_lines_stay_healthy(ruleset, tmp_path):
    # NCCL 2.18's forms of "no external net plugin" (nccl-tests#188, nccl#1126: "harmless"),
    # worded with "cannot open" and "No plugin found": INFO lines, read and benign
    b = _copy(tmp_path, A)
    p = b / "vm" / "rank0.log"
    extra = ("vm:1708:1708 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: "
             "cannot open shared object file: No such file or directory\n"
             "vm:1708:1708 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation\n")
    text = p.read_text()
    mark = "vm:1708:1708 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so\n"
    p.write_text(text.replace(mark, mark + extra, 1))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


def test_warnings_and_panic_settings_in_a_healthy_log_stay_healthy(ruleset, tmp_path):
    # the real dmesg's "Command line: ... panic=1" and a torchrun W-level shutdown notice
    b = _copy(tmp_path, B)
    assert "panic=1" in (b / "vm" / "dmesg.txt").read_text()
    _append(b / "vm" / "torch-allreduce.log",
            "W1129 20:28:40.001000 1668 torch/distributed/elastic/multiprocessing/api.py:897] "
            "Sending process 1709 closing signal SIGTERM\n")
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])


def test_na_values_are_unsupported_fields_not_failures(ruleset, tmp_path):
    b = _copy(tmp_path, A)
    p = b / "vm" / "smi.txt"
    p.write_text(p.read_text().replace("Chassis Serial Number                          : N/A",
                                       "Chassis Serial Number                          : [N/A]"))
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])
