"""Fact classes that summarise many observed facts at once (made by
:mod:`stethoscope.engine.combine.nccl_summary` and :mod:`stethoscope.engine.baselines.perf_compare`).

Rules compare one fact with constants or with an earlier pattern; "ranks run different NCCL
versions", "the rank with the lowest last-enqueued sequence number" and "busbw at large sizes
is 90x below the baseline" need a look across ranks and rows. Each fact carries ``sources``:
the ids of the facts it summarises, so a finding quotes the original lines.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.nccl_check_facts import with_version_keys


@fact_kind
class NcclVersionSet(Fact):
    """The NCCL versions that the processes of one bundle printed (one fact per bundle)."""

    kind: Literal["nccl_version_set"] = "nccl_version_set"
    distinct: int  # number of different versions
    versions: str  # "2.18.1, 2.19.3"
    detail: str  # "node1: 2.18.1; node2: 2.19.3"
    sources: str


@fact_kind
class NcclNetPluginSet(Fact):
    """Which external net plugin each process loaded: ``distinct`` > 1 when they differ;
    ``missing`` > 0 when some processes found none while others loaded one."""

    kind: Literal["nccl_net_plugin_set"] = "nccl_net_plugin_set"
    distinct: int
    missing: int  # processes that found no external plugin while others loaded one
    plugins: str  # "NCCL RDMA Plugin v8 (node1, node2); none (node3)"
    sources: str


@fact_kind
class NcclBootstrapSubnetSet(Fact):
    """The IPv4 subnets (/24) NCCL bootstrapped on across nodes: ranks on different subnets
    through different interfaces usually cannot reach each other (e.g. ib0 vs eth0)."""

    kind: Literal["nccl_bootstrap_subnet_set"] = "nccl_bootstrap_subnet_set"
    distinct: int
    #: distinct interface names the nodes bootstrapped on (eth0 everywhere: 1)
    interface_names: int = 1
    interfaces: str  # "node1 ib0 10.1.0.1; node2 eth0 192.168.1.2"
    sources: str


@fact_kind
class TorchStragglerCandidate(Fact):
    """A rank that never reached the collective the others time out in.

    ``basis`` says how it was found: ``desync_report`` (PyTorch's own TORCH_NCCL_DESYNC_DEBUG
    verdict), ``lowest_enqueued`` (its last enqueued sequence number is below the one the
    others time out at), ``no_progress`` (the job has this rank, which printed no progress
    while others timed out).
    """

    kind: Literal["torch_straggler_candidate"] = "torch_straggler_candidate"
    rank: int
    basis: Literal["desync_report", "lowest_enqueued", "no_progress"]
    timeout_seq: int | None = None
    last_enqueued_seq: int | None = None
    op_type: str | None = None
    waiting_ranks: str  # "0" or "0, 2, 3"
    host: str | None = None
    gpu: str | None = None  # PCI bus id from NCCL's Init line of that rank
    sources: str


@fact_kind
class NcclTestsIndependentRuns(Fact):
    """Several nccl-tests processes that each ran the same test as their own single-process
    job (a binary built without MPI=1 launched by mpirun/srun): each printed ``Rank 0``."""

    kind: Literal["nccl_tests_independent_runs"] = "nccl_tests_independent_runs"
    collective: str | None = None
    runs: int
    hosts: str  # "node1, node2"
    sources: str


@fact_kind
class NcclSlowPathSetting(Fact):
    """An NCCL environment setting that the catalogue ``knowledge/nccl_env.yaml`` lists as
    forcing a slower path (NCCL_ALGO, NCCL_PROTO, channel limits, ...)."""

    kind: Literal["nccl_slow_path_setting"] = "nccl_slow_path_setting"
    name: str
    value: str
    effect: str
    own_rule: bool = False  # the setting has a rule of its own (NCCL_P2P_DISABLE, ...)
    sources: str


@fact_kind
class NcclKnownIssue(Fact):
    """A bug of ``knowledge/nccl_known_issues.yaml`` whose symptoms a node shows; rules judge the version.

    It carries the NCCL version that node printed (or that a failing frame places) and the bug's
    affected range; rules decide whether it applies (rules/nccl/nccl_known_version_issue.yaml:
    the version within the range, compared as the ``*_key`` numbers that order releases).

    ``version`` is what the finding shows; ``version_min``/``version_max`` the version as a
    range: the printed version twice, or the range of releases that have the failing frame."""

    kind: Literal["nccl_known_issue"] = "nccl_known_issue"
    version: str
    issue: str  # id in the table
    title: str
    fixed_in: str | None = None
    workaround: str | None = None  # what to do until the upgrade, from the table
    source: str
    sources: str
    #: the CUDA error (knowledge/cuda_errors.yaml name) of a failed CUDA call inside NCCL that is
    #: one of the entry's symptoms: the bug explains that failure (rule nccl_cuda_failure_catalogue)
    cuda_error: str | None = None
    version_min: str | None = None  # None: ``version`` itself
    version_max: str | None = None
    affected_min: str | None = None  # the table's affected range
    affected_max: str | None = None
    version_min_key: int | None = None  # filled from the strings (version_key)
    version_max_key: int | None = None
    affected_min_key: int | None = None
    affected_max_key: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        # a printed version is both ends of the range
        return with_version_keys(data, {"version_min_key": ("version_min", "version"), "version_max_key": ("version_max", "version"),
                                        "affected_min_key": ("affected_min",), "affected_max_key": ("affected_max",)})


@fact_kind
class BusbwComparison(Fact):
    """One nccl-tests run against a reference (a recorded baseline or an expected figure),
    for one message-size band: ``latency`` (<= 64 KiB) or ``bandwidth`` (>= 64 MiB).

    ``ratio`` is measured busbw / reference busbw at the sizes both have (median over them),
    computed from the times, so that small sizes printed as 0.00 GB/s still compare. The limits
    that apply ride along with where they were read; rules compare ``ratio`` with them
    (rules/nccl/busbw_below_baseline*.yaml), no code judges it.
    """

    kind: Literal["busbw_comparison"] = "busbw_comparison"
    collective: str
    band: Literal["latency", "bandwidth"]
    ratio: float
    factor_below: float  # 1 / ratio, rounded: "35x below"
    measured_busbw: float  # GB/s at the largest common size
    reference_busbw: float
    size_bytes: int  # that size
    size_text: str  # "2 GiB"
    sizes: int  # sizes compared
    reference: str  # "baseline h200-pair (2026-11-29)" or "expected: h200-nv18-pair"
    reference_kind: Literal["baseline", "expected"]
    context_diff: str  # "nccl 2.28.9 -> 2.29.1; driver 580 -> 590" or "none"
    env_overrides: str  # "NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1" or "none"
    #: under this ratio the band is below its reference: knowledge/bench_tolerances.yaml
    #: nccl_tests.below.<band>, or the expected platform's min_ratio (knowledge/expected_perf.yaml)
    below_limit: float
    below_limit_source: str  # "knowledge/expected_perf.yaml h200-nv18-pair.min_ratio"
    #: under this ratio it is far below (critical): knowledge/bench_tolerances.yaml nccl_tests.critical_below
    critical_limit: float
    critical_limit_source: str
    sources: str


@fact_kind
class NcclGpuShared(Fact):
    """Several ranks of one communicator on one GPU: from NCCL's ``Duplicate GPU detected``
    warnings (``basis`` nccl_warning), else from Init lines of one ``commId`` that name the
    same node and busId for different ranks (``init_lines``)."""

    kind: Literal["nccl_gpu_shared"] = "nccl_gpu_shared"
    bus_id: str
    ranks: str  # "0, 2, 4"
    basis: Literal["nccl_warning", "init_lines"]
    sources: str


@fact_kind
class BusbwVsNicRate(Fact):
    """An nccl-tests run that crossed nodes, beside the line rate of the RDMA ports an ibstat /
    ibstatus / ibv_devinfo in the bundle shows (made by :mod:`stethoscope.engine.localise.nic_line_rate`).
    ``ratio`` is the measured busbw over the aggregate line rate of the node's Active ports
    (GB/s = Gb/s / 8); ``min_ratio`` is knowledge/nic_line_rate.yaml's, which
    rules/network/busbw_far_below_nic_line_rate.yaml compares it with."""

    kind: Literal["busbw_vs_nic_rate"] = "busbw_vs_nic_rate"
    measured_busbw: float  # GB/s
    measure: Literal["peak_large_sizes", "average"]  # the best row >= 64 MiB, else the footer's average
    nic_ports: int
    nic_rate_gbps: float  # aggregate line rate of the Active ports, Gb/s
    nic_busbw: float  # the same in GB/s
    ratio: float
    min_ratio: float
    ports_node: str  # the node whose ports were counted
    nranks: int  # ranks of the job as the run or NCCL printed them (0: unknown)
    hosts: int  # hosts of the run's rank lines (0: not printed)
    sources: str

