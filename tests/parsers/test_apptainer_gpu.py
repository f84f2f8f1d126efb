"""apptainer_gpu: Apptainer / Singularity --nv / --nvccli warnings about the driver, on real lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import apptainer_gpu
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "apptainer_gpu"


def parse_text(text: str, path: str = "run.txt"):
    art = Artefact(path=path, text=text, node="node1")
    art.normalise()
    return apptainer_gpu.parse(art)


@pytest.mark.parametrize("line,reason,runtime,what", [
    # apptainer launcher_linux.go addGPUBinds (gpuPlatform nv)
    ("WARNING: Could not find any nv files on this host!", "driver_not_found_on_host", "nv", "files"),
    # sylabs/singularity#776 (singularity 3.x)
    ("INFO:    Could not find any NVIDIA binaries on this host!", "driver_not_found_on_host", "NVIDIA", "binaries"),
    ("WARNING: Could not find any NVIDIA libraries on this host!", "driver_not_found_on_host", "NVIDIA", "libraries"),
    # apptainer launcher_linux.go addCompat32Binds
    ("WARNING: Could not find any 32-bit nv libraries on this host!", "driver_not_found_on_host", "nv", "32-bit libraries"),
    # apptainer/apptainer#1314 (-d debug form)
    ("WARNING [U=0,P=104]        setGPUBinds()                 nv files may not be bound with --writable",
     "driver_binds_writable", "nv", "files"),
    # apptainer setNvCCLIConfig
    ("WARNING: When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no GPUs will be available in container.",
     "nvccli_contain_no_gpus", "nv", None),
    # apptainer setNVLegacyConfig (the error filled in)
    ("WARNING: While finding nv bind points: could not read /etc/apptainer/nvliblist.conf: permission denied",
     "driver_lookup_failed", "nv", None),
    # apptainer/singularity#1548 (2.5.0)
    ("WARNING: Skipping user bind, non existent bind point (file) in container: '/bin/nvidia-smi'",
     "driver_bind_point_missing", "nv", "/bin/nvidia-smi"),
])
def test_forms(line, reason, runtime, what):
    res = parse_text(line + "\n")
    assert [(f.reason, f.engine, f.runtime, f.capabilities, f.gpu) for f in res.facts] == [(reason, "apptainer", runtime, what, True)]
    assert apptainer_gpu.detect(line)


def test_sylabs776_file_hint_read_with_the_warnings():
    text = (FIX / "sylabs776_nv_no_driver_libraries.txt").read_text()
    res = parse_text(text)
    assert [f.capabilities for f in res.facts] == ["binaries", "libraries"]
    assert res.lines_used == 3  # the nvliblist.conf hint too; the program's own "No GPU automatically detected" is not ours


@pytest.mark.parametrize("line", [
    "WARNING: Skipping user bind, non existent bind point (directory) in container: '/scratch'",
    "INFO:    Setting 'NVIDIA_VISIBLE_DEVICES=all' to emulate legacy GPU binding.",  # read, as context (below)
    "Could not find any files on this host!",
    "",
])
def test_not_ours(line):
    assert parse_text(line + "\n").facts == []
    assert not apptainer_gpu.detect(line) or "legacy GPU binding" in line


def test_nvccli_notes_are_context():
    # apptainer/apptainer#1208: the run that worked on ext4
    text = ("$ NVIDIA_DRIVER_CAPABILITIES=graphics,utility apptainer exec --nvccli --fakeroot pv.sif pvserver\n"
            "INFO:    Setting 'NVIDIA_VISIBLE_DEVICES=all' to emulate legacy GPU binding.\n"
            "INFO:    Setting --writable-tmpfs (required by nvidia-container-cli)\n"
            "Waiting for client...\n")
    assert apptainer_gpu.detect(text)
    res = parse_text(text)
    assert res.facts == [] and res.lines_used == 2


def test_starter_fatal_beside_the_gpu_warning_is_kept():
    # the container failed for its image mount, not for the GPU: PGScatalog/pgsc_calc#332's error after the starter's
    # "container creation failed: %s" (master_linux.go), in sylog's FATAL form as apptainer/apptainer#1208 shows it
    err = ("image driver mount failure: image driver squashfuse_ll instance exited with error: squashfuse_ll exited: "
           "fusermount: mountpoint /dev/fuse is not a directory or a regular file")
    res = parse_text("WARNING: Could not find any nv files on this host!\nFATAL:   container creation failed: " + err + "\n",
                     path="build.log")
    assert [(f.reason, f.gpu) for f in res.facts] == [("driver_not_found_on_host", True), ("container_creation_failed", False)]
    assert res.facts[1].message == err
    # nvidia-container-cli's own error in it is that reader's (apptainer/apptainer#1208)
    line = ("FATAL:   container creation failed: nvidia-container-cli failed with exit status 1: nvidia-container-cli: "
            "mount error: file creation failed: /var/apptainer/mnt/session/final/etc/nvidia/x: no data available\n")
    assert parse_text("WARNING: Could not find any nv files on this host!\n" + line).facts[-1].reason == "driver_not_found_on_host"
