"""The training or serving application: PyTorch (elastic agent, watchdog, flight recorder,
warnings), CUDA runtime errors, throughput, Ollama, Ray and the processes it launched.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class CudaError(Fact):
    kind: Literal["cuda_error"] = "cuda_error"
    error_name: str | None = None  # as printed, else the catalogue's name
    runtime_name: str | None = None  # cudaError* when the error is a runtime one
    catalogue_name: str | None = None  # the knowledge/cuda_errors.yaml entry (None: not resolved)
    code: int | None = None  # the catalogue entry's code
    printed_code: int | None = None  # the number as printed (CUDA <= 9 numbered differently)
    message: str
    form: str  # torch | quoted | numbered | thc | pytorch_init | init | cuda_gdb | check | curesult | error_code | name_only | phrase | quoted_text | library_status | triton_out_of_resources | trtllm_peer_access | nan_check | ...
    #            | library_status | device_assert | triton_out_of_resources | cutlass_status (CUTLASS's kErrorInsufficientDriver)
    #            | nan_check (c10d's TORCH_NCCL_NAN_CHECK assert: a NaN in a collective's input, not a kernel fault)
    source_file: str | None = None  # "Cuda error <file>:<line> '...'" forms
    source_line: int | None = None
    driver_cuda: str | None = None  # "The NVIDIA driver on your system is too old (found version 11060)": "11.6"
    device: int | None = None
    pid: int | None = None
    rank: int | None = None  # from a torchrun "[rankN]:" prefix
    #: a CUDA library's status instead of a runtime/driver error (form "library_status"): the library
    #: (cublas, cudnn, cusolver, cufft, cusparse, curand, cutlass), its status name as printed
    #: (CUBLAS_STATUS_EXECUTION_FAILED) and the status without the library's prefix (EXECUTION_FAILED),
    #: the same words in every library, which the rules read
    library: str | None = None
    library_status: str | None = None
    library_condition: str | None = None
    call: str | None = None  # "when calling `cublasSgemm( handle, ...)`": the library call that failed
    #: the CUDA driver or runtime function the line names beside the error ("in expression cuMemCreate(&handle, ...)",
    #: "Call to cuMemCreate(...) failed", "error in cuMemCreate() call"): cuMemCreate, cudaMalloc
    api_call: str | None = None


@fact_kind
class TritonModelState(Fact):
    """A model that Triton Inference Server did not load, as its model-status table at start-up shows it: a row
    ``| <model> | <version> | <state>: <why> |`` whose state is UNAVAILABLE, or ``Not loaded: No model version was
    found`` (triton-inference-server/core src/server.cc PrintModelStatus, the cell wrapped at the column's width by
    triton-inference-server/common src/table_printer.cc: facts/parsers/triton_model_table.py joins it)."""

    kind: Literal["triton_model_state"] = "triton_model_state"
    model: str  # "tensorrt_llm"
    version: str  # "1"; "-" where no version was found
    state: str  # "UNAVAILABLE", "Not loaded"
    reason: str  # the status cell's first line after the state, joined whole: "Internal: unexpected error when ..."
    message: str  # what the row says, named: "model 'tensorrt_llm' version 1: UNAVAILABLE: Internal: ..."


@fact_kind
class FatalCheckFailed(Fact):
    """A program's glog or absl fatal check that failed and aborted it (``CHECK(cond)``, ``CHECK_EQ(a, b)``,
    ``PCHECK(cond)``): ``F0721 02:48:28.834262 1159892 util.h:139] Check failed: bind(*listen_fd, ...) >= 0 ERROR:
    binding``. What the program checked is its own: where the check names a CUDA, NCCL or verbs call another fact
    says what failed; this one is the check that no reader reads more of."""

    kind: Literal["fatal_check_failed"] = "fatal_check_failed"
    condition: str  # what the check printed after "Check failed: ": the condition, and what the program streamed
    #: the function called in the condition, where it calls one: "bind", "ncclGroupEnd", "ibv_reg_mr"
    call: str | None = None
    #: CHECK_OP's values as printed "(<a> vs. <b>)"
    values: str | None = None
    #: PCHECK's strerror(errno) and errno (": Cannot allocate memory [12]")
    errno_text: str | None = None
    errno: int | None = None
    source_file: str | None = None  # the prefix's basename:line, where the line keeps glog's prefix
    source_line: int | None = None
    message: str


@fact_kind
class CudaOom(Fact):
    kind: Literal["cuda_oom"] = "cuda_oom"
    device: int | None = None
    tried_bytes: int | None = None
    total_bytes: int | None = None
    free_bytes: int | None = None
    allocated_bytes: int | None = None  # allocated by PyTorch
    reserved_bytes: int | None = None  # reserved by PyTorch's caching allocator (allocated included)
    process_bytes: int | None = None  # "this process has X memory in use" (2.1+: non-PyTorch memory included)
    other_process_bytes: int | None = None  # sum of "Process N has X memory in use" (other processes, 2.1+)
    other_processes: int = 0
    #: the other processes' pids as the message lists them ("43872", "1234, 5678"): who else holds the GPU
    other_pids: str | None = None
    #: memory of the GPU neither free nor this process's: total - free - (this process, else what PyTorch reserved)
    elsewhere_bytes: int | None = None
    elsewhere_fraction: float | None = None  # of total capacity
    rank: int | None = None
    pid: int | None = None


@fact_kind
class OllamaGpu(Fact):
    """``msg="inference compute"``: a GPU the ollama server found and will run models on."""

    kind: Literal["ollama_gpu"] = "ollama_gpu"
    gpu_uuid: str | None = None  # "GPU-cdf3c132-..."
    pci_bus_id: str | None = None  # canonical, from pci_id= (newer releases)
    name: str | None = None  # the product: description= (newer) or name= (older)
    library: str | None = None  # "CUDA", "cuda", "rocm"
    compute: str | None = None  # "9.0"
    driver_cuda: str | None = None  # "12.9": the CUDA version the driver supports


@fact_kind
class OllamaLogError(Fact):
    """A ``level=ERROR`` line of the ollama server."""

    kind: Literal["ollama_log_error"] = "ollama_log_error"
    message: str  # msg=, then error= where given


@fact_kind
class OllamaRunnerExit(Fact):
    """The ollama server's report that the runner it started for a model is gone: ``level=ERROR ...
    msg="llama runner terminated" error="exit status 2"`` (llm/server.go, printed only once the runner
    has written an error of its own), ``msg="error loading llama server" error="llama runner process has
    terminated: ..."`` (server/sched.go: the load failed, whatever its error). The runner's own failure
    is in the same log, before it."""

    kind: Literal["ollama_runner_exit"] = "ollama_runner_exit"
    message: str  # msg=, then error= where given
    cut: bool = False  # the line ends inside msg= (a paste cut it): read as the message it begins


@fact_kind
class OllamaGpuDiscoveryFailed(Fact):
    """The ollama server's report that its GPU discovery failed or found no GPU, at whatever level it logs it
    (INFO, WARN, DEBUG): ``msg="no compatible GPUs were discovered"`` (it then runs models on the CPU), a GPU
    library it could not load or initialise (``msg="unable to load cuda driver library" ... error="..."``,
    ``msg="unknown error initializing cuda driver library <lib>: cuda driver library init failure: 999. see ..."``,
    ``msg="Unable to load cudart library <lib>: ..."``, ``msg="version mismatch between driver and cuda driver
    library - ..."``), its discovery runner failing (``msg="failure during llama-server GPU discovery"``). The
    library's own status, where the line quotes a CUDA one, is cuda_app's fact on the same line."""

    kind: Literal["ollama_gpu_discovery_failed"] = "ollama_gpu_discovery_failed"
    message: str  # msg=, then error= where given
    library: str | None = None  # library=, where given
    #: the driver API function the library lacked (discover/gpu_info.h LOAD_SYMBOL: "symbol lookup for %s failed: %s"):
    #: a libcuda older than the CUDA the server's probe was written for ("cuCtxCreate_v3": CUDA 11.4's, driver R470)
    missing_symbol: str | None = None


@fact_kind
class RayMemoryMonitorKill(Fact):
    """Ray's memory monitor killed a task or actor process: the node's host memory ran low."""

    kind: Literal["ray_memory_monitor_kill"] = "ray_memory_monitor_kill"
    ip: str | None = None  # the node as Ray names it
    killed: int | None = None  # workers the summary counts; None for a single task's error
    used_gb: float | None = None
    total_gb: float | None = None
    threshold: float | None = None  # RAY_memory_usage_threshold in force (0.95 by default)


@fact_kind
class VllmRayNodeNoGpu(Fact):
    """vLLM's Ray executor found no GPU free in Ray's resources on the node it runs on
    (vllm/executor/ray_utils.py initialize_ray_cluster: "Current node has no GPU available")."""

    kind: Literal["vllm_ray_node_no_gpu"] = "vllm_ray_node_no_gpu"
    ip: str | None = None  # current_ip, when the line gets that far
    ray_gpu: float | None = None  # the node's free 'GPU' in Ray's resources, when listed (absent: none left)
    accelerator: str | None = None  # Ray's 'accelerator_type:<name>' of the node: Ray did see a GPU there
    placement_groups: bool = False  # the resources list placement-group bundles (GPUs reserved in groups)


@fact_kind
class RayGpuRequestUnplaced(Fact):
    """A request for GPUs that Ray could not place: Ray's autoscaler's (python/ray/autoscaler/_private/autoscaler.py
    ``_report_pending_infeasible``), ``pending`` ("cannot be scheduled right now ... all cluster resources being claimed
    by actors") or ``infeasible`` ("No available node types can fulfill resource request"), or vLLM's placement groups on
    Ray (vllm/executor/ray_utils.py, vllm/v1/engine/utils.py): ``pending`` while it waits for one ("Waiting for creating
    a placement group of specs"), ``infeasible`` where the cluster has fewer GPUs than the engine asks for ("Tensor
    parallel size (16) exceeds available GPUs (8)"), ``failed`` where vLLM gave up and raised ("Cannot provide a
    placement group ... within 1800 seconds", data parallel's "Not enough resources to allocate 2 placement groups,
    only created 1 placement groups"); the task, actor or engine waits, or the engine does not start."""

    kind: Literal["ray_gpu_request_unplaced"] = "ray_gpu_request_unplaced"
    state: Literal["pending", "infeasible", "failed"]
    request: str  # the request as printed: "{'GPU': 0.125, 'CPU': 0.5}", "[{'GPU': 1.0}, {'GPU': 1.0}]", "2 placement groups, only created 1"
    gpu: float | None = None  # the GPUs it asks for ('GPU': x, summed over a placement group's bundles); None where the line does not say

@fact_kind
class CustomAllreduceDisabled(Fact):
    """vLLM's (or SGLang's copy's) custom all-reduce turned itself off at start-up and the tensor-
    parallel all-reduce goes through NCCL instead (vllm/distributed/device_communicators/
    custom_all_reduce.py): a state of the GPUs' interconnect as the engine saw it, no failure."""

    kind: Literal["custom_allreduce_disabled"] = "custom_allreduce_disabled"
    # p2p_unavailable (no GPU P2P between the ranks, or vLLM's P2P test failed) | pcie_only_over_two
    # (more than two GPUs without full NVLink) | world_size (a group size it has no kernel for) |
    # cross_node (the group spans nodes) | library_missing (built without the custom all-reduce ops)
    reason: str
    world_size: int | None = None  # the unsupported world size, where the line names it
    pid: int | None = None  # the worker process's "(VllmWorkerProcess pid=N)" prefix
    message: str


@fact_kind
class VllmStartupMemoryShort(Fact):
    """vLLM refused to start: the GPU's free memory at start-up was below the share it was told to take.

    Measured before it loaded anything (vllm/v1/worker gpu_worker.py init_device, later utils.py
    request_memory: "Free memory on device [cuda:N ](F/T GiB) on startup is less than desired GPU
    memory utilization (U, R GiB)"); what was in use then is the CUDA context's and whatever other
    processes hold on the GPU."""

    kind: Literal["vllm_startup_memory_short"] = "vllm_startup_memory_short"
    device: int | None = None  # the N of "cuda:N" (the process's visible device), where the line names it
    free_gib: float
    total_gib: float
    utilization: float  # gpu_memory_utilization asked for
    requested_gib: float  # utilization x total
    used_gib: float  # total - free: in use before vLLM loaded anything
    used_fraction: float  # of the GPU's total
    shortfall_gib: float  # requested - free
    pid: int | None = None  # the "(EngineCore_DP0 pid=N)" / "(Worker pid=N)" prefix


@fact_kind
class CudaGpuCoredump(Fact):
    """The CUDA driver began writing a GPU core dump of a process ("Starting GPU coredump generation, set the
    CUDA_COREDUMP_SHOW_PROGRESS environment variable to 1 to enable more detailed output"): with
    CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 it does so when a kernel of the process hits a GPU exception (an illegal or
    misaligned address, an illegal instruction, a trap or assert, a hardware error the GPU raised to it), before the
    host's next CUDA call fails with that exception's error."""

    kind: Literal["cuda_gpu_coredump"] = "cuda_gpu_coredump"
    pid: int | None = None
    rank: int | None = None


@fact_kind
class VllmMemoryProfileInconsistent(Fact):
    """vLLM aborted its start-up memory profile: the GPU's free memory after its profiling run was not below the
    free memory before it (vllm/v1/worker gpu_worker.py determine_available_memory: "Error in memory profiling.
    Initial free memory X GiB, current free memory Y GiB. This happens when other processes sharing the same
    container release GPU memory while vLLM is profiling during initialization."; the V0 worker printed the two
    figures in bytes and blamed memory "not properly cleaned up before initializing the vLLM instance")."""

    kind: Literal["vllm_memory_profile_inconsistent"] = "vllm_memory_profile_inconsistent"
    initial_free_gib: float  # free before the profiling run
    current_free_gib: float  # free after it
    grew_gib: float  # current - initial (0 where equal: the check wants a strict drop)
    pid: int | None = None  # the "(EngineCore_DP0 pid=N)" / "(Worker pid=N)" prefix


@fact_kind
class RayObjectStoreShmShort(Fact):
    """Ray found /dev/shm smaller than its object store (python/ray/_private/services.py
    ``determine_plasma_store_config``): it put the store in a disk directory instead
    (``refused`` False, ``directory`` that directory), or refused to start (``refused`` True: the
    ValueError of a store over 10 GB that does not fit, Ray 1.3 on)."""

    kind: Literal["ray_object_store_shm_short"] = "ray_object_store_shm_short"
    refused: bool = False
    directory: str | None = None  # "/tmp", "/tmp/ray": where the store went instead of /dev/shm
    shm_bytes: int | None = None  # what /dev/shm had (bytes)
    store_gb: float | None = None  # the store size Ray asked for (GB, the ValueError's figure)


@fact_kind
class RaySpillDiskFull(Fact):
    """Ray's raylet found the file system of its temp / spilling directory over the capacity threshold
    (src/ray/common/file_system_monitor.cc ``OverCapacityImpl``, RAY_local_fs_capacity_threshold, 0.95
    by default): object creation that needs spilling fails ("Out of Disk") until space is freed
    (``raised`` False), or a program got that failure (``raised`` True: python/ray/exceptions.py
    OutOfDiskError, which names no directory and no figures)."""

    kind: Literal["ray_spill_disk_full"] = "ray_spill_disk_full"
    raised: bool = False
    path: str | None = None  # the directory Ray checks: its session dir (/tmp/ray/session_...) or a spilling directory_path
    threshold_percent: float | None = None  # the threshold the raylet printed ("is over 95% full")
    available_bytes: int | None = None  # what was free (the GiB figure of Ray 2.x converted, or older Rays' bytes)
    capacity_bytes: int | None = None  # the file system's size, likewise


@fact_kind
class LaunchedProcessKilled(Fact):
    """A process a Python launcher started was killed by a signal (CalledProcessError, DeepSpeed's launcher)."""

    kind: Literal["launched_process_killed"] = "launched_process_killed"
    signal: str | None = None  # "SIGKILL"; None for a number without a name
    signum: int  # 9
    command: str  # the command as the launcher printed it ("" where its line names none)
    launcher: str = "CalledProcessError"  # whose message: "CalledProcessError", "deepspeed", "shell", "zsh", "gdb", Open MPI's tool ("mpirun")
    core_dumped: bool = False  # the shell's " (core dumped)"
    #: a crash report's backtrace (UCX's, Open MPI's): the innermost frame past the signal handler and the C runtime,
    #: its function ("pncclRedOpDestroy") or object and offset ("libnccl.so.2+0xbd72c"); None without a backtrace
    crashed_in: str | None = None
    #: that frame's library: "nccl" for libnccl.so.* or an ncclX/pncclX symbol, else the object's name (libfoo.so.1 ->
    #: "foo"); None where the frame names neither
    crash_library: str | None = None
    #: a SIGSEGV's cause as the crash report gives the kernel's si_code: "invalid_permissions" (SEGV_ACCERR: an address
    #: mapped without the access tried, as the CUDA driver maps GPU allocations' host range) or "address_not_mapped"
    #: (SEGV_MAPERR); None where the report does not say
    segv_cause: Literal["invalid_permissions", "address_not_mapped"] | None = None
    #: the innermost frame past the handler was the C runtime's copy code (memcpy, memmove, a libc frame by offset) called
    #: by ``crashed_in``: the caller handed it a pointer it could not touch
    crash_in_copy: bool = False
    #: "mpi" where ``crashed_in`` is the MPI layer's code (UCX's ucp_/uct_, Open MPI's opal_/ompi_/mca_, MPICH's MPIR_/MPIDI_)
    crash_layer: Literal["mpi"] | None = None
    #: the backtrace runs through CUDA-aware transport code (UCX's libuct_cuda: cuda_copy, cuda_ipc, gdr_copy; Open MPI's
    #: mca_common_cuda, opal_cuda_*, the smcuda BTL)
    cuda_transport: bool = False
    #: glog's failure-signal report of a kill-like signal (SIGTERM, SIGINT, SIGHUP, ...): the pid of the process that
    #: sent it ("from PID 30147"), when another process; None where the report names no sender or for a fault
    sent_by_pid: int | None = None


@fact_kind
class TorchRendezvousError(Fact):
    """torchrun's rendezvous or its c10d store failed: the nodes never met."""

    kind: Literal["torch_rendezvous_error"] = "torch_rendezvous_error"
    error: str
    message: str
    endpoint: str | None = None
    timeout_s: float | None = None
    min_nodes: int | None = None
    during_rendezvous: bool = False  # the agent's Rendezvous*Error, or a store timeout in a file that shows one (torchrun's own store)
    clients_joined: int | None = None  # clients_timeout: clients that connected to the store server ...
    clients_expected: int | None = None  # ... of those it waited for (the world size)


@fact_kind
class TorchAgentSignal(Fact):
    """torchrun's agent was sent a termination signal (``received``: SIGTERM, SIGINT, SIGHUP from
    outside) or is sending one to its workers to shut them down (``closing``)."""

    kind: Literal["torch_agent_signal"] = "torch_agent_signal"
    event: Literal["received", "closing"]
    signal: str  # as printed: "15", "Signals.SIGTERM", "SIGTERM"
    pid: int | None = None


@fact_kind
class TorchWorkerGroupFailed(Fact):
    """torchrun's agent found its worker group failed (or unhealthy) and restarts it: ``[default] Worker group FAILED.
    3/3 attempts left; will restart worker group`` (agent/server/api.py _invoke_run, 1.9+): a worker failed; its own
    output says why."""

    kind: Literal["torch_worker_group_failed"] = "torch_worker_group_failed"
    state: str  # "FAILED", "UNHEALTHY"
    attempts_left: int  # restarts left before this one
    max_restarts: int  # --max-restarts


@fact_kind
class TorchRendezvousJoin(Fact):
    """A node took part in torchrun's rendezvous: its agent began it, asked to join, or joined."""

    kind: Literal["torch_rendezvous_join"] = "torch_rendezvous_join"
    host: str  # the node, as its node descriptor names it (or the file's node)
    event: Literal["attempt", "joined"]
    run_id: str | None = None
    rank: int | None = None  # joined: the node's rank in the round
    world_size: int | None = None  # joined: nodes in the round


@fact_kind
class TorchRendezvousIncomplete(Fact):
    """torchrun's rendezvous timed out and the bundle shows which nodes took part: those that did
    not (a node of the bundle with no rendezvous line, or fewer nodes than ``min_nodes``) never
    joined. Made by :mod:`stethoscope.engine.combine.rendezvous`; ``sources`` are the timeout and
    join facts."""

    kind: Literal["torch_rendezvous_incomplete"] = "torch_rendezvous_incomplete"
    joined: str  # "node1, node2": nodes whose agent took part
    joined_count: int
    min_nodes: int | None = None
    missing: str  # "node3" or "not in the bundle"
    missing_count: int  # nodes that never joined (at least the named ones; min_nodes - joined when larger)
    sources: str


@fact_kind
class TorchFrEntry(Fact):
    """One collective in a rank's flight recorder: ``state`` scheduled / started / completed."""

    kind: Literal["torch_fr_entry"] = "torch_fr_entry"
    rank: int
    pg: str | None = None  # process group name ("0")
    pg_name: str | None = None  # its description ("default_pg")
    seq_num: int  # collective_seq_id (what the watchdog calls SeqNum)
    p2p_seq_id: int | None = None
    op_type: str  # profiling_name: "nccl:all_reduce"
    state: str
    timeout_ms: int | None = None
    is_p2p: bool = False


@fact_kind
class TorchFrAnalysis(Fact):
    """One finding of PyTorch's flight-recorder analyser (``torchfrtrace`` / ``fr_trace``) over the
    ranks' dumps: ``issue`` ranks_missing (ranks that never joined the collective: ``missing ranks``),
    mismatch (``Culprit rank R; Error type: ...``), io_mismatch (all_to_all totals differ, no culprit),
    dumps_missing (no dump from some ranks: undecided), no_errors (the collective did not match across its
    ranks and the analyser found no reason: 'No errors found for this collective entry')."""

    kind: Literal["torch_fr_analysis"] = "torch_fr_analysis"
    issue: str
    seq_num: int | None = None  # the collective sequence number the analyser names
    pg: str | None = None  # "group info: 0:default_pg"
    op_type: str | None = None  # "collective: nccl:all_reduce"
    ranks: str | None = None  # the missing, culprit or dump-less ranks, "1, 3"
    first_rank: int | None = None  # the lowest of them (a finding's entity)
    error_type: str | None = None  # SIZE_OR_SYNTAX_MISMATCH, COLLECTIVE_TYPE_MISMATCH, ...
    state: str | None = None  # "collective state: scheduled"
    world_size: int | None = None


@fact_kind
class TorchWatchdogTimeout(Fact):
    kind: Literal["torch_watchdog_timeout"] = "torch_watchdog_timeout"
    rank: int
    pg_rank: int | None = None
    pg: str | None = None
    pg_name: str | None = None
    seq_num: int | None = None  # WorkNCCL(SeqNum=...) from 1.11; 1.8-1.10 print OpType, TensorShape, Timeout(ms) only
    op_type: str
    numel_in: int | None = None
    numel_out: int | None = None
    timeout_ms: int
    elapsed_ms: int | None = None
    blocking_wait: bool = False  # seen only as "timed out in blocking wait"
    late_ms: int | None = None  # elapsed_ms - timeout_ms: how long after the timeout the watchdog reported it
    late_limit_ms: int | None = None  # knowledge/torch_watchdog.yaml late_at_least_ms
    short_limit_ms: int | None = None  # knowledge/torch_watchdog.yaml short_below_ms: a timeout_ms below it is short


@fact_kind
class GlooTimeout(Fact):
    """PyTorch's Gloo backend gave up waiting for a peer's data (``gloo::IoException`` "Timed out
    waiting Nms for recv|send operation to complete"): the peer had not reached the same collective
    or point-to-point operation within the group's timeout (facts/parsers/torch_gloo.py)."""

    kind: Literal["gloo_timeout"] = "gloo_timeout"
    operation: str  # recv | send
    timeout_ms: int
    rank: int | None = None  # the [rankN]: label of the line, where printed


@fact_kind
class GlooConnectFailed(Fact):
    """PyTorch's Gloo backend could not connect its full mesh when the process group was made
    (``Gloo connectFullMesh failed with [.../pair.cc:N] <why>, remote=[<addr>]:<port>``): a rank
    could not reach a peer at the address the peer advertised (facts/parsers/torch_gloo.py)."""

    kind: Literal["gloo_connect_failed"] = "gloo_connect_failed"
    detail: str | None = None  # Gloo's reason: "no error", "timed out connecting: SO_ERROR: Connection refused"
    remote: str | None = None  # the peer address dialled, where printed: "127.0.1.1"
    remote_loopback: bool = False  # the peer advertised a loopback address (its hostname resolved to lo)
    rank: int | None = None  # the [rankN]: label of the line, where printed


@fact_kind
class GlooMonitoredBarrier(Fact):
    """ProcessGroupGloo's monitored barrier failed (``torch.distributed.monitored_barrier``, and the barrier
    TORCH_DISTRIBUTED_DEBUG=DETAIL's ProcessGroupWrapper runs before every collective): rank 0 names the ranks
    that did not reach it in time (``ranks_failed``), or a rank that did reach it never got rank 0's release and
    says rank 0's log names the faulty rank (``waiting_on_rank0``) (facts/parsers/torch_gloo.py)."""

    kind: Literal["gloo_monitored_barrier"] = "gloo_monitored_barrier"
    event: Literal["ranks_failed", "waiting_on_rank0"]
    ranks: str | None = None  # ranks_failed: "1" or "1, 2" as printed (the ranks that did not reach the barrier)
    rank: int | None = None  # ranks_failed naming one rank: that rank (the finding's entity)
    reporter: int | None = None  # the rank that printed it: rank 0 for ranks_failed, the message's rank for waiting_on_rank0
    timeout_ms: int | None = None


@fact_kind
class SshdNotStarted(Fact):
    """The ssh server a launcher needs on a worker (an MPIJob's worker container runs
    ``/usr/sbin/sshd -De``) could not start: its binary is not in the image, or it found no host
    key (facts/parsers/sshd_start.py). The launcher's ssh to that node then fails."""

    kind: Literal["sshd_not_started"] = "sshd_not_started"
    reason: Literal["binary_missing", "no_host_keys"]
    path: str | None = None  # the sshd binary the shell or supervisor looked for: /usr/sbin/sshd
    message: str


@fact_kind
class TorchNcclProgress(Fact):
    kind: Literal["torch_nccl_progress"] = "torch_nccl_progress"
    rank: int
    pg_rank: int | None = None
    pg: str | None = None
    pg_name: str | None = None
    last_enqueued_seq: int | None = None
    last_completed_seq: int | None = None
    timeout_seq: int | None = None


@fact_kind
class DeepspeedTraceInvalidated(Fact):
    """DeepSpeed ZeRO-3's parameter prefetcher dropped the module trace it recorded, because this step ran its modules
    in another order than the recorded one (deepspeed/runtime/zero/partitioned_param_coordinator.py trace_prologue,
    printed by rank 0, every release from 0.9 on):
    ``Invalidate trace cache @ step 1: expected module 25, but got module 323`` (``expected_module`` set), or ran more
    modules than it holds: ``Invalidate trace cache @ step 0 and module 1458: cache has only 0 modules``
    (``cache_modules`` set). Printed on healthy runs too (dynamic control flow, generation, MoE routing): by itself a
    remark; beside a ZeRO-3 all-gather that timed out, a sign that the ranks' module orders, so their all-gathers,
    differed (rule deepspeed_zero3_module_order_timeout)."""

    kind: Literal["deepspeed_trace_invalidated"] = "deepspeed_trace_invalidated"
    step: int  # the step of the forward/backward at which the order differed
    got_module: int  # the module id that ran
    expected_module: int | None = None  # the module id the trace expected there; None: the cache ran out
    cache_modules: int | None = None  # "cache has only N modules": the trace was shorter than this pass


@fact_kind
class TorchPgNcclOptions(Fact):
    """The error-handling modes one rank's ProcessGroupNCCL took from the environment.

    PyTorch 1.x's "initialized with following options:" block, or 2.3+'s one-line "initialization options:" with
    its "environments:" line (facts/parsers/torch_pg_options.py)."""
    kind: Literal["torch_pg_nccl_options"] = "torch_pg_nccl_options"
    rank: int | None = None  # the global rank ([rankN]: label), else the message's [Rank N]
    pg_rank: int | None = None  # the message's [Rank N]
    async_error_handling: int | None = None  # NCCL_ASYNC_ERROR_HANDLING as printed (0 or 1 in 1.x; 2.x's TORCH_NCCL_ one 0-3)
    blocking_wait: int | None = None  # NCCL_BLOCKING_WAIT
    desync_debug: int | None = None  # NCCL_DESYNC_DEBUG (1.10 on)
    timeout_ms: int | None = None  # TIMEOUT(ms)
    high_priority_stream: int | None = None  # USE_HIGH_PRIORITY_STREAM
    complete: bool  # the block's lines up to USE_HIGH_PRIORITY_STREAM all there (False: cut)
    #: block: 1.x's options block; line: 2.3+'s one-line options (the modes from its TORCH_NCCL_* environments line,
    #: with 2.x's meanings: ASYNC_ERROR_HANDLING 0-3, the watchdog enforcing the timeout in every mode)
    form: Literal["block", "line"] = "block"


@fact_kind
class TorchCollectiveDesync(Fact):
    kind: Literal["torch_collective_desync"] = "torch_collective_desync"
    rank: int | None = None  # the rank whose log carries the report
    reporting_pg_rank: int | None = None
    timeout_op: str | None = None
    timeout_seq: int | None = None
    lagging_rank: int
    state: str  # joined_not_finished | finished_not_joined_next | never_joined
    collective_seq: int | None = None


@fact_kind
class TorchCollectiveFingerprintMismatch(Fact):
    """``RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective:
    CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, ...), but Rank 0 is running collective: ...``:
    PyTorch's ProcessGroupWrapper (TORCH_DISTRIBUTED_DEBUG=DETAIL) compared the collective each rank is about
    to run and found two ranks calling different ones (op, sequence number, tensor shape, dtype or device).
    ``pg_rank``/``peer_pg_rank``: the ranks as the message names them (in the process group that ran the
    check); ``rank``: the line's ``[rankN]:`` global rank where printed, else ``pg_rank``. ``aspects``:
    compute_collective_diff's list ("Sequence number", "Op type", "Tensor Tensor shapes", ...), comma-joined,
    where the message was not cut before it."""

    kind: Literal["torch_collective_fingerprint_mismatch"] = "torch_collective_fingerprint_mismatch"
    rank: int | None = None
    pg_rank: int
    op_type: str | None = None
    seq_num: int | None = None
    peer_pg_rank: int | None = None
    peer_op_type: str | None = None
    peer_seq_num: int | None = None
    aspects: str | None = None


@fact_kind
class CudaDriverLibraryMismatch(Fact):
    """TensorFlow's / XLA's CUDA diagnostics after a failed cuInit (stream_executor/cuda/cuda_diagnostics.cc
    LogDriverVersionInformation): ``kernel version 384.90.0 does not match DSO version 384.111.0 -- cannot
    find working devices in this configuration``, or its two INFO lines ``libcuda reported version is: X`` /
    ``kernel reported version is: Y`` with X != Y: the loaded kernel module (/proc/driver/nvidia/version)
    and the user-space libcuda the process loaded are different driver versions."""

    kind: Literal["cuda_driver_library_mismatch"] = "cuda_driver_library_mismatch"
    kernel_version: str  # "384.90.0": the loaded kernel module's
    library_version: str  # "384.111.0": libcuda's (the "DSO")
    rank: int | None = None
    pid: int | None = None


@fact_kind
class TorchWorkerFailed(Fact):
    kind: Literal["torch_worker_failed"] = "torch_worker_failed"
    local_rank: int | None = None
    rank: int | None = None
    pid: int | None = None
    exitcode: int | None = None
    signal: str | None = None
    root_cause: bool = False  # listed under "Root Cause (first observed failure)"
    sigkill: bool = False  # killed by SIGKILL (exit code -9): from outside PyTorch


@fact_kind
class NativeStack(Fact):
    """One thread's native stack as gdb prints it (``bt``, ``thread apply all bt``): where a process was
    when someone attached to it, most often a hung one. A snapshot: it says where the thread waited then,
    not that it waits still."""

    kind: Literal["native_stack"] = "native_stack"
    thread: str | None = None  # gdb's thread number of ``thread apply all bt`` ("2"); None for a lone ``bt``
    lwp: int | None = None  # the kernel's thread id (LWP) where gdb names it
    frames: int  # the frames read
    top: str  # the innermost frame's function ("accept", "pthread_cond_wait@@GLIBC_2.3.2", "??")
    #: the innermost frame is a call that blocks the thread: accept, poll, epoll_wait, recv, read, futex,
    #: pthread_cond_wait, sem_wait, nanosleep, ... (glibc's __GI_/__libc_ prefixes and symbol version dropped); None: running
    blocked_in: str | None = None
    #: the outermost NCCL API function on the stack (ncclCommInitRankSync, ncclAllReduce, ...) and the
    #: innermost NCCL function (public or internal: ncclSocketAccept, bootstrapRecv, p2pSetup)
    nccl_api: str | None = None
    nccl_inner: str | None = None
    #: init: the API call builds a communicator (ncclCommInit*, ncclCommSplit); collective: a collective,
    #: send/recv or group call; None: no NCCL API frame
    nccl_phase: Literal["init", "collective", "other"] | None = None


@fact_kind
class PythonStack(Fact):
    """One Python thread's stack as ``py-spy dump`` or CPython's faulthandler prints it.
    Where a process's threads were when someone looked, most often a hung rank. A snapshot: it says
    where the thread waited then, not that it waits still."""

    kind: Literal["python_stack"] = "python_stack"
    tool: Literal["py-spy", "faulthandler"]
    thread: str | None = None  # the thread's id as printed ("36455", "0x00007fdcbce00640"); None: faulthandler's lone "Stack"
    name: str | None = None  # py-spy's thread name ("MainThread")
    state: Literal["idle", "active", "active+gil"] | None = None  # py-spy's status of the thread; None: faulthandler's
    current: bool = False  # faulthandler's "Current thread": the thread that dumped
    frames: int  # the frames read
    top: str | None = None  # the innermost frame's function; None: no frame (a native-only thread)
    #: the innermost call of torch.distributed (distributed_c10d, a rendezvous) or torch.cuda on the
    #: stack ("all_gather_into_tensor", "barrier", "init_process_group", "synchronize") and its phase:
    #: collective (a collective, barrier or send/recv), init (the process group's set-up), cuda_sync
    torch_call: str | None = None
    phase: Literal["collective", "init", "cuda_sync"] | None = None


@fact_kind
class CppRuntimeAbort(Fact):
    """The C++ runtime's own last words before it aborted the process (SIGABRT, exit code -6), with
    no exception to name: libstdc++'s ``pure virtual method called`` (a virtual call on an object
    already destroyed, most often at exit) and its verbose terminate handler's ``terminate called
    without an active exception`` (std::terminate with none in flight: a joinable std::thread
    destroyed, the pure virtual call before it) or ``terminate called recursively``; with an
    exception in flight, ``terminate called after throwing an instance of '<type>'`` (reason
    ``uncaught_exception``): its what() is the error, read by the readers of that error's own words."""

    kind: Literal["cpp_runtime_abort"] = "cpp_runtime_abort"
    reason: Literal["pure_virtual_call", "deleted_virtual_call", "terminate_without_exception", "terminate_recursively",
                    "uncaught_exception"]
    #: the pure virtual call's terminate line followed it (one abort said over two lines)
    terminated: bool = False
    #: reason uncaught_exception: the type libstdc++ names ("c10::DistBackendError", "std::runtime_error")
    exception: str | None = None
    #: reason uncaught_exception: its line and the ``  what():  <message>`` line after it, one failure told over two
    message: str | None = None
    #: reason uncaught_exception: the ``  what():  `` line follows (False: the paste shows the type alone, the
    #: error it carried is told elsewhere, if at all)
    what_shown: bool = False


@fact_kind
class DataLoaderWorkerKilled(Fact):
    """A DataLoader worker process died of a signal (PyTorch's ``is killed by signal: Killed.``):
    ``Killed`` is SIGKILL (the OOM killer, a memory limit, the scheduler), ``Bus error`` a full
    /dev/shm, ``Segmentation fault`` / ``Aborted`` a crash inside the worker."""

    kind: Literal["dataloader_worker_killed"] = "dataloader_worker_killed"
    pid: int | None = None  # None: the worker's own SIGBUS message, which names no pid
    signal: str  # strsignal()'s text: "Killed", "Bus error", "Segmentation fault", "Aborted"


@fact_kind
class TorchNcclError(Fact):
    kind: Literal["torch_nccl_error"] = "torch_nccl_error"
    rank: int | None = None
    nccl_error: str | None = None
    message: str
    last_error: str | None = None  # the line after NCCL's "Last error:"
    nccl_version: str | None = None  # the library torch loaded, from the message's ", NCCL version 2.18.1"
    peer: str | None = None  # the peer address the forwarded NCCL message names ("127.0.0.1<45069>")
    peer_loopback: bool = False  # that peer is on the loopback interface
    nvls: bool = False  # the forwarded message is an NVLink SHARP (NVLS) set-up failure


@fact_kind
class TorchNcclCommAborted(Fact):
    """A call used a communicator that ProcessGroupNCCL had aborted: the echo of a collective that
    timed out or failed before (on this rank or another one), which ``reason`` names when printed."""

    kind: Literal["torch_nccl_comm_aborted"] = "torch_nccl_comm_aborted"
    rank: int | None = None  # None: 2.x's "NCCL communicator was aborted after a previous error" names none
    reason: str | None = None  # "Original reason for failure was: ..." (PyTorch >= 1.10)


@fact_kind
class TorchWarning(Fact):
    """A PyTorch warning the catalogue knows: ``destroy_process_group() was not called ...``."""

    kind: Literal["torch_warning"] = "torch_warning"
    warning_id: str  # the catalogue's id: "destroy_process_group_not_called"
    benign: bool = False
    meaning: str
    rank: int | None = None
    source_file: str  # "ProcessGroupNCCL.cpp"
    message: str


Event = Literal["timeout_at_work", "failure_at_work", "dump_signal", "failed_ops", "process_down",
                "heartbeat_timeout", "watchdog_stuck", "watchdog_hang_exit", "abort_timeout"]


@fact_kind
class TorchWatchdogEvent(Fact):
    """ProcessGroupNCCL's watchdog reported a failed or timed-out collective (``timeout_at_work``,
    ``failure_at_work``, ``dump_signal``: another rank's timeout, ``failed_ops``, ``process_down``),
    or its heartbeat monitor found the watchdog itself stuck (``heartbeat_timeout``,
    ``watchdog_stuck``, ``watchdog_hang_exit``), or the abort of its NCCL communicators
    (destroy_process_group, shutdown, abort) did not finish within the group's timeout (``abort_timeout``)."""

    kind: Literal["torch_watchdog_event"] = "torch_watchdog_event"
    event: Event
    rank: int | None = None
    pg: str | None = None
    work_seq: int | None = None  # the work it names ("at work: 1580", "Timeout at NCCL work: 1")
    stuck_s: int | None = None  # watchdog_stuck: "got stuck for 480 seconds"
    from_rank: int | None = None  # dump_signal: "due to a collective timeout from rank 0"


@fact_kind
class TrainingLossNotFinite(Fact):
    """The training's loss or gradient norm became NaN or infinite (the job stopped, or trains on garbage)."""

    kind: Literal["training_loss_not_finite"] = "training_loss_not_finite"
    what: str  # "loss", "grad_norm", "loss_scale" (an fp16 loss scaler at its minimum: every step overflowed),
    # "gradient" (PyTorch's anomaly mode: a backward function returned NaN), "collective_input" (c10d's TORCH_NCCL_NAN_CHECK:
    # the tensor a collective was about to send held NaN)
    value: str  # "nan", "inf", "nan or inf" (the framework does not say which)
    # where Megatron's per-rank check (before the data-parallel reduction) found it: its rank, the
    # CUDA device and the host (os.uname()[1]) the message names; None when the line does not say
    rank: int | None = None
    device: int | None = None
    host: str | None = None
    # the job's rank count the same file states (fairseq's per-worker table rows, Megatron's "using world
    # size: N"), set on a rank-named fact only when the ranks named non-finite are some of those, not all
    job_ranks: int | None = None


@fact_kind
class TrainingLossSpike(Fact):
    """A training framework's own check rejected a finite loss as a spike: Megatron's rerun state machine with
    --check-for-spiky-loss ("Unexpected result 23.5 ... (message='Spiky loss')": more than SPIKY_LOSS_FACTOR,
    10, times the largest loss of the first samples)."""

    kind: Literal["training_loss_spike"] = "training_loss_spike"
    value: float  # the loss the check rejected
    iteration: int | None = None
    # the rank (and, in the rerun-disabled form, the host and CUDA device) the line names; None when it does not
    rank: int | None = None
    device: int | None = None
    host: str | None = None


@fact_kind
class RankPerformanceScore(Fact):
    """One rank's performance score in a training framework's straggler report: nvidia-resiliency-ext's
    "GPU relative performance:" / "GPU individual performance:" rows ("Rank=76 Node=h100-001-253-012
    Score=0.94", printed by NeMo's and Megatron-Bridge's straggler callbacks), or the slowest rank of
    Megatron-LM's StragglerDetector line (MnRtt/MxRtt, MnEtpt/MxEtpt: fastest over slowest)."""

    kind: Literal["rank_performance_score"] = "rank_performance_score"
    # nvrx_relative (against the best rank), nvrx_individual (against the rank's own best so far),
    # megatron_round_trip (MnRtt / MxRtt), megatron_throughput (MnEtpt / MxEtpt)
    basis: str
    rank: int
    host: str | None = None  # the node the report names for the rank (NVRx's Node=), None for Megatron's line
    score: float  # 1.0 = as fast as the reference; lower = slower
    ranks: int | None = None  # how many ranks the report covers ("Worst performing 5/512 ranks": 512)
    below_score: float  # knowledge/straggler.yaml: under it the rank is a straggler
    reference: str | None = None  # Megatron's line: the fastest rank's figure ("3453.08ms on rank 8")
    clocks: str | None = None  # Megatron's line: the lowest and highest SM clock and their ranks


@fact_kind
class StragglerReported(Fact):
    """A framework's straggler detector named a rank a straggler: nvidia-resiliency-ext's
    "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [76, 13]"
    (or "Some GPUs performance dropped."), one fact per rank, judged with the job's own threshold."""

    kind: Literal["straggler_reported"] = "straggler_reported"
    basis: str  # relative (against the other ranks) or individual (against the rank's own earlier speed)
    rank: int
    host: str | None = None  # the node the same file's score rows name for the rank


@fact_kind
class InputWaitShare(Fact):
    """The share of each training iteration spent waiting for the next batch, as the trainer's own
    per-iteration log line prints it: OpenMMLab's mmengine (``time: 0.3330  data_time: 0.2170``) and
    mmcv (``time: 0.333, data_time: 0.217``, and its JSON log), detectron2's CommonMetricPrinter,
    YOLOX (``iter_time: 0.404s, data_time: 0.025s``), timm (``Time: 0.412s, ... Data: 0.301 (0.298)``),
    LeRobot (``updt_s:0.302 data_s:0.001``), torchvision's MetricLogger (``time: 2.5401  data: 0.0336  max
    mem: 3524``): the median over the lines seen, the first left out; pytorch/examples' ImageNet
    ProgressMeter (``Time 22.424 (7.498)  Data 22.372 (7.070)``): the mean over the iterations between
    an epoch's first and last line, from its running averages; torch.profiler's table: the CPU total %
    of the DataLoader's next() (``measure`` says which)."""

    kind: Literal["input_wait_share"] = "input_wait_share"
    framework: str  # mmengine | mmcv | mmcv_json | detectron2 | yolox | timm | lerobot | metriclogger | pytorch_examples | torch_profiler
    rank: int | None = None  # a launcher's "[rankN]:" / "[defaultN]:" / "N: " label on the lines
    where: str  # "rank 2" when a label names it, else "rank not named" (the trainers log rank 0's view)
    share: float  # data wait over iteration time (0..1), as `measure` says
    data_s: float  # median data wait (s)
    iteration_s: float  # median iteration time (s)
    lines: int  # the per-iteration lines the median is over (the iterations, for the mean from running averages)
    steps_seen: int  # all such lines (the first one, warm-up, left out from three on)
    at_least_share: float  # knowledge/input_pipeline.yaml: from this share up the input pipeline starves the GPU
    min_lines: int  # knowledge/input_pipeline.yaml: fewer lines than this judge nothing
    measure: str = "median over the lines"  # how share, data_s and iteration_s were made ("median over 4 lines", "mean over the 10 iterations between ...")


@fact_kind
class ComputeSanitizerError(Fact):
    """compute-sanitizer (cuda-memcheck before it) reporting a kernel's access or instruction error
    ("Invalid __global__ read of size 4 bytes", "Illegal instruction", "... is misaligned") with
    the kernel it happened in, or only the CUDA error an API call then returned ("Program hit
    cudaErrorIllegalAddress (error 700) ... on CUDA API call to cudaDeviceSynchronize")."""

    kind: Literal["compute_sanitizer_error"] = "compute_sanitizer_error"
    form: Literal["kernel", "api"]  # kernel: the tool caught the access or instruction itself
    error: str  # the report's head as printed ("Invalid __global__ read of size 4 bytes")
    kernel: str | None = None  # the function of its "at" line
    source: str | None = None  # file:line of its "at" line, when the build has line info
    address: str | None = None  # why the address was refused ("out of bounds", "misaligned")
    reports: int = 1  # error reports of this form in the file


@fact_kind
class XlaPtxasUnsupported(Fact):
    """XLA (JAX, TensorFlow) found a ptxas that cannot compile for the GPU: "ptxas does not support
    CC X.Y" (asm_compiler.cc) or "ptxas too old. Falling back to the driver to compile."
    (redzone_allocator.cc, subprocess_compilation.cc): a CUDA toolkit older than the GPU generation."""

    kind: Literal["xla_ptxas_unsupported"] = "xla_ptxas_unsupported"
    cc: str | None = None  # the GPU's compute capability it names ("8.9"), when the line names it
    ptxas: str | None = None  # the ptxas XLA used ("ptxas", "/usr/local/cuda/bin/ptxas"), when named


@fact_kind
class XlaAutotunerMismatch(Fact):
    """XLA's GPU autotuner ran a candidate kernel whose output differs from the reference run's: "Results do not
    match the reference. This is likely a bug/unexpected loss of precision." (gemm_fusion_autotuner.cc and the
    algorithm pickers: the candidate is disqualified) and BufferComparator's "Difference at <i>: <value>, expected
    <value>" lines (facts/parsers/xla_autotuner.py)."""

    kind: Literal["xla_autotuner_mismatch"] = "xla_autotuner_mismatch"
    candidates: int  # 'Results do not match the reference' lines: candidates disqualified
    differences: int  # BufferComparator's 'Difference at' lines
    autotuner: str | None = None  # the source file that said it ("gemm_fusion_autotuner"), where the line names it


@fact_kind
class XlaRetCheckFailed(Fact):
    """XLA's own consistency check failed: "RET_CHECK failure (<file>:<line>) <condition>"
    (xla/status_macros.cc), an INTERNAL status: XLA reached a state its code rules out
    (facts/parsers/xla_ret_check.py)."""

    kind: Literal["xla_ret_check_failed"] = "xla_ret_check_failed"
    source: str  # the check's source file from xla/ on: "xla/pjrt/gpu_device.cc"
    source_line: int
    condition: str  # the condition and the check's own message, as the line gives them
    repeats: int = 1  # lines of the file that report this check (every replica, every retry)


@fact_kind
class XlaRendezvousStuck(Fact):
    """XLA's rendezvous of the threads that drive a collective or an NCCL clique's set-up (one per
    local device) did not fill: "This thread has been waiting for `<what>` for N seconds and may be
    stuck. Expected T threads to join the rendezvous, but not all of them arrived on time." and, past
    the termination timeout, "Termination timeout for `<what>` ... exceeded. Exiting to ensure a
    consistent program state." (xla/service/rendezvous.cc; facts/parsers/xla_rendezvous.py)."""

    kind: Literal["xla_rendezvous_stuck"] = "xla_rendezvous_stuck"
    what: str | None = None  # "initialize clique for rank 6; clique=devices=[0,...]", "all gather RendezvousKey{...}" (cut)
    expected: int | None = None  # threads expected
    arrived: int | None = None  # threads that arrived (the termination message of newer XLA)
    waited_s: int | None = None  # the timeout that passed
    terminated: bool = False  # XLA gave up and exited the process (exit code 42)


@fact_kind
class TfCollectiveGroupMismatch(Fact):
    """TensorFlow's collective ops found a device joining a collective group under a size the group
    was not made with (tensorflow/core/common_runtime/collective_param_resolver_local.cc): "Device
    %s is joining a group with size%d, but that group has size %d (group_key=%d)" (TF 2.4 on),
    "Collective Op %s has group_size %d and group_key%d but that group has size %d" (before): the
    program's collectives disagree on who takes part (facts/parsers/tf_collective.py)."""

    kind: Literal["tf_collective_group_mismatch"] = "tf_collective_group_mismatch"
    device: str | None = None  # "/job:localhost/replica:0/task:0/device:GPU:1" (the newer form names it)
    joining_size: int  # the size the joining op asked for
    group_size: int  # the size the group already has
    group_key: int | None = None


@fact_kind
class XlaNcclError(Fact):
    """XLA (JAX, TensorFlow) reported a failed NCCL call and quoted no NCCL message for it
    ("NCCL operation ncclGroupEnd() failed: unhandled cuda error.", an empty "Last NCCL
    warning(error) log entry (may be unrelated) ''"): the result is all there is
    (facts/parsers/xla_nccl.py). ``nccl_error`` is the result's ncclResult_t name where the text is
    one of NCCL's (knowledge/nccl_results.yaml), as ``torch_nccl_error`` has it."""

    kind: Literal["xla_nccl_error"] = "xla_nccl_error"
    operation: str  # "ncclGroupEnd", "ncclCommInitRank"
    result: str  # as printed: "unhandled cuda error"
    nccl_error: str | None = None  # "ncclUnhandledCudaError"
    #: XLA's own abort of the communicator after NCCL reported an asynchronous error ("Aborting communicator: 0x...
    #: due to async NCCL error: ..."): a consequence of that error, which ``result`` names
    aborted: bool = False


@fact_kind
class CoordinationServiceError(Fact):
    """The coordination service of a multi-process JAX (or TensorFlow, PyTorch/XLA) job reported
    a failure: XLA's ``xla/tsl/distributed_runtime/coordination`` (TensorFlow's
    ``core/distributed_runtime/coordination`` before it), the service task 0 runs for
    ``jax.distributed.initialize`` and the agent each task runs (facts/parsers/xla_coordination.py).

    ``event``: ``registration_timeout`` (not every task registered or reached the connect barrier
    in time: "cluster registration failed", ``PjRT_Client_Connect`` / ``[Init]Wait_for_all_tasks_to_register``
    timed out), ``connect_failed`` (a task could not reach the service: gRPC's "failed to connect
    to all addresses", RegisterTask past its deadline), ``heartbeat_timeout`` (the service stopped
    hearing a task), ``task_restarted`` (a task came back with a new incarnation), ``task_error``
    (the service set a task to ERROR for another reason), ``barrier_timeout`` (a barrier of the
    program's timed out), ``key_value_timeout`` (a key another task should have published never came:
    "GetKeyValue() timed out with key: cuda:local_topology/cuda/1", the device topology exchange of
    jax.distributed or an NCCL clique's id), ``leader_unreachable`` (this task lost the service: the leader task
    exited, died or the network failed), ``peer_failed`` (this task was told of an error, its own
    or another task's, and terminates), ``shutdown_failed`` (the shutdown barrier or disconnect
    did not complete)."""

    kind: Literal["coordination_service_error"] = "coordination_service_error"
    event: Literal["registration_timeout", "connect_failed", "heartbeat_timeout", "task_restarted", "task_error",
                   "barrier_timeout", "key_value_timeout", "leader_unreachable", "peer_failed", "shutdown_failed"]
    barrier: str | None = None  # the barrier's id: "PjRT_Client_Connect", "[Init]Wait_for_all_tasks_to_register::0"
    tasks: str | None = None  # the task ids the messages name ("1, 2, 3"): timed out, unhealthy, in error
    task_count: int | None = None  # how many tasks those are (or were pending, where the barrier counts them)
    timeout: str | None = None  # the timeout the service names ("1h")
    grpc_message: str | None = None  # gRPC's reason, where printed: "Socket closed", "Connection refused"
    peer: str | None = None  # the address gRPC names: "10.150.0.4:62464"
    detail: str  # what it says, in words made from the above (the rules' summaries quote it)


@fact_kind
class TrainingResultValidation(Fact):
    """Megatron's result validation (megatron/core/rerun_state_machine.py) after it reran an
    iteration whose result it rejected (a NaN or Inf loss or gradient norm, a spiky loss):
    ``transient`` (rerun on the same GPU, the result differs: a glitch of that GPU),
    ``persistent`` (the same GPU reproduces it, a different GPU does not: that GPU computes wrong
    values), ``correct`` (a different GPU reproduces it: the numbers are the application's)."""

    kind: Literal["training_result_validation"] = "training_result_validation"
    verdict: Literal["transient", "persistent", "correct"]
    rank: int
    # os.uname()[1] and torch.cuda.current_device() of the process that logged it: for transient the
    # GPU that glitched; for persistent and correct the *other* GPU the second rerun ran on (the
    # suspect one ran the same rank before the restart)
    host: str
    device: int
    message: str | None = None  # the check that failed ('found NaN in local grad norm ...'), for correct


@fact_kind
class RayProcessDied(Fact):
    """Ray reporting a dead process: the raylet's ``A worker died or was killed while executing a task
    ...``, an ``ActorDiedError``'s ``The actor is dead because its worker process has died``, or a
    core worker's ``Raylet failed. Shutting down.``"""

    kind: Literal["ray_process_died"] = "ray_process_died"
    what: Literal["worker", "actor_worker", "raylet", "node"]  # node: the GCS declared a whole node dead
    exit_type: str | None = None  # SYSTEM_ERROR | USER_ERROR | NODE_OUT_OF_MEMORY | ... (rpc::WorkerExitType)
    exit_detail: str | None = None  # "Worker unexpectedly exits with a connection error code 2. End of file. ..."
    pid: int | None = None
    ip: str | None = None
    message: str



@fact_kind
class NvshmemError(Fact):
    """An error line of NVSHMEM (``<file>:<line>: non-zero status: N <msg>`` and its later forms):
    a step of its set-up or a call of the application's communication library failed."""

    kind: Literal["nvshmem_error"] = "nvshmem_error"
    source_file: str  # as printed: ".../src/host/mem/mem_heap.cpp"
    source_line: int
    status: int | None = None  # None for a "NULL value" line
    status_name: str | None = None  # NVSHMEMX_ERROR_INTERNAL, where the release prints it
    message: str  # the failed step in NVSHMEM's words: "cuMemMap failed"
    #: the step is NVSHMEM's NVLink SHARP (multicast) set-up: a line of src/host/team/team_internal_nvls.cpp, or one
    #: naming a multicast (MC) group ("Mapping mem size ... to MC group ... failed", "Mapping multicast groups ... failed")
    nvls: bool = False
    #: the step is moving an InfiniBand/RoCE queue pair of NVSHMEM's IB transports (IBRC, IBGDA, IBDEVX) to its next
    #: state: "ibv_modify_qp failed" (releases to 3.x: the line does not say which move) or "IBRC QP modify
    #: INIT->RTR failed: ..." (later: the move in qp_transition)
    qp_modify: bool = False
    qp_transition: str | None = None  # "INIT->RTR"; "unnamed" on a qp_modify line that does not say which move
    #: the step is creating an RDMA address handle (ibv_create_ah returned NULL) in an IB transport's set-up: IBGDA's
    #: DCT shared objects or its RoCE RC connect, IBDEVX's connect, the GIC transport of 2.x ("Unable to create ah.")
    address_handle: bool = False


@fact_kind
class NvshmemDeviceSkipped(Fact):
    """NVSHMEM's GPU-initiated IB transport left an RDMA device out as not an mlx5 NIC.

    ``WARN: device erdma_0 is not enumerated as an mlx5 device. Skipping...``: IBGDA and IBDEVX drive the NIC through
    mlx5 Direct Verbs and take only mlx5 (ConnectX/BlueField) devices; where no device is left the transport does not
    start."""

    kind: Literal["nvshmem_device_skipped"] = "nvshmem_device_skipped"
    device: str  # the RDMA device as NVSHMEM names it: "erdma_0"
    expected: str | None = None  # the HCA interface the transport takes, as printed: "mlx5", "mlx5 or ibp", a prefix


@fact_kind
class TorchCudaUnavailable(Fact):
    """PyTorch in this process found no usable GPU: ``No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'``,
    a program's ``torch.cuda.is_available(): False`` / ``torch.cuda.device_count(): 0``, collect_env's ``Is CUDA
    available: No`` of a CUDA build (facts/parsers/torch_cpp_extension.py, python_packages.py)."""

    kind: Literal["torch_cuda_unavailable"] = "torch_cuda_unavailable"
    cuda_home: str | None = None  # the toolkit it fell back to, where printed
    # which report said so: "cpp_extension" ("No CUDA runtime is found"), "not_compiled" ("Torch not compiled with CUDA
    # enabled"), "is_available" / "device_count" (a
    # program's own print of torch.cuda.is_available() False / device_count() 0), "collect_env" ("Is CUDA available: No")
    via: str = "cpp_extension"
    gpus_listed: int | None = None  # collect_env: the GPUs nvidia-smi listed beside it (present, but CUDA cannot use them)
    # the PyTorch in the process is a CPU-only build: "Torch not compiled with CUDA enabled" (via "not_compiled"), or a
    # "+cpu" version printed in the same file beside the report ("Torch 2.0.1+cpu", an installer's check)
    cpu_build: bool = False


@fact_kind
class HorovodStall(Fact):
    """Horovod's stall inspector: tensors some ranks submitted have waited past the stall-check
    time for the others (horovod/common/stall_inspector.cc, operations.cc before 0.16)."""

    kind: Literal["horovod_stall"] = "horovod_stall"
    missing_ranks: str | None = None  # "6" or "0, 1, 4": the ranks that did not submit (None: not listed)
    ready_ranks: str | None = None  # the oldest form lists the ranks that did ("[ready ranks: 5, 6, 3]")
    seconds: int | None = None  # the stall-check warning time the message names
    shutdown: bool = False  # "... is stalled for longer than N seconds. Will shutdown."
    tensors: int | None = None  # stalled tensor names listed (a lower bound: Horovod cuts lists at 6)
    # with ready_ranks and the job's size the same file gives (horovodrun/mpirun -np N): that size, and
    # the job's ranks absent from the ready list (the ones the others wait for)
    job_ranks: int | None = None
    absent_ranks: str | None = None
    # without the job's size, the ranks below the highest that submitted and are not in the ready list: they exist and
    # did not submit (a lower bound: ranks above it may be absent too); absent_ranks holds them, job_ranks stays None
    # the one rank the others wait for, where exactly one is named (missing) or known absent: the finding's entity
    rank: int | None = None
    # the later warnings of the same text that list no ranks at all (their lists cut off): Horovod warns again each
    # stall-check interval while the tensors still wait, so they are this stall's repeats (None: none)
    repeats: int | None = None


@fact_kind
class MooncakeSliceFailed(Fact):
    """Mooncake's transfer engine (the KV-cache transfer of SGLang's and vLLM's prefill/decode
    disaggregation) polled a failed RDMA work completion for one slice of a transfer
    (mooncake-transfer-engine worker_pool.cpp ``performPollCq``)."""

    kind: Literal["mooncake_slice_failed"] = "mooncake_slice_failed"
    status: int  # libibverbs' ibv_wc_status, from ibv_wc_status_str()'s text (knowledge/ib_wc_status.yaml)
    status_text: str  # "local protection error", "transport retry counter exceeded"
    local_nic: str  # the local RDMA device: "mlx5_bond_2"
    peer_nic: str | None = None  # the peer's device: "mlx5_bond_1"
    peer: str | None = None  # the peer's host:port as Mooncake names it: "10.0.2.98:15992"
    retry_cnt: int | None = None


@fact_kind
class MooncakeQpTransitionFailed(Fact):
    """Mooncake's transfer engine could not move an RDMA queue pair to its next state while setting up
    a connection (mooncake-transfer-engine rdma_endpoint.cpp ``doSetupConnection``: "[Handshake]
    Failed to modify QP to RESET|INIT|RTR|RTS", then ibv_modify_qp's error)."""

    kind: Literal["mooncake_qp_transition_failed"] = "mooncake_qp_transition_failed"
    state: str  # the state asked for: RESET, INIT, RTR, RTS
    error: str | None = None  # strerror(ret) as printed ("Connection timed out"); None on a line cut before it
    errno: int | None = None  # the number older releases print after it ("[110]")
    local_nic: str | None = None  # the local NIC path newer releases print ("10.0.2.69:15858@mlx5_1")
    peer: str | None = None  # the peer's NIC path
    gid_index: int | None = None  # local_gid_index=
    path_mtu: int | None = None  # the ibv_mtu enum value (5 = 4096)


@fact_kind
class EngineGraphCaptureFailed(Fact):
    """An inference engine's CUDA graph capture at start-up raised, and the engine reported it as its own
    failure: SGLang's CUDA graph runner wraps the capture's error as "Exception: Capture cuda graph failed:
    <error>" (model_executor/cuda_graph_runner.py) and its scheduler exits."""

    kind: Literal["engine_graph_capture_failed"] = "engine_graph_capture_failed"
    engine: str  # "sglang"
    error: str | None = None  # the wrapped error where the line carries it: "CUDA error: out of memory"


@fact_kind
class MooncakeTransferFailed(Fact):
    """A transfer of Mooncake's transfer engine failed where no RDMA completion error says why: the TCP
    transport hit a Boost.Asio exception ("TcpTransport: ASIO exception: connect: Connection refused",
    tcp_transport.cpp), the waiting side gave up after its timeout ("Failed to complete transfers after 60
    seconds for batch N", mooncake-store client.cpp / transfer_task.cpp), or the store client ran out of
    retries for failed tasks ("transfer_incomplete max_attempts=3"; "Transfer failed for task1")."""

    kind: Literal["mooncake_transfer_failed"] = "mooncake_transfer_failed"
    reason: Literal["tcp_error", "timeout", "retries_exhausted", "task_failed"]
    error: str | None = None  # the ASIO exception's what(): "connect: Connection refused"
    timeout_s: int | None = None  # the poll's timeout in seconds: 60
    batch: str | None = None  # the batch id the newer form names


@fact_kind
class MooncakeRdmaUnavailable(Fact):
    """Mooncake's transfer engine had no RDMA NIC to use at start-up: it found none ("No RDMA devices
    found, check your device installation", topology.cpp: it then falls back to TCP or its NVLink
    transport), or every NIC it tried failed to open ("RdmaTransport: No available RNIC",
    rdma_transport.cpp: the RDMA transport is not installed). ``failed``: the serving could not go on
    without it (no usable NIC, or a fallback NVLink transfer that then found no registered buffer:
    "Requested address <p> to <p> not found!")."""

    kind: Literal["mooncake_rdma_unavailable"] = "mooncake_rdma_unavailable"
    reason: Literal["no_device", "no_usable_nic"]
    devices: str | None = None  # "mlx5_8,mlx5_9": the NICs that failed to open ("Failed to open device ...", "Disable device ...")
    fallback_failed: bool = False  # a later NVLink/HIP transport "Requested address ... not found!" line
    failed: bool = False  # no_usable_nic, or no_device with its fallback failed


@fact_kind
class KvTransferRequestFailed(Fact):
    """SGLang's prefill/decode disaggregation gave up one request's KV-cache transfer and aborted the request
    (python/sglang/srt/disaggregation/prefill.py and decode.py: "Prefill transfer failed for request rank=<n>
    req.rid=... req.bootstrap_room=<room> with exception KVTransferError(bootstrap_room=<room>): <reason>"; "Decode
    transfer failed ...", "Prefill bootstrap failed ...", "Decode handshake failed ..."). The reason is the transfer
    backend's (Mooncake, NIXL, Mori: disaggregation/<backend>/conn.py record_failure), or the receiver's abort()
    when the request was cancelled ("Aborted by AbortReq.")."""

    kind: Literal["kv_transfer_request_failed"] = "kv_transfer_request_failed"
    side: str  # the engine that logged it: "Prefill", "Decode", "Encode", "MultiModalLanguage"
    step: str  # "transfer", "bootstrap", "handshake"
    rank: int  # the scheduler's TP rank
    room: int | None = None  # the request's bootstrap_room
    reason: str | None = None  # the failure's text, None where the line was cut before it
    # peer_dead: the backend says the other engine may be dead (its session not alive, no KV cache from it);
    # aborted: the request was cancelled while waiting (AbortReq); timeout: a poll state timed out; other
    reason_kind: Literal["peer_dead", "aborted", "timeout", "other", "unknown"] = "unknown"


@fact_kind
class MooncakeNicInactive(Fact):
    """Mooncake stopped using a local RDMA NIC: "Too many errors found in local RNIC <nic path>, mark it
    inactive" (failed completions), or "Failed to establish peer endpoints in local RNIC ..." (connections)."""

    kind: Literal["mooncake_nic_inactive"] = "mooncake_nic_inactive"
    device: str  # "mlx5_bond_2"
    nic_path: str  # "10.0.2.69:15858@mlx5_bond_2"
    reason: Literal["completion_errors", "connect_failed"]



@fact_kind
class GoProgramCrash(Fact):
    """A Go program's runtime ended it: ``panic: runtime error: invalid memory address or nil pointer
    dereference``, ``fatal error: ...`` or a fatal signal (``SIGSEGV: segmentation violation``, then
    ``PC=... m=... sigcode=...``), with its goroutine stack. ``module`` names the program: the module
    path (``github.com/<org>/<repo>``, lower case) of the innermost frame of the program's own code (a
    frame of a dependency, built from the module cache or vendor/, or of Go's standard library, is
    passed over), else of the ``created by`` line; None where the paste shows no such frame."""

    kind: Literal["go_program_crash"] = "go_program_crash"
    crash: Literal["panic", "fatal_error", "signal"]
    message: str  # "runtime error: invalid memory address or nil pointer dereference", "SIGSEGV: segmentation violation"
    module: str | None = None  # "github.com/leptonai/gpud", "github.com/nvidia/go-dcgm"
    function: str | None = None  # that frame's function, "github.com/nvidia/go-dcgm/pkg/dcgm._Cfunc_dcgmGetCpuHierarchy"
    in_cgo: bool = False  # "signal arrived during cgo execution": the fault is in C code the program called


@fact_kind
class VllmShmBroadcastWait(Fact):
    """vLLM's (or SGLang's) shared-memory broadcast queue waited past its reporting interval for a
    block its readers had not freed (a write) or a block to be written (a read): vLLM's
    ``No available shared memory broadcast block found in 60 seconds. This typically happens when some
    processes are hanging or doing some time-consuming work (e.g. compilation, weight/kv cache
    quantization).`` (shm_broadcast.py ``long_wait_time_msg``, logged at INFO every interval), before
    it ``No available shared memory broadcast block found in 60 second.`` and ``No available block found in
    60 second.`` (WARNING, SGLang's copy too). A process waits; nothing failed: start-up compiles and an
    idle engine print it as a hung worker does."""

    kind: Literal["vllm_shm_broadcast_wait"] = "vllm_shm_broadcast_wait"
    seconds: int  # the interval the line names (VLLM_RINGBUFFER_WARNING_INTERVAL, 60 by default)
    #: hint: the message with vLLM's "This typically happens ..." sentence; named: "shared memory broadcast block"
    #: without it; old: "No available block found" (vLLM before 0.8.3, SGLang)
    form: Literal["hint", "named", "old"]
    pid: int | None = None  # the "(EngineCore_DP0 pid=N)" / "(APIServer pid=N)" prefix, where the line has one


@fact_kind
class VllmRpcTimeout(Fact):
    """vLLM's engine core waited longer than its RPC timeout for its GPU workers' answer: the
    executor's ``collective_rpc`` raised ``TimeoutError: RPC call to <method> timed out.``
    (vllm/v1/executor/multiproc_executor.py; VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS, 300 s by default,
    for execute_model and sample_tokens), or the workers' shared-memory message queue's read that
    raises it ended in its bare ``TimeoutError`` (vllm/distributed/device_communicators/shm_broadcast.py)."""

    kind: Literal["vllm_rpc_timeout"] = "vllm_rpc_timeout"
    #: rpc: the executor's message; queue: the queue read's bare TimeoutError; ray_channel: Ray's executor's compiled
    #: graph read given up (RayChannelTimeoutError, RAY_CGRAPH_get_timeout)
    form: Literal["rpc", "queue", "ray_channel"]
    method: str | None = None  # the worker method called ("execute_model", "sample_tokens"); None for form queue
    pid: int | None = None  # the "(EngineCore_DP0 pid=N)" prefix, where the line has one


@fact_kind
class VllmProcessFailed(Fact):
    """vLLM reporting that one of its own processes died or did not start, a wrapper that points at the failing
    process's own error ("See stack trace above for root cause"): a GPU worker (the executor's ``Worker proc
    VllmWorker-1 died unexpectedly, shutting down executor.``, V0's ``Worker VllmWorkerProcess pid N died, exit
    code: -15``, the ``got fatal signal from worker processes`` of 0.7-0.8, ``WorkerProc initialization failed due
    to an exception in a background process``) or the engine core (``Engine core proc EngineCore_DP0 died
    unexpectedly, shutting down client.``, ``EngineCore failed to start.``, ``Engine core initialization failed.
    See root cause above.``, ``EngineCore encountered a fatal error.``, ``EngineDeadError: EngineCore encountered an
    issue.``)."""

    kind: Literal["vllm_process_failed"] = "vllm_process_failed"
    process: Literal["worker", "engine core"]
    event: Literal["died", "failed to start"]
    #: which message: worker_died (0.8.5+ and Ray's V2 executor), worker_died_v0, fatal_signal (0.7-0.8.4),
    #: worker_init_failed, worker_start_failed, engine_core_died, engine_core_start_failed, engine_init_failed,
    #: engine_core_fatal, engine_dead
    form: str
    name: str | None = None  # the process's name as vLLM printed it: "VllmWorker-1", "VllmWorkerProcess", "EngineCore_DP0"
    pid: int | None = None  # V0's "pid N", or the line's "(VllmWorker rank=N pid=M)" / "(EngineCore_DP0 pid=M)" tag
    exit_code: int | None = None  # multiprocessing's exitcode where printed: -N is "killed by signal N"
    signal: str | None = None  # the signal of a negative exit code: "SIGKILL" (-9), "SIGTERM" (-15), "SIGSEGV" (-11)


@fact_kind
class DeepepTimeout(Fact):
    """DeepEP (the expert-parallel all-to-all library of DeepSeek, under SGLang's, vLLM's and Megatron's MoE layers)
    gave up waiting for a peer: a GPU kernel's timeout check printed the step it was in and trapped (the process then
    fails with CUDA's 'unspecified launch failure'), or the host waited in vain for the kernel's received-token counts.

    ``DeepEP dispatch NVL receiver timeout, channel: 6, RDMA: 0, nvl: 0, src NVL: 5, head: 315, tail: 315`` (internode
    kernels: csrc/kernels/internode.cu), ``DeepEP timeout for dispatch receivers, rank %d, ...`` (intranode.cu),
    ``Warning: DeepEP timeout for dispatch receive, rank %d, local_expert_idx %d, src_rank %d`` (internode_ll.cu),
    ``DeepEP error: CPU recv timeout`` (the host's wait, csrc/deep_ep.cpp)."""

    kind: Literal["deepep_timeout"] = "deepep_timeout"
    #: which kernels: internode (normal kernels across nodes: NVSHMEM's RDMA and NVLink forwarding), intranode
    #: (normal kernels over NVLink only), low_latency (NVSHMEM's RDMA, IBGDA), by the file that prints the form
    path: Literal["internode", "intranode", "low_latency"]
    op: Literal["dispatch", "combine", "barrier", "notify"]  # notify: the layout/count exchange before a dispatch
    role: str  # the waiting party as printed: "NVL receiver", "forwarder (RDMA check)", "receivers", "CPU recv"
    side: Literal["gpu", "cpu"]  # gpu: a kernel's printf before its trap; cpu: the host's wait raised
    rank: int | None = None  # the rank the line names (intranode and low-latency kernels, the timeout check)
    peer: int | None = None  # the peer it waited for, where printed (src_rank, dst_rank, src NVL, src RDMA)
    channel: int | None = None


@fact_kind
class DeepepAssertionFailed(Fact):
    """DeepEP (or a library built on its exception.cuh: UCCL-EP, Paddle's deep_ep) stopped on one of its own checks.
    On the host ``EP_HOST_ASSERT(cond)`` throws an EPException whose text is ``Failed: Assertion error <file>:<line>
    '<cond>'`` (PyTorch raises it as RuntimeError); in a kernel ``EP_DEVICE_ASSERT(cond)`` prints ``Assertion failed:
    <file>:<line>, condition: <cond>`` and traps (deepseek-ai/DeepEP csrc/kernels/exception.cuh). Real:
    ``RuntimeError: Failed: Assertion error /workspace/.../DeepEP/csrc/deep_ep.cpp:1134 'x.size(0) == topk_idx.size(0)
    and x.size(0) <= num_max_dispatch_tokens_per_rank'`` (deepseek-ai/DeepEP#392, low-latency dispatch on GB200)."""

    kind: Literal["deepep_assertion_failed"] = "deepep_assertion_failed"
    side: Literal["host", "device"]  # host: EP_HOST_ASSERT's exception; device: EP_DEVICE_ASSERT's printf before its trap
    source: str  # the source file as printed (a build path: ".../DeepEP/csrc/deep_ep.cpp")
    source_line: int
    condition: str  # the condition as written in the source: it names the limit or invariant that did not hold


@fact_kind
class ScriptLocalRankRejected(Fact):
    """A training script's argparse refused the local-rank argument its launcher adds to every worker's command line:
    ``pretrain_gpt.py: error: unrecognized arguments: --local_rank=1`` (facts/parsers/script_local_rank_rejected.py):
    DeepSpeed's launcher and torch.distributed.launch before PyTorch 2.0 pass ``--local_rank=N``, PyTorch 2.0's
    ``--local-rank=N``; the script declares the other spelling, or none."""

    kind: Literal["script_local_rank_rejected"] = "script_local_rank_rejected"
    program: str  # argparse's prog as printed: "pretrain_gpt.py"
    argument: str  # the spelling the launcher passed: "--local_rank" or "--local-rank"
    local_rank: int | None = None  # its value where printed


@fact_kind
class BitsandbytesBinaryMissing(Fact):
    """bitsandbytes' CUDA set-up (bitsandbytes/cuda_setup/main.py, releases before 0.43) found no binary of its own for
    the CUDA version it detected: "CUDA SETUP: Required library version not found: libbitsandbytes_cuda117_nocublaslt.so.
    Maybe you need to compile it from source?", then "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so..."
    (facts/parsers/bitsandbytes_cuda_setup.py). Read only where the set-up did not also say that the CUDA runtime or
    driver library was not found (that is a shared_library_missing, the cause of a wrong guess)."""

    kind: Literal["bitsandbytes_binary_missing"] = "bitsandbytes_binary_missing"
    library: str  # the binary it looked for: "libbitsandbytes_cuda117_nocublaslt.so", "libsbitsandbytes_cpu.so"
    #: the binary it wanted is a CPU build: bitsandbytes saw no CUDA at all (0.37-0.38 ask for "libsbitsandbytes_cpu.so"
    #: when torch.cuda.is_available() is False), not a CUDA version it has no build for
    cpu_build: bool = False
    cuda_version: str | None = None  # "117": from the name, "Detected CUDA version 121", "CUDA_VERSION=117"
    compute_capability: str | None = None  # "7.0": "Highest Compute Capability: 7.0", "... among GPUs detected: 7.5"
    fallback: str | None = None  # "libbitsandbytes_cpu.so": "CUDA SETUP: Defaulting to ..."
    detection_failed: bool = False  # its "CUDA SETUP: CUDA detection failed! Possible reasons:" block followed
    lines: int = 1  # the "Required library version not found" lines in the file (the report repeats on every import)


@fact_kind
class BitsandbytesSetupFailed(Fact):
    """bitsandbytes (0.37-0.42, bitsandbytes/cextension.py) loaded no GPU binary of its own although PyTorch sees a GPU, and
    raised its closing RuntimeError: "CUDA Setup failed despite GPU being available. Please run the following command to
    get more information: python -m bitsandbytes ..." (0.37-0.38.0: "... Inspect the CUDA SETUP outputs above to fix your
    environment!") (facts/parsers/bitsandbytes_cuda_setup.py). Read only where the set-up's own report above it, which
    says why (a binary it has no build for, no CUDA runtime or driver library), was not pasted."""

    kind: Literal["bitsandbytes_setup_failed"] = "bitsandbytes_setup_failed"
    message: str  # the exception's sentence as printed


@fact_kind
class PythonExceptionIgnored(Fact):
    """CPython reported an exception it could not raise and ignored it (its unraisable hook, Python/errors.c): one raised
    in an object's finaliser (``Exception ignored in: <function Connection.__del__ at 0x7ba85ba82980>``), an atexit
    callback, a ctypes callback or a weakref callback, then its traceback and exception line; the program went on
    (facts/parsers/python_exception_ignored.py). Mostly at teardown, after the run's own failure (an object whose
    ``__init__`` failed, a DataLoader torn down after an interrupt): that failure's echo."""

    kind: Literal["python_exception_ignored"] = "python_exception_ignored"
    #: finaliser (``__del__``, ``__dealloc__``, a deallocator), atexit (an atexit callback), ctypes_callback, other
    context: Literal["finaliser", "atexit", "ctypes_callback", "other"]
    target: str  # what raised: "Connection.__del__", "_DataLoaderIter.__del__", "<_final_semaphore_cleanup>"
    exception_type: str | None = None  # "AttributeError"; None where the block is cut before its exception line
    exception_message: str | None = None  # "'Connection' object has no attribute 'logging_id'"
    cut: bool = False  # the traceback is cut (the paste's end, another block inside it) before its exception line
    interrupted: bool = False  # the line begins with "^C": the run was interrupted from the terminal, this is its teardown
    message: str  # what the unexplained-error report quotes


@fact_kind
class TorchPgDeviceWithoutBackend(Fact):
    """torch.distributed was asked for a collective on tensors of a device type its process group has no backend for:
    ``RuntimeError: No backend type associated with device type cpu`` (c10d ProcessGroup::getBackend, PyTorch 2.0+;
    facts/parsers/torch_pg_device_backend.py): CPU tensors in a group made with backend="nccl" alone, GPU tensors in a
    gloo-only group."""

    kind: Literal["torch_pg_device_without_backend"] = "torch_pg_device_without_backend"
    device_type: str  # c10::DeviceType as printed: "cpu", "cuda", "xpu", "npu" (a PrivateUse1 backend's own name)
    rank: int | None = None  # from a torchrun "[rankN]:" label


@fact_kind
class PythonExtensionMissing(Fact):
    """Python found no compiled extension module of a package: ``ModuleNotFoundError: No module named
    'fused_layer_norm_cuda'`` (facts/parsers/python_extension_missing.py): the package's binary part was not built or
    installed for this environment."""

    kind: Literal["python_extension_missing"] = "python_extension_missing"
    module: str  # "fused_layer_norm_cuda", "vllm._C", "selective_scan_cuda_core"
    package: str | None = None  # the first dotted part where the module has one ("vllm"); None for a top-level module
    exception: str  # "ModuleNotFoundError" (Python 3.6+), "ImportError" (before, and Python 2)


@fact_kind
class OffloadSwapSizeMismatch(Fact):
    """DeepSpeed's async I/O (ZeRO-Infinity's NVMe offload of parameters, gradients or optimizer state) found a swap
    file on disk of another size than the tensor buffer it reads it into (csrc/aio/py_lib deepspeed_aio_handle_t::
    pread: ``<file>: buffer nbytes != file bytes <buffer> != <file>``, then the C assert
    ``Assertion `static_cast<long long int>(buffer.nbytes()) == num_file_bytes' failed.`` that aborts the process):
    the swap file written earlier is incomplete."""

    kind: Literal["offload_swap_size_mismatch"] = "offload_swap_size_mismatch"
    path: str | None = None  # the swap file: "/nvme/zero_stage_3/fp16params/rank24/0_param.tensor.swp"
    buffer_bytes: int | None = None  # the tensor buffer's size
    file_bytes: int | None = None  # the file's size on disk
    assertion: bool = False  # the line is the assert that aborted the process, not the size report
    message: str


@fact_kind
class RolloutWeightUpdateFailed(Fact):
    """An RL job's SGLang rollout engine failed to take the trainer's weights: ``Failed to update parameter online:
    <error>`` (a broadcast over the weight-update group, or the load of what it brought) or ``Failed to initialize
    custom process group: <error>`` (setting that group up) (python/sglang/srt/model_executor/model_runner.py)."""

    kind: Literal["rollout_weight_update_failed"] = "rollout_weight_update_failed"
    step: Literal["update", "group_init"]
    error: str  # the exception's text after the colon ("start out of range (expected to be in ra", cut as pasted)
    tp_rank: int | None = None  # the scheduler prefix's "TP<n>", where the line has one

