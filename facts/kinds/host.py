"""The host: kernel and driver versions, CPUs, NUMA, PCIe devices, disks, BMC sensors and
event log, installed packages and the command lines that ran.

Generated layout (issue 12): every fact class lives in facts/kinds, by family; the
modules that first defined these classes re-export them."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class CommandLine(Fact):
    """A command as pasted: ``program`` (docker, torchrun, python, srun, ...) and its arguments."""

    kind: Literal["command_line"] = "command_line"
    program: str
    args: str
    container_run: bool = False
    gpus: str | None = None  # --gpus VALUE, or the CDI device (nvidia.com/gpu=all)
    shm_size: str | None = None
    ipc: str | None = None
    #: a container run whose /dev/shm is the engine's 64 MB default (no --shm-size, no --ipc=host)
    dev_shm_default: bool = False
    #: an Open MPI launch that allows no network transport: ``--mca pml ob1`` with ``--mca btl`` naming only
    #: the loopback and shared-memory BTLs (self, sm, vader, smcuda): no UCX, verbs or TCP traffic
    mpi_shared_memory_only: bool = False
    #: a container run's CUDA_VISIBLE_DEVICES as its -e/--env sets it ("2", "0,1")
    cuda_visible_devices: str | None = None
    #: how many GPUs a container run is given, where --gpus says: a count (--gpus 2) or a device list's
    #: length (--gpus '"device=1,2"'); None for all of them or no --gpus
    gpus_passed: int | None = None
    #: the container's CUDA_VISIBLE_DEVICES names an index it does not have: the GPUs passed in are numbered
    #: from 0 inside the container, so an index >= gpus_passed (the host's numbering) names no device
    visible_devices_beyond_gpus: bool = False
    #: a container run given the NVIDIA device nodes (--device /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm) with no
    #: GPU request of the NVIDIA runtime (no --gpus, --runtime=nvidia, CDI device, nvidia-docker) and no volume of the
    #: driver's libraries: the devices are there, the user-space driver (libcuda, libnvidia-ml) is not mounted in
    nvidia_devices_without_runtime: bool = False


@fact_kind
class ContainerEngineConfig(Fact):
    """A container engine's configuration as pasted: dockerd's daemon.json or containerd's config.toml, read for
    the NVIDIA runtime: whether one is configured, which runtime is the default, and whether CDI is on."""

    kind: Literal["container_engine_config"] = "container_engine_config"
    engine: Literal["docker", "containerd"]
    #: a runtime that runs nvidia-container-runtime (its path or BinaryName), or one named nvidia
    nvidia_runtime: bool = False
    #: the default runtime as configured ("nvidia", "runc"); None where the file sets none (dockerd's runc, the CRI's runc)
    default_runtime: str | None = None
    #: the default runtime is an NVIDIA one: containers get the driver without asking for a runtime
    nvidia_default: bool = False
    #: CDI on: daemon.json's "features": {"cdi": true}, containerd's enable_cdi; None where the file does not say
    cdi_enabled: bool | None = None


@fact_kind
class LauncherNcclEnv(Fact):
    """An NCCL setting a job script or launcher asks for: ``export NCCL_X=V``, a ``NCCL_X=V cmd``
    prefix, Open MPI's ``-x NCCL_X=V``, Slurm's ``--export=ALL,NCCL_X=V``, MPICH's ``-genv NCCL_X V``. The launcher's intent, not NCCL's confirmation (NCCL's own
    ``NCCL_X set by environment to V`` line is ``nccl_env``): the setting may never reach the ranks
    (a plain ``export`` is not forwarded by mpirun to other nodes) and may not matter to the run."""

    kind: Literal["launcher_nccl_env"] = "launcher_nccl_env"
    name: str  # "NCCL_SOCKET_IFNAME"
    value: str  # "eth0" (quotes removed; "" for NCCL_IB_HCA=)
    form: Literal["export", "prefix", "mpirun_x", "slurm_export", "mpi_genv", "nccl_conf"]
    # NCCL_SOCKET_IFNAME only: whether an exclusion list ("^docker0") leaves the loopback interface eligible, as NCCL's
    # ncclOsFindInterfaces / matchIfList read it (None: not an exclusion list, or another variable)
    loopback_admitted: bool | None = None


@fact_kind
class RankCpuBinding(Fact):
    """One rank's CPU binding as the launcher reported it."""

    kind: Literal["rank_cpu_binding"] = "rank_cpu_binding"
    launcher: Literal["openmpi"] = "openmpi"
    host: str
    rank: int
    bound: bool
    cores: int | None = None  # None when not bound
    hwthreads: int | None = None
    sockets: int | None = None


@fact_kind
class CpuBindingSummary(Fact):
    """Every rank of one host in one report: are they squeezed onto single cores?"""

    kind: Literal["cpu_binding_summary"] = "cpu_binding_summary"
    launcher: Literal["openmpi"] = "openmpi"
    host: str
    ranks: int
    bound_ranks: int
    single_core_ranks: int
    min_cores: int | None = None
    multi_socket_ranks: int = 0  # bound to cores of two or more sockets (its threads on both NUMA sides)
    unbound_ranks: int = 0  # "is not bound (or bound to all available processors)"


@fact_kind
class CpuProcessSample(Fact):
    """One process (or, with ``pidstat -t`` / ``top -H``, one thread) and its share of one core."""

    kind: Literal["cpu_process_sample"] = "cpu_process_sample"
    pid: int  # the process (pidstat's TGID for a thread row)
    tid: int | None = None  # set on thread rows only
    command: str
    cpu_pct: float  # % of one core: mean over the interval rows, or the Average row
    max_cpu_pct: float  # busiest interval row
    last_cpu: int | None = None  # the core it last ran on (pidstat's CPU column, top's P)
    samples: int
    host_cpus: int | None = None  # cores of the host, when the capture says
    # the whole host's busy share over the same period (top: mean of its %CpuN lines or
    # 100 - %Cpu(s) id; pidstat: the tasks' summed %CPU over host_cpus); None when unknown
    host_busy_pct: float | None = None
    tool: str  # "top" or "pidstat"


@fact_kind
class LibrarySymbolMissing(Fact):
    """A shared library could not be loaded or bound: a symbol it needs is not exported by the library loaded."""

    kind: Literal["library_symbol_missing"] = "library_symbol_missing"
    object: str  # "/.../torch/lib/libtorch_cuda.so", the object that needs the symbol
    symbol: str  # "ncclCommRegister"
    version: str | None = None  # the symbol's version, when ld.so printed one
    #: the library a symbol of that name comes from (naming convention): ``nccl`` for NCCL's API
    #: (nccl*, pnccl*), ``rdma_core`` for the verbs of libibverbs (ibv_*) and libmlx5 (mlx5dv_*), ``pytorch`` for the
    #: C++ API of PyTorch's libraries (mangled names in the namespaces c10, at, torch: _ZN3c104cuda9SetDeviceEi)
    provider: Literal["nccl", "rdma_core", "pytorch"] | None = None
    #: the object needing it is a libnccl (libnccl.so.2), or one of PyTorch's own libraries (libtorch_python.so, libc10.so)
    object_library: Literal["nccl", "pytorch"] | None = None


@fact_kind
class SharedLibraryMissing(Fact):
    """The dynamic loader found no file for a shared library a program or module needs: ld.so's
    ``<program>: error while loading shared libraries: <lib>: cannot open shared object file: No such
    file or directory``, or the same dlopen() error raised by Python (ImportError, OSError)."""

    kind: Literal["shared_library_missing"] = "shared_library_missing"
    library: str  # "libcuda.so.1"
    program: str | None = None  # "/sd-cli": the program ld.so named (None: a Python ImportError/OSError)
    #: who ships the library, by its name: ``nvidia_driver`` for the driver's user-space libraries
    #: (libcuda, libnvidia-*, libnvcuvid), which come from the host's driver, never from an image;
    #: ``cuda_toolkit`` for the CUDA runtime and math libraries a framework is built against (cudart,
    #: cuBLAS, cuDNN, cuFFT, cuRAND, cuSOLVER, cuSPARSE); ``tensorrt`` (libnvinfer*) and
    #: ``cuda_profiler`` (CUPTI), which frameworks load only for TensorRT or for profiling
    provider: Literal["nvidia_driver", "cuda_toolkit", "tensorrt", "cuda_profiler"] | None = None
    #: the program logged the failed load as a warning and went on (TensorFlow's dso_loader "Could not
    #: load dynamic library"): what it needed the library for is not available, the rest runs
    reported_as_warning: bool = False
    detail: str | None = None  # the loader's own reason where the line quotes it (TensorFlow's dlerror)


@fact_kind
class LinkedLibrary(Fact):
    """One shared library ``ldd`` resolved for a program (``libnccl.so.1 => /.../libnccl.so.1
    (0x...)``): which copy the loader takes, from where. The soname's version is the ABI's major
    (NCCL 1 against 2, the CUDA runtime a program was built for)."""

    kind: Literal["linked_library"] = "linked_library"
    library: str  # "libnccl.so.1": the soname as the program asks for it
    path: str | None = None  # "/c7/home/tru/bench/nccl/nccl/build/lib/libnccl.so.1"; None for the vDSO
    soname_version: str | None = None  # "1", "8.0": what follows ".so." in the soname
    program: str | None = None  # the file ldd was run on, where its command line is in the file
    #: who ships it, by name (SharedLibraryMissing.provider's), ``nccl`` for libnccl
    provider: str | None = None
    #: the copy is a CUDA toolkit's forward-compatibility driver library (a ``/compat/`` directory of a CUDA
    #: install: /usr/local/cuda-12.8/compat/libcuda.so.1): True, False, or None where the reader does not say
    compat: bool | None = None


@fact_kind
class LibraryVersionMissing(Fact):
    """A library lacks a symbol version an object needs: glibc's ``<lib>: version `<v>' not found
    (required by <object>)`` (elf/dl-version.c), the object built against a newer release of it."""

    kind: Literal["library_version_missing"] = "library_version_missing"
    library: str  # "/lib64/libc.so.6"
    version: str  # "GLIBC_2.27"
    required_by: str  # "/usr/local/nvidia/toolkit/libnvidia-container.so.1"
    #: the ABI the version names: ``glibc`` (GLIBC_*), ``libstdc++`` (GLIBCXX_*, CXXABI_*); None for another library's
    abi: Literal["glibc", "libstdc++"] | None = None


@fact_kind
class LibraryPreloadFailed(Fact):
    """The dynamic loader could not preload a library it was told to (LD_PRELOAD, /etc/ld.so.preload,
    ld.so's --preload) and ran the program without it: glibc's ``ERROR: ld.so: object '<lib>' from
    <where> cannot be preloaded (<reason>): ignored.`` (elf/rtld.c do_preload; releases before the
    reason was added print ``cannot be preloaded: ignored.``)."""

    kind: Literal["library_preload_failed"] = "library_preload_failed"
    library: str  # "/usr/local/vgpu/libvgpu.so"
    where: str  # "LD_PRELOAD", "/etc/ld.so.preload", "--preload"
    reason: str | None = None  # the loader's error: "cannot read file data", "cannot open shared object file"; None where not printed


@fact_kind
class PythonOsError(Fact):
    """Python raised an OSError (or a subclass) with an errno: ``OSError: [Errno 28] No space left on device``."""

    kind: Literal["python_os_error"] = "python_os_error"
    exception: str  # "OSError", "FileNotFoundError", "PermissionError", pip's "EnvironmentError"
    #: 28; None where the message gives none (PyTorch's shared-memory allocator before it quoted errno: "unable to
    #: write to file </torch_1394_2747491098>")
    errno: int | None
    errno_name: str | None = None  # "ENOSPC" (Linux numbering, Python's errno.errorcode); None for a number it lacks
    strerror: str | None  # "No space left on device"; None where no errno is given
    filename: str | None = None  # the file the call failed on, when the exception names one (unquoted)
    on_dev_shm: bool = False  # that file lies under /dev/shm (the shared-memory tmpfs)
    #: that file is a device or kernel file (/dev/ but /dev/shm, /sys/, /proc/: '/dev/nvidia0', '/dev/ttyUSB0'):
    #: an EIO there comes from the device's driver, not from storage
    on_device_file: bool = False
    #: EEXIST raised by a mkdir asked to accept an existing directory (the traceback's last frame ``in makedirs`` or
    #: ``in mkdir`` and ``exist_ok=True`` in the call above it: os.makedirs, pathlib's Path.mkdir): mkdir saw the path
    #: while isdir did not (a non-directory in the way, or a distributed file system's lagging view of a directory
    #: another rank has just made)
    mkdir_exist_ok: bool = False


@fact_kind
class ThreadCreateFailed(Fact):
    """A program could not start a thread and said so: ``pthread_create()`` returned EAGAIN (11, "Resource
    temporarily unavailable": a limit on processes and threads was reached, or the memory for the thread's stack
    ran out). OpenBLAS's ``blas_thread_init: pthread_create failed for thread 20 of 64: ...``, TensorFlow's
    ``Check failed: ret == 0 (11 vs. 0)Thread ... creation via pthread_create() failed.``, libgomp's ``Thread
    creation failed: ...``, CPython's ``RuntimeError: can't start new thread``."""

    kind: Literal["thread_create_failed"] = "thread_create_failed"
    program: Literal["openblas", "tensorflow", "libgomp", "python"]
    error: str  # strerror's text ("Resource temporarily unavailable"), or the return code TensorFlow's check printed ("11")
    errno_name: str | None = None  # "EAGAIN" (Linux numbering); None where the text names no errno
    thread: str | None = None  # TensorFlow's thread name ("tf_data_iterator_resource"); None unnamed
    #: OpenBLAS's next line, ``RLIMIT_NPROC <soft> current, <hard> max``: the process-count limit (ulimit -u), -1
    #: unlimited; None where it is not printed
    rlimit_nproc: int | None = None
    rlimit_nproc_max: int | None = None
    failures: int = 1  # how many such lines the file holds for this program (OpenBLAS prints one per thread)


@fact_kind
class TorchSaveWriteFailed(Fact):
    """PyTorch's checkpoint serializer (caffe2/serialize/inline_container.cc, PyTorchStreamWriter under
    torch.save) could not write the file: ``PytorchStreamWriter failed writing file data/3: file write
    failed``, and the ``unexpected pos N vs M`` that follows a short write."""

    kind: Literal["torch_save_write_failed"] = "torch_save_write_failed"
    step: Literal["writing_file", "writing_central_directory", "unexpected_pos"]
    record: str | None = None  # the archive record being written ("data/3", "data.pkl"); the archive's name for the directory
    detail: str | None = None  # miniz's error string after the colon ("file write failed"), as far as the line goes


@fact_kind
class TorchLoadArchiveUnreadable(Fact):
    """torch.load's reader (PyTorchStreamReader, caffe2/serialize/inline_container.cc) could not read the
    checkpoint as the zip archive torch.save writes: ``PytorchStreamReader failed reading zip archive:
    failed finding central directory`` (the file's end is missing), ``... failed reading file data/0:
    invalid header or archive is corrupted``."""

    kind: Literal["torch_load_archive_unreadable"] = "torch_load_archive_unreadable"
    step: str  # what the reader was doing: "reading zip archive", "reading file data/0", "locating file data.pkl"
    detail: str | None = None  # miniz's error string after the colon ("failed finding central directory")

@fact_kind
class SafetensorsHeaderUnreadable(Fact):
    """The safetensors reader (huggingface/safetensors, SafeTensors::read_metadata under safe_open, load_file and
    every loader built on them: transformers' from_pretrained, diffusers, vLLM) could not read a file's header:
    ``safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge`` (releases before 0.6
    print the error's variant name) or ``... header too large`` (0.6 on, its Display text)."""

    kind: Literal["safetensors_header_unreadable"] = "safetensors_header_unreadable"
    #: the reader's error variant, snake-cased: header_too_large (the first 8 bytes, the header's length, say more than
    #: 100 MB), header_too_small (under 8 bytes), invalid_header_length (the header runs past the file's end),
    #: metadata_incomplete_buffer (the tensors' offsets do not end at the file's end), invalid_header,
    #: invalid_header_start, invalid_header_deserialization (the header is no UTF-8 JSON), tensor_invalid_info,
    #: invalid_offset, validation_overflow (the header's tensor entries inconsistent)
    error: Literal["header_too_large", "header_too_small", "invalid_header_length", "metadata_incomplete_buffer",
                   "invalid_header", "invalid_header_start", "invalid_header_deserialization", "tensor_invalid_info",
                   "invalid_offset", "validation_overflow"]
    detail: str | None = None  # what follows the error's name on the line (serde's message, the tensor's name)


@fact_kind
class ObjectStoreThrottled(Fact):
    """An object store refused a job's request as one too many, as the client reported the request it gave up
    on: Amazon S3's (or a store speaking its API) HTTP 503 ``SlowDown``, "Please reduce your request rate."
    (botocore's ``An error occurred (SlowDown) when calling the PutObject operation (reached max retries: 5)``,
    the ClientError's response dict, Arrow's ``AWS Error SLOW_DOWN during GetObject operation``, the Java SDK's
    ``AmazonS3Exception: Slow Down (Service: Amazon S3; Status Code: 503; ...``, the C++ SDK's ``Encountered
    AWSError 'SlowDown'``), Google Cloud Storage's HTTP 429 ``rateLimitExceeded``, Azure Storage's HTTP 503
    ``ServerBusy``."""

    kind: Literal["object_store_throttled"] = "object_store_throttled"
    #: the form it was reported in: aws_java (AmazonS3Exception's message), aws_cpp (the C++ SDK's log),
    #: gcs (Google Cloud Storage's clients), azure (Azure Storage's error code)
    client: Literal["botocore", "botocore_response", "arrow", "aws_java", "aws_cpp", "gcs", "azure"]
    code: str = "SlowDown"  # the store's own word for the refusal: SlowDown, rateLimitExceeded, ServerBusy
    status: int = 503  # the HTTP status the store answered: 503 (S3, Azure), 429 (GCS)
    operation: str | None = None  # the operation refused ("PutObject", "GetObject", GCS's HTTP method), where the line names it
    retries: int | None = None  # botocore's "(reached max retries: N)", where it printed it
    count: int = 1  # the lines of the file that report the same operation in the same form


@fact_kind
class DataLoaderFailure(Fact):
    """PyTorch's DataLoader gave up in the main process (torch/utils/data/dataloader.py): no batch came from
    its workers within the DataLoader's ``timeout`` (``RuntimeError: DataLoader timed out after 120 seconds``),
    or the process ran out of file descriptors to talk to them (``Too many open files. Communication with
    the workers is no longer possible.``). A worker killed by a signal is ``dataloader_worker_killed``."""

    kind: Literal["dataloader_failure"] = "dataloader_failure"
    #: pin_memory_thread: the pin-memory thread's exception re-raised (``Caught RuntimeError in pin memory thread for
    #: device 0.``); pin_memory_thread_exited: ``Pin memory thread exited unexpectedly``
    event: Literal["timeout", "open_files_limit", "pin_memory_thread", "pin_memory_thread_exited"]
    seconds: float | None = None  # the DataLoader's timeout, for a timeout
    device: int | None = None  # pin_memory_thread: the CUDA device the thread pins for
    error: str | None = None  # pin_memory_thread: the original exception's line, where the paste holds it
    #: pin_memory_thread: the original error says the pinned (page-locked) host allocation failed ("CUDA error: out of memory")
    pinned_alloc_failed: bool = False


@fact_kind
class DataLoaderWorkerExited(Fact):
    """PyTorch's DataLoader found a worker process gone and no signal named for it: ``RuntimeError: DataLoader worker
    (pid(s) 16732) exited unexpectedly`` (dataloader.py _try_get_data), or the SIGCHLD handler's ``DataLoader worker
    (pid 109) exited unexpectedly with exit code 1.`` Why the worker died is not in the line; a worker killed by a
    signal the handler named is ``dataloader_worker_killed``."""

    kind: Literal["dataloader_worker_exited"] = "dataloader_worker_exited"
    pids: str  # the workers' pids as the line lists them ("10116,14052")
    exit_code: int | None = None  # the exit code, where the SIGCHLD handler's line gives it

@fact_kind
class CufileError(Fact):
    """An ERROR line of cufile.log, the log of GPUDirect Storage's user library (libcufile, under kvikio,
    DALI, cuDF, gdsio and GDS checkpoint loaders): ``ERROR  cufio-fs:204 NVMe Driver not registered with
    nvidia-fs!!!``; or a program's own report that cuFile refused to register a file (gdsio's ``file register error:
    GPUDirect Storage not supported on current file``, DALI's ``CUFile import failed: <path>. internal error.``,
    parsers/cufile_app.py). One fact per distinct message of a file (``count`` the lines that repeat it)."""

    kind: Literal["cufile_error"] = "cufile_error"
    #: what the message says, from libcufile's own forms (parsers/cufile_log.py); "other" for one not catalogued
    event: str
    component: str  # libcufile's module and source line as logged: "cufio-fs:204", "0:1072"; a program's form: "gds_tools", "dali"
    message: str
    count: int = 1


@fact_kind
class CufileNotice(Fact):
    """A NOTICE of cufile.log that says cuFile runs without GPUDirect Storage for a file
    (``... using cuFile posix read/write with compat mode enabled``) or
    without its RDMA path (``nvidia_peermem.ko is not loaded. Disabling UserSpace RDMA access.``): I/O
    still works, through host memory."""

    kind: Literal["cufile_notice"] = "cufile_notice"
    event: Literal["compat_mode_for_file", "userspace_rdma_disabled"]
    message: str
    count: int = 1


@fact_kind
class GdsPlatformCheck(Fact):
    """What ``gdscheck -p`` (GPUDirect Storage's platform check, gdscheck.py in older releases) reports for a host: how
    many storage drivers its DRIVER CONFIGURATION lists and how many of them GDS supports, MOFED's peer-direct
    state, whether compatibility mode is allowed, the GPUs that support GDS, IOMMU, and its verdict line
    (parsers/gdscheck.py). One fact per gdscheck output, as much of it as the paste holds."""

    kind: Literal["gds_platform_check"] = "gds_platform_check"
    drivers_listed: int = 0  # the DRIVER CONFIGURATION lines read whole (Supported, Unsupported or the modes)
    drivers_supported: int = 0
    supported: str | None = None  # the supported drivers' names, comma-joined ("NVMe, NVMeOF")
    peer_direct: bool | None = None  # "--Mellanox PeerDirect : Enabled" ("--MOFED peer direct : enabled" before 1.0)
    use_compat_mode: bool | None = None  # properties.use_compat_mode
    gpus_supporting: int = 0  # "GPU index N ... supports GDS"
    iommu: Literal["enabled", "disabled"] | None = None
    verification: Literal["succeeded"] | None = None  # "Platform verification succeeded"
    nvidia_fs_version: str | None = None
    gds_release: str | None = None


@fact_kind
class GdsioRun(Fact):
    """One result line of gdsio, GPUDirect Storage's benchmark (``IoType: WRITE XferType: GPUD Threads: 1 ...
    Throughput: 0.013104 GiB/sec, Avg_Latency: 264.007812 usecs ...``): the transfer path it was run with, and the
    throughput and latency it measured (parsers/gdsio.py). A line is a run that completed; it says which path gdsio
    was asked for (``-x``), not whether cuFile fell back to its compatibility mode inside (cufile.log says that)."""

    kind: Literal["gdsio_run"] = "gdsio_run"
    io_type: str | None = None  # READ, WRITE, RANDREAD, RANDWRITE; None where only the result's tail was pasted
    xfer_type: str | None = None  # GPUD, GPUD_ASYNC, GPU_BATCH, GPU_BATCH_STREAM, CPUONLY, CPU_GPU, CPU_ASYNC_GPU, CPU_CACHED_GPU
    path: Literal["gpu_direct", "cpu_bounce", "cpu_only"] | None = None  # what the transfer type moves through
    threads: int | None = None
    io_size_kib: int | None = None
    throughput_gib_s: float
    avg_latency_us: float
    ops: int | None = None
    seconds: float | None = None


@fact_kind
class ProcessUninterruptible(Fact):
    """A ``ps`` row (``ps aux``, ``ps -eo pid,stat,wchan,cmd``, ``ps -l``) of a task in uninterruptible sleep, state
    ``D``: waiting in the kernel, unkillable until what it waits for answers (parsers/ps_listing.py). One fact per such
    row; a row in another state makes none. One listing is one moment: a short D is ordinary disk I/O."""

    kind: Literal["process_uninterruptible"] = "process_uninterruptible"
    pid: int
    stat: str  # the STAT column ("D", "Ds", "Dsl", "D+") or S's one letter
    wchan: str | None = None  # the WCHAN column where the listing has one: the kernel function it sleeps in ("-" read as None)
    command: str  # COMMAND / CMD: the command line as ps printed it
    user: str | None = None


@fact_kind
class TaskKernelStack(Fact):
    """A task's kernel stack as ``cat /proc/<pid>/stack`` prints it (``[<0>] nfs_wait_bit_killable+0x24/0xa0 [nfs]``,
    innermost frame first): where the task sits in the kernel now, pasted when a process hangs
    (parsers/proc_pid_stack.py). One fact per stack."""

    kind: Literal["task_kernel_stack"] = "task_kernel_stack"
    pid: int | None = None  # from the "cat /proc/<pid>/stack" above it, where the paste has it
    task: str = "a task"  # "the task 1054" where the pid is known: how a summary names it
    frames: int
    top: str  # the innermost frame's function
    waits_on: str | None = None  # the network file system a frame sits in (nfs, lustre, gpfs, ceph, cifs, fuse, beegfs)


@fact_kind
class HostKernel(Fact):
    """``Linux vm 6.18.44-fc-v657-gpu #1 SMP PREEMPT_DYNAMIC @0 x86_64 ... GNU/Linux`` (uname -a); ``Linux version
    5.4.91-microsoft-standard-WSL2 (oe-user@oe-host) (gcc version 9.3.0 (GCC)) #1 SMP ...`` (/proc/version: no host
    name, the builder's user@host is not the node's)"""

    kind: Literal["host_kernel"] = "host_kernel"
    hostname: str | None = None
    release: str
    arch: str | None = None


@fact_kind
class NvidiaDriverVersion(Fact):
    """``NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build``; ``Nvidia driver version: 418.67``;
    ``modinfo nvidia``'s ``version:        595.80``; nvidia-smi's banner pasted without a GPU row
    (``| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: 12.4 |``)

    The second is PyTorch collect_env's line (facts/parsers/python_packages.py): it does not say which module. The
    third is the module file on disk (``on_disk``), which is the loaded one only until the driver is upgraded."""

    kind: Literal["nvidia_driver_version"] = "nvidia_driver_version"
    version: str
    open_module: bool | None = None
    arch: str | None = None
    #: the version of the kernel module loaded now (/proc/driver/nvidia/version's NVRM line), not a
    #: tool's report of the driver (collect_env)
    loaded_module: bool = False
    #: the version of the module file installed on disk, as ``modinfo nvidia`` read it (the file the next
    #: ``modprobe`` or boot loads, not the module loaded now: loaded_module is False); its path when printed
    on_disk: bool = False
    module_file: str | None = None
    #: the newest CUDA version the driver supports, where the line names it (nvidia-smi's banner "CUDA Version: 12.4")
    cuda_version: str | None = None


@fact_kind
class DiskIo(Fact):
    """One block device over one ``iostat -x`` capture."""

    kind: Literal["disk_io"] = "disk_io"
    device: str
    reports: int
    util_max_pct: float
    util_mean_pct: float
    saturated_reports: int  # reports at >= 90 % util
    aqu_sz_max: float | None = None  # requests queued or in service ("aqu-sz"; older "avgqu-sz")
    r_await_max_ms: float | None = None
    w_await_max_ms: float | None = None
    read_mb_s_mean: float | None = None
    write_mb_s_mean: float | None = None


@fact_kind
class IpmiSensorReading(Fact):
    """One BMC sensor as ipmitool lists it: its reading and ipmitool's threshold status."""

    kind: Literal["ipmi_sensor_reading"] = "ipmi_sensor_reading"
    name: str  # the SDR's id string: "Fan3B", "GPU1 Temp"
    value: float | None = None  # None: discrete, no reading, disabled
    unit: str | None = None  # "RPM", "degrees C", "Volts"; "discrete"
    reading: str  # as printed: "0 RPM", "0x0b", "no reading", "State Deasserted"
    status: str  # ipmitool's: ok, ns, nc, cr, nr, lnc, lcr, lnr, unc, ucr, unr
    level: Literal["ok", "no_reading", "non_critical", "critical", "non_recoverable"]
    measure: Literal["temperature", "fan", "electrical", "other", "discrete", "unknown"]  # unknown: no reading
    #: ipmitool sensor's thresholds (lower non-recoverable .. upper non-recoverable), None where "na"
    upper_critical: float | None = None
    lower_critical: float | None = None


class _SelFields(Fact):
    record_id: str  # ipmitool's hex record id, as printed ("1b")
    date: str | None = None  # as printed ("11/15/2019"); None before the BMC's clock was set (Pre-Init)
    time: str | None = None  # "18:50:40", with the zone where ipmitool printed one
    sensor_type: str | None = None  # ipmitool's type ("Power Supply"); None where it is not one ipmitool names
    sensor: str  # the SDR's name ("PSU1_Status", elist) or number ("#0xc8", list); the whole column when the type is unknown
    description: str  # "Failure detected", the detail suffix cut off
    detail: str | None = None  # ipmitool's " (...)" suffix: "CPU0_G1"
    asserted: bool
    reading: str | None = None  # elist's threshold reading: "Reading 96 > Threshold 90 degrees C"
    event: str | None = None  # the id of knowledge/ipmi_sel_events.yaml's entry; None where it names none


@fact_kind
class IpmiSelEvent(_SelFields):
    """An asserted SEL event that is not a record of normal operation: a power supply, PCIe bus,
    temperature, fan, memory or CPU fault as the BMC logged it."""

    kind: Literal["ipmi_sel_event"] = "ipmi_sel_event"


@fact_kind
class IpmiSelRecord(_SelFields):
    """A SEL row that is no fault: a deasserted event (the condition went away), a record of
    normal operation (boot, firmware progress, log cleared, presence), or an OEM record."""

    kind: Literal["ipmi_sel_record"] = "ipmi_sel_record"


@fact_kind
class IpmiSelCatalogueEntry(Fact):
    """What one kind of SEL event means (knowledge/ipmi_sel_events.yaml), made for each event a
    log names (engine/catalogues/ipmi_sel.py): the catalogue rule joins it on ``event``."""

    kind: Literal["ipmi_sel_catalogue_entry"] = "ipmi_sel_catalogue_entry"
    event: str  # power_supply_failure
    sensor_type: str
    meaning: str
    severity: str
    cause: str
    component: str
    actions: str  # comma-separated action ids


@fact_kind
class CpuTopology(Fact):
    """The host's CPUs as ``lscpu`` describes them."""

    kind: Literal["cpu_topology"] = "cpu_topology"
    arch: str
    cpus: int | None = None
    sockets: int | None = None
    cores_per_socket: int | None = None
    threads_per_core: int | None = None
    numa_nodes: int | None = None
    numa_nodes_with_cpus: int | None = None
    model_name: str | None = None
    hypervisor: str | None = None


@fact_kind
class LscpuNumaNode(Fact):
    """``NUMA node1 CPU(s):   12-23`` (empty on a memory-only node)."""

    kind: Literal["lscpu_numa_node"] = "lscpu_numa_node"
    numa_node: int
    cpus: str


@fact_kind
class PcieDevice(Fact):
    """A device header line of ``lspci``: ``17:00.0 3D controller: NVIDIA Corporation ...``."""

    kind: Literal["pcie_device"] = "pcie_device"
    pci_bus_id: str
    class_name: str  # "PCI bridge", "3D controller", "Infiniband controller"
    name: str
    device_type: Literal["gpu", "nic", "bridge", "other"]
    port_type: str | None = None  # "Downstream Port", "Root Port", "Endpoint" (Express capability)


@fact_kind
class PcieLinkStatus(Fact):
    """``LnkSta: Speed 8GT/s (downgraded), Width x8 (downgraded)`` against the device's LnkCap."""

    kind: Literal["pcie_link_status"] = "pcie_link_status"
    device: str  # the bus id, or "line N" for a block pasted without its header
    pci_bus_id: str | None = None
    device_type: Literal["gpu", "nic", "bridge", "other", "unknown"] = "unknown"
    name: str | None = None
    port_type: str = "unknown"  # "Downstream Port", "Root Port", "Endpoint", ... (Express capability)
    speed_gts: float | None = None
    width: int
    cap_speed_gts: float | None = None
    cap_width: int | None = None
    speed_below_cap: bool = False
    width_below_cap: bool = False
    no_link: bool = False  # Width x0: nothing trained on the link (an empty slot or port)
    marked_downgraded: bool = False  # lspci >= 3.6 says "(downgraded)" itself


@fact_kind
class PcieAcsControl(Fact):
    """``ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-``."""

    kind: Literal["pcie_acs_control"] = "pcie_acs_control"
    device: str  # the bus id, or "line N" when the output does not name the device
    pci_bus_id: str | None = None
    device_type: Literal["gpu", "nic", "bridge", "other", "unknown"] = "unknown"
    name: str | None = None
    port_type: str = "unknown"
    flags: str  # "SrcValid+ TransBlk- ReqRedir+ ..." as printed
    source_validation: bool = False
    request_redirect: bool = False  # ReqRedir+: peer requests go up to the root complex
    completion_redirect: bool = False
    upstream_forwarding: bool = False
    egress_control: bool = False
    direct_translated: bool = False
    redirects_peer_traffic: bool = False  # ReqRedir+ or CmpltRedir+
    p2p_devices_behind: Literal["yes", "no", "unknown"] = "unknown"  # a GPU or NIC below this bridge


@fact_kind
class PcieVpdProduct(Fact):
    """A VPD ``Product Name:`` line of ``lspci -vv``: what the board calls itself."""

    kind: Literal["pcie_vpd_product"] = "pcie_vpd_product"
    device: str  # the bus id, or "line N" when the output does not name the device
    pci_bus_id: str | None = None
    product_name: str  # "Nvidia ConnectX-7 mezz internal for Nvidia Umbriel system"


@fact_kind
class CpuCoreUsage(Fact):
    """One CPU core's busy share over an ``mpstat -P ALL`` capture."""

    kind: Literal["cpu_core_usage"] = "cpu_core_usage"
    cpu: int
    busy_pct: float  # 100 - %idle, mean over the interval rows (or the Average row)
    max_busy_pct: float  # busiest interval row
    iowait_pct: float
    samples: int


@fact_kind
class CpuUsageSummary(Fact):
    """All cores of one ``mpstat -P ALL`` capture: is one core saturated while the others idle?"""

    kind: Literal["cpu_usage_summary"] = "cpu_usage_summary"
    cores: int
    busiest_cpu: int
    busiest_pct: float
    mean_core_pct: float  # mean busy share of all cores
    saturated_cores: int  # cores at 95 % busy or more
    all_busy_pct: float | None = None  # the "all" rows, mean
    samples: int


@fact_kind
class NumaNode(Fact):
    """One NUMA node of ``numactl -H``."""

    kind: Literal["numa_node"] = "numa_node"
    numa_node: int
    cpus: str  # "0-17,36-53"; "" for a node without CPUs
    cpu_count: int
    size_mb: int | None = None
    free_mb: int | None = None


@fact_kind
class NumaTopology(Fact):
    """The host's NUMA layout as ``numactl -H`` prints it."""

    kind: Literal["numa_topology"] = "numa_topology"
    nodes: int
    nodes_with_cpus: int
    nodes_without_memory: int  # nodes that list CPUs and 0 MB
    max_distance: int | None = None


@fact_kind
class PackageChange(Fact):
    """One package that a package manager installed, upgraded, downgraded or removed."""

    kind: Literal["package_change"] = "package_change"
    manager: str  # apt | dpkg
    action: str  # install | upgrade | downgrade | remove | purge | reinstall
    package: str  # "libnvidia-common-460"
    arch: str | None = None
    from_version: str | None = None
    to_version: str | None = None
    at: str | None = None  # "2021-06-04 06:41:09"
    command: str | None = None  # "/usr/bin/unattended-upgrade"
    unattended: bool = False
    nvidia_driver: bool = False


@fact_kind
class PackageVersion(Fact):
    """One installed package of the CUDA stack, as a package manager (or collect_env) lists it."""

    kind: Literal["package_version"] = "package_version"
    package: str  # "torch" | "nvidia-nccl-cu13" | "cudatoolkit"
    version: str  # "2.11.0" | "2.8.0.dev20250528+cpu"
    manager: str  # pip | conda | collect_env | env_report (a "- Name: value" env report: transformers, accelerate, llamafactory-cli env) | ds_report | unsloth (its start banner) | apt | dpkg
    cuda_build: str | None = None  # "12.1": the CUDA the package was built for (or is)
    cuda_build_num: int | None = None  # 12010
    cuda_build_major: int | None = None  # 12
    #: a package of the NVIDIA driver itself (dpkg/apt: nvidia-driver-535, libnvidia-compute-535): its version is the driver's
    nvidia_driver: bool = False
    #: for a driver package, the driver release its version names ("525.85.12" of "525.85.12-1", "450.51.06" of
    #: "450.51.06-0ubuntu1"): what the loaded kernel module's version is compared with
    driver_release: str | None = None


@fact_kind
class AppGpuReport(Fact):
    """The GPU a training framework says it runs on, from the banner it prints at start (unsloth's
    ``   \\\\   /|    NVIDIA GeForce GTX 1070. Num GPUs = 1. Max memory: 7.909 GB. Platform: Linux.`` and
    ``O^O/ \\_/ \\    Torch: 2.5.1+cu124. CUDA: 6.1. CUDA Toolkit: 12.4. Triton: 3.1.0``): context, no fault by itself
    (facts/parsers/python_packages.py reads its versions as ``package_version``)."""

    kind: Literal["app_gpu_report"] = "app_gpu_report"
    source: str  # the framework that printed it: "unsloth"
    gpu_name: str | None = None  # torch.cuda.get_device_properties(0).name: "NVIDIA GeForce GTX 1070"; None: "No GPU detected"
    gpu_count: int | None = None  # "Num GPUs = 1" (torch.cuda.device_count()), where printed
    memory_gb: float | None = None  # "Max memory: 7.909 GB" (total_memory in GiB)
    compute_capability: str | None = None  # "CUDA: 6.1" / "CUDA = 6.1": the device's major.minor, not a CUDA release
    bf16: bool | None = None  # "Bfloat16 = TRUE"
    platform: str | None = None  # "Linux"


@fact_kind
class PackageInstallFailed(Fact):
    """A package or kernel module that did not install: dpkg's ``dpkg: error processing package
    nvidia-dkms-390 (--configure):`` and the reason under it, a DKMS build ``Error! Bad return status
    for module build on kernel: <kernel> (<arch>)`` (its package's script failing with it), the
    package list under ``Errors were encountered while processing:``, apt's ``E: Sub-process
    /usr/bin/dpkg returned an error code (1)`` where nothing else names the package."""

    kind: Literal["package_install_failed"] = "package_install_failed"
    tool: Literal["dpkg", "dkms", "apt"]
    package: str | None = None  # "nvidia-dkms-390"; the DKMS module where no package is named; None: apt's line alone
    module: str | None = None  # DKMS: the module that did not build ("nvidia", "nvidia-current")
    module_version: str | None = None  # DKMS: "390.144"
    kernel: str | None = None  # DKMS: the kernel it was built for ("5.15.2-76051502-generic")
    step: Literal["configure", "install", "unpack", "remove", "purge", "build", "other"] = "other"
    #: script_failed: a maintainer script exited non-zero; build_failed: DKMS could not build
    #: the module (the package's script fails with it); file_conflict: a file another package owns;
    #: dependency: a package it depends on failed (no fact where that package's own failure is pasted);
    #: listed: named only in "Errors were encountered while processing:"; other
    reason: Literal["script_failed", "build_failed", "file_conflict", "dependency", "listed", "other"]
    exit_status: int | None = None
    #: the NVIDIA kernel driver's own package or DKMS module (nvidia-dkms-<branch>, nvidia-driver-<branch>,
    #: nvidia-kernel-dkms, cuda-drivers; module nvidia / nvidia-current): the node has no working driver
    nvidia_driver: bool = False
    message: str = ""


@fact_kind
class DkmsModuleStatus(Fact):
    """A line of ``dkms status``: a module version DKMS knows and its state for one kernel
    (``nvidia, 396.45, 4.17.14-202.fc28.x86_64, x86_64: installed (original_module exists)``; dkms
    3.x ``nvidia/535.86.05, 6.5.0-060500rc5-generic, x86_64: installed``; ``nvidia/390.48: added``)."""

    kind: Literal["dkms_module_status"] = "dkms_module_status"
    module: str  # "nvidia", "nvidia-current", "nvidia-open", "v4l2loopback"
    version: str  # "396.45"
    kernel: str | None = None  # the kernel it was built for; None for added / broken (no kernel)
    arch: str | None = None  # "x86_64"
    state: Literal["added", "built", "installed", "installed-weak", "broken"]
    notes: str | None = None  # what follows the state: "(original_module exists)", "(WARNING! Diff between ...)"


@fact_kind
class DkmsTreeBroken(Fact):
    """DKMS found a module version in its tree that it cannot read: dkms 2.x's ``Error! Could not locate
    dkms.conf file.`` / ``File: /var/lib/dkms/nvidia/390.48/source/dkms.conf does not exist.``, dkms 3.x's
    ``nvidia/390.48: broken`` and ``Error! nvidia/390.48: Missing the module source directory or the symbolic
    link pointing to it.`` (its source removed while the tree kept it). dkms 2.x stops there: ``dkms status``
    and ``dkms autoinstall`` go no further, so no module is rebuilt for a new kernel."""

    kind: Literal["dkms_tree_broken"] = "dkms_tree_broken"
    module: str | None = None  # from the path or the 3.x line; None: the Error! line alone
    version: str | None = None
    path: str | None = None  # the dkms.conf that is missing
    #: conf_missing: the dkms.conf DKMS read does not exist (dkms 2.x, any command); source_missing: dkms 3.x's
    #: "broken" state (the source directory or its symlink gone)
    form: Literal["conf_missing", "source_missing"]
    message: str


@fact_kind
class ResourceLimit(Fact):
    """One process resource limit as a shell (``ulimit -a``, ``ulimit -l``), ``/proc/<pid>/limits``
    or a library that checked it (libibverbs' ``RLIMIT_MEMLOCK is N bytes``) printed it."""

    kind: Literal["resource_limit"] = "resource_limit"
    resource: str  # memlock | nofile | stack | nproc | core | ... (the RLIMIT_ name, lowercased); else the description
    value: str  # as printed: "64", "unlimited", "65536"
    unlimited: bool = False
    #: the limit in bytes, for limits of memory (kbytes, kb, bytes); None when unlimited or not a size
    limit_bytes: int | None = None
    source: str  # bash | zsh | ash | proc_limits | ulimit_l | libibverbs


@fact_kind
class DeviceCgroupNvidiaAccess(Fact):
    """What a cgroup v1 ``devices.list`` lets a container do with NVIDIA's GPU devices (major 195).

    ``c 195:* m`` gives ``access`` "m", ``can_open`` False (facts/parsers/cgroup_devices_list.py)."""

    kind: Literal["device_cgroup_nvidia_access"] = "device_cgroup_nvidia_access"
    access: str  # the letters of r, w, m that entries covering major 195 grant (a wildcard entry included), "" for none
    can_open: bool  # an entry grants both r and w on major 195: the GPUs can be opened
    names_nvidia: bool  # an entry names major 195 itself (not only through '*' or type 'a')
    cut: bool = False  # the list as pasted was elided ('...'): entries may be missing


@fact_kind
class KernelFunctionLatency(Fact):
    """A bcc latency histogram of one traced function (``funclatency``): how often it ran and how
    long, from its log2 buckets and its ``avg = ... total: ... count:`` line
    (facts/parsers/bcc_latency_hist.py). Times are in milliseconds whatever unit the tool printed."""

    kind: Literal["kernel_function_latency"] = "kernel_function_latency"
    function: str | None = None  # the traced pattern of 'Tracing N functions for "..."'; None where not pasted
    pid: int | None = None  # the -p of the pasted command line
    traced: str = "every process"  # "process 2256971" with -p: whose calls the histogram counts
    count: int | None = None  # calls over the window (the avg line's count, else the buckets' sum)
    avg_ms: float | None = None
    total_ms: float | None = None
    slowest_ms: float  # lower bound of the highest non-empty bucket: at least one call took this long
    slow_calls: int = 0  # calls in buckets starting at 1 ms or more
    numa_balancing: bool = False  # the function is the kernel's automatic NUMA balancing (task_numa_work, ...)


@fact_kind
class PerfProcessSamples(Fact):
    """One process's samples in ``perf script`` output, and how many of them were in the kernel's
    automatic NUMA balancing (facts/parsers/perf_script.py)."""

    kind: Literal["perf_process_samples"] = "perf_process_samples"
    comm: str
    pid: int
    samples: int
    numa_balancing_samples: int = 0  # samples whose stack holds task_numa_work, change_prot_numa, do_numa_page, ...


@fact_kind
class SharedFsMountFailed(Fact):
    """A network file system failed to mount on the node: its mount helper's or util-linux mount's
    error (``mount.lustre: mount <dev> at <dir> failed: <strerror>``, ``mount: <dir>: mount(2) system call
    failed: <strerror>`` logged by a file-system client's unit), or systemd's failure of a file-system
    client's unit or of a mount unit of a network file system."""

    kind: Literal["shared_fs_mount_failed"] = "shared_fs_mount_failed"
    #: lustre, beegfs, nfs, ceph, gpfs, weka, cifs; "network" where systemd only says a remote mount failed
    filesystem: str
    #: mount_failed (the helper's or mount(2)'s error: ``error`` says why), unit_failed (systemd's line only)
    event: Literal["mount_failed", "unit_failed"]
    mountpoint: str | None = None  # "/mnt/beegfs", "/mnt/testfs-OST0001"
    source: str | None = None  # "/dev/sdb", "10.0.0.1@o2ib:/scratch"
    error: str | None = None  # strerror: "Operation canceled", "Cannot send after transport endpoint shutdown"
    unit: str | None = None  # "beegfs-client.service", "mnt-lustre.mount"
    timestamp: str | None = None
    message: str


@fact_kind
class VfioDmaMapFailure(Fact):
    """A VMM (QEMU, a kata or KubeVirt VM's QEMU) could not map a VM's memory through the IOMMU for
    a passed-through device: ``VFIO_MAP_DMA failed: Cannot allocate memory``, ``... memory listener
    initialization failed: Region pc.ram: vfio_container_dma_map(0x.., 0x0, 0x80000000, 0x..) = -12
    (Cannot allocate memory)``. The VM does not start, or the device is not attached."""

    kind: Literal["vfio_dma_map_failure"] = "vfio_dma_map_failure"
    errno: int | None = None  # 12 (ENOMEM), 14 (EFAULT), 22 (EINVAL), 28 (ENOSPC); None for an error text not known
    error: str  # the strerror text, "Cannot allocate memory", or the number as printed ("-22")
    region: str | None = None  # the guest memory region, "pc.ram", "dimm1", "mach-virt.ram"
    device: str | None = None  # the passed-through device's PCI address, "0000:04:00.2"
    message: str


@fact_kind
class GdrcopyOpenFailed(Fact):
    """GDRCopy's library (libgdrapi: the CPU mapping of GPU memory that NVSHMEM, UCX's gdr_copy, NCCL and libfabric
    use) could not open its kernel driver: its tests' ``gdr_open error: Is gdrdrv driver installed and loaded?``
    (tests/common.hpp gdr_open_safe), UCX's ``UCX  ERROR failed to open gdr copy`` (its gdr_copy transport's gdr_open
    returned NULL) and ``could not open gdr copy, built for v2.4 but loaded v2.3``, or, with GDRCOPY_ENABLE_LOGGING, the library's own ``ERR:  error opening driver
    (errno=2/No such file or directory)``, ``ERR:  Error getting the gdrdrv driver version with ioctl error (errno=22).
    gdrdrv might be too old.`` and the two version checks (src/gdrapi.c gdr_open_gdrdrv_internal)."""

    kind: Literal["gdrcopy_open_failed"] = "gdrcopy_open_failed"
    #: open_failed: the tests' message (why not said); device_open: open("/dev/gdrdrv") failed (errno); version_query:
    #: the driver did not answer the version ioctl; gdrdrv_too_old / libgdrapi_too_old: the version checks;
    #: library_api_mismatch: UCX built against libgdrapi of one API and loading another ("could not open gdr copy, built
    #: for v2.4 but loaded v2.3", uct_gdr_copy_query_md_resources)
    reason: Literal["open_failed", "device_open", "version_query", "gdrdrv_too_old", "libgdrapi_too_old",
                    "library_api_mismatch"]
    errno: int | None = None
    error: str | None = None  # strerror's text where printed: "No such file or directory"
    message: str


@fact_kind
class GdrcopyPinFailed(Fact):
    """GDRCopy could not pin GPU memory for a CPU mapping: gdrdrv's call of the NVIDIA driver's
    nvidia_p2p_get_pages failed (the kernel's ``gdrdrv:__gdrdrv_pin_buffer:nvidia_p2p_get_pages(va=... ) failed [ret =
    -22]``, src/gdrdrv/gdrdrv.c), or a GDRCopy test asserting on gdr_pin_buffer's result (``Assertion
    "(gdr_pin_buffer(g, d_ptr, size, 0, 0, &mh)) == (0)" failed at sanity.cpp:187``, tests/common.hpp ASSERT), or UCX's
    gdr_copy transport's ``UCX  ERROR gdr_pin_buffer failed. length :65536 ret:22``."""

    kind: Literal["gdrcopy_pin_failed"] = "gdrcopy_pin_failed"
    #: ucx: UCX's gdr_copy transport's "gdr_pin_buffer failed. length :N ret:N" / "GPU memory pin failed. length N ret N
    #: pin_flags N" (src/uct/cuda/gdr_copy/gdr_copy_md.c), ret the library's (22: EINVAL from gdrdrv's pin ioctl)
    form: Literal["kernel", "test_assertion", "ucx"]
    ret: int | None = None  # the kernel line's return value (-22: -EINVAL), UCX's of the library call
    message: str


@fact_kind
class ForeignAcceleratorTool(Fact):
    """Another vendor's accelerator management tool's output (Huawei Ascend ``npu-smi``, MetaX ``mx-smi``, AMD
    ``rocm-smi``, Intel ``xpu-smi``), recognised by its banner or table header: out of gpu-stethoscope's scope (NVIDIA
    GPUs), so it checks nothing; the file is read as that, never left unrecognised nor taken for NVIDIA's output."""

    kind: Literal["foreign_accelerator_tool"] = "foreign_accelerator_tool"
    vendor: str  # Huawei, MetaX, AMD, Intel
    tool: str  # npu-smi, mx-smi, rocm-smi, xpu-smi


@fact_kind
class ForeignGpuFault(Fact):
    """Another vendor's GPU runtime reported a fault of a program's GPU work: AMD ROCm's HSA runtime (ROCR-Runtime
    runtime.cc, VMFaultHandler) "Memory access fault by GPU node-9 (Agent handle: 0x7d5f990) on address
    0x14a1cfe01000. Reason: Unknown." before it aborts the process. Out of gpu-stethoscope's scope (NVIDIA GPUs):
    recognised and reported as that vendor's fault, never health, never left unread."""

    kind: Literal["foreign_gpu_fault"] = "foreign_gpu_fault"
    vendor: str  # AMD
    runtime: str  # ROCm (HSA runtime)
    #: memory_access_fault (VMFaultHandler's "Memory access fault by GPU node-N ..."), hw_exception (HwExceptionHandler's
    #: "HW Exception by GPU node-N (Agent handle: ...) reason :GPU Hang|ECC": KFD reset a hung GPU, or saw an ECC error)
    event: Literal["memory_access_fault", "hw_exception"] = "memory_access_fault"
    gpu_node: int  # the KFD topology node of the faulting GPU ("node-9")
    address: str | None = None  # "0x14a1cfe01000"
    reason: str  # "Unknown", "Page not present or supervisor privilege", "DRAM ECC failure", ...; "GPU Hang", "ECC"
    memory_error: bool = False  # a reason names an ECC failure (DRAM, SRAM; a hardware exception's ECC): the GPU's memory
    faults: int = 1  # the lines of this form in the file (one per faulting GPU or process)
    gpu_nodes: str | None = None  # every faulting node the file names, in order of first appearance ("9, 6, 11, 8, 4, 7")


@fact_kind
class ForeignGpuEccCount(Fact):
    """Another vendor's GPU's ECC (RAS) error counts as its management tool prints them: AMD's ``amd-smi metric
    --ecc --ecc-blocks`` ("ECC:" with TOTAL_CORRECTABLE_COUNT / TOTAL_UNCORRECTABLE_COUNT, "ECC_BLOCKS:" with each
    block's CORRECTABLE_COUNT / UNCORRECTABLE_COUNT / DEFERRED_COUNT). One fact per GPU of the output. Out of
    gpu-stethoscope's scope (NVIDIA GPUs): an uncorrectable count above zero is still reported as that GPU's fault."""

    kind: Literal["foreign_gpu_ecc_count"] = "foreign_gpu_ecc_count"
    vendor: str  # AMD
    tool: str  # amd-smi
    gpu: int | None = None  # the "GPU: 0" line's index; None where the paste cut it off (a grep of one block)
    correctable: int | None = None  # the TOTAL line's count, else the sum of the blocks'; None where none printed a number
    uncorrectable: int | None = None  # the same for uncorrectable errors
    deferred: int | None = None  # the same for deferred errors (poisoned data, handled when consumed)
    blocks: str | None = None  # the blocks with an uncorrectable count above zero, in order ("UMC, SDMA"); None where none
    memory_error: bool = False  # the GPU memory's controller (UMC) counted uncorrectable errors


@fact_kind
class WslDxgChannelFailure(Fact):
    """WSL2's GPU bridge (dxgkrnl, /dev/dxg) could not send a message to the Windows host's GPU driver over VMBus:
    a failed ``dxgvmb_*`` function's kernel line, "misc dxg: dxgk: dxgvmb_send_create_process: create_process failed
    -75" (drivers/hv/dxgkrnl/dxgvmbus.c's DXG_ERR)."""

    kind: Literal["wsl_dxg_channel_failure"] = "wsl_dxg_channel_failure"
    function: str | None = None  # "dxgvmb_send_create_process"
    message: str  # "create_process failed -75"
    errno: int | None = None  # -75 (EOVERFLOW)


@fact_kind
class WslVersion(Fact):
    """What WSL says of the Windows host a distribution runs under (``wsl --version``, ``cmd.exe /c ver``, the fields
    of microsoft/WSL's bug template): under WSL2 the GPU's driver is the Windows host's. Context only, no failure."""

    kind: Literal["wsl_version"] = "wsl_version"
    windows_version: str | None = None  # "10.0.22631.3593" (the build)
    wsl_version: str | None = None  # WSL's package, "2.1.5.0"
    kernel_version: str | None = None  # "5.15.146.1-2", "5.4.72" as the template's field holds it
    distro: str | None = None  # "Ubuntu 22.04"
    wsl2: bool | None = None  # WSL 2 said (the template's ticked box, a -WSL2 kernel); None where not said
