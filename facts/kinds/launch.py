"""Fact kinds of a multi-process job's end as its launcher and its collective library report it:
where a failure was noticed (a rank's exit, a collective refused after the others stopped), not why.
(facts/kinds/app.py holds the application's own failures; this module keeps it under its size.)"""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class HorovodShutdown(Fact):
    """A Horovod collective refused because Horovod's background loop had already shut down
    (horovod/common SHUT_DOWN_ERROR, as the framework's exception or log line carries it): a
    consequence of another rank's exception, crash or early exit."""

    kind: Literal["horovod_shutdown"] = "horovod_shutdown"
    messages: int  # shutdown messages in the file (each refused tensor repeats it)
    operation: str | None = None  # "broadcast", "allreduce", ...: the Horovod op named beside the first
    op_name: str | None = None  # the framework's op/tensor name: "HorovodBroadcast_fully_connected_1_weights_0"


@fact_kind
class LauncherProcessExited(Fact):
    """A multi-process launcher ended the job because one of its processes exited with a non-zero
    status (Open MPI's mpirun/mpiexec/orterun, PRRTE's prterun, Horovod's Gloo launcher), or because a process it
    started ended (text-generation-inference's launcher: a shard that failed to start or crashed): where the
    failure was noticed, not why."""

    kind: Literal["launcher_process_exited"] = "launcher_process_exited"
    launcher: str  # "mpirun", "mpirun.real", "prterun", "Horovod", "Gloo job"; "Open MPI" for its count alone; "text-generation-launcher"
    process_name: str | None = None  # as the launcher names it: "[[4115,1],1]" (Open MPI's [[job,step],rank]); "shard 0", "webserver"
    rank: int | None = None  # the rank in that name, where it has one
    exit_code: int | None = None
    processes: int | None = None  # "Primary job terminated normally, but N process(es) returned a non-zero exit code"
    # text-generation-inference's launcher: how the shard ended ("failed to start": it exited before it was ready;
    # "crashed": after), and the exception line that ends its stderr above the launcher's line, where shown
    how: str | None = None
    error: str | None = None


@fact_kind
class EngineWorldSizeMismatch(Fact):
    """TensorRT-LLM refused to start because the processes it was started with do not make the
    parallelism its engine or configuration asks for (cpp/tensorrt_llm/runtime/worldConfig.cpp
    WorldConfig::mpi: ``mpiSize == tp * pp`` as a bare check, later "MPI size %d != TP size %d * PP size
    %d" and "... * CP Size %d"; the executor's kLEADER check "MPI worldSize is expected to be equal to
    tp*pp[*cp] when participantIds are not specified"): an engine built for two GPUs run as one process
    without mpirun, an mpirun -n or a Triton --world_size that differs from the engine's."""

    kind: Literal["engine_world_size_mismatch"] = "engine_world_size_mismatch"
    framework: Literal["TensorRT-LLM"] = "TensorRT-LLM"
    check: Literal["world_config", "executor_leader"]  # WorldConfig::mpi's check, or the executor's kLEADER one
    condition: str  # the check as printed: "mpiSize == tp * pp", "MPI size 1 != TP size 2 * PP size 1"
    mpi_size: int | None = None  # the processes MPI reports ("MPI size 1"); the bare check and the executor's name no numbers
    tp: int | None = None
    pp: int | None = None
    cp: int | None = None


@fact_kind
class PmixErrorLogged(Fact):
    """An error line the PMIx library logged in a process (its PMIX_ERROR_LOG: ``[host:pid] PMIX ERROR: <status>
    in file <file> at line <n>``, or its buffer unpacker's ``UNPACK-PMIX-VALUE: UNSUPPORTED TYPE <n>``): the client
    in an MPI rank, the server in srun's stepd, prterun or prted. An error in unpacking a message (a bfrops file, an
    UNPACK-* status, a type the unpacker does not know) is a message the other side packed in a layout this side's
    PMIx does not read."""

    kind: Literal["pmix_error_logged"] = "pmix_error_logged"
    status: str  # PMIx_Error_string's text: "OUT-OF-RESOURCE", "UNPACK-PAST-END", "UNSUPPORTED TYPE" (the unpacker's)
    source_file: str | None = None  # "base/bfrop_base_unpack.c", as the build wrote __FILE__
    source_line: int | None = None
    unsupported_type: int | None = None  # the data type code UNPACK-PMIX-VALUE did not know
    unpack: bool = False  # the error is in unpacking a message (bfrops, UNPACK-*): the two sides' layouts differ
    host: str | None = None  # pmix_output's "[host:pid]" prefix
    message: str
