"""Catalogue entries joined to what was observed (XID, SXID, NVRM messages, NCCL WARN forms,
IB async events and completion statuses, NCCL results, CUDA errors, GPU products),
and the XID aggregations built from them.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.kinds.nccl import with_version_keys
from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class CudaErrorCatalogueEntry(Fact):
    """One code of the CUDA runtime or driver enum with our cause, severity and actions."""

    kind: Literal["cuda_error_catalogue_entry"] = "cuda_error_catalogue_entry"
    api: str  # runtime | driver
    code: int
    name: str  # cudaErrorSystemNotReady / CUDA_ERROR_SYSTEM_NOT_READY
    text: str  # cudaGetErrorString's: "system not yet initialized"
    description: str
    severity: str
    cause: str
    component: str
    actions: str  # comma-separated action ids
    specific_rule: bool  # a dedicated rule reads this error; the catalogue rule skips it
    judgement: str


@fact_kind
class XidCatalogueEntry(Fact):
    """One code of NVIDIA's Xid catalogue with our severity, cause and actions (knowledge/xid.yaml)."""

    kind: Literal["xid_catalogue_entry"] = "xid_catalogue_entry"
    xid: int
    mnemonic: str
    description: str
    unused: bool
    immediate: str
    investigatory: str
    severity: str
    cause: str
    component: str
    actions: str  # comma-separated action ids
    specific_rule: bool  # a dedicated rule reads this code; the generic catalogue rule skips it
    escalate_on_recurrence: bool
    #: what NVIDIA's catalogue advises, as a summary says it: "NVIDIA's catalogue says <immediate>, then <investigatory>",
    #: or that it publishes no action (its rows 162-172 leave both buckets empty; a code past the catalogue, a newer
    #: driver's, is not in it): never an empty "says , then "
    advice: str = ""


@fact_kind
class SxidCatalogueEntry(Fact):
    """One NVSwitch SXid of the Fabric Manager user guide, with our severity and actions."""

    kind: Literal["sxid_catalogue_entry"] = "sxid_catalogue_entry"
    sxid: int
    name: str
    fatality: str  # always_fatal, potential_fatal, non_fatal
    severity: str
    cause: str
    component: str
    actions: str


@fact_kind
class RecoveryActionEntry(Fact):
    """What a recovery action announced by Xid 154 asks for (knowledge/xid.yaml recovery_actions)."""

    kind: Literal["recovery_action_entry"] = "recovery_action_entry"
    action: str
    severity: str
    cause: str
    actions: str
    known: bool  # False: the driver named an action the catalogue does not list
    component: str = "gpu"  # what the action recovers (Recover IMEX Domain: the NVLink fabric, not the GPU)


@fact_kind
class NvrmMessageEntry(Fact):
    """What an NVRM driver message means (knowledge/xid_nvrm_messages.yaml), joined by
    ``message_kind`` and ``status`` with the ``nvrm_error`` facts of the kernel log."""

    kind: Literal["nvrm_message_entry"] = "nvrm_message_entry"
    message_kind: str
    status: str  # the NV_ERR_* of an assertion; "" for the other messages and unlisted statuses
    severity: str
    cause: str
    component: str
    actions: str
    meaning: str


@fact_kind
class NcclWarnMessageEntry(Fact):
    """What one of NCCL's self-explaining WARN messages means (knowledge/nccl_warn_messages.yaml),
    joined by ``message_kind`` with the ``nccl_warn`` facts of an NCCL log."""

    kind: Literal["nccl_warn_message_entry"] = "nccl_warn_message_entry"
    message_kind: str
    severity: str
    cause: str
    component: str
    actions: str
    meaning: str


@fact_kind
class XidRepeat(Fact):
    """Xid 13/31 events on one GPU, grouped: one event is the run of lines one fault prints."""

    kind: Literal["xid_repeat"] = "xid_repeat"
    pci_bus_id: str
    events: int
    pids: int  # distinct pids among the events that name one
    processes: str  # distinct process names, comma-joined ("no process name printed" when no line names one)
    # how many programs the lines tell apart: the distinct process names when every line names one (one
    # program restarted faults again under new pids: one program), else the distinct pids (as many as can be)
    programs: int = 0
    same_location_events: int  # most events on one GPC/TPC
    location: str | None = None  # that GPC/TPC ("GPC1 TPC0")
    sources: str


@fact_kind
class NvswitchSxidLinks(Fact):
    """Every link (switch port) one NVSwitch's lines of one SXid code name, over the logs given.

    The finding stays one per switch (rules/nvlink/sxid_catalogue.yaml); its summary names all
    of them, not only the first line's (``Link 62`` and ``Link 63`` of one LTSSM fault)."""

    kind: Literal["nvswitch_sxid_links"] = "nvswitch_sxid_links"
    switch: str
    sxid: int
    links: str  # "62, 63" (distinct, in order); "none" when only Severity/Data lines were given
    link_count: int
    sources: str


@fact_kind
class XidRecurrence(Fact):
    """The same Xid on the same GPU in more than one boot of one kernel log."""

    kind: Literal["xid_recurrence"] = "xid_recurrence"
    pci_bus_id: str
    xid: int
    boots: int
    first_boot: int
    last_boot: int
    sources: str


@fact_kind
class XidStale(Fact):
    """An Xid of an earlier boot: the log shows a later boot and no Xid on that GPU since."""

    kind: Literal["xid_stale"] = "xid_stale"
    pci_bus_id: str
    xid: int
    boot: int
    later_boots: int
    #: a later boot's log runs on past its driver load line (the load line's runs_on is not False and it
    #: is not alone): time with the driver up and no Xid on the GPU. False: the log stops at, or within a
    #: minute of, the later boot's driver load, which says nothing of whether the GPU came back (with
    #: persistence mode off the driver initialises a GPU only when a client first opens it), and no
    #: nvidia-smi reading of the node shows that GPU
    seen_since: bool = True
    sources: str


@fact_kind
class PcieGpuLoss(Fact):
    """A GPU lost (Xid 79) after a PCIe error on its path in the same boot."""

    kind: Literal["pcie_gpu_loss"] = "pcie_gpu_loss"
    pci_bus_id: str
    boot: int
    pcie_device: str  # the device or port the PCIe event names
    pcie_event: str  # "AER fatal", "AER nonfatal", "surprise down", "link down"
    sources: str


@fact_kind
class NvlinkXidDetail(Fact):
    """What an NVLink5 Xid line (144-150) carries, decoded with NVIDIA's decode table."""

    kind: Literal["nvlink_xid_detail"] = "nvlink_xid_detail"
    pci_bus_id: str
    xid: int
    unit: str | None = None
    fatal: bool | None = None
    link: int | None = None
    error_status: str | None = None
    decoded: bool  # the unit and status were found in the decode table
    severity: str
    actions: str
    consequence: str | None = None
    intrinfo: str | None = None  # the first register ("0x025001c6")
    subcode: int | None = None  # intrinfo bits 20-25: which row of a unit (NETIR_LINK_EVT 37: peer device)
    matched_by: str = "none"  # "intrinfo pattern", "unit and status", "status bits", "none"
    investigatory: str | None = None  # NVIDIA's investigatory bucket of the row(s): INVESTIGATE_PEER_DEVICE ...
    link_label: str | None = None  # "0000:04:00.0 NVLink 7", the finding's link entity (None for "Link -1": no one link)
    link_where: str | None = None  # "link 7", or "not tied to one link" for "Link -1" (the unit's error, no single link)
    sources: str


@fact_kind
class NvlinkXid74Detail(Fact):
    """An Xid 74 line read with NVIDIA's WORKFLOW_NVLINK_ERR register table (knowledge/xid74_workflow.yaml)."""

    kind: Literal["nvlink_xid74_detail"] = "nvlink_xid74_detail"
    pci_bus_id: str
    xid: int = 74
    boot: int = 0
    link: int | None = None
    link_label: str  # "0000:c1:00.0 NVLink 11" (or "0000:c1:00.0 NVLink ?")
    registers: str | None = None  # as printed, comma-joined
    set_bits: str  # "reg2:16" ... ("" when none or no registers)
    classes: str  # every class the set bits fall in, worst first
    worst_class: str
    meaning: str  # NVIDIA's sentence for the worst class
    likely_part: str
    same_link_events: int  # Xid 74 lines on this GPU and link in the same file
    repeated: bool  # the worst class's repeat condition holds
    solo: bool  # no other Xid or SXid on the node (NVIDIA: "if seen solo")
    severity: str
    actions: str
    sources: str


@fact_kind
class GspErrorContext(Fact):
    """Xid 119/120 (GSP) on one GPU: how often, in how many boots, under which driver."""

    kind: Literal["gsp_error_context"] = "gsp_error_context"
    pci_bus_id: str
    codes: str  # "119" or "119,120"
    events: int  # Xid 119/120 lines on this GPU
    boots: int  # boots (of one kernel log) with at least one of them
    driver_version: str  # from "NVRM: loading NVIDIA ..." on the node ("unknown" when the log lacks it)
    open_module: bool | None = None
    sources: str


@fact_kind
class Xid45Context(Fact):
    """What an Xid 45 on a GPU follows: other Xids on the node, or a previous Xid its line names."""

    kind: Literal["xid45_context"] = "xid45_context"
    pci_bus_id: str
    follows: int  # other (non-45) Xid lines on the node + Xid 45 lines naming a previous Xid
    other_codes: str  # those Xid codes, comma-joined ("" when none)
    sources: str


@fact_kind
class XidRecoveryContext(Fact):
    """The Xid a recovery-action change (Xid 154) announces: the nearest earlier Xid line of the
    same GPU in the same log, printed with it (same fault handling), other than channel cleanup
    (Xid 45) and other recovery-action lines."""

    kind: Literal["xid_recovery_context"] = "xid_recovery_context"
    pci_bus_id: str
    recovery_id: str  # the gpu_recovery_action fact of the Xid 154 line
    action: str  # the action it names ("GPU Reset Required")
    xid: int  # the earlier Xid's code (74)
    sources: str


@fact_kind
class XidCausedBy(Fact):
    """An Xid line naming the earlier Xid that caused it ("caused by previous Xid N"), and
    whether that earlier Xid's own line is anywhere in the bundle for the same GPU."""

    kind: Literal["xid_caused_by"] = "xid_caused_by"
    pci_bus_id: str
    xid: int  # the line's own code (45)
    previous_xid: int  # N
    previous_seen: bool
    events: int  # lines on this GPU naming the same N
    sources: str


@fact_kind
class IbAsyncEventCatalogueEntry(Fact):
    """What one HCA async event means (knowledge/ib_async_events.yaml), made for each event a
    log names: the rule joins it on ``event``."""

    kind: Literal["ib_async_event_catalogue_entry"] = "ib_async_event_catalogue_entry"
    event: str  # as NCCL printed it
    ibv: str  # IBV_EVENT_DEVICE_FATAL
    meaning: str
    severity: str
    cause: str
    component: str
    actions: str  # comma-separated action ids
    specific_rule: bool


@fact_kind
class IbWcStatusCatalogueEntry(Fact):
    """What one failed RDMA work completion status means (knowledge/ib_wc_status.yaml), made
    for each status a log names: the rule joins it on ``status``."""

    kind: Literal["ib_wc_status_catalogue_entry"] = "ib_wc_status_catalogue_entry"
    status: int
    ibv: str  # IBV_WC_REM_INV_REQ_ERR
    name: str  # libibverbs' string
    meaning: str
    severity: str
    cause: str
    component: str
    actions: str
    specific_rule: bool


@fact_kind
class NcclResultCatalogueEntry(Fact):
    """What one NCCL result code tells (knowledge/nccl_results.yaml), made for each result a
    log names: the rule joins it on ``name``."""

    kind: Literal["nccl_result_catalogue_entry"] = "nccl_result_catalogue_entry"
    name: str  # ncclRemoteError
    code: int
    text: str
    component: str
    meaning: str
    actions: str


@fact_kind
class GpuProduct(Fact):
    """What the product name of a GPU (``gpu_info.name``) says about its board, from
    knowledge/gpu_products.yaml: made only for products that never sit on an NVSwitch board."""

    kind: Literal["gpu_product"] = "gpu_product"
    pci_bus_id: str
    name: str
    nvswitch_board: bool
    word: str  # the name's word that says so ("GeForce", "PCIe")


@fact_kind
class NcclKnownIssueEntry(Fact):
    """One bug of knowledge/nccl_known_issues.yaml: its affected releases and the names of the
    symptoms (one or two) that must all be seen on a node. ``symptom_1`` is the one whose fact is
    a failed CUDA call inside NCCL where the entry has one (its CUDA error rides along)."""

    kind: Literal["nccl_known_issue_entry"] = "nccl_known_issue_entry"
    issue: str  # the entry's id
    title: str
    fixed_in: str | None = None
    workaround: str | None = None
    source: str
    affected_min: str
    affected_max: str
    affected_min_key: int | None = None
    affected_max_key: int | None = None
    symptoms: int  # how many: 1 or 2
    symptom_1: str
    symptom_2: str | None = None
    located: bool = False  # the entry has a located_by table

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        return with_version_keys(data, {"affected_min_key": ("affected_min",), "affected_max_key": ("affected_max",)})


@fact_kind
class NcclKnownIssueFrame(Fact):
    """One row of an entry's ``located_by`` in knowledge/nccl_known_issues.yaml: a source location
    that, in NCCL's own source, is this bug's failing call only in the releases given."""

    kind: Literal["nccl_known_issue_frame"] = "nccl_known_issue_frame"
    issue: str
    frame: str  # "misc/socket.cc:428"
    version: str  # what a finding shows: "2.19.1-2.22.3 (from the frame misc/socket.cc:428; the log prints no version)"
    version_min: str
    version_max: str
    version_min_key: int | None = None
    version_max_key: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        return with_version_keys(data, {"version_min_key": ("version_min",), "version_max_key": ("version_max",)})
