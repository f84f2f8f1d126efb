"""cufile.log: the log of GPUDirect Storage's user library (libcufile), under the programs that read
and write files straight into GPU memory through it (kvikio, DALI, cuDF, gdsio, GDS checkpoint
loaders). libcufile writes it in the program's working directory, or cufile.json's logging.dir
(the GDS troubleshooting guide, "Log Files for the GDS Library"); each line is a date, a time with
milliseconds, the process and thread, a level (ERROR, WARN, NOTICE, INFO, DEBUG, TRACE), the
library's module and source line, and the message, often with a blank before the date. Sample
content (real lines; NVIDIA/gds-nvidia-fs#62, #4, tinygrad/open-gpu-kernel-modules#50)::

     27-06-2025 07:45:35:135 [pid=48882 tid=48882] NOTICE  cufio:294 cuFileHandleRegister GDS not supported or disabled by config, using cuFile posix read/write with compat mode enabled
     27-06-2025 08:00:30:92 [pid=57637 tid=57637] ERROR  cufio-fs:268 Unsupported block device: /dev/dm-0
     27-06-2025 07:45:35:135 [pid=48882 tid=48882] ERROR  cufio:340 cuFileHandleRegister error: internal error
    11-10-2023 15:49:50:24 [pid=1502621 tid=1502621] NOTICE  cufio-rdma:175 nvidia_peermem.ko is not loaded. Disabling UserSpace RDMA access.
     11-10-2023 15:49:51:316 [pid=1502618 tid=1503329] ERROR  0:1072 Inc-bar-usage failed: size 524288000 remaining bytes 281018368
     29-12-2025 13:30:14:51 [pid=111425 tid=112507] ERROR  0:522 nvidia-fs MAP ioctl failed : ioctl_return: -22 ioctl_ret: -1

Facts: ``cufile_error`` per distinct ERROR message of the file (``count`` its repeats; every process
of a job logs the same), with ``event`` from the library's own forms below, ``other`` for one not
catalogued (a fault still: reported, unexplained, until a rule knows it); ``cufile_notice`` for the
NOTICEs that say cuFile runs without GDS (compatibility mode: POSIX I/O through host memory) or
without its RDMA path. Lines of the other levels are the library's progress and are not read.
Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import CufileError, CufileNotice  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "cufile_log"

#  27-06-2025 07:45:35:135 [pid=48882 tid=48882] ERROR  cufio-fs:328 error creating udev_device for block device dev_no: 0:53
#  11-10-2023 15:49:51:316 [pid=1502618 tid=1503329] ERROR  0:1072 Inc-bar-usage failed: size 524288000 remaining bytes 281018368
#   the message runs to the line's end, its trailing blanks stripped in code (a lazy message before [ \t]*$ rescans a long run of
#   blanks once per character: bench/redos.py)
_LINE = re.compile(
    r"^[ \t]{0,4}\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}:\d{1,3} \[pid=\d{1,10} tid=\d{1,10}\] "
    r"(?P<level>ERROR|WARN|NOTICE|INFO|DEBUG|TRACE) {1,4}(?P<where>[\w-]{1,40}:\d{1,6}) (?P<msg>[^\n]{0,1000})$", re.M)

# libcufile's messages, as its logs print them (its source is closed: the forms are those of real logs, each named):
_EVENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # cufio-drv:825 nvidia-fs.ko driver not loaded                                  (public repositories' GDS work notes quoting cufile.log)
    # nvidia-fs driver is not loaded          (cufile.h cufileop_status_error: CU_FILE_DRIVER_NOT_INITIALIZED's text, as programs print it)
    ("nvidia_fs_not_loaded", re.compile(r"nvidia-fs\.ko driver not loaded|nvidia-fs driver is not loaded")),
    # cufio-fs:199 NVMe Driver not registered with nvidia-fs!!!                      (a public repository's GDS test notes: cat cufile.log on local NVMe)
    ("nvme_not_registered", re.compile(r"NVMe Driver not registered with nvidia-fs")),
    # cuFileHandleRegister error: GPUDirect Storage not supported on current file    (CU_FILE_IO_NOT_SUPPORTED's text, cuFileGetErrorString)
    # cufio-fs:268 Unsupported block device: /dev/dm-0                               (gds-nvidia-fs#62)
    # cufio-fs:68 mount options not specified for device in mount table /dev/dm-0   (gds-nvidia-fs#62)
    ("file_not_supported", re.compile(r"GPUDirect Storage not supported on current file|Unsupported block device"
                                      r"|mount options not specified for device")),
    # cufio-fs:328 error creating udev_device for block device dev_no: 0:53          (gds-nvidia-fs#62)
    # cufio-fs:767 error getting volume attributes error for device: dev_no: 0:53    (gds-nvidia-fs#62)
    # cufio-obj:242 unable to get volume attributes for fd 56                        (gds-nvidia-fs#62)
    ("volume_attributes_unavailable", re.compile(r"error creating udev_device|volume attributes")),
    # cufio:312 cuFileHandleRegister error, failed to allocate file object           (gds-nvidia-fs#62)
    # cufio:340 cuFileHandleRegister error: internal error
    ("handle_register_failed", re.compile(r"cuFileHandleRegister error")),
    # 0:1072 Inc-bar-usage failed: size 524288000 remaining bytes 281018368          (gds-nvidia-fs#4: a 500 MB buffer)
    ("bar1_exhausted", re.compile(r"Inc-bar-usage failed")),
    # 0:522 nvidia-fs MAP ioctl failed : ioctl_return: -22 ioctl_ret: -1              (tinygrad/open-gpu-kernel-modules#50)
    # 0:555 map failed / cufio-obj:156 error allocating nvfs handle, size: 2097152
    # cufio_core:1648 cuFileBufRegister error, object allocation failed
    ("buffer_register_failed", re.compile(r"nvidia-fs MAP ioctl failed|^map failed$|error allocating nvfs handle"
                                          r"|cuFileBufRegister error")),
    # cuInit Failed, error CUDA_ERROR_NO_DEVICE / cuFile initialization failed      (cuCIM's cuFile on a host without a GPU, as public
    #                                                                                repositories filter them from its stderr)
    ("cufile_init_failed", re.compile(r"cuInit Failed|cuFile initialization failed")),
    # cufio-dr:229 No matching pair for network device to closest GPU found in the platform   (gds-nvidia-fs#4)
    ("rdma_device_unpaired", re.compile(r"No matching pair for network device")),
)
# cufio:294 cuFileHandleRegister GDS not supported or disabled by config, using cuFile posix read/write with compat mode enabled   (gds-nvidia-fs#62)
# cufio-rdma:175 nvidia_peermem.ko is not loaded. Disabling UserSpace RDMA access.                                                   (gds-nvidia-fs#4)
_NOTICES = (("compat_mode_for_file", re.compile(r"compat mode enabled")),
            ("userspace_rdma_disabled", re.compile(r"Disabling UserSpace RDMA access")))


#  26-02-2026 03:08:04:646 [pid=21281 tid=21281] INFO   cufio-drv:828 pci_p2pdma not supported errornum: 801 error:  CUDA_ERROR_NOT_SUPPORTED
#   (gds-nvidia-fs#78: gdsio then wrote through GDS, XferType GPUD) - the library's INFO, DEBUG and TRACE lines are its progress
#   and its probes of what the platform offers, no failure: other readers leave them to this one (progress_line)
_PROGRESS = re.compile(r"\[pid=\d{1,10} tid=\d{1,10}\] (?:INFO|DEBUG|TRACE) ")


def progress_line(line: str) -> bool:
    """Whether ``line`` is one of libcufile's INFO, DEBUG or TRACE lines (its progress and probes: not read)."""
    return "[pid=" in line and _PROGRESS.search(line) is not None and _LINE.match(line) is not None


def detect(head: str) -> bool:
    return "[pid=" in head and " tid=" in head and _LINE.search(head) is not None


def event_of(message: str) -> str:
    """The catalogued event of an ERROR message, ``other`` for one not catalogued."""
    return next((name for name, pat in _EVENTS if pat.search(message)), "other")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    # (kind, key) -> [first line, count, fields]: the facts are frozen, so repeats are counted first
    found: dict[tuple[str, str], list] = {}
    for m in _LINE.finditer(artefact.text):
        level, msg = m["level"], m["msg"].strip()
        result.lines_used += 1
        if level == "ERROR":
            key, fields = ("error", msg), {"event": event_of(msg), "component": m["where"], "message": msg}
        elif level == "NOTICE" and (event := next((n for n, p in _NOTICES if p.search(msg)), None)) is not None:
            key, fields = ("notice", event), {"event": event, "message": msg}
        else:
            continue
        if key not in found and fields.get("event") == "other":
            # a message cut short by the paste ("ERROR  cufio-fs:268 Uns") that starts one already logged: its repeat
            key = next((k for k in found if k[0] == "error" and k[1].startswith(msg)), key) if msg else key
        if key in found:
            found[key][1] += 1
        else:
            found[key] = [artefact.line_of(m.start()), 1, fields]
    for (kind, _), (line, count, fields) in found.items():
        fb.add(CufileError if kind == "error" else CufileNotice, line, count=count, **fields)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}:\d+ \[pid=\d+ tid=\d+\] (?:ERROR|WARN|NOTICE|INFO|DEBUG|TRACE) ",)
