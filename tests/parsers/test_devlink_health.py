"""devlink_health: ``devlink health show`` on the upstream projects' own samples (fixtures/artefacts/devlink_health)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import devlink_health
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "devlink_health"


def _parse(name: str):
    text = (FIX / name).read_text()
    assert devlink_health.detect(text)
    return devlink_health.parse(Artefact(path=name, text=text, node="n1"))


def test_ice_port_reporter_in_error_with_its_dump_time_wrapped():
    r = _parse("ice_e810_port_reporter_error.txt")
    assert [(f.handle, f.pci_bus_id, f.reporter, f.state, f.errors, f.recovered, f.auto_recover) for f in r.facts] == [
        ("pci/0000:b1:00.3", "0000:b1:00.3", "fw", "healthy", 0, 0, None),
        ("pci/0000:b1:00.3", "0000:b1:00.3", "port", "error", 1, 0, None)]


def test_name_form_before_iproute2_5_4():
    (f,) = _parse("iproute2_name_form_tx_healthy.txt").facts
    assert (f.reporter, f.state, f.errors, f.auto_recover) == ("tx", "healthy", 0, True)


def test_port_handle_keeps_its_port_index():
    facts = _parse("mlx5_port_reporters_healthy.txt").facts
    assert [(f.handle, f.pci_bus_id, f.reporter) for f in facts] == [
        ("pci/0000:00:0a.0", "0000:00:0a.0", "fw"), ("pci/0000:00:0a.0/1", "0000:00:0a.0", "tx")]


def test_reporter_cut_before_its_state_line_is_a_parse_error():
    text = "pci/0000:04:00.0:\n  reporter tx\n    state healthy error 0 recover 0\n  reporter fw_fatal\n"
    r = devlink_health.parse(Artefact(path="d.txt", text=text, node="n1"))
    assert [f.reporter for f in r.facts] == ["tx"] and [e.line for e in r.errors] == [4]


@pytest.mark.parametrize("text", [
    "pci/0000:04:00.0:\n  driver mlx5_core\n",                        # devlink dev info, not health
    "  reporter tx\n    state healthy error 0 recover 0\n",             # no handle line
])
def test_not_devlink_health(text):
    assert not devlink_health.detect(text)
