"""GPUDirect-TCPX's slowness reports in an NCCL log (google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc,
src/stats/tracepoint.cc): real lines of NVIDIA/nccl#1652, the other two forms filled in."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.nccl_log_messages import read_tcpx_stall

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_log"


def test_rx_ctrl_timeout_one_fact_per_connection():
    text = (FIX / "nccl1652_gpudirecttcpx_rx_ctrl_timeout.log").read_text()
    r = nccl_log.parse(Artefact(path="nccl.log", text=text + text, node="a3-0"))  # repeated: the plugin repeats its report
    got = [(f.plugin, f.call, f.resource, f.error) for f in r.facts if f.kind == "nccl_net_plugin_error"]
    assert got == [
        ("GPUDirectTCPX", "rx_ctrl_timeout", "172.16.0.11<39187><-172.16.0.95<46723>",
         "no control message from the peer for 10.0 s (7331502 polls) on nic 0 (enp12s0)"),
        ("GPUDirectTCPX", "rx_ctrl_timeout", "172.16.0.49<45259><-172.16.0.48<52929>",
         "no control message from the peer for 10.0 s (7359786 polls) on nic 1 (enp134s0)")]


def test_the_other_slowness_checks():
    send = ("0x7f3a1c0:0x7f3a200, nic 1, enp134s0, 172.16.0.49<45259>->172.16.0.48<52929> tx send timeout error 11, "
            "Resource temporarily unavailable: [0/524288]/4194304 cnt 20417, nanos 10000000321")
    comp = ("0x7f3a200 nic 1, enp134s0 172.16.0.49<45259>->172.16.0.48<52929> tx tx comp timeout poll upper 12, lower 9, "
            "cnt 5000, nanos 10000000000, range (0 0)")
    assert (read_tcpx_stall(send) or {}).get("call") == "send_timeout"
    assert read_tcpx_stall(send)["error"].startswith("a socket send not progressing (errno 11) for 10.0 s")
    assert (read_tcpx_stall(comp) or {}).get("call") == "tx_completion_timeout"
    assert read_tcpx_stall(comp)["resource"] == "172.16.0.49<45259>->172.16.0.48<52929>"


def test_near_misses_are_not_stalls():
    for msg in ("NET/GPUDirectTCPX : no ctrl interface found",
                "Recv sync mismatch, idx 3, peer 4",  # net_tcpx.cc's other WARN
                "0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout"):
        assert read_tcpx_stall(msg) is None, msg
