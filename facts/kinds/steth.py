"""stethoscope's own records: collection manifests, inventories, patrol steps, probes, and
error lines in text no reader recognised.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class CollectedCommand(Fact):
    """One command ``steth collect`` ran (or could not run) on the node."""

    kind: Literal["collected_command"] = "collected_command"
    name: str
    status: Literal["ok", "failed", "missing", "timeout"]
    returncode: int | None = None
    file: str | None = None
    note: str | None = None


@fact_kind
class InventoryHost(Fact):
    kind: Literal["inventory_host"] = "inventory_host"
    addresses: str = ""  # comma-separated
    gpus: int | None = None


@fact_kind
class InventoryPort(Fact):
    kind: Literal["inventory_port"] = "inventory_port"
    hca: str
    port: int
    port_id: str
    switch: str | None = None
    switch_port: int | None = None
    expected_rate_gbps: float | None = None


@fact_kind
class InventoryUplink(Fact):
    kind: Literal["inventory_uplink"] = "inventory_uplink"
    switch: str
    uplink: str


@fact_kind
class PatrolStepRecord(Fact):
    """One step of a patrol run on the node, as the patrol recorded it."""

    kind: Literal["patrol_step"] = "patrol_step"
    step: str
    status: Literal["ok", "failed", "timeout", "skipped"]
    returncode: int | None = None
    seconds: float
    file: str | None = None
    note: str | None = None


@fact_kind
class ProbeContext(Fact):
    """``steth-probe v1 context torch=2.11.0+cu130 cuda=13.0 nccl=2.28.9 gpus=1``"""

    kind: Literal["probe_context"] = "probe_context"
    torch: str
    cuda: str | None = None
    nccl: str | None = None
    gpus: int


@fact_kind
class ProbeGpu(Fact):
    """``steth-probe v1 gpu index=0 name="NVIDIA H200" pci_bus_id=0000:00:06.0 sm=132 memory_mib=143155``"""

    kind: Literal["probe_gpu"] = "probe_gpu"
    gpu: int
    name: str
    pci_bus_id: str | None = None
    sm: int | None = None
    memory_mib: int | None = None


@fact_kind
class ProbeBurn(Fact):
    """One GPU's matrix-product burn in one dtype: rate and checked results."""

    kind: Literal["probe_burn"] = "probe_burn"
    gpu: int
    pci_bus_id: str | None = None  # from the probe's gpu line
    dtype: str  # bf16 | fp16 | fp32
    n: int
    seconds: float
    iterations: int
    tflops: float
    mismatches: int


@fact_kind
class ProbeComputeMismatch(Fact):
    """A burn whose repeated products differed from the first: wrong arithmetic on that GPU."""

    kind: Literal["probe_compute_mismatch"] = "probe_compute_mismatch"
    gpu: int
    pci_bus_id: str | None = None
    dtype: str
    mismatches: int
    iterations: int


@fact_kind
class ProbeCopy(Fact):
    """One copy bandwidth: ``d2d`` (on the GPU), ``h2d``/``d2h`` (pinned host), ``p2p`` (to ``peer``)."""

    kind: Literal["probe_copy"] = "probe_copy"
    gpu: int
    pci_bus_id: str | None = None
    peer: int
    direction: Literal["d2d", "h2d", "d2h", "p2p"]
    bytes: int
    repeats: int
    seconds: float
    gbps: float
    peer_access: bool = True


@fact_kind
class ProbeError(Fact):
    """``steth-probe v1 error gpu=0 stage=burn_bf16 message="CUDA error: ..."``"""

    kind: Literal["probe_error"] = "probe_error"
    gpu: int | None = None
    stage: str
    message: str


@fact_kind
class ProbeUnavailable(Fact):
    """``steth-probe v1 unavailable reason="PyTorch 2.4.0 sees no CUDA GPU"``: nothing measured."""

    kind: Literal["probe_unavailable"] = "probe_unavailable"
    reason: str


@fact_kind
class TextErrorLine(Fact):
    """A line that says in words that something failed, unread (an unrecognised file, or a log's)."""

    kind: Literal["text_error_line"] = "text_error_line"
    message: str
