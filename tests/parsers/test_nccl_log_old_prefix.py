"""NCCL 2.2's own line prefix (session 30, round C3): its INFO lines carry no "NCCL" ("host:pid:tid [dev] INFO msg";
2.2 shipped as binaries only, NVIDIA/nccl's first 2.x source v2.3.5-5 already prints "NCCL INFO"). Real lines of
horovod/horovod#288 (NCCL 2.2.12, fixtures/artefacts/nccl_log/horovod288_nccl22_ib0_socket.log)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_log, nccl_log_scan
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_log"
H288 = FIX / "horovod288_nccl22_ib0_socket.log"


def _parse(text: str):
    art = Artefact(path="nccl.log", text=text, node="n", node_from_folder=False)
    art.normalise()
    return nccl_log.parse(art)


def _read(res) -> set:
    out = set()
    for f in res.facts:
        if f.kind == "nccl_net_selected":
            out.add((f.kind, f.node, f.network))
        elif f.kind == "nccl_bootstrap_interface":
            out.add((f.kind, f.node, f.interface, f.address, f.ipoib))
    return out


def test_nccl22_info_lines_are_read_with_their_host():
    text = H288.read_text()
    assert nccl_log.detect(text)
    res = _parse(text)
    assert _read(res) == {("nccl_net_selected", "C4140-V100-1", "Socket"), ("nccl_net_selected", "C4140-V100-2", "Socket"),
                          ("nccl_bootstrap_interface", "C4140-V100-1", "ib0", "192.168.11.1", True)}
    assert res.lines_used == sum(1 for ln in text.splitlines() if ln.strip())  # its 15 INFO/WARN lines and the version
    info = "\n".join(ln for ln in text.splitlines() if " INFO " in ln)  # the INFO lines alone (no WARN): still NCCL's
    assert nccl_log.detect(info) and len(_read(_parse(info))) == 3
    # NCCL 2.2 printed no "Init COMPLETE": its INFO lines never show a communicator formed (a capture limit, never
    # a log read as NCCL seen working), as 2.3's "NCCL INFO" lines without it
    assert [h.limit for h in _parse(info).limits] == ["cut_short"] == [h.limit for h in res.limits]


def test_nccl22_info_lines_in_a_long_log_take_the_fast_path_alike(monkeypatch):
    # a long log (nccl_log_scan's fast path) with 2.2's INFO lines and no other marker: the RE2 gate must see them
    info = "\n".join(ln for ln in H288.read_text().splitlines() if " INFO " in ln)
    text = (FIX / "allreduce_healthy_g2.nccl.log").read_text() + info + "\n"
    assert len(text) >= nccl_log_scan._FAST_FROM and text.isascii()
    fast = _parse(text)
    monkeypatch.setattr(nccl_log, "candidates", lambda t: (nccl_log_scan._SCAN.finditer(t), None))
    slow = _parse(text)
    assert [f.model_dump() for f in fast.facts] == [f.model_dump() for f in slow.facts]
    assert fast.lines_used == slow.lines_used and ("nccl_net_selected", "C4140-V100-1", "Socket") in _read(fast)


def test_another_programs_info_prefix_is_not_ncclS():
    # a logger's "name[pid] INFO" (seqrepo-rest-service under docker compose, a public README's output) and log4j's
    # "[time] INFO" (ZooKeeper's start-up): no host:pid:tid before the bracket
    for line in ("2022-07-26 15:59:59 seqrepo_rest_service.__main__[1] INFO Using seqrepo_dir='/usr/local/share/seqrepo/2021-01-29' from command line",
                 "[2023-10-01 13:57:13,486] INFO Using org.apache.zookeeper.server.NIOServerCnxnFactory as server connection factory (org.apache.zookeeper.server.ServerCnxnFactory)"):
        assert not nccl_log.detect(line)
        assert not _parse(line).facts and _parse(line).lines_used == 0
