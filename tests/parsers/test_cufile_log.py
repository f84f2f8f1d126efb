"""cufile_log: the log of GPUDirect Storage's user library (libcufile)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import cufile_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/cufile_log"


def facts_of(name: str):
    text = (FIX / name).read_text()
    assert cufile_log.detect(text)
    return [(f.kind, f.evidence.line, f.event, f.count) for f in
            cufile_log.parse(Artefact(path="cufile.log", text=text, node="node1")).facts]


def test_gds_nvidia_fs_62_dm0_and_handle_register():
    assert facts_of("gdsnvidiafs62_dm0_unsupported_handle_register.log") == [
        ("cufile_error", 1, "volume_attributes_unavailable", 2),
        ("cufile_error", 2, "volume_attributes_unavailable", 2),
        ("cufile_notice", 3, "compat_mode_for_file", 1),
        ("cufile_error", 6, "volume_attributes_unavailable", 1),
        ("cufile_error", 7, "handle_register_failed", 1),
        ("cufile_error", 8, "handle_register_failed", 1),
        # the excerpt's last line, cut inside a repeat of it ("ERROR  cufio-fs:268 Uns"), counts as that repeat
        ("cufile_error", 9, "file_not_supported", 2),
        ("cufile_error", 10, "file_not_supported", 1),
    ]


def test_gds_nvidia_fs_4_bar1_and_rdma_pairs_one_fact_per_message():
    assert facts_of("gdsnvidiafs4_gdsio_500m_bar1.log") == [
        ("cufile_notice", 1, "userspace_rdma_disabled", 4),
        ("cufile_error", 3, "rdma_device_unpaired", 4),
        ("cufile_error", 9, "bar1_exhausted", 1),
    ]


def test_a_message_not_catalogued_is_still_an_error():
    assert facts_of("kvikio508_liburcu_not_loaded.log") == [("cufile_error", 1, "other", 1), ("cufile_error", 3, "other", 1)]


def test_nvme_not_registered():
    assert facts_of("nvme_not_registered_local_ssd.log") == [("cufile_error", 1, "nvme_not_registered", 2)]


@pytest.mark.parametrize("message,event", [
    ("nvidia-fs.ko driver not loaded", "nvidia_fs_not_loaded"),
    ("nvidia-fs MAP ioctl failed : ioctl_return: -22 ioctl_ret: -1", "buffer_register_failed"),  # tinygrad/open-gpu-kernel-modules#50
    ("map failed", "buffer_register_failed"),
    ("error allocating nvfs handle, size: 2097152", "buffer_register_failed"),
    ("cuFileBufRegister error, object allocation failed", "buffer_register_failed"),
    ("cuInit Failed, error CUDA_ERROR_NO_DEVICE", "cufile_init_failed"),
    ("cuFileHandleRegister error: GPUDirect Storage not supported on current file", "file_not_supported"),
    ("unable to load,  liburcu-bp.so.6", "other"),
])
def test_events(message, event):
    assert cufile_log.event_of(message) == event


def test_other_levels_and_other_logs_are_not_read():
    text = (" 27-06-2025 07:45:35:135 [pid=48882 tid=48882] INFO  cufio:100 cuFile driver opened\n"
            " 27-06-2025 07:45:35:135 [pid=48882 tid=48882] NOTICE  cufio-fs:451 dumping volume attributes: DEVNAME:/dev/nvme0n1p2\n")
    assert cufile_log.detect(text)
    assert cufile_log.parse(Artefact(path="cufile.log", text=text, node="n")).facts == []
    assert not cufile_log.detect("[2024-01-01 00:00:00] ERROR something [pid=1]\n")


def test_gds_nvidia_fs_78_progress_lines_are_no_failure():
    # CUFILE_LOGGING_LEVEL=TRACE on a working GDS path: INFO lines only, the P2PDMA probe's CUDA_ERROR_NOT_SUPPORTED among them
    text = (FIX / "gdsnvidiafs78_trace_p2pdma_probe.log").read_text()
    assert cufile_log.detect(text)
    assert cufile_log.parse(Artefact(path="cufile.log", text=text, node="n")).facts == []
    lines = text.splitlines()
    assert all(cufile_log.progress_line(line) for line in lines)
    assert not cufile_log.progress_line(" 27-06-2025 07:45:35:135 [pid=48882 tid=48882] ERROR  cufio:340 cuFileHandleRegister error: internal error")
    assert not cufile_log.progress_line("INFO [pid=1 tid=1] something")  # not libcufile's line
