"""slurm_scheduler: what Slurm says of its nodes and GRES (real samples: fixtures/artefacts/slurm_scheduler/README.md)."""
from __future__ import annotations

from pathlib import Path

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
