"""Benchmark results: nccl-tests, gpu-burn, DCGM diagnostics runs, pair bandwidth matrices,
and how a run compares with its baseline.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Any, Literal

from stethoscope.facts.model import Evidence, Fact, evidence_at, fact_kind


@fact_kind
class BenchResult(Fact):
    """One figure a benchmark printed: ``Triad: 363208.7 ...`` (STREAM), a cell of an
    nvbandwidth matrix, a perftest row's average bandwidth, a torchtitan ``tps``."""

    kind: Literal["bench_result"] = "bench_result"
    benchmark: str  # one of BENCHMARKS
    test: str  # "Triad", "host_to_device_memcpy_ce", "ib_write_bw", "rand_read_write read", "torchtitan"
    entity: str  # what was measured: "gpu0", "cpu0->gpu1", "mlx5_0", "host", "job"
    metric: str  # "gflops", "bandwidth", "best_rate", "bw_average", "t_typical", "iops", "tokens_per_second"
    value: float
    unit: str  # "Gflop/s", "GB/s", "MB/s", "Gb/s", "usec", "IOPS", "tokens/s"
    higher_is_better: bool = True
    size_bytes: int | None = None  # the message or buffer size of the figure, when it has one
    tool_version: str | None = None  # "v0.8", "fio-3.32", "iperf 3.9", "5.10"
    detail: str | None = None  # what else the line said (connection type, protocol, precision)


@fact_kind
class GpuBurnVerdict(Fact):
    """gpu-burn's closing verdict for one GPU: ``GPU 3: FAULTY`` (its results differed from the
    reference: a compute or memory error) or ``GPU 0: OK``, with the largest error count seen
    in its progress lines (``errors: 1579  (DIED!)``, ``-524288000 (WARNING!)``)."""

    kind: Literal["gpu_burn_verdict"] = "gpu_burn_verdict"
    gpu: int
    gpu_name: str = ""  # "GPU3", for entities and summaries
    status: Literal["OK", "FAULTY"]
    errors: int | None = None  # the largest count of its progress lines (gpu-burn prints a running total)
    died: bool = False  # a progress line said "(DIED!)": the worker process stopped reporting
    gpus_tested: int | None = None  # "Tested 16 GPUs:"
    #: the multiplications its run's progress records counted for it (``proc'd: 636 (2085 Gflop/s)``); None: its run
    #: printed no record (its worker never reported): an OK then compared nothing (gpu_burn-drv.cpp prints OK for
    #: every GPU with no error counted), nor does one of 0
    processed: int | None = None
    #: its worker never ran the test: it "(DIED!)" without a count of work, in a run whose worker said it could not
    #: start ("Couldn't init a GPU test: ...", "Couldn't init CUDA: ..."): its FAULTY counts nothing it compared
    #: (gpu_burn_worker_failure says why)
    never_started: bool = False


@fact_kind
class GpuBurnWorkerFailure(Fact):
    """A gpu-burn worker that could not run its test, in its own words on stderr (wilicc/gpu-burn gpu_burn-drv.cpp):
    ``Couldn't init a GPU test: Error in "load module": `` (the GPU's test never started), ``Couldn't init CUDA: ...``,
    ``Failure during compute: ...`` or ``No clients are alive!  Aborting``; with the GPUs its run's progress then
    showed ``(DIED!)``. A worker that never started compared nothing: its error count is no count of wrong results."""

    kind: Literal["gpu_burn_worker_failure"] = "gpu_burn_worker_failure"
    stage: Literal["test_init", "cuda_init", "compute", "no_workers"]
    reason: str = ""  # what the worker printed after the colon: 'Error in "load module": ', 'Low mem for result. aborting.'
    step: str | None = None  # gpu-burn's name of the call that failed (checkError's desc): "load module", "C alloc", "init"
    error: str | None = None  # CUDA's or cuBLAS's word for it as printed ("CUDA_ERROR_UNKNOWN"); None: printed none
    died: str | None = None  # the GPUs of its run whose progress said "(DIED!)": "0", "0, 2"; None: none shown


@fact_kind
class GpuFryerResult(Fact):
    """gpu-fryer's closing result for one GPU (``GPU #0:  61234 Gflops/s (min: ..., max: ..., dev: ...)``
    and the temperature and throttling rows under it), with the tool's own verdict where printed:
    ``All GPUs seem healthy``, or ``Some GPUs are not healthy. Reasons:`` and one reason row per
    problem. A ``gflops_max`` of 0: no matrix product of the GPU finished in the whole run."""

    kind: Literal["gpu_fryer_result"] = "gpu_fryer_result"
    gpu: int
    gpu_name: str = ""  # "GPU0", for entities and summaries
    gflops: float  # the run's average rate, as printed (whole Gflop/s)
    gflops_max: float  # the best one-second rate of the run
    temperature_c: float | None = None  # the run's average temperature (0.00 where no sample was taken)
    throttle_hw: bool = False  # the run saw HW slowdown (its "Throttling HW: true")
    throttle_thermal: bool = False  # the run saw thermal slowdown, software or hardware ("Thermal SW/HW: true")
    #: the tool's verdict on the run: "healthy" (it printed "All GPUs seem healthy"), "not_healthy", None (cut before it)
    verdict: Literal["healthy", "not_healthy"] | None = None
    problems: str | None = None  # the tool's reasons for this GPU as printed, joined with "; "
    reported_slow: bool = False  # a reason of the tool: "GPU is not performing as expected" (LowFlops)
    reported_throttled: bool = False  # a reason of the tool: "GPU is throttled" (Throttling)


@fact_kind
class DcgmDiagRun(Fact):
    """One ``dcgmi diag`` run: its level (``-r 1..4``: from the command line shown, else from the
    tests it ran, knowledge/dcgm.yaml ``levels``), the DCGM and driver versions of its Metadata
    section (DCGM 3.x and later), and its counts of results."""

    kind: Literal["dcgm_diag_run"] = "dcgm_diag_run"
    level: int | None = None
    level_from: Literal["command", "tests", "unknown"] = "unknown"
    dcgm_version: str | None = None  # "3.3.5"
    driver_version: str | None = None  # "550.54.15" (Driver Version Detected)
    passed: int = 0
    warned: int = 0
    failed: int = 0
    skipped: int = 0
    source: Literal["text", "json"] = "text"


@fact_kind
class BenchmarkValidity(Fact):
    """Whether a node's benchmark results may be compared with a baseline (issue 15): the GPUs
    must have been idle (no compute process, utilisation under the limit of
    knowledge/bench_tolerances.yaml) and their clocks pinned (application clocks set, or the
    ``Applications Clocks Setting`` clocks-event reason active). ``checked`` says what the
    bundle showed to decide it; without nvidia-smi output nothing was checked and the results
    stay comparable, marked ``unverified``."""

    kind: Literal["benchmark_validity"] = "benchmark_validity"
    comparable: bool
    reasons: str  # "GPU 0000:1b:00.0 at 87% utilisation; clocks not pinned (application clocks at their defaults)"
    busy: bool = False
    clocks: Literal["pinned", "not_pinned", "unknown"] = "unknown"
    checked: str = "nothing"  # "nvidia-smi (utilisation, processes, clocks)"
    results: int = 0  # bench_result / nccl-tests runs of the node this applies to
    sources: str = ""


@fact_kind
class BenchmarkVsBaseline(Fact):
    """One benchmark figure against the same figure of the recorded baseline: ``ratio`` is
    new/baseline for figures where higher is better and baseline/new for times, so below 1 is
    always worse; ``outcome`` ``below`` when the ratio is under 1 - ``tolerance``
    (knowledge/bench_tolerances.yaml), ``not_comparable`` when this run or the baseline was taken
    on busy GPUs or unpinned clocks (``why``)."""

    kind: Literal["benchmark_vs_baseline"] = "benchmark_vs_baseline"
    benchmark: str
    test: str
    entity: str
    metric: str
    size_bytes: int | None = None
    unit: str
    value: float
    baseline_value: float
    ratio: float
    tolerance: float
    outcome: Literal["below", "within", "above", "not_comparable"]
    comparable: bool = True
    why: str | None = None
    baseline: str  # "h200-node-2026-11 (2026-11-30)"
    context_diff: str = "none"
    #: under this ratio a figure below its baseline is critical (rules/benchmark/benchmark_below_baseline*.yaml)
    critical_limit: float
    critical_limit_source: str  # "knowledge/bench_tolerances.yaml critical_below"
    component: str = "gpu"  # what a regression of this benchmark points at (knowledge/bench_tolerances.yaml)
    tolerance_source: str = ""
    sources: str = ""


@fact_kind
class BenchmarkVsPeers(Fact):
    """One GPU's compute rate against the median rate of its same-model peers on the node, in one run.

    The figures are gpu-burn's or ubergemm's: ``ratio`` is value/peer median, emitted when it is
    under ``below_ratio`` (engine/baselines/bench.py ``peers``). Identical GPUs of
    one run agree within a few percent, so a GPU at a fraction of its peers is slowed by itself
    (hardware, clocks held down), not by the benchmark."""

    kind: Literal["benchmark_vs_peers"] = "benchmark_vs_peers"
    benchmark: str
    test: str
    entity: str  # "gpu0"
    metric: str
    unit: str
    value: float
    peer_median: float
    peers: int  # how many other GPUs the median is of
    ratio: float
    below_ratio: float
    gpu_model: str = ""  # the GPUs' name when the benchmark printed it
    sources: str = ""


@fact_kind
class BenchmarkSweepNarrower(Fact):
    """An nccl-tests run whose sizes do not reach the ends of the baseline's sweep: the bands it
    misses are not compared (issue 15)."""

    kind: Literal["benchmark_sweep_narrower"] = "benchmark_sweep_narrower"
    collective: str
    min_bytes: int
    max_bytes: int
    baseline_min_bytes: int
    baseline_max_bytes: int
    missing: str  # "sizes below 1 MiB; sizes above 1 GiB"
    baseline: str
    sources: str = ""


@fact_kind
class VersionCompat(Fact):
    """A pair of versions the bundle shows, checked against knowledge/compat.yaml: NCCL against the
    CUDA it was built for, DCGM against the driver, the driver against the CUDA release that
    needs it (``cuda_driver``: the CUDA an NCCL build names; ``cuda_build_driver``: the CUDA a
    listed package was built for or is, torch's ``+cu121`` or collect_env's ``CUDA used to build
    PyTorch``)."""

    kind: Literal["version_compat"] = "version_compat"
    check: Literal["cuda_nccl", "dcgm_driver", "cuda_driver", "cuda_build_driver"]
    ok: bool
    have: str  # "NCCL 2.14.3 built for CUDA 12.0"
    need: str  # "CUDA 12.x needs NCCL >= 2.16 (NCCL 2.16.2 release notes)"
    source: str
    sources: str = ""


@fact_kind
class NcclTestRun(Fact):
    """One run of an nccl-tests binary: its settings, its footer and a summary of its table."""

    kind: Literal["nccl_test_run"] = "nccl_test_run"
    collective: str | None = None  # "all_reduce"; None when the output does not name the binary
    nccl_tests_version: str | None = None  # "2.19.6"
    nccl_version: str | None = None  # "2.28.9", from nccl-library=22809
    n_threads: int | None = None
    n_gpus: int | None = None  # GPUs per process (-g)
    min_bytes: int | None = None
    max_bytes: int | None = None
    iters: int | None = None
    warmup_iters: int | None = None
    validation: int | None = None  # -c; 0 means no #wrong column values (N/A)
    nranks: int = 0  # rank lines listed
    # the rank list stops inside one process's block (fewer lines than nThread x nGpus, or not a multiple of it):
    # nccl-tests prints each process's block in one write, so a partial block is a cut capture, not a hang
    rank_list_cut: bool = False
    hosts: int = 0  # distinct hosts among them
    rows: int = 0  # table rows read
    avg_busbw: float | None = None  # "# Avg bus bandwidth    : 88.3838"
    avg_busbw_check: str | None = None  # "OK" | "FAILED" when run with -G/--check-bw, else None
    out_of_bounds: int | None = None
    status: str | None = None  # "OK" | "FAILED" from "# Out of bounds values"; None: no footer
    wrong_total: int = 0  # sum of #wrong over all rows, N/A counted as 0
    failed: bool = False
    failure_message: str | None = None
    max_busbw: float | None = None  # over out-of-place and in-place
    max_busbw_size: int | None = None


@fact_kind
class NcclTestRank(Fact):
    """``#  Rank  0 Group  0 Pid   1633 on         vm device  0 [0000:00:06] NVIDIA H200``"""

    kind: Literal["nccl_test_rank"] = "nccl_test_rank"
    run_id: str
    rank: int
    group: int | None = None  # absent before nccl-tests 2.13
    pid: int | None = None  # absent in nccl-tests v1.0.0 ("#   Rank  0 on  host device  0 [0x06] ...")
    host: str
    device: int  # CUDA device ordinal in that process
    pci_bus_id: str  # canonical dddd:bb:dd.f; before 2.17 only the bus was printed ([0x1b])
    gpu_name: str


@fact_kind
class NcclTestRow(Fact):
    """One line of the results table: out-of-place and in-place timings for one size."""

    kind: Literal["nccl_test_row"] = "nccl_test_row"
    run_id: str
    collective: str | None = None
    size_bytes: int
    count: int
    dtype: str
    redop: str | None = None
    root: int | None = None
    oop_time_us: float
    oop_algbw: float
    oop_busbw: float
    oop_wrong: int | None = None  # None: N/A (no validation) or an older max-error column
    oop_max_error: float | None = None  # nccl-tests < 2.13 printed the max deviation ("error")
    ip_time_us: float | None = None
    ip_algbw: float | None = None
    ip_busbw: float | None = None
    ip_wrong: int | None = None
    ip_max_error: float | None = None
    #: out-of-place plus in-place #wrong (None when neither was validated), so one rule
    #: can ask "did this size return wrong values"; the readers set it (wrong_total). No
    #: validator fills it: a class without one is asked of the rules' router before it is built
    #: (facts/parsers/base.py FactBuilder.add), so a healthy row costs no fact
    wrong: int | None = None


#: the fields of an nccl_test_row that a table holds one tuple of, one entry a row, in the row's order
ROW_COLUMNS = ("size_bytes", "count", "dtype", "redop", "root", "oop_time_us", "oop_algbw", "oop_busbw", "oop_wrong",
               "oop_max_error", "ip_time_us", "ip_algbw", "ip_busbw", "ip_wrong", "ip_max_error", "wrong")


@fact_kind
class NcclTestTable(Fact):
    """One nccl-tests run's results table: every row's fields as parallel tuples, one entry a row.

    Issue 12, facts for exceptions and summaries for health: entry ``i`` of each tuple is row ``i``
    in the order printed, with its line and quote, so that what reads the table (baselines,
    pairwise localisation, line rates) cites the row it used (:meth:`row`, :meth:`source`)
    exactly as the reader's ``nccl_test_row`` would. One fact a run stands for ~30 row facts in
    memory and across the parse pool's pipe; an ``nccl_test_row`` is still made for every row,
    and kept only where a rule in use can bind it (#wrong > 0: knowledge/fact_routing.yaml). Its
    evidence is the first row's."""

    kind: Literal["nccl_test_table"] = "nccl_test_table"
    run_id: str
    collective: str | None = None
    lines: tuple[int, ...]  # each row's line in the file
    texts: tuple[str, ...]  # each row's quote (its evidence text)
    #: each row's fact id where some differ from ``<path>:<line>:nccl_test_row`` (several rows on one line); else None
    ids: tuple[str, ...] | None = None
    size_bytes: tuple[int, ...]
    count: tuple[int, ...]
    dtype: tuple[str, ...]
    redop: tuple[str | None, ...]
    root: tuple[int | None, ...]
    oop_time_us: tuple[float, ...]
    oop_algbw: tuple[float, ...]
    oop_busbw: tuple[float, ...]
    oop_wrong: tuple[int | None, ...]
    oop_max_error: tuple[float | None, ...]
    ip_time_us: tuple[float | None, ...]
    ip_algbw: tuple[float | None, ...]
    ip_busbw: tuple[float | None, ...]
    ip_wrong: tuple[int | None, ...]
    ip_max_error: tuple[float | None, ...]
    wrong: tuple[int | None, ...]

    def __len__(self) -> int:
        return len(self.lines)

    def row_id(self, i: int) -> str:
        """Row ``i``'s nccl_test_row id, as the reader made it."""
        return self.ids[i] if self.ids is not None else f"{self.evidence.path}:{self.lines[i]}:nccl_test_row"

    def source(self, i: int) -> str:
        """How a derived fact's ``sources`` names row ``i`` (engine/findings.evidence_of reads it
        through :meth:`part_evidence`): the row fact itself is kept only where a rule can bind it."""
        return f"{self.id}@{i}"

    def part_evidence(self, i: int) -> Evidence:
        """Row ``i``'s evidence, as its nccl_test_row has it."""
        return evidence_at(self.evidence.path, self.lines[i], self.texts[i])  # its own validated values

    def row(self, i: int) -> NcclTestRow:
        """Row ``i`` as the reader's nccl_test_row: the same id, node, evidence and fields."""
        values = {name: getattr(self, name)[i] for name in ROW_COLUMNS}
        return NcclTestRow(id=self.row_id(i), node=self.node, run_id=self.run_id, collective=self.collective,
                           evidence={"path": self.evidence.path, "line": self.lines[i], "text": self.texts[i]}, **values)

    @classmethod
    def columns_of(cls, rows: list[dict[str, Any]]) -> dict[str, tuple]:
        """The column tuples of rows given as nccl_test_row field dicts (a field a row lacks: None)."""
        return dict(zip(ROW_COLUMNS, zip(*[tuple(map(r.get, ROW_COLUMNS)) for r in rows]))) if rows else \
            {name: () for name in ROW_COLUMNS}

    @classmethod
    def of_rows(cls, rows: list[NcclTestRow]) -> list[NcclTestTable]:
        """The tables of row facts (one a run, in the order of each run's first row): what a
        caller that holds rows built elsewhere (a test) gives the table readers."""
        runs: dict[str, list[NcclTestRow]] = {}
        for r in rows:
            runs.setdefault(r.run_id, []).append(r)
        out = []
        for run_id, rs in runs.items():
            first = rs[0]
            path = first.evidence.path
            ids = tuple(r.id for r in rs)
            standard = all(r.id == f"{path}:{r.evidence.line}:nccl_test_row" for r in rs)
            out.append(cls(id=f"{path}:{first.evidence.line}:nccl_test_table", node=first.node, evidence=first.evidence,
                           run_id=run_id, collective=first.collective, lines=tuple(r.evidence.line for r in rs),
                           texts=tuple(r.evidence.text for r in rs), ids=None if standard else ids,
                           **cls.columns_of([dict(r) for r in rs])))
        return out


def wrong_total(oop_wrong: int | None, ip_wrong: int | None = None) -> int | None:
    """An nccl_test_row's ``wrong``: its out-of-place plus in-place #wrong, None where neither was
    counted (no validation, or an older max-error column)."""
    if oop_wrong is None and ip_wrong is None:
        return None
    return (oop_wrong or 0) + (ip_wrong or 0)


@fact_kind
class NcclTestFailure(Fact):
    """``vm: Test NCCL failure common.cu:1550 'invalid usage ...'`` or its trace lines."""

    kind: Literal["nccl_test_failure"] = "nccl_test_failure"
    run_id: str | None = None
    host: str | None = None
    pid: int | None = None
    failure_type: str  # "nccl" | "cuda" | "test" (the " .. host pid N: Test failure" trace) | "timeout" (-T)
    source_file: str | None = None
    source_line: int | None = None
    message: str  # the quoted error, or "Test failure" for a trace line
    nccl_error: str | None = None  # "invalid usage (run with NCCL_DEBUG=WARN for details)"
    last_error: str | None = None  # ncclGetLastError() after " / ", None when empty


@fact_kind
class GpuP2pPairBandwidth(Fact):
    """CUDA's p2pBandwidthLatencyTest for one ordered pair of GPUs: the copy with peer access
    (``P2P=Enabled``) beside the same copy staged through host memory (``P2P=Disabled``), from the
    matrices of one run (unidirectional writes or reads, or bidirectional)."""

    kind: Literal["gpu_p2p_pair_bandwidth"] = "gpu_p2p_pair_bandwidth"
    src: int  # CUDA device index of the row (D)
    dst: int  # CUDA device index of the column (D)
    mode: Literal["writes", "reads", "bidirectional"]
    p2p_gbs: float
    staged_gbs: float
    #: p2p_gbs / staged_gbs: below 1 the direct peer path is slower than copying through the host
    ratio: float


@fact_kind
class GpuCopyVerificationFailed(Fact):
    """A copy test read back other values than it wrote: CUDA's simpleP2P (``Verification error @
    element 0: val = nan, ref = 0.000000`` after two kernels read each other's GPU memory through
    peer mappings) or nvbandwidth's pattern check of a copy's destination (``Invalid value when
    checking the pattern at 0x70a640000000``). One fact per run, at its first wrong value."""

    kind: Literal["gpu_copy_verification_failed"] = "gpu_copy_verification_failed"
    tool: Literal["simpleP2P", "nvbandwidth"]
    test: str | None = None  # nvbandwidth's test ("device_to_device_memcpy_read_ce"); "simpleP2P"
    #: the copy went GPU to GPU (simpleP2P, nvbandwidth's device_to_device/all_to_one/... tests);
    #: False for a test with the host on one side; None where the test is not named
    peer: bool | None = None
    gpus: str | None = None  # "GPU0, GPU1": the pair simpleP2P ran its kernels on, when printed
    errors: int = 1  # wrong values printed (simpleP2P stops after 12)
    first: str  # the first wrong value as printed ("element 0: val = nan, ref = 0.000000")


@fact_kind
class HostCopyVsPcie(Fact):
    """One GPU's pinned host copy (CUDA bandwidthTest: ``Host to Device Bandwidth, 1 Device(s)`` /
    ``PINNED Memory Transfers``) beside the raw rate of the product's full PCIe link
    (knowledge/pcie_host_copy.yaml: x16 at the generation of the product's host interface)."""

    kind: Literal["host_copy_vs_pcie"] = "host_copy_vs_pcie"
    gpu: str  # "gpu0": the CUDA device the run names
    gpu_name: str  # "Tesla P100-PCIE-16GB"
    direction: Literal["host_to_device", "device_to_host"]
    gbs: float  # the copy's largest-size figure, GB/s (1e9 bytes)
    size_bytes: int
    generation: int  # the product's PCIe generation
    lanes: int
    link_gbs: float  # raw rate of that link, GB/s per direction
    ratio: float  # gbs / link_gbs
    below_ratio: float  # knowledge/pcie_host_copy.yaml below_ratio: under it no full link explains the copy
    tool: str = "bandwidthTest"


@fact_kind
class PairBandwidth(Fact):
    kind: Literal["pair_bandwidth"] = "pair_bandwidth"
    host_a: str
    host_b: str
    busbw_gbs: float
    size_bytes: int | None = None
    source: Literal["csv_rows", "csv_matrix"]


@fact_kind
class CudaSampleRun(Fact):
    """One run of a CUDA sample an operator runs to show that a node's driver and GPUs work
    (NVIDIA/cuda-samples deviceQuery, vectorAdd; the GPU operator's cuda-validation runs vectorAdd):
    what it found (the device count and names, the driver's and runtime's CUDA versions), its result,
    and the CUDA error a failure printed."""

    kind: Literal["cuda_sample_run"] = "cuda_sample_run"
    sample: Literal["deviceQuery", "vectorAdd"]
    result: Literal["PASS", "FAIL"] | None = None  # None: the paste ends before the sample's result
    device_count: int | None = None  # deviceQuery's "Detected N CUDA Capable device(s)" (0: "There are no available device(s)")
    gpu_names: str | None = None  # deviceQuery's 'Device N: "<name>"' lines, in order, ", "-joined
    driver_cuda: str | None = None  # "12.4": the CUDA version the driver supports (cudaDriverGetVersion)
    runtime_cuda: str | None = None  # "12.2": the CUDA runtime the sample was built with
    failed_step: str | None = None  # "cudaGetDeviceCount", "allocate device vector A", "launch vectorAdd kernel", "verify result"
    error_text: str | None = None  # the error as printed (cudaGetErrorString's text)
    #: its knowledge/cuda_errors.yaml entry (by the text, else the number); a deviceQuery that found no device (a count
    #: of 0, its result still PASS) is given cudaErrorNoDevice's, whose meaning it is (engine/catalogues/cuda.py joins it)
    catalogue_name: str | None = None
    printed_code: int | None = None  # deviceQuery's "cudaGetDeviceCount returned N" (CUDA <= 10.0 numbered differently)
    wrong_element: int | None = None  # vectorAdd's "Result verification failed at element N!": the GPU's sum was wrong
    #: what a run that passed showed working (knowledge/coverage.yaml reads it): "gpu" for vectorAdd (its kernel ran on the
    #: GPU and the sum was checked), "driver" for deviceQuery (it only asks the driver about the devices); None otherwise
    checked: Literal["driver", "gpu"] | None = None


@fact_kind
class SuperbenchBenchmarkFailed(Fact):
    """A SuperBench benchmark whose return code is not 0 (microsoft/superbenchmark superbench/benchmarks/return_code.py
    ``ReturnCode``): from a results file's ``"<benchmark>/return_code[:<rank>]": <code>`` or the executor's log
    ``benchmark: <name>, return code: <code>, result: {...}``, with micro_base's reason where the log gives it (``The
    binary does not exist - benchmark: ...``). One fact per benchmark and code, its ranks listed."""

    kind: Literal["superbench_benchmark_failed"] = "superbench_benchmark_failed"
    benchmark: str  # "cudnn-function", "mem-bw", "bert_models/pytorch-bert-base"
    code: int  # 33
    code_name: str  # ReturnCode's name, lower case: "microbenchmark_result_parsing_failure"; "unknown" for a code it lacks
    #: what the code says of the run: not_run (the benchmark never ran its test: binary missing or not set, an
    #: argument, type, architecture or precision refused, its docker image absent), run_failed (it ran and failed:
    #: the command's non-zero exit, an exception, a timeout, a distributed or model set-up failure), result_unreadable
    #: (it ran and its output held no result SuperBench could read: the program's own errors instead of figures)
    outcome: Literal["not_run", "run_failed", "result_unreadable"]
    ranks: str | None = None  # the ranks (GPUs or processes) with this code, "0-7"; None: the key named none
    reason: str | None = None  # the log's own line for it: "The binary does not exist - benchmark: cudnn-function, ..."


@fact_kind
class HplResidualCheck(Fact):
    """HPL's check of one solve's answer (HPL_pdtest.c: ``||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= <resid>
    ...... PASSED|FAILED``, the scaled residual against HPL.dat's threshold, 16.0 by default), with the figures of the
    run's result row above it (``WR11C2R4  8000  256  1  8  40.05  8.5251e+00``). A FAILED residual is a wrong answer:
    the node solved the system to garbage however fast it ran."""

    kind: Literal["hpl_residual_check"] = "hpl_residual_check"
    passed: bool
    residual: float | None = None  # the scaled residual; None where HPL printed nan or inf
    residual_text: str = ""  # as printed: "nan", "4.04326757e-03", "0.0013903"
    variant: str | None = None  # the result row's encoded variant: "WR11C2R4"
    n: int | None = None  # the order of the matrix
    nb: int | None = None
    p: int | None = None
    q: int | None = None
    gflops: float | None = None  # the row's rate (a wrong answer's rate means nothing)


@fact_kind
class HplTestsSummary(Fact):
    """HPL's closing count of its tests (HPL_pddriver.c: ``N tests completed and passed residual checks,``, ``N tests
    completed and failed residual checks,``, ``N tests skipped because of illegal input values.``, and, where HPL.dat's
    threshold is 0 or less, ``N tests completed without checking,``), as much of it as the paste holds (None: that line
    not in it)."""

    kind: Literal["hpl_tests_summary"] = "hpl_tests_summary"
    passed: int | None = None
    failed: int | None = None
    skipped: int | None = None  # skipped for illegal input values (or a solve that returned an error code)
    unchecked: int | None = None  # completed without checking: the answer was never compared
    #: the tests whose answer HPL never compared: skipped plus completed without checking (0 where the paste holds
    #: neither count)
    uncompared: int = 0


@fact_kind
class SuperbenchBenchmarkNoResult(Fact):
    """A SuperBench benchmark that left no result, so no return code either: the executor found no implementation of it
    for the platform it detected (registry.py ``Benchmark has no implementation, name: X, platform: CPU``, executor.py
    ``Executor failed in X, invalid context.``) or raised (``Executor failed in X.`` with no code logged), and wrote
    ``[null]`` as its results, which the runner then cannot read (runner.py ``Invalid content in JSON file: <path>``), or
    the results file is not JSON at all (``Invalid JSON file: <path>``: cut short, the executor killed while writing).
    One fact per node and benchmark, its lines merged."""

    kind: Literal["superbench_benchmark_no_result"] = "superbench_benchmark_no_result"
    benchmark: str  # "gemm-flops", "cublas-function"
    #: what the lines say: no_implementation (the registry has none for the detected platform: it never ran),
    #: invalid_context (the executor could not launch it: the same, or an unknown benchmark), exception (it raised),
    #: no_result (the runner found its results empty: one of those, the executor's log on that node says which),
    #: results_unreadable (its results file is not JSON)
    how: Literal["no_implementation", "invalid_context", "exception", "no_result", "results_unreadable"]
    platform: str | None = None  # the platform SuperBench detected, from the registry's line: "CPU", "CUDA", "ROCM"
    #: SuperBench took the node for a CPU one: it found no GPU device (executor.py __get_platform: /dev/nvidiactl and
    #: /dev/nvidia-uvm character devices for NVIDIA, /dev/kfd and /dev/dri for AMD), so a GPU benchmark has nothing to run
    no_gpu_device: bool = False
    ranks: str | None = None  # the ranks whose results the runner could not read, "0" or "0-7"
    #: what the lines say, in words: "SuperBench found no GPU device ... took the node for a CPU one", "the runner found
    #: its results empty ..."
    reason: str = ""
    #: every benchmark of the same node and text that left no result, in the order read: "cublas-function, gemm-flops"
    node_benchmarks: str = ""
