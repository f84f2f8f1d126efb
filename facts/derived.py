"""Facts that rules derive (``then.assert``) for later rules: each carries ``sources``,
the ids of the facts that produced it, so a finding can quote the original lines."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class RdmaExpected(Fact):
    """This node was expected to use RDMA (IB/RoCE): HCAs were found or NCCL_IB_HCA was set."""

    kind: Literal["rdma_expected"] = "rdma_expected"
    reason: str
    sources: str
