"""A bundle that is one node's folder names that node (issue 10 item 7): ``node9/`` given as
the bundle, or ``tar czf node9.tar.gz node9``. A wrapper of node folders is not a node, a
generic name (bundle, incident, logs, tmp*, a date) is not one, and a host named by the
content (NCCL prefix, syslog host) still wins."""
from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.facts.bundle import artefacts, read_bundle

ROOT = Path(__file__).resolve().parents[1]
DMESG = ROOT / "fixtures/artefacts/kernel_log/dmesg_xid79_sxid.log"  # "[6781741.548779] NVRM: Xid ...": no host
SMI = ROOT / "fixtures/observations/h200-x2/nvidia-smi/nvidia-smi-q.txt"  # no host either
NCCL = ROOT / "fixtures/artefacts/nccl_log/allreduce_healthy_g2.nccl.log"  # "vm:1552:1564 [0] NCCL INFO"


def _node_folder(base: Path, name: str = "node9") -> Path:
    folder = base / name
    folder.mkdir(parents=True)
    shutil.copy(DMESG, folder / "dmesg.txt")
    shutil.copy(SMI, folder / "nvidia-smi-q.txt")
    return folder


def _nodes(bundle: Path) -> dict[str, str]:
    return {a.path: a.node for a in artefacts(read_bundle(bundle))[0]}


def test_node_folder_given_as_the_bundle(tmp_path):
    folder = _node_folder(tmp_path)
    assert _nodes(folder) == {"dmesg.txt": "node9", "nvidia-smi-q.txt": "node9"}
    report = diagnose_bundle(folder)
    assert report.nodes == ["node9"]
    assert report.findings[0].cause == "gpu_fell_off_bus" and report.findings[0].entity.node == "node9"


@pytest.mark.parametrize("fmt", ["tgz", "zip"])
def test_archive_of_the_node_folder(tmp_path, fmt):
    folder = _node_folder(tmp_path / "src")
    if fmt == "tgz":  # tar czf node9.tar.gz node9
        archive = tmp_path / "node9.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(folder, arcname="node9")
    else:
        archive = tmp_path / "node9.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            for p in sorted(folder.iterdir()):
                zf.write(p, f"node9/{p.name}")
    assert set(_nodes(archive).values()) == {"node9"}
    assert diagnose_bundle(archive).nodes == ["node9"]


def test_files_under_a_generic_subfolder_of_the_node_folder(tmp_path):
    folder = _node_folder(tmp_path)
    (folder / "logs").mkdir()
    shutil.move(folder / "dmesg.txt", folder / "logs" / "dmesg.txt")
    assert _nodes(folder) == {"logs/dmesg.txt": "node9", "nvidia-smi-q.txt": "node9"}


def test_a_wrapper_of_node_folders_is_not_a_node(tmp_path):
    wrapper = tmp_path / "node9"  # even with a node-like name: it holds node folders
    for node in ("gpu-a01", "gpu-a02"):
        _node_folder(wrapper, node)
    shutil.copy(SMI, wrapper / "loose-smi.txt")
    nodes = _nodes(wrapper)
    assert nodes["gpu-a01/dmesg.txt"] == "gpu-a01" and nodes["gpu-a02/nvidia-smi-q.txt"] == "gpu-a02"
    assert nodes["loose-smi.txt"] == "unknown"
    assert "node9" not in diagnose_bundle(wrapper).nodes


@pytest.mark.parametrize("name", ["bundle", "incident", "logs", "tmpk3j9x_a", "2024-05-01", "incident-4711",
                                  "logs-20240501", "4711", "007-xid79-case", "test_case0", "case_12"])
def test_a_generic_folder_name_is_not_a_node(tmp_path, name):
    assert set(_nodes(_node_folder(tmp_path, name)).values()) == {"unknown"}
    archive = tmp_path / f"{name}.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tmp_path / name, arcname=name)
    assert set(_nodes(archive).values()) == {"unknown"}


def test_a_host_named_by_the_content_still_wins(tmp_path):
    folder = _node_folder(tmp_path)
    shutil.copy(NCCL, folder / "nccl.log")
    nodes = _nodes(folder)
    assert nodes["nccl.log"] == "vm" and nodes["dmesg.txt"] == "node9"


PROMPT_SMI = ROOT / "fixtures/harvest/cases/114-gpu-lost-nvidia-smi-unknown-error-aer-timeouts-root-port"


@pytest.mark.parametrize("name", ["007-xid79-case", "incident"])
def test_unnamed_pastes_beside_one_named_host_are_that_host_s(tmp_path, name):
    """A flat paste with no node's name: the dmesg -H lines name no host, the nvidia-smi paste's zsh
    prompt names cn-234 (rwth-i6/returnn#1486): the lost GPU and the AER errors of its root port
    are one node's, so they meet (pcie_path_fault), and the report names cn-234."""
    case = tmp_path / name
    case.mkdir()
    for f in ("dmesg.log", "other.txt"):
        shutil.copy(PROMPT_SMI / f, case / f)
    report = diagnose_bundle(case)
    assert report.nodes == ["cn-234"]
    assert report.findings[0].cause == "pcie_path_fault" and report.findings[0].entity.node == "cn-234"


def test_unnamed_pastes_beside_two_named_hosts_stay_unknown(tmp_path):
    """Near miss: two hosts named (an NCCL log's 'vm' and the prompt's cn-234): which one the dmesg is,
    nothing says."""
    case = tmp_path / "incident"
    case.mkdir()
    for f in ("dmesg.log", "other.txt"):
        shutil.copy(PROMPT_SMI / f, case / f)
    shutil.copy(NCCL, case / "nccl.log")
    assert set(diagnose_bundle(case).nodes) == {"cn-234", "unknown", "vm"}


def test_a_node_named_folder_keeps_its_name_beside_a_named_host(tmp_path):
    """Near miss: the folder names its node (node9): its unnamed files stay node9's, the NCCL log's
    host is vm (test_a_host_named_by_the_content_still_wins, through the whole diagnosis)."""
    folder = _node_folder(tmp_path)
    shutil.copy(NCCL, folder / "nccl.log")
    assert set(diagnose_bundle(folder).nodes) == {"node9", "vm"}
