"""Pastes in the shapes round rCA2 measured (issue 11, facts/lines.py): journalctl's stamp in the reader's locale and
its short-full form, an RFC 3339 time with its offset before a line (kubectl logs --timestamps, Grafana's download),
and a numbered listing's line numbers (cat -n, grep -n, an editor's gutter). Each form strips to the line as the
program wrote it, line for line; the near misses stay."""
import pytest

from stethoscope.engine.parse_pool import parse_one
from stethoscope.facts.lines import normalise
from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

# a real NCCL line (fixtures/artefacts/nccl_log, NVIDIA/nccl#1710's async event) and a real kernel line
NCCL = "node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error"
# ThreeStones1029/ThreeStones1029.github.io, _posts/2024-06-28-...Unknown Error.md: an nvidia-bug-report.log of a zh_CN host
ZH = "6月 28 02:52:53 jjf-Super-Server kernel: NVRM: Xid (PCI:0000:c2:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


@pytest.mark.parametrize("stamp", ["déc. 02 09:56:04", "févr. 02 09:56:04.123456", "Mär 26 07:38:49", "dic 02 09:56:04",
                                   "дек 02 09:56:04", "12月 02 09:56:04", " 6月 28 02:52:53", "joulu 02 09:56:04",
                                   "Tue 2025-03-04 10:11:12 CET", "2025-03-04T10:11:12.123456+01:00"])
def test_a_journal_label_in_any_locale_goes(stamp):
    assert normalise(f"{stamp} gpu-node-3 python3[4242]: {NCCL}\n") == NCCL + "\n"


def test_a_kernel_line_under_a_localised_stamp_stays_the_kernel_log_s():
    """The kernel's lines keep their label (the kernel log's reader reads it), in any locale, and are its records."""
    assert normalise(ZH + "\n") == ZH + "\n"
    assert kernel_log.detect(ZH + "\n")
    assert kernel_log.record_lines([ZH, "déc. 02 09:56:04 host kernel: pcieport 0000:00:01.0: AER: x"]) == {1, 2}
    res = kernel_log.parse(Artefact(path="dmesg.txt", text=ZH + "\n", node="n1"))
    assert [(f.kind, f.xid) for f in res.facts if f.kind == "xid_event"] == [("xid_event", 79)]


@pytest.mark.parametrize("line", [
    "Error 02 09:56:04 is what it said: nothing",  # a word, a day and a time that are no stamp, host and tag
    "déc. 02 09:56:04 host kernel: NVRM: GPU at PCI:0000:01:00: GPU-5fc0bcec",  # the kernel's own: kept
])
def test_near_misses_of_a_localised_stamp_are_kept(line):
    assert normalise(line + "\n") == line + "\n"


@pytest.mark.parametrize("prefix", ["2025-07-25T07:53:08.217487080+08:00 ", "2024-05-01T10:00:00+02:00\t",
                                    "1714550400123\t2024-05-01T08:00:00.123Z\t", "2024-05-01 10:00:00.123\t"])
def test_a_time_with_its_offset_or_grafana_s_download_goes(prefix):
    assert normalise(f"{prefix}{NCCL}\n{prefix}OSError: [Errno 28] No space left on device\n") == \
        f"{NCCL}\nOSError: [Errno 28] No space left on device\n"


def test_an_offset_time_before_a_journal_host_and_tag_stays_journald_s():
    line = "2025-07-25T07:53:08.217487080+08:00 node1 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus."
    assert normalise(line + "\n") == line + "\n"


LINES = [NCCL, "", "Traceback (most recent call last):", "RuntimeError: NCCL error: unhandled system error"]


@pytest.mark.parametrize("gutter", [
    lambda n: f"{n:6d}\t",            # cat -n, nl
    lambda n: f"{n + 811}:",          # grep -n
    lambda n: f"/var/log/syslog:{n + 811}:",  # grep -Hn
    lambda n: f"{n:4d} | ",           # an editor's gutter
    lambda n: f"{n:4d} \u2502 ",      # bat's
])
def test_a_numbered_listing_loses_its_numbers(gutter):
    text = "\n".join(gutter(n) + ln for n, ln in enumerate(LINES, 1)) + "\n"
    assert normalise(text) == "\n".join(LINES) + "\n"


def test_grep_context_lines_and_separators():
    before = "node201:127799:127863 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"
    text = f"811-{before}\n812:{NCCL}\n813-{before}\n--\n900:{NCCL}\n"
    assert normalise(text) == f"{before}\n{NCCL}\n{before}\n--\n{NCCL}\n"


@pytest.mark.parametrize("text", [
    # NCCL's host:pid:tid of one rank after another: rising pids, no gutter
    "node1:1633:1633 [0] NCCL INFO a\nnode1:1634:1634 [1] NCCL INFO b\nnode1:1635:1635 [2] NCCL INFO c\n",
    "09:00:01 a\n10:00:02 b\n11:00:03 c\n",  # a log stamped by the hour
    "2023-12-31 a\n2024-01-01 b\n2025-01-01 c\n",  # dates, no grep match among them
    "0\tNVIDIA H100\n1\tNVIDIA H100\n",  # a table's index column, tab-separated, not cat -n's six columns
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536\n    link/loopback 00:00:00:00:00:00\n2: eth0: <BROADCAST> mtu 1500\n",  # ip addr
    # a program's own source location before its message (NVSHMEM's, NVIDIA/nvshmem#42 and NVIDIA/TensorRT-LLM#17060):
    # '<source file>:<line>: ' is no grep -Hn label (the fresh-clone CI at f73235e9 lost both NVSHMEM rules' cases to it)
    "main_nvshmem/src/modules/transport/ibrc/ibrc.cpp:420: non-zero status: 22 ibv_modify_qp failed.\n",
    ".../src/host/mem/mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed\n"
    ".../src/host/mem/mem_heap.cpp:1590: non-zero status: 7 allocate_physical_memory_to_heap failed\n",
])
def test_numbers_that_are_no_listing_s_stay(text):
    assert normalise(text) == text


def test_a_numbered_kernel_log_is_read_and_cites_the_line_as_pasted():
    raw = ("   812\tJun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303887] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
           "   813\tJun  5 22:36:51 zozio32-p6-2487ea kernel: [ 4564.303890] NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus.\n")
    res = parse_one(Artefact(path="kern.log", text=raw, node="n1"))
    xids = [f for f in res.facts if f.kind == "xid_event"]
    assert [f.xid for f in xids] == [79]
    assert xids[0].evidence.text.startswith("   813\t")


def test_the_zh_cn_journal_fixture_reads_both_stamps_as_one_gpu_fallen_off():
    """fixtures/artefacts/kernel_log/threestones_zh_cn_journal_xid79.log: the journal's lines under '6月 28' and dmesg's
    two lines of the same event; each a kernel record, the Xid 79 of GPU 0000:c2:00.0 read."""
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "fixtures/artefacts/kernel_log/threestones_zh_cn_journal_xid79.log"
    text = path.read_text(encoding="utf-8")
    assert kernel_log.record_lines(text.splitlines()) == {1, 2, 3, 4}
    res = parse_one(Artefact(path=str(path), text=text, node="n1"))
    assert {(f.xid, f.pci_bus_id) for f in res.facts if f.kind == "xid_event"} == {(79, "0000:c2:00.0")}
