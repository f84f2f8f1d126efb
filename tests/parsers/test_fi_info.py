"""fi_info and libfabric's own log lines (real pastes: libfabric#12708, #11256)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import fi_info
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/fi_info"


def _parse(name: str):
    art = Artefact(path=name, node="n1", text=(FIX / name).read_text())
    art.normalise()
    return fi_info.parse(art)


def test_warn_lines_and_the_provider_they_name():
    r = _parse("libfabric12708_efa_device_open_failed.txt")
    warns = [(f.provider, f.subsystem, f.function, f.what) for f in r.facts if f.kind == "libfabric_warning"]
    assert warns == [("efa", "ep_data", "efa_device_construct_gid", "device_open"),
                     ("efa", "fabric", "efa_device_list_initialize", "device_open")]
    errs = [(f.evidence.line, f.provider, f.code) for f in r.facts if f.kind == "fi_info_error"]
    assert errs == [(3, "efa", -61), (4, "efa", -61)]  # the log's empty list, and fi_getinfo's line taking its provider


def test_info_lines_alone_are_recognised_and_count_for_nothing():
    text = (FIX / "libfabric11256_info_lines_only.txt").read_text()
    assert fi_info.detect(text)
    r = _parse("libfabric11256_info_lines_only.txt")
    assert r.facts == [] and r.lines_used == 0


def test_each_release_prefix():
    # ofiwg/libfabric src/log.c: 1.5-1.8 prov:subsys, 1.9-1.14 pid first, 1.15+ pid:time:prefix:prov:subsys (filled in)
    for line in ("libfabric:efa:core:efa_open():10<warn> ibv_open_device failed! errno: 13",
                 "libfabric:4242:efa:core:efa_open():10<warn> ibv_open_device failed! errno: 13",
                 "libfabric:4242:1700000000::efa:core:efa_open():10<warn> ibv_open_device failed! errno: 13"):
        art = Artefact(path="l", node="n1", text=line + "\n")
        art.normalise()
        (f,) = fi_info.parse(art).facts
        assert (f.provider, f.subsystem, f.what) == ("efa", "core", "device_open"), line
