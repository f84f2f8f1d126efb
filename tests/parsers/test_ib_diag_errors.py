"""The infiniband-diags tools' own error lines on real pastes (the linux-rdma list's ibaddr on RoCE,
guilbaults/infiniband-exporter#12), the sources' other forms, and near misses (ibstat's ibpanic,
debug ibwarn lines, a program's own "Failed to open" sentence)."""
from pathlib import Path

from stethoscope.facts.parsers import ib_diag_errors
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "ib_diag_errors"


def errors(text, node="n1"):
    res = ib_diag_errors.parse(Artefact(path="err.txt", text=text, node=node, node_from_folder=True))
    return res, [(f.what, f.tool, f.message, f.dr_path, f.status) for f in res.facts]


def test_mad_port_failure_of_ibaddr_on_roce():
    text = (A / "linux_rdma_2019_ibaddr_roce.txt").read_text()
    assert ib_diag_errors.detect(text)
    res, got = errors(text)
    assert got == [("open_port", None, "ibwarn: [1054] mad_rpc_open_port: client_register for mgmt 1 failed", None, None),
                   ("open_port", None, "Failed to open (null) port 0", None, None)]
    assert res.facts[1].evidence.line == 3 and res.lines_used == 2


def test_library_and_iberror_forms():
    # IBND_ERROR "%s:%u; " of ibnetdisc.c's "can't open MAD port (%s:%d)", and iberror's "%s: iberror: failed: %s"
    # (infiniband-diags ibdiag_common.c) with the reasons the tools give it
    _, got = errors("src/ibnetdisc.c:802; can't open MAD port ((null):0)\n/usr/sbin/ibnetdiscover: iberror: failed: discover failed\n"
                    "perfquery: iberror: failed: Failed to open '(null)' port '0'\n")
    assert got == [("open_port", "libibnetdisc", "can't open MAD port ((null):0)", None, None),
                   ("tool_failed", "ibnetdiscover", "discover failed", None, None),
                   ("open_port", "perfquery", "Failed to open '(null)' port '0'", None, None)]


def test_smp_timeout_before_ibqueryerrors_results():
    res, got = errors((A / "exporter12_smp_timeout.txt").read_text())
    assert got == [("smp_timeout", "libibnetdisc", "umad (DR path slid 0; dlid 0; 0,1,10,19 Attr 0x11:0) bad status 110; Connection timed out",
                    "0,1,10,19", 110)]
    # another status (query_smp.c's format with a LID-routed portid) is an smp_error
    _, got = errors("src/query_smp.c:199; umad (Lid 12 Attr 0x15:3) bad status 12; Cannot allocate memory\n")
    assert got[0][0] == "smp_error" and got[0][3] is None and got[0][4] == 12


def test_iberror_with_pid_form_and_near_misses():
    _, got = errors("perfquery: iberror: [pid 4411] main: failed: can't resolve destination port 0x1a\n")
    assert got == [("tool_failed", "perfquery", "can't resolve destination port 0x1a", None, None)]
    # ibstat's panic (its own reader's), a debug ibwarn trace, the PortXmitDiscardDetails warning: not read here
    assert not ib_diag_errors.detect("ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory\n")
    assert not ib_diag_errors.detect("ibwarn: [168997] umad_open_port: ca mlx4_0 port 1\n")
    assert errors("ibwarn: [1203] query_and_dump: PortXmitDiscardDetails query failed on HOSTXXX, Lid 1051 port 1\n")[1] == []
    assert not ib_diag_errors.detect("Failed to open /dev/ttyS0 at port 3 for writing\n")
    assert not ib_diag_errors.detect("Failed to open serial port 3\n")
    assert errors("  Failed to open mlx5_0 port 1\n")[1] == [("open_port", None, "Failed to open mlx5_0 port 1", None, None)]
