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
    status (Open MPI's mpirun/mpiexec/orterun, PRRTE's prterun, Horovod's Gloo launcher): where the
    failure was noticed, not why."""

    kind: Literal["launcher_process_exited"] = "launcher_process_exited"
    launcher: str  # "mpirun", "mpirun.real", "prterun", "Horovod", "Gloo job"; "Open MPI" for its count alone
    process_name: str | None = None  # as the launcher names it: "[[4115,1],1]" (Open MPI's [[job,step],rank])
    rank: int | None = None  # the rank in that name, where it has one
    exit_code: int | None = None
    processes: int | None = None  # "Primary job terminated normally, but N process(es) returned a non-zero exit code"
