"""gdrcopy_log: GDRCopy's tests, library and kernel driver failing, on real lines and its sources' formats."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import gdrcopy_log as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "gdrcopy_log"

ROWS = [
    # (line, (kind, reason or form, errno or ret) or None for no fact)
    ("gdr_open error: Is gdrdrv driver installed and loaded?",
     ("gdrcopy_open_failed", "open_failed", None)),                                   # NVIDIA/gdrcopy#234
    ("gdr_open error: Is gdrdrv driver installed", ("gdrcopy_open_failed", "open_failed", None)),  # #234's last line, cut
    ('Assertion "(gdr_pin_buffer(g, d_ptr, size, 0, 0, &mh)) == (0)" failed at sanity.cpp:187',
     ("gdrcopy_pin_failed", "test_assertion", None)),                                 # NVIDIA/gdrcopy#164
    ("gdrdrv:nvidia_p2p_get_pages(va=704fe0000 len=327680 p2p_token=0 va_space=0) failed [ret = -22]",
     ("gdrcopy_pin_failed", "kernel", -22)),                                          # NVIDIA/gdrcopy#30
    # src/gdrdrv/gdrdrv.c 2.1 and later, the function in the prefix (format filled), under dmesg's timestamp
    ("[ 1222.559230] gdrdrv:__gdrdrv_pin_buffer:nvidia_p2p_get_pages(va=fffd39e00000 len=65544 p2p_token=0 va_space=0 "
     "callback=ffffc080a8de0230) failed [ret = -22]", ("gdrcopy_pin_failed", "kernel", -22)),
    # src/gdrapi.c under GDRCOPY_ENABLE_LOGGING (formats filled)
    ("ERR:  error opening driver (errno=2/No such file or directory)", ("gdrcopy_open_failed", "device_open", 2)),
    ("ERR:  Error getting the gdrdrv driver version with ioctl error (errno=22). gdrdrv might be too old.",
     ("gdrcopy_open_failed", "version_query", 22)),
    ("ERR:  The minimum required gdrdrv driver version is 2.4 but the current gdrdrv version is 2.2",
     ("gdrcopy_open_failed", "gdrdrv_too_old", None)),
    ("ERR:  gdrdrv driver requires libgdrapi version 2.4 or above but the current libgdrapi version is 2.3",
     ("gdrcopy_open_failed", "libgdrapi_too_old", None)),
    # no fact: the module's load messages (NVIDIA/gdrcopy#334), its debug trace of the call, another assertion
    ("[691802.796281] gdrdrv:gdrdrv_init:loading gdrdrv version 2.5 built for proprietary NVIDIA driver", None),
    ("gdrdrv:__gdrdrv_pin_buffer:invoking nvidia_p2p_get_pages(va=0x7f2a40000000 len=65536 p2p_tok=0 va_tok=0 "
     "callback=000000004a8bc5e3)", None),
    ('Assertion "CUDA_SUCCESS == result" failed at sanity.cpp:214', None),
    ("ERR:  error Invalid argument(22) while mapping handle 2466d50, rounded_size=4096 offset=0", None),
    # UCX's gdr_copy transport (src/uct/cuda/gdr_copy/gdr_copy_md.c)
    ("[1613846298.710001] [vulcan04:8752 :0]     gdr_copy_md.c:122  UCX  ERROR gdr_pin_buffer failed. length :65536 ret:22",
     ("gdrcopy_pin_failed", "ucx", 22)),                                              # openucx/ucx#6382
    ("gdr_copy_md.c:211 UCX  ERROR GPU memory pin failed. length 65536 ret 22 pin_flags 0",
     ("gdrcopy_pin_failed", "ucx", 22)),                                              # UCX 1.22 (format filled)
    ("[1681984000.123456] [node1:1234 :0]   gdr_copy_md.c:482  UCX  ERROR failed to open gdr copy",
     ("gdrcopy_open_failed", "open_failed", None)),                                   # format filled
    ("gdr_copy_md.c:283 UCX  WARN  could not open gdr copy, built for v2.4 but loaded v2.3",
     ("gdrcopy_open_failed", "library_api_mismatch", None)),                          # UCX 1.18 (format filled)
    ('GDRCOPY library "libgdrapi.so" unable to open GDR driver, is gdrdrv.ko loaded?',
     ("gdrcopy_open_failed", "open_failed", None)),                                   # NVIDIA/gdrcopy#72
    # no fact: UCX's debug line that gdr_copy is left out (no failure a job sees), libfabric's own form (its reader's)
    ("ucs_debug: could not open gdr copy. disabling gdr copy resource", None),
    ("gdr_pin_buffer failed: 1", None),
]


def _key(f):
    if f.kind == "gdrcopy_open_failed":
        return (f.kind, f.reason, f.errno)
    return (f.kind, f.form, f.ret)


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = r.parse(Artefact(path="t.log", text=line + "\n")).facts
    assert [_key(f) for f in facts] == ([want] if want else [])


def test_device_open_keeps_the_strerror_text():
    (f,) = r.parse(Artefact(path="t.log", text="ERR:  error opening driver (errno=13/Permission denied)\n")).facts
    assert (f.errno, f.error) == (13, "Permission denied")


def test_gdrcopy234_every_line_of_sanity():
    text = (FIX / "gdrcopy234_sanity_gdr_open_error.log").read_text()
    assert r.detect(text)
    res = r.parse(Artefact(path="sanity.txt", text=text))
    assert [(f.reason, f.evidence.line) for f in res.facts] == [("open_failed", n) for n in range(3, 9)]
    assert res.facts[0].message == "gdr_open error: Is gdrdrv driver installed and loaded?"


def test_gdrcopy164_pin_assertions_not_the_others():
    text = (FIX / "gdrcopy164_sanity_pin_buffer_assertions.log").read_text()
    res = r.parse(Artefact(path="sanity.txt", text=text))
    assert [f.evidence.line for f in res.facts] == [3, 6, 7, 8, 9, 10, 11, 12]
    assert {f.form for f in res.facts} == {"test_assertion"}


def test_detect_needs_a_form_not_a_word():
    assert not r.detect("We use gdr_open error handling; ERR: none.\n")
    assert not r.detect("")


def test_ucx6382_the_pin_line_not_the_stack():
    res = r.parse(Artefact(path="out.txt", text=(FIX / "ucx6382_gdr_copy_md_pin_buffer_failed.log").read_text()))
    assert [(f.kind, f.form, f.ret, f.evidence.line) for f in res.facts] == [("gdrcopy_pin_failed", "ucx", 22, 1)]


def test_gdrcopy72_the_open_failure_inside_backticks():
    text = (FIX / "gdrcopy72_mpi_unable_to_open_gdr_driver.txt").read_text()
    assert r.detect(text)
    (f,) = r.parse(Artefact(path="out.txt", text=text)).facts
    assert (f.reason, f.evidence.line) == ("open_failed", 1)
