"""mft_tool_log: MFT / mstflint tools failing to read the NIC's CR-space, on real lines and mstflint's format."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import mft_tool_log as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "mft_tool_log"


def _parse(text: str):
    return r.parse(Artefact(path="t.log", text=text, node="n1"))


def test_mstconfig_by_hand_names_tool_device_and_error():
    # dsx-ai-factory/infra-controller#4102: the command line, then the tool's FATAL line and its "Failed!"
    res = _parse((FIX / "infractl4102_mstconfig_crspace_read_failed.txt").read_text())
    (f,) = res.facts
    assert (f.kind, f.error, f.access_path, f.device, f.tool, f.evidence.line) == (
        "nic_tool_access_failed", "No such file or directory", True, "0000:18:00.0", "mstconfig", 2)
    assert res.lines_used == 2  # the FATAL line and the tool's "Failed!" after it


def test_the_same_output_escaped_inside_an_agent_log_line():
    # the same issue: the provisioning agent quotes the tool's arguments and output on one line, newlines as \n
    res = _parse((FIX / "infractl4102_carbide_escaped_mstconfig_output.txt").read_text())
    (f,) = res.facts
    assert (f.error, f.access_path, f.device, f.tool) == ("No such file or directory", True, "0000:18:00.0", "mstconfig")


def test_an_error_of_the_device_itself_is_not_the_access_path():
    # CONSTRUCTED from dev_mgt/tools_dev_types.c's format with EIO: the read reached the device, which did not answer
    (f,) = _parse("# flint -d 0000:3b:00.0 q\nFATAL - crspace read (0xf0014) failed: Input/output error\n").facts
    assert (f.error, f.access_path, f.device, f.tool) == ("Input/output error", False, "0000:3b:00.0", "flint")


def test_near_misses_are_not_read():
    # the unsupported-device branch of the same function, and prose about the message, are no failed read
    for text in ("FATAL - Can't find device id.\n", "what does crspace read mean for mstflint?\n"):
        assert not r.detect(text)
        assert _parse(text).facts == []
