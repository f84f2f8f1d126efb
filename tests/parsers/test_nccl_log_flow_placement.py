"""Google FastSocket's flow-placement WARNs in an NCCL log (google/nccl-fastsocket net_fastsocket.cc):
the real lines of google/nccl-fastsocket#4; GPUDirect-TCPX's same getsockopt WARN and near misses."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.nccl_log_messages import read_flow_placement

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_log"


def test_fastsocket_4_placement_warns():
    text = (FIX / "fastsocket4_flow_placement_retries_exhausted.log").read_text()
    r = nccl_log.parse(Artefact(path="nccl.log", text=text, node="n"))
    got = [(f.node, f.plugin, f.call, f.resource, f.evidence.line) for f in r.facts if f.kind == "nccl_net_plugin_error"]
    assert got == [
        ("full-debug2-test-1", "FastSocket", "incoming_cpu", None, 1),
        ("full-debug2-test-0", "FastSocket", "flow_placement", "accept socket 3", 3),
        ("full-debug2-test-1", "FastSocket", "flow_placement", "connect socket 3", 5),
        ("full-debug2-test-0", "FastSocket", "incoming_cpu", None, 11)]


def test_plugin_named_by_source_file_or_form():
    # google/nccl-plugin-gpudirecttcpx src/connect.cc getSoIncomingCpu: WARN("Cannot get incoming CPU.") (no retry limit)
    assert read_flow_placement("Cannot get incoming CPU.", "connect.cc")["plugin"] == "FastSocket/GPUDirectTCPX"
    assert read_flow_placement("Cannot get incoming CPU.", None)["plugin"] == "FastSocket/GPUDirectTCPX"
    assert read_flow_placement("Maximum retry reached for connect 12.", None)["resource"] == "connect socket 12"


def test_near_misses():
    for msg in ("Cannot find empty socket for 3.",  # net_fastsocket.cc's fatal WARN (ncclInternalError): not a fallback
                'Cannot get incoming CPU" mean?',  # a question quoting the WARN
                "Maximum retry reached for TCP connection to 10.0.0.1",  # another program's words
                "Cannot get incoming NAPI_ID."):  # connect.cc's other getsockopt WARN
        assert read_flow_placement(msg, "net_fastsocket.cc") is None, msg
