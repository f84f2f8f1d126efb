"""What a reporter states in a ticket's prose (facts/parsers/ticket_prose.py): versions, the
platform, settings and figures written in words, and the symptom complained of.

Claims, not measurements: no rule raises a fault on them and none makes a verdict healthy
(knowledge/fact_polarity.yaml: info; knowledge/coverage.yaml: ticket_prose covers nothing). A
stated symptom that nothing read judges keeps the verdict inconclusive
(rules/meta/reported_symptom_unjudged.yaml).

Generated layout (issue 12): every fact class lives in facts/kinds, by family."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class StatedVersion(Fact):
    """``NCCL 2.19.3 issue``, ``NCCL: v2.6.4-1``, ``OMPI 4.0.2 (from HPC_X 2.5 ...)``: a version a person wrote."""

    kind: Literal["stated_version"] = "stated_version"
    software: str  # nccl | cuda | driver | torch | openmpi | hpcx | mofed | ucx | cudnn | dcgm | rdma_core
    version: str  # "2.19.3", "2.6.4-1", "4.7-1.0.0.1"


@fact_kind
class StatedPlatform(Fact):
    """``8x H100 PCIe, 4x nvlink, without nvswitch in node``, ``each node has 8 x 100Gbps NICs``,
    ``2 nodes``: the hardware as a person described it (one fact per phrase; unset fields unsaid)."""

    kind: Literal["stated_platform"] = "stated_platform"
    what: Literal["gpus", "nodes", "nics", "nvswitch", "system"]
    count: int | None = None  # 8 (GPUs, nodes or NICs)
    product: str | None = None  # "H100 PCIe", "A100", "DGX A100", "p5"
    nic_gbps: float | None = None  # 100.0: one NIC's line rate as stated
    present: bool | None = None  # nvswitch: False for "without nvswitch"


@fact_kind
class StatedSetting(Fact):
    """``NCCL_SOCKET_IFNAME=enP1p1s0f0,enP1p1s0f1`` written in a ticket: what the person says they set."""

    kind: Literal["stated_setting"] = "stated_setting"
    name: str
    value: str


@fact_kind
class StatedFigure(Fact):
    """``343GBps ... it should be able to reach 460GBps``: a figure a person measured or expected."""

    kind: Literal["stated_figure"] = "stated_figure"
    quantity: Literal["busbw", "algbw", "bandwidth", "latency"]
    value: float  # as written
    unit: str  # as written: "GBps", "Gbps", "GB/s", "us"
    gb_per_s: float | None = None  # the value in GB/s (a bandwidth; Gbps / 8)
    role: Literal["measured", "expected", "compared"]  # compared: "exceeds 100Gbps", "above", "below"


@fact_kind
class StatedMeasurement(Fact):
    """A measurement a reporter wrote down: a markdown table's row with a figure, or a line labelled before/after.

    ``| data_time per batch | ~0.002 s | ~0.217 s |`` under ``| Metric | CPU training | GPU training |``, ``Before: 3
    it /s, data_time 0.217`` (open-edge-platform/geti#5958). The figures as written, under their columns' headers:
    what the reporter measured, a claim, not a tool's reading."""

    kind: Literal["stated_measurement"] = "stated_measurement"
    form: Literal["table_row", "labelled_line"]
    what: str  # the row's first cell ("data_time per batch", "2.0 KiB"), or the line's label ("Before")
    #: the other cells under their headers ("CPU training: ~0.002 s; GPU training: ~0.217 s"), or the line's rest
    values: str


@fact_kind
class ReportedSymptom(Fact):
    """``allreduce performance is 343GBps ... should be able to reach 460GBps``, ``Performance ...
    drops ~ 6X``: the sentence in which a person says something is slow, low, hung or failing."""

    kind: Literal["reported_symptom"] = "reported_symptom"
    #: remark: a sentence of a file of prose that names the GPU, the driver, the network or the job in words no
    #: phrase reads ("After the reboot the GPU was visible again."): ``words`` holds the sentence
    symptom: Literal["slow", "below_expected", "hang", "violations", "error", "remark"]
    component: str  # the taxonomy component the sentence's words name (nccl, network, pcie, gpu; else application)
    words: str  # the words that say it: "should be able to reach", "drops"


@fact_kind
class ReportedFaultCode(Fact):
    """A driver's fault code (Xid, SXid) a person names in a sentence as seen: ``dmesg shows Xid 79 on GPU 0000:3b:00.0``.

    ``we keep getting Xid 48 / Xid 63 on node gpu-12``: one fact per code (facts/parsers/prose_codes.py). A claim,
    not the kernel's line: rules read it by NVIDIA's catalogue as reported, not observed, and stay silent where a log
    of the bundle shows the same code (rules/gpu/xid_reported_in_prose.yaml, rules/nvlink/sxid_reported_in_prose.yaml)."""

    kind: Literal["reported_fault_code"] = "reported_fault_code"
    code_kind: Literal["xid", "sxid"]  # the GPU driver's Xid, the NVSwitch driver's SXid
    code: int  # 79
    words: str  # the words that name it: "Xid 79", "Xid 48 / Xid 63"
    pci_bus_id: str | None = None  # the bus id the sentence names, canonical ("0000:3b:00.0")
    gpu_index: int | None = None  # the "GPU <n>" the sentence names
    named_node: str | None = None  # the "node <name>" the sentence names ("gpu-12"): not the bundle's node
    #: what the sentence names, as a summary says it: "GPU 0000:3b:00.0", "node gpu-12", "no GPU or node"
    named: str = "no GPU or node"
