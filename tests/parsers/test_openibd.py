"""openibd (MLNX_OFED / DOCA-OFED's RDMA driver service) on the DOCA driver container's real trace."""
from pathlib import Path

from stethoscope.facts.parsers import openibd
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "openibd"


def parse(text):
    return openibd.parse(Artefact(path="openibd.txt", text=text, node="n1", node_from_folder=True))


def test_docadriver52_module_failure_read_steps_left_as_echoes():
    text = (A / "docadriver52_mlx5_ib_failed.txt").read_text()
    assert openibd.detect(text)
    res = parse(text)
    assert [(f.kind, f.module, f.reason, f.source) for f in res.facts] == [
        ("kernel_module_load_failure", "mlx5_ib", "other", "openibd")]
    assert res.facts[0].evidence.line == 14
    # "+ output='Unloading HCA driver:[  OK  []" and the second attempt's "[  OK  []": read; the two
    # "Loading ...:[FAILED[]" steps are not (the module failure's echoes); the cut last line is no line of it
    assert res.lines_used == 3 and not res.errors


def test_plain_and_padded_status_forms():
    res = parse("Unloading HCA driver:                                      [  OK  ]\n"
                "Failed loading kernel module mlx4_ib:                      [FAILED]\n"
                "Loading HCA driver and Access Layer:                       [  OK  ]\n")
    assert [f.module for f in res.facts] == ["mlx4_ib"] and res.lines_used == 3


def test_near_misses():
    assert not openibd.detect("Loading NVIDIA driver kernel modules...\n")
    assert parse("Failed loading kernel module mlx5_ib\n").facts == []  # no status: not this service's line
    assert parse("Loading Mellanox MLX5_IB HCA driver:[FAILED]\n").facts == []  # a step, no module named
    assert parse("").facts == []
