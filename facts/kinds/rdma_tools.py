"""Fact kinds of the RDMA test tools' own reports (perftest) that say something of the port's
addressing rather than of a failure."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class PerftestLocalGidZero(Fact):
    """perftest on an Ethernet (RoCE) link printed an all-zero GID under its ``local address:``
    (``GID: 00:00:...:00``): the port's GID table has no entry at the index it used (``GID index :
    0`` unless ``-x`` gave another), so its queue pair has no address to reach the peer with."""

    kind: Literal["perftest_local_gid_zero"] = "perftest_local_gid_zero"
    device: str | None = None  # "mlx5_0"
    gid_index: int | None = None
