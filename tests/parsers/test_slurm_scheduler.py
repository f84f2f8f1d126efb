"""slurm_scheduler: what Slurm says of its nodes and GRES (real samples: fixtures/artefacts/slurm_scheduler/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import slurm_scheduler as p
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/slurm_scheduler"
#: harvest case 703's paste (SlinkyProject/containers#14): sinfo -R and three scontrol lines
SLINKY = ROOT / "fixtures/harvest/cases/703-slurm-autodetect-nvml-image-built-without-nvml-nodes-drained/other.txt"


def parse_text(text: str, node: str = "n1"):
    art = Artefact(path="t.txt", text=text, node=node)
    art.normalise()
    return p.parse(art)


def facts_of(path: Path, kind: str):
    text = path.read_text()
    assert p.detect(text)
    return [f for f in parse_text(text).facts if f.kind == kind]


def test_sinfo_R_gres_count_cut_at_its_column_width():
    gres = [(f.evidence.line, f.node, f.gres, f.gres_type, f.found, f.configured, f.reason) for f in facts_of(SLINKY, "slurm_gres_count_low")]
    assert gres == [(2, "slinky-0", "gpu", "", -1, -1, "gres/gpu count repor"),
                    (3, "slinky-1", "gpu", "", -1, -1, "gres/gpu count repor")]
    down = [(f.evidence.line, f.node_name, f.state, f.reason_cut) for f in facts_of(SLINKY, "slurm_node_unavailable")]
    # the scontrol lines name no node: the file's node holds them
    assert down == [(2, "slinky-0", "down, drain or fail", True), (3, "slinky-1", "down, drain or fail", True),
                    (5, "n1", "IDLE+DRAIN+DYNAMIC_NORM+INVALID_REG", False)]


def test_sinfo_R_other_reason_is_a_drain_not_a_gres_count():
    (f,) = facts_of(FIX / "awsplugin10_sinfo_R_low_socket_core_thread.txt", "slurm_node_unavailable")
    assert (f.node_name, f.reason, f.reason_cut) == ("ip-10-0-1-[6-7]", "Low socket*core*thre", True)
    assert facts_of(FIX / "awsplugin10_sinfo_R_low_socket_core_thread.txt", "slurm_gres_count_low") == []


def test_sinfo_long_node_rows():
    down = facts_of(FIX / "elasticluster272_sinfo_lNe_not_responding.txt", "slurm_node_unavailable")
    assert [(f.evidence.line, f.node_name, f.state, f.reason) for f in down][0] == (4, "compute001", "down*", "Not responding")
    assert len(down) == 4


def test_plain_sinfo_rows_out_of_service():
    """aws/aws-parallelcluster-node#398: plain sinfo of a cloud queue after EC2 refused a node's instance: the node
    powering up down#, the compute resource's other nodes down~ (powered down); idle~ rows and the scontrol block cut
    before its State= give nothing."""
    down = facts_of(FIX / "pclusternode398_sinfo_down_cloud_nodes.txt", "slurm_node_unavailable")
    assert [(f.evidence.line, f.node_name, f.state, f.reason) for f in down] == [
        (3, "queue1-dy-c-1-1", "down#", ""), (5, "queue1-dy-c-1-[2-15]", "down~", "")]
    # the header alone says nothing; a row without the header is not read (too like other tables)
    assert parse_text("queue1*      up   infinite      1  down# queue1-dy-c-1-1\n").facts == []


def test_scontrol_show_node_down_not_responding():
    (f,) = facts_of(FIX / "slurmexporter198_scontrol_down_not_responding.txt", "slurm_node_unavailable")
    assert (f.evidence.line, f.node, f.state, f.reason) == (10, "gpu02", "DOWN+NOT_RESPONDING", "")


def test_gres_request_refusals():
    (srun,) = facts_of(FIX / "recorder482_srun_step_invalid_gres.txt", "slurm_gres_request_invalid")
    assert (srun.client, srun.message) == ("srun", "Unable to create step for job 16413634: Invalid generic resource (gres) specification")
    (sbatch,) = facts_of(FIX / "nemolauncher72_sbatch_submission_failed_from_title.txt", "slurm_gres_request_invalid")
    assert (sbatch.client, sbatch.message) == ("sbatch", "Batch job submission failed: Invalid generic resource (gres) specification")


def test_autodetect_without_nvml_from_a_title():
    (f,) = facts_of(FIX / "deepops1214_autodetect_nvml_not_built_from_title.txt", "slurm_gpu_autodetect_unavailable")
    assert (f.library, f.not_built) == ("nvml", True)


def test_mig_mode_without_mig_devices():
    # slurmd stopping (Slurm 21.08.1-24.05: fatal) on a GPU in MIG mode without MIG instances (magic_castle#276)
    (f,) = facts_of(FIX / "magiccastle276_slurmd_fatal_mig_no_devices.txt", "slurm_mig_without_instances")
    assert (f.evidence.line, f.stopped) == (1, True)
    # 24.11+ prints the same text with error(): slurmd goes on without those GPUs (gpu_nvml.c format filled in)
    text = ("[2025-01-02T03:04:05.678] error: MIG mode is enabled, but no MIG devices were found. Please either create MIG "
            "instances, disable MIG mode, remove AutoDetect=nvml, or remove GPUs from the configuration completely.\n")
    assert p.detect(text)
    assert [(f.kind, f.stopped) for f in parse_text(text).facts] == [("slurm_mig_without_instances", False)]
    # near misses: slurmd's debug lines of a GPU in MIG mode that has MIG devices (gpu_nvml.c debug2 formats)
    quiet = "slurmd: debug2: gpu/nvml: _get_system_gpu_list_nvml:     MIG mode: enabled\n" \
            "slurmd: debug2: gpu/nvml: _get_system_gpu_list_nvml:     MIG count: 2\n"
    assert not p.detect(quiet)


def test_forms_from_slurms_source():
    # Slurm's own format strings filled in (src/interfaces/gres.c, src/api/node_info.c,
    # src/slurmctld/node_mgr.c, src/interfaces/gpu.c): no public even thread pastes these whole
    text = ("NodeName=gpu7 Arch=x86_64 CoresPerSocket=8\n"
            "   State=IDLE+DRAIN ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
            "   Reason=gres/gpu:a100 count too low (1 < 2) [slurm@2024-01-02T03:04:05]\n"
            "\n"
            "error: Setting node gpu8 state to INVAL with reason:gres/gpu count reported lower than configured (0 < 8)\n"
            "slurmd: We were configured with nvml functionality, but that lib wasn't found on the system.\n"
            "slurmd: Configured with rsmi, but rsmi isn't enabled during the build.\n")
    facts = parse_text(text).facts
    gres = [(f.evidence.line, f.node, f.gres_type, f.found, f.configured) for f in facts if f.kind == "slurm_gres_count_low"]
    assert gres == [(3, "gpu7", "a100", 1, 2), (5, "gpu8", "", 0, 8)]
    down = [(f.evidence.line, f.node, f.state) for f in facts if f.kind == "slurm_node_unavailable"]
    assert down == [(2, "gpu7", "IDLE+DRAIN"), (5, "gpu8", "INVAL")]
    auto = [(f.library, f.not_built) for f in facts if f.kind == "slurm_gpu_autodetect_unavailable"]
    assert auto == [("nvml", False), ("rsmi", True)]


def test_near_misses_give_nothing():
    text = ("REASON               USER      TIMESTAMP           NODELIST\n"
            "gres/gpu count chang slurm     2026-04-14T06:39:53 g1\n"  # another GRES reason: a drain, not a count below
            "NodeName=g2 Arch=x86_64\n"
            "   State=IDLE ThreadsPerCore=2\n"  # a node in service
            "   Gres=gpu:4\n")
    facts = parse_text(text).facts
    assert [f.kind for f in facts] == ["slurm_node_unavailable"]
    # a timestamped row without sinfo's header is some other table, unless it is a GRES count
    assert parse_text("Low RealMemory       root      2019-05-07T18:16:10 node1\n").facts == []
    assert not p.detect("JobState=RUNNING Reason=None\n")
    assert parse_text("").facts == []


def test_slurmctld_nodes_not_responding_setting_down():
    # trinity#506: two missed pings that recovered ("now responding"), then both nodes set DOWN
    down = facts_of(FIX / "trinity506_slurmctld_nodes_not_responding_setting_down.log", "slurm_node_unavailable")
    assert [(f.evidence.line, f.node, f.state, f.reason) for f in down] == [
        (9, "c001", "DOWN", "Not responding"), (10, "c002", "DOWN", "Not responding")]
    res = parse_text((FIX / "trinity506_slurmctld_nodes_not_responding_setting_down.log").read_text())
    assert res.lines_used == 7  # the three missed pings, two recoveries and two DOWNs; not the start-up chatter
    # a ranged hostlist stays as printed (ping_nodes.c logs hostlist_ranged_string)
    (f,) = parse_text("[2020-01-01T00:00:00.000] error: Nodes gpu[01-02] not responding, setting DOWN\n").facts
    assert (f.node_name, f.state) == ("gpu[01-02]", "DOWN")
    # near misses: another daemon's wording, and a controller not responding (backup.c) are not a node's
    assert not p.detect("ControlMachine ctl1 not responding, BackupController1 ctl2 taking over\n")
    assert parse_text("error: Nodes c002 not responding\nNode c002 now responding\n").facts == []


def test_slurmctld_registration_refused_for_low_memory():
    # az-hop#686 (Slurm 20.11): the low-memory line at debug level, then the refused registration (EINVAL)
    (f,) = facts_of(FIX / "azhop686_slurmctld_low_real_memory_registration_refused.log", "slurm_node_unavailable")
    assert (f.evidence.line, f.node, f.state, f.reason) == (2, "hb120v2-2", "INVAL", "Low RealMemory (435161 < 443596)")


def test_slurmctld_registration_lines_one_fact_a_node():
    # node_mgr.c's formats filled in: 17.11 (error level, "Setting node %s state to DRAIN"), 25.x's percentage form,
    # and 23.02+'s INVAL line with a GRES reason followed by the refused registration: one fact a node
    old = ("[2018-01-01T00:00:00.000] error: Node n1 has low real_memory size (63622 < 64000)\n"
           "[2018-01-01T00:00:00.000] error: Setting node n1 state to DRAIN\n"
           "[2018-01-01T00:00:00.000] error: _slurm_rpc_node_registration node=n1: Invalid argument\n")
    assert [(f.evidence.line, f.state, f.reason) for f in parse_text(old).facts] == [(2, "DRAIN", "Low RealMemory (63622 < 64000)")]
    alone = "[2018-01-01T00:00:00.000] error: Node n2 has low socket*core*thread count (8 < 16)\n"
    assert [(f.state, f.reason) for f in parse_text(alone).facts] == [("INVAL", "Low socket*core*thread count (8 < 16)")]
    new = ("slurmctld: debug:  Node n3 has low real_memory size (1000 / 2000) < 90.00%\n"
           "slurmctld: error: Setting node n3 state to INVAL with reason:gres/gpu count reported lower than configured (3 < 4)\n"
           "slurmctld: error: _slurm_rpc_node_registration node=n3: Invalid argument\n")
    facts = parse_text(new).facts
    assert [(f.kind, f.evidence.line) for f in facts] == [("slurm_node_unavailable", 2), ("slurm_gres_count_low", 2)]
    assert (facts[1].found, facts[1].configured) == (3, 4)
    # a debug low line with no refusal after it (17.11 with FastSchedule=0 kept the node): read, no fact
    assert parse_text("debug:  Node n4 has low real_memory size (1 < 2)\n").facts == []
    # the registration refused with the GRES errno: a node's registration, not a job's request
    gres = "error: _slurm_rpc_node_registration node=g1: Invalid generic resource (gres) specification\n"
    assert [(f.kind, f.state, f.reason) for f in parse_text(gres).facts] == [
        ("slurm_node_unavailable", "INVAL", "Invalid generic resource (gres) specification")]


# srun's refusal of an MPI type this Slurm has no plugin for (wild sweep 5E)
def test_mpi_type_without_plugin_one_fact_for_its_lines():
    # geoschem/geos-chem#822: the loader's, the selector's, the context's and the option check's line
    text = (FIX / "geoschem822_srun_mpi_pmix_missing.txt").read_text()
    assert p.detect(text)
    res = p.parse(Artefact(path="srun.txt", text=text, node="n1"))
    (f,) = res.facts
    assert (f.kind, f.client, f.mpi_type, f.evidence.line) == ("slurm_mpi_type_unavailable", "srun", "pmix", 2)
    assert res.lines_used == 4


@pytest.mark.parametrize("line, mpi", [
    # 22.05 on (slurm_mpi.c _load_plugin, srun's option check)
    ("srun: error: MPI: Cannot create context for mpi/pmix_v3", "pmix_v3"),
    ("srun: error: Invalid MPI type 'pmix_v3', --mpi=list for acceptable types", "pmix_v3"),
    ("slurmstepd: error: cannot find mpi plugin for mpi/pmi2", "pmi2"),
])
def test_mpi_type_forms(line, mpi):
    (f,) = p.parse(Artefact(path="t", text=line + "\n", node="n1")).facts
    assert f.mpi_type == mpi


def test_other_plugins_and_the_echo_alone_give_no_mpi_fact():
    text = ("srun: error: Couldn't find the specified plugin name for switch/cray looking at all files\n"
            "srun: error: MPI: Unable to load any plugin\n")
    assert [f for f in p.parse(Artefact(path="t", text=text, node="n1")).facts
            if f.kind == "slurm_mpi_type_unavailable"] == []


def test_slurmd_gres_job_state_dump():
    # NVIDIA/deepops#1102: slurmd's debug dump of what each step was given (GPUs 0 and 2 of 4)
    text = (FIX / "deepops1102_slurmd_gres_job_state.log").read_text()
    assert p.detect(text)
    r = parse_text(text)
    got = [(f.evidence.line, f.step, f.gres, f.gres_type, f.node_index, f.devices, f.of) for f in r.facts]
    assert got == [(5, "6333.extern", "gpu", "RTX_A5000", 0, "0,2", 4), (14, "6333.0", "gpu", "RTX_A5000", 0, "0,2", 4)]
    assert r.lines_used == 10  # the two dumps' lines; the cgroup and launch lines are not the dump's


def test_task_launch_refused_by_the_prolog_and_its_echoes():
    # mknoxnv/ubuntu-slurm#4: the launch failure is one fact, srun's echoes of it are read without one
    path = FIX / "ubuntuslurm4_srun_task_launch_prolog_failed.txt"
    res = parse_text(path.read_text())
    assert p.detect(path.read_text())
    assert [(f.evidence.line, f.node, f.host, f.step, f.reason, f.prolog) for f in res.facts] == [
        (1, "hpc", "hpc", "23.0", "Job prolog failed", True)]
    assert res.lines_used == 4


def test_task_launch_other_errno_and_newer_step_form():
    # src/srun launch: "Task launch for %ps failed on node %s: %m" (20.02+: StepId=), another errno text
    (f,) = parse_text("srun: error: Task launch for StepId=78.0 failed on node cn12: Invalid job credential\n").facts
    assert (f.host, f.step, f.reason, f.prolog) == ("cn12", "StepId=78.0", "Invalid job credential", False)
    # the echo alone is not read as a launch failure
    assert parse_text("srun: error: Application launch failed: Job prolog failed\n").facts == []


def test_node_config_unavailable_with_the_gpu_command_line():
    """rcgsheffield/sheffield_hpc#1042: srun's refusal and the command line that asked for a GPU per node."""
    (f,) = facts_of(FIX / "sheffield1042_srun_gpus_node_config_unavailable.txt", "slurm_request_unsatisfiable")
    assert (f.client, f.message, f.gpu_options) == (
        "srun", "Unable to allocate resources: Requested node configuration is not available", "--gpus-per-node=1")
    assert f.evidence.line == 2


@pytest.mark.parametrize("text, client, gpus", [
    ("sbatch: error: Batch job submission failed: Requested node configuration is not available\n", "sbatch", None),
    ("salloc: error: Job submit/allocate failed: Requested node configuration is not available\n", "salloc", None),
    ("OSError: sbatch: error: Batch job submission failed: Requested node configuration is not available\n", "sbatch", None),
    ("#SBATCH --gres=gpu:a100:4\n#SBATCH --mem=64G\nsbatch: error: Batch job submission failed: Requested node configuration is not available\n",
     "sbatch", "--gres=gpu:a100:4"),
    ("$ salloc -N 1 -G 8 --time=2:00:00\nsalloc: error: Job submit/allocate failed: Requested node configuration is not available\n", "salloc", "-G 8"),
    ("$ srun --gpus=2 --gpus-per-task=1 python train.py\nsrun: error: Unable to create step for job 77: Requested node configuration is not available\n",
     "srun", "--gpus=2 --gpus-per-task=1"),
    # a CPU request: GRES none, a feature, memory
    ("$ sbatch --gres=none --constraint=skylake --mem=900G job.sh\nsbatch: error: Batch job submission failed: Requested node configuration is not available\n",
     "sbatch", None),
    # GPUs named in prose, not on a command line: no GPU claim
    ("I asked for --gpus=4 yesterday\nsbatch: error: Batch job submission failed: Requested node configuration is not available\n", "sbatch", None),
])
def test_node_config_unavailable_forms(text, client, gpus):
    (f,) = [x for x in parse_text(text).facts if x.kind == "slurm_request_unsatisfiable"]
    assert (f.client, f.gpu_options) == (client, gpus)
