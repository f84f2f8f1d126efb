"""Kernel log lines of the GPUDirect Storage kernel driver (nvidia-fs) failing an I/O, for
:mod:`stethoscope.facts.parsers.kernel_log`. They give ``gds_io_error`` facts.

nvidia-fs prints through ``nvfs_msg(KERN_ERR, ...)``: ``printk(KRNLVL DEVICE_NAME ":" FMT)`` with
``DEVICE_NAME "nvidia-fs"`` (src/nvfs-core.h), so its lines start ``nvidia-fs:`` with no space.
The error forms of src/nvfs-core.c (NVIDIA/gds-nvidia-fs, the same text in every tag from v2.3.1
to v2.28.4; ``opstr()`` is ``read`` or ``write``)::

    nvfs_err("rw_verify_area failed with %zd\\n", ret);          nvfs_direct_io: the file range check refused the I/O
    nvfs_err("%s IO failed :%ld\\n", opstr(op), ret);            nvfs_io_start_op: the file system's read/write failed
    nvfs_err("%s:%d IO failed with %ld\\n", __func__, __LINE__, ret);   nvfs_io_ret: a synchronous I/O completed with an error

Real sample lines (NVIDIA/gds-nvidia-fs#60, nvidia-fs-dkms 2.25.6-1 on XFS; #26, VAST over NFS/RDMA)::

    [  245.749599] nvidia-fs:rw_verify_area failed with -14
    [  245.749616] nvidia-fs:write IO failed :-14
    [Sat Sep  9 20:24:26 2023] nvidia-fs:write IO failed :-512

An ``-EOPNOTSUPP`` of a file system that does not support GDS is logged at debug level by
nvidia-fs itself (``nvfs_dbg``) and, printed anyway, is read the same way: the errno says what.
Pinning a GPU buffer for direct I/O (nvfs_pin_gpu_pages, src/nvfs-mmap.c) fails when the NVIDIA
driver refuses it the GPU's pages: ``nvfs_err("%s:%d Error ret %d invoking nvidia_p2p_get_pages\n ...",
__func__, __LINE__, ret, ...)`` (later releases: ``nvidia_p2p_get_pages_persistent``), -22 EINVAL on a
GPU the driver gives no third-party peer-to-peer (GeForce), -12 ENOMEM when BAR1 has no room left (the
NVRM line ``RmThirdPartyP2PBAR1GetPages: no space for BAR1 mappings`` beside it). Real lines
(NVIDIA/gds-nvidia-fs#14, an RTX 3090; a public repository's GDS notes, a Quadro RTX 5000's 256 MiB BAR1)::

    nvidia-fs:nvfs_pin_gpu_pages:1292 Error ret -22 invoking nvidia_p2p_get_pages
    nvidia-fs: nvfs_pin_gpu_pages: Error ret -12 invoking nvidia_p2p_get_pages_persistent

They are ``gds_io_error`` with step ``pin_gpu_pages`` (the I/O into that buffer cannot go direct).
nvidia-fs's informational lines (``nvidia_fs: Initializing nvfs driver module``, ``nvfs ioctl map
success``) give nothing; its module-load refusals are :mod:`kernel_log_modules`' lines.
"""
from __future__ import annotations

import errno
import re

from stethoscope.facts.kinds.kernel import GdsIoError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import FactBuilder

#: the literal part of each line: kernel_log's keyword scan looks for these
KEYWORDS = r"nvidia-fs:(?:rw_verify_area failed|(?:read|write) IO failed|\w+:\d+ IO failed| ?\w+:\d* ?Error ret -?\d+ invoking nvidia_p2p_get_pages)"

# nvidia-fs:rw_verify_area failed with -14
# nvidia-fs:write IO failed :-14          nvidia-fs:read IO failed :-512
# nvidia-fs:nvfs_io_ret:898 IO failed with -5           (format filled, v2.28.4 line: no public thread pastes it)
_LINE = re.compile(
    r"nvidia-fs:(?:(?P<verify>rw_verify_area) failed with (?P<verr>-?\d+)"
    r"|(?P<op>read|write) IO failed :(?P<oerr>-?\d+)"
    r"|(?P<func>\w+):\d+ IO failed with (?P<ferr>-?\d+))\s*$"
)
# nvidia-fs:nvfs_pin_gpu_pages:1292 Error ret -22 invoking nvidia_p2p_get_pages                (NVIDIA/gds-nvidia-fs#14)
# nvidia-fs: nvfs_pin_gpu_pages: Error ret -12 invoking nvidia_p2p_get_pages_persistent        (a public repository's GDS notes)
#   (the first line of the message: its va_start=.../gpu_buf_length=... continuation follows on the next line)
_PIN = re.compile(r"nvidia-fs: ?(?P<func>\w{1,60}):(?:\d{1,6})? ?Error ret (?P<err>-?\d{1,6}) invoking nvidia_p2p_get_pages(?:_persistent)?\b")

#: the kernel's names where Python's errno has none (include/linux/errno.h's internal codes) or
#: another alias of the number (95: the kernel says EOPNOTSUPP, Python ENOTSUP)
_KERNEL_ERRNO = {95: "EOPNOTSUPP", 512: "ERESTARTSYS", 513: "ERESTARTNOINTR", 514: "ERESTARTNOHAND", 516: "ERESTART_RESTARTBLOCK",
                 529: "EIOCBQUEUED"}


def errno_name(code: int) -> str:
    """The errno symbol of a kernel return code: -14 -> EFAULT, -512 -> ERESTARTSYS."""
    return _KERNEL_ERRNO.get(abs(code)) or errno.errorcode.get(abs(code), "")


def parse_gds_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one nvidia-fs I/O failure line; False when the message is not one."""
    if "nvidia-fs:" not in msg:
        return False
    if (m := _LINE.search(msg)) is None:
        if (p := _PIN.search(msg)) is None:
            return False
        code = int(p["err"])
        b.add(GdsIoError, ln, step="pin_gpu_pages", operation=None, error=code, error_name=errno_name(code),
              message=msg.strip(), **common)
        used.add(ln)
        return True
    code = int(m["verr"] or m["oerr"] or m["ferr"])
    step = "rw_verify_area" if m["verify"] else ("io" if m["op"] else m["func"])
    b.add(GdsIoError, ln, step=step, operation=m["op"], error=code, error_name=errno_name(code),
          message=msg.strip(), **common)
    used.add(ln)
    return True
