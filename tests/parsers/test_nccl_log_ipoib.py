"""NCCL's socket interfaces read with whether each is an IP-over-InfiniBand one (round B7), and NCCL 2.3's
"Using internal Network" / "NET : Using interface" lines."""

from __future__ import annotations

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact


def _facts(text: str, kind: str) -> list:
    res = nccl_log.parse(Artefact(path="nccl.log", text=text, node="n", node_from_folder=False))
    return [f for f in res.facts if f.kind == kind]


def test_nccl23_network_and_interface():
    # NCCL 2.3.7's format strings filled in with horovod/horovod#288's host and interface
    text = ("C4140-V100-1:24:201 [0] NCCL INFO Using internal Network Socket\n"
            "C4140-V100-1:24:201 [0] NCCL INFO NET : Using interface ib0:192.168.11.1<0>\n")
    (net,) = _facts(text, "nccl_net_selected")
    assert (net.network, net.family, net.external) == ("Socket", "Socket", False)
    (iface,) = _facts(text, "nccl_bootstrap_interface")
    assert (iface.interface, iface.address, iface.ipoib) == ("ib0", "192.168.11.1", True)


def test_ipoib_names():
    for name in ("ib0", "ib1", "ib0.8001", "ibp12s0", "ibs1", "ibp65s0f1"):
        assert nccl_log._ipoib(name), name
    for name in ("eth0", "enp225s0f1", "bond0", "lo", "fib0", "vibr0", "ibmveth0", "ib", "ibx0", "mlx5_0"):
        assert not nccl_log._ipoib(name), name


def test_socket_device_ipoib_and_not():
    # NVIDIA/nccl#676 (NCCL 2.11.4): a Socket device on Ethernet
    eth = "gpu01:124172:124172 [0] NCCL INFO NET/Socket : Using [0]enp225s0f1:10.10.10.2<0>\n"
    (dev,) = _facts(eth, "nccl_net_device")
    assert (dev.device, dev.ipoib) == ("enp225s0f1", False)
    # the same format (src/transport/net_socket.cc "NET/Socket : Using%s") filled in with horovod/horovod#288's ib0
    ib = "C4140-V100-1:24:201 [0] NCCL INFO NET/Socket : Using [0]ib0:192.168.11.1<0>\n"
    (dev,) = _facts(ib, "nccl_net_device")
    assert (dev.device, dev.ipoib) == ("ib0", True)
    # an IB device is no IPoIB interface (its name is the HCA's)
    hca = "node5:3321:3321 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.5<0>\n"
    assert [d.ipoib for d in _facts(hca, "nccl_net_device")] == [False]
