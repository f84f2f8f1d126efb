"""launcher_nccl_env: the NCCL settings a job script or launcher asks for (intent, not NCCL's confirmation),
read from verbatim excerpts of public threads (fixtures/artefacts/launcher_nccl_env/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import launcher_nccl_env
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/launcher_nccl_env"


def settings(text: str):
    art = Artefact(path="job.txt", text=text, node="node1")
    art.normalise()
    assert launcher_nccl_env.detect(text) == bool(launcher_nccl_env.parse(art).facts)
    return [(f.name, f.value, f.form, f.evidence.line) for f in launcher_nccl_env.parse(art).facts]


@pytest.mark.parametrize("name, expected", [
    ("nccltests290_export.txt", [("NCCL_SOCKET_IFNAME", "eth0", "export", 1)]),
    ("nccltests36_mpirun_x.txt", [("NCCL_DEBUG_SUBSYS", "all", "mpirun_x", 1), ("NCCL_DEBUG", "INFO", "mpirun_x", 1),
                                  ("NCCL_SOCKET_IFNAME", "eth0", "mpirun_x", 1)]),
    ("nccl876_prefix.txt", [("NCCL_DEBUG", "INFO", "prefix", 1)]),
    ("deit28_prompt_prefix.txt", [("NCCL_DEBUG", "INFO", "prefix", 1)]),
    ("vllm8978_prompt_two_prefixes.txt", [("NCCL_DEBUG", "TRACE", "prefix", 1)]),
    ("sbatch_export.txt", [("NCCL_BLOCKING_WAIT", "1", "slurm_export", 2), ("NCCL_ASYNC_ERROR_HANDLING", "1", "slurm_export", 2),
                           ("NCCL_DEBUG", "INFO", "slurm_export", 2), ("NCCL_P2P_DISABLE", "1", "slurm_export", 2),
                           ("NCCL_P2P_LEVEL", "NVL", "slurm_export", 2), ("NCCL_TIMEOUT_MS", "6000000", "slurm_export", 2)]),
    ("srun_export.txt", [("NCCL_SOCKET_IFNAME", "ib0", "slurm_export", 2)]),
    ("genv_continued.txt", [("NCCL_BLINK", "$blink", "mpi_genv", 3), ("NCCL_SOCKET_IFNAME", "$NET_IF", "mpi_genv", 4),
                            ("NCCL_DEBUG", "WARN", "mpi_genv", 5)]),
    ("genv_mixed_forms.txt", [("NCCL_PXN_DISABLE", "1", "mpi_genv", 1), ("NCCL_ALGO", "NVLSTree", "mpi_genv", 1),
                              ("NCCL_IB_GID_INDEX", "3", "mpi_genv", 1), ("NCCL_SOCKET_IFNAME", "bond0", "mpi_genv", 1),
                              ("NCCL_NET_GDR_LEVEL", "4", "mpi_genv", 1)]),
    ("genv_commented.txt", []),
    ("dlc4756_nccl_conf_exclusion_admits_lo.txt", [("NCCL_SOCKET_IFNAME", "^docker0", "nccl_conf", 1)]),
])
def test_real_launch_lines(name, expected):
    assert settings((FIX / name).read_text()) == expected


@pytest.mark.parametrize("text", [
    "#export NCCL_SHM_DISABLE=1\n",                        # commented out in a Slurm script
    "# export NCCL_DEBUG=INFO\n",                          # the same with a blank, as job scripts keep settings switched off
    "# # export NCCL_IB_DISABLE=1\n",
    "# NCCL_DEBUG=INFO python train.py\n",
    "# FLAGS += -x NCCL_DEBUG=INFO\n",                     # a Makefile's mpirun flags, commented out
    "NCCL_SOCKET_IFNAME=enP1p1s0f0,enP1p1s0f1\n",          # a listing (or /etc/nccl.conf): no command launched with it
    "node013:37715:38896 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n",  # NCCL's confirmation: nccl_env
    "Did you try setting `NCCL_SOCKET_IFNAME=eno1,eth0` ?\n",  # a suggestion in prose
    "# srun --export=ALL,NCCL_DEBUG=INFO python train.py\n",   # a Slurm launch commented out
    # settings listed one a line (NVIDIA/nccl#278, harvest 2205): the next line's assignment is no command
    "NCCL_SOCKET_IFNAME=enP1p1s0f0,enP1p1s0f1\nNCCL_DEBUG=INFO\nNCCL_SOCKET_NTHREADS=2\nNCCL_NSOCKS_PERTHREAD=2\n",
])
def test_not_a_launch(text):
    assert settings(text) == []


def test_root_and_plain_prompts():
    # a root shell's prompt ends in '#' after the host: a command, not a comment
    assert settings("root@10-4-3-3:/opt/nccl-tests# NCCL_P2P_LEVEL=SYS ./build/all_reduce_perf -g 8\n"
                    "$ NCCL_DEBUG=INFO horovodrun -np 4 ./build/all_reduce_perf\n") == [
        ("NCCL_P2P_LEVEL", "SYS", "prefix", 1), ("NCCL_DEBUG", "INFO", "prefix", 2)]


def test_continued_mpirun_options_and_quotes():
    text = "mpirun -np 2 \\\n        -x NCCL_IB_HCA=mlx5_6,mlx_8 \\\n        -x NCCL_ALGO= \\\n        ./build/all_reduce_perf\n" \
           "export NCCL_IB_HCA=\"mlx5_0,mlx5_1\"\nexport NCCL_P2P_DISABLE=0          # Enable P2P communication\n"
    assert settings(text) == [("NCCL_IB_HCA", "mlx5_6,mlx_8", "mpirun_x", 2), ("NCCL_ALGO", "", "mpirun_x", 3),
                              ("NCCL_IB_HCA", "mlx5_0,mlx5_1", "export", 5), ("NCCL_P2P_DISABLE", "0", "export", 6)]


def test_intent_is_not_nccl_env():
    # the launcher's intent never reads as NCCL's own setting: the rules on nccl_env do not see it
    art = Artefact(path="job.txt", text=(FIX / "nccltests36_mpirun_x.txt").read_text(), node="node1")
    art.normalise()
    assert {f.kind for f in launcher_nccl_env.parse(art).facts} == {"launcher_nccl_env"}


def test_slurm_export_quoted_value_and_list_split_on_commas():
    # Slurm splits --export on commas: a value ends at one unless quoted
    assert settings('srun --export=ALL,NCCL_IB_HCA="mlx5_0,mlx5_1",NCCL_DEBUG=INFO python train.py\n') == [
        ("NCCL_IB_HCA", "mlx5_0,mlx5_1", "slurm_export", 1), ("NCCL_DEBUG", "INFO", "slurm_export", 1)]


def test_prefix_one_setting_a_line_continued():
    # a public README's run step (code search id 34437177692, verbatim): "NCCL_DEBUG=INFO \" ... one setting a line,
    # each continued to the command below
    got = settings("NCCL_DEBUG=INFO \\\nNCCL_IB_HCA=mlx5 \\\nNCCL_NET_GDR_LEVEL=PHB \\\nNCCL_SOCKET_IFNAME=ibs3,ens1np0 \\\n"
                   "/home/yliang/gpu-test/build/nccl_rdma_test server 10.10.2.1 50051 67108864\n")
    assert got == [("NCCL_DEBUG", "INFO", "prefix", 1), ("NCCL_IB_HCA", "mlx5", "prefix", 2),
                   ("NCCL_NET_GDR_LEVEL", "PHB", "prefix", 3), ("NCCL_SOCKET_IFNAME", "ibs3,ens1np0", "prefix", 4)]
    # a commented-out one is none; one continued to its command on the next line is a prefix
    assert settings("# NCCL_DEBUG=INFO \\\n") == []
    assert settings("NCCL_DEBUG=INFO \\\n  python train.py\n") == [("NCCL_DEBUG", "INFO", "prefix", 1)]


@pytest.mark.parametrize("text, expected", [
    # NCCL's configuration file written by a build step (aws/deep-learning-containers#4756) and CONSTRUCTED variants
    ("RUN echo NCCL_SOCKET_IFNAME=^docker0 >> /etc/nccl.conf\n", [("NCCL_SOCKET_IFNAME", "^docker0", "nccl_conf", 1)]),
    ('echo "NCCL_DEBUG=INFO" | sudo tee -a /etc/nccl.conf\n', [("NCCL_DEBUG", "INFO", "nccl_conf", 1)]),
    ("echo NCCL_IB_HCA=mlx5 > ~/.nccl.conf\n", [("NCCL_IB_HCA", "mlx5", "nccl_conf", 1)]),
    # not NCCL's file, or no echo: not read
    ("echo NCCL_DEBUG=INFO >> /etc/nccl.conf.bak\n", []),
    ("echo NCCL_DEBUG=INFO >> ./env.sh\n", []),
    ("# echo NCCL_SOCKET_IFNAME=^docker0 >> /etc/nccl.conf\n", []),
])
def test_nccl_conf_writes(text, expected):
    assert settings(text) == expected


@pytest.mark.parametrize("value, admitted", [
    ("^docker0", True), ("^docker,virbr", True), ("^=docker0", True),
    ("^docker0,lo", False), ("^lo,docker,veth", False), ("^docker,l", False),  # an entry is a prefix: "l" excludes lo
    ("^=lo", False), ("^=l", True),                                           # "=" matches entries exactly
    ("^docker,lo:0", False),                                                  # a port after the name
    ("eth0", None), ("lo", None), ("^", None),                                # no exclusion list (NCCL ignores one character)
])
def test_loopback_admitted(value, admitted):
    assert launcher_nccl_env.loopback_admitted("NCCL_SOCKET_IFNAME", value) is admitted
    assert launcher_nccl_env.loopback_admitted("NCCL_IB_HCA", value) is None


def test_prefix_behind_sudo():
    # a public benchmark script (code search id 44157575606, verbatim): sudo runs env with the setting
    assert settings("sudo env NCCL_DEBUG=INFO ${BENCHMARK_CMD}\n") == [("NCCL_DEBUG", "INFO", "prefix", 1)]
    # CONSTRUCTED: sudo's options, and sudo given the assignment itself (it sets it in the command's environment)
    assert settings("$ sudo -E env NCCL_P2P_DISABLE=1 torchrun --nproc-per-node=8 train.py\n") == [
        ("NCCL_P2P_DISABLE", "1", "prefix", 1)]
    assert settings("sudo NCCL_IB_HCA=mlx5_0 ./all_reduce_perf -b 8 -e 1G\n") == [("NCCL_IB_HCA", "mlx5_0", "prefix", 1)]
    # a sentence that names sudo and a setting with no command after it is none
    assert settings("run it with sudo NCCL_DEBUG=INFO\n") == []
