"""GDRCopy's failures as its tests, its library and its kernel driver print them: the CPU mapping of GPU memory
(libgdrapi and the gdrdrv kernel module) that NVSHMEM's proxy and IBGDA set-up, UCX's gdr_copy transport, NCCL and
libfabric use, and whose tests (gdrcopy_sanity, gdrcopy_copybw, gdrcopy_copylat) operators run to check a node.

The forms (NVIDIA/gdrcopy, v1.3 to v2.6)::

    fprintf(stderr, "gdr_open error: Is gdrdrv driver installed and loaded?\\n");          tests/common.hpp gdr_open_safe (2.2-)
    fprintf(stderr, "Assertion \\"%s\\" failed at %s:%d\\n", #x, __FILE__, __LINE__);         tests/common.hpp ASSERT
    gdr_err("error opening driver (errno=%d/%s)\\n", ret, strerror(ret));                   src/gdrapi.c gdr_open (v1.3-)
    gdr_err("Error getting the gdrdrv driver version with ioctl error (errno=%d). gdrdrv might be too old.\\n", ret);
    gdr_err("The minimum required gdrdrv driver version is %d.%d but the current gdrdrv version is %d.%d\\n", ...);
    gdr_err("gdrdrv driver requires libgdrapi version %d.%d or above but the current libgdrapi version is %d.%d\\n", ...);
      (the library's gdr_err prints "ERR:  " then the message, only under GDRCOPY_ENABLE_LOGGING: src/gdrapi_internal.h)
    gdr_err("nvidia_p2p_get_pages(va=%llx len=%lld p2p_token=%llx va_space=%x callback=%px) failed [ret = %d]\\n", ...);
      (the kernel module's gdr_err: printk(DEVNAME ":%s:" FMT, __func__) since 2.1, DEVNAME ":" before; src/gdrdrv/gdrdrv.c)

UCX's gdr_copy transport prints its own lines when it calls the library (openucx/ucx src/uct/cuda/gdr_copy/gdr_copy_md.c,
``[<time>] [<host>:<pid>:<thread>] gdr_copy_md.c:<line> UCX  ERROR <message>``)::

    ucs_error("gdr_pin_buffer failed. length :%lu ret:%d", length, ret);          v1.3-v1.21 (ucs_log at error level 1.12-)
    ucs_log(log_level, "GPU memory pin failed. length %lu ret %d pin_flags %u", ...);   v1.22- (gdr_pin_buffer_v2)
    ucs_error("failed to open gdr copy");                                          v1.3- (uct_gdr_copy_md_open: gdr_open() NULL)
    ucs_warn("could not open gdr copy, built for v%d.%d but loaded v%d.%d", ...);   v1.18- (the library's API of another release)

An MPI library's wrapper (the thread's environment; its source is not public) says the library's open failed too::

    GDRCOPY library "libgdrapi.so" unable to open GDR driver, is gdrdrv.ko loaded?

Sample content, real lines::

    gdr_open error: Is gdrdrv driver installed and loaded?                              (NVIDIA/gdrcopy#234, sanity with gdrdrv loaded by modprobe)
    Assertion "(gdr_pin_buffer(g, d_ptr, size, 0, 0, &mh)) == (0)" failed at sanity.cpp:187   (NVIDIA/gdrcopy#164)
    gdrdrv:nvidia_p2p_get_pages(va=704fe0000 len=327680 p2p_token=0 va_space=0) failed [ret = -22]   (NVIDIA/gdrcopy#30, gdrcopy 1.x)
    [1613846298.710001] [vulcan04:8752 :0]     gdr_copy_md.c:122  UCX  ERROR gdr_pin_buffer failed. length :65536 ret:22   (openucx/ucx#6382)
    GDRCOPY library "libgdrapi.so" unable to open GDR driver, is gdrdrv.ko loaded?   (NVIDIA/gdrcopy#72)

Facts: ``gdrcopy_open_failed`` (the library could not open /dev/gdrdrv or use the driver behind it: the reason, errno
and strerror's text where printed) and ``gdrcopy_pin_failed`` (pinning GPU memory failed: the kernel's line with its
return value, a test's assertion on gdr_pin_buffer, or UCX's gdr_copy transport's line with the library's return
value). The tests' other assertions, their "CUDA error: ..." lines
(the cuda_app reader's) and the module's load messages make no fact. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import GdrcopyOpenFailed, GdrcopyPinFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "gdrcopy_log"

# gdr_open error: Is gdrdrv driver installed and loaded?   (NVIDIA/gdrcopy#234)
#   (read up to "installed": a paste cut there, as #234's last line is, is the same message)
_OPEN_TEST = re.compile(r"\bgdr_open error: Is gdrdrv driver installed(?: and loaded\?)?")
# ERR:  error opening driver (errno=2/No such file or directory)   (format filled; two blanks after "ERR:", fewer pasted)
_OPEN_DEVICE = re.compile(r"\bERR: {1,4}error opening driver \(errno=(?P<errno>\d{1,4})/(?P<error>[^()\n]{1,80})\)")
# ERR:  Error getting the gdrdrv driver version with ioctl error (errno=22). gdrdrv might be too old.   (format filled)
_VERSION_QUERY = re.compile(r"\bERR: {1,4}Error getting the gdrdrv driver version with ioctl error \(errno=(?P<errno>\d{1,4})\)")
# ERR:  The minimum required gdrdrv driver version is 2.4 but the current gdrdrv version is 2.2   (format filled)
# ERR:  gdrdrv driver requires libgdrapi version 2.4 or above but the current libgdrapi version is 2.3   (format filled)
_TOO_OLD = re.compile(r"\bERR: {1,4}(?:(?P<drv>The minimum required gdrdrv driver version is \d{1,3}\.\d{1,3} but the current"
                      r" gdrdrv version is \d{1,3}\.\d{1,3})|(?P<api>gdrdrv driver requires libgdrapi version \d{1,3}\.\d{1,3}"
                      r" or above but the current libgdrapi version is \d{1,3}\.\d{1,3}))")
# Assertion "(gdr_pin_buffer(g, d_ptr, size, 0, 0, &mh)) == (0)" failed at sanity.cpp:187   (NVIDIA/gdrcopy#164)
#   (2.0's tests print the same to stdout; the expression holds no double quote)
_PIN_TEST = re.compile(r'Assertion "\(gdr_pin_buffer\([^"\n]{1,200}" failed at [\w.-]{1,64}:\d{1,6}')
# gdrdrv:nvidia_p2p_get_pages(va=704fe0000 len=327680 p2p_token=0 va_space=0) failed [ret = -22]   (NVIDIA/gdrcopy#30)
# gdrdrv:__gdrdrv_pin_buffer:nvidia_p2p_get_pages(va=7f2a40000000 len=65536 p2p_token=0 va_space=0 callback=000000004a8bc5e3) failed [ret = -22]   (format filled, 2.1-)
_PIN_KERNEL = re.compile(r"\bgdrdrv:(?:\w{1,64}:)?nvidia_p2p_get_pages\(va=[^()\n]{1,200}\) failed \[ret = (?P<ret>-?\d{1,6})\]")

# [1613846298.710001] [vulcan04:8752 :0]     gdr_copy_md.c:122  UCX  ERROR gdr_pin_buffer failed. length :65536 ret:22   (openucx/ucx#6382)
# gdr_copy_md.c:211 UCX  ERROR GPU memory pin failed. length 65536 ret 22 pin_flags 0   (format filled, UCX 1.22-)
#   (UCX's prefix optional: the message is UCX's own words; libfabric's "gdr_pin_buffer failed: %d" is another form)
_PIN_UCX = re.compile(r"\b(?:gdr_pin_buffer failed\. length :\d{1,20} ret:(?P<ret>-?\d{1,6})"
                      r"|GPU memory pin failed\. length \d{1,20} ret (?P<ret2>-?\d{1,6}) pin_flags \d{1,10})")
# [1681984000.123456] [node1:1234 :0]   gdr_copy_md.c:482  UCX  ERROR failed to open gdr copy   (format filled)
#   (read after UCX's level only: "failed to open gdr copy" at a line's end, the whole message)
_OPEN_UCX = re.compile(r"\bUCX +ERROR +failed to open gdr copy[ \t.]*$")
# gdr_copy_md.c:283 UCX  WARN  could not open gdr copy, built for v2.4 but loaded v2.3   (format filled, UCX 1.18-)
_API_UCX = re.compile(r"\bcould not open gdr copy, built for v\d{1,3}\.\d{1,3} but loaded v\d{1,3}\.\d{1,3}")
# GDRCOPY library "libgdrapi.so" unable to open GDR driver, is gdrdrv.ko loaded?   (NVIDIA/gdrcopy#72)
_OPEN_WRAPPER = re.compile(r'\bGDRCOPY library "[^"\n]{1,200}" unable to open GDR driver(?:, is gdrdrv\.ko loaded\?)?')

_LITERALS = ("gdr_open error", "ERR:", "gdr_pin_buffer(", "nvidia_p2p_get_pages(", "gdr_pin_buffer failed. length",
             "GPU memory pin failed.", "open gdr copy", "unable to open GDR driver")
_FORMS = (_OPEN_TEST, _OPEN_DEVICE, _VERSION_QUERY, _TOO_OLD, _PIN_TEST, _PIN_KERNEL, _PIN_UCX, _OPEN_UCX, _API_UCX,
          _OPEN_WRAPPER)


def detect(text: str) -> bool:
    return any(lit in text for lit in _LITERALS) and any(form.search(text) for form in _FORMS)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(_LITERALS, artefact):
        if (m := _OPEN_TEST.search(line) or _OPEN_UCX.search(line) or _OPEN_WRAPPER.search(line)) is not None:
            fb.add(GdrcopyOpenFailed, n, reason="open_failed", message=m[0])
        elif (m := _API_UCX.search(line)) is not None:
            fb.add(GdrcopyOpenFailed, n, reason="library_api_mismatch", message=m[0])
        elif (m := _OPEN_DEVICE.search(line)) is not None:
            fb.add(GdrcopyOpenFailed, n, reason="device_open", errno=int(m["errno"]), error=m["error"].strip(),
                   message=m[0])
        elif (m := _VERSION_QUERY.search(line)) is not None:
            fb.add(GdrcopyOpenFailed, n, reason="version_query", errno=int(m["errno"]), message=m[0])
        elif (m := _TOO_OLD.search(line)) is not None:
            fb.add(GdrcopyOpenFailed, n, reason="gdrdrv_too_old" if m["drv"] else "libgdrapi_too_old", message=m[0])
        elif (m := _PIN_TEST.search(line)) is not None:
            fb.add(GdrcopyPinFailed, n, form="test_assertion", message=m[0])
        elif (m := _PIN_KERNEL.search(line)) is not None:
            fb.add(GdrcopyPinFailed, n, form="kernel", ret=int(m["ret"]), message=m[0])
        elif (m := _PIN_UCX.search(line)) is not None:
            fb.add(GdrcopyPinFailed, n, form="ucx", ret=int(m["ret"] or m["ret2"]), message=m[0])
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py): one RE2 set over the whole text
SIGNATURES = tuple(form.pattern for form in _FORMS)
