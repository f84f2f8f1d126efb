"""kernel_log_gds: nvidia-fs (GPUDirect Storage) I/O failures in the kernel log (real lines:
fixtures/artefacts/kernel_log/README.md; forms: NVIDIA/gds-nvidia-fs src/nvfs-core.c)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.kernel_log_gds import errno_name

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/kernel_log"


def _gds(text: str):
    assert kernel_log.detect(text)
    art = Artefact(path="dmesg.log", text=text, node="n1")
    art.normalise()
    return [(f.evidence.line, f.step, f.operation, f.error, f.error_name)
            for f in kernel_log.parse(art).facts if f.kind == "gds_io_error"]


def test_rw_verify_area_and_io_failed_efault():
    got = _gds((FIX / "gdsnvidiafs60_nvidia_fs_rw_verify_area_efault.log").read_text())
    assert got[:2] == [(4, "rw_verify_area", None, -14, "EFAULT"), (5, "io", "write", -14, "EFAULT")]
    assert (7, "io", "read", -14, "EFAULT") in got
    assert len(got) == 8  # the three XFS mount lines above them give none


def test_write_io_failed_erestartsys_dmesg_T():
    got = _gds((FIX / "gdsnvidiafs26_dmesg_T_nvidia_fs_write_io_failed_erestartsys.log").read_text())
    assert got[0] == (1, "io", "write", -512, "ERESTARTSYS") and len(got) == 5


def test_completion_form_from_the_source():
    # nvfs_io_ret's nvfs_err("%s:%d IO failed with %ld\n", __func__, __LINE__, ret) filled in (v2.28.4's line)
    assert _gds("[ 1001.000001] nvidia-fs:nvfs_io_ret:898 IO failed with -5\n") == [(1, "nvfs_io_ret", None, -5, "EIO")]


def test_debug_lines_are_no_error():
    text = (FIX / "gdsnvidiafs46_nvidia_fs_debug_lines.log").read_text()
    art = Artefact(path="dmesg.log", text=text, node="n1")
    art.normalise()
    assert [f for f in kernel_log.parse(art).facts if f.kind == "gds_io_error"] == []


def test_errno_names():
    assert (errno_name(-14), errno_name(-95), errno_name(-512), errno_name(-9999)) == ("EFAULT", "EOPNOTSUPP", "ERESTARTSYS", "")


def test_pin_gpu_pages_refused():
    # NVIDIA/gds-nvidia-fs#14 (an RTX 3090), with its va_start=... continuation line, pasted without a prefix
    assert _gds((FIX / "gdsnvidiafs14_nvfs_pin_gpu_pages_einval.log").read_text()) == [(1, "pin_gpu_pages", None, -22, "EINVAL")]
    # the later release's call and spacing (a public repository's GDS notes)
    assert _gds("[ 88.123456] nvidia-fs: nvfs_pin_gpu_pages: Error ret -12 invoking nvidia_p2p_get_pages_persistent\n") == [
        (1, "pin_gpu_pages", None, -12, "ENOMEM")]
