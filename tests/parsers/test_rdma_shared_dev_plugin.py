"""rdma_shared_dev_plugin: the Kubernetes RDMA shared device plugin's missing device specs and empty resources."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import rdma_shared_dev_plugin as p
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/rdma_shared_dev_plugin"


def parse_text(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return p.parse(art)


def test_issm_missing_and_empty_resources():
    text = (FIX / "k8srdma44_issm_missing_empty_resource.txt").read_text()
    assert p.detect(text)
    facts = parse_text(text).facts
    missing = [(f.evidence.line, f.pci, f.reason) for f in facts if f.kind == "rdma_plugin_device_spec_missing"]
    empty = [(f.evidence.line, f.resource) for f in facts if f.kind == "rdma_plugin_resource_empty"]
    assert len(missing) == 9
    assert missing[0] == (4, "0000:2e:00.0", 'RDMA device "issm" not found')
    assert missing[-1][1] == "0000:ec:00.0"
    assert empty == [(2, "hpc_shared_devices_e"), (14, "hpc_shared_devices_h")]


def test_spiderpool_guide_line_without_timestamp():
    # the line as Spiderpool's RDMA guide quotes it
    line = 'error creating new device: "missing RDMA device spec for device 0000:04:00.0, RDMA device \\"issm\\" not found"'
    assert [(f.pci, f.reason) for f in parse_text(line).facts] == [("0000:04:00.0", 'RDMA device "issm" not found')]


def test_devices_exposed_and_other_lines_give_nothing():
    text = ("2023/09/02 06:23:37 Resource: &{ResourceName:hpc_shared_devices_f ResourcePrefix:rdma RdmaHcaMax:1000}\n"
            "2023/09/02 06:23:37 exposing \"1000\" devices\n"
            "missing RDMA device spec\n")
    assert not p.detect(text)
    assert parse_text(text).facts == []
    assert parse_text("").facts == []


def test_rdma_cm_missing_and_zero_devices_exposed():
    # Mellanox/k8s-rdma-shared-dev-plugin#192: the resource server's count, the resource's name not pasted;
    # repeated at the next update: one fact
    text = (FIX / "k8srdma192_rdma_cm_missing_exposing_zero.txt").read_text()
    assert p.detect(text)
    facts = parse_text(text).facts
    missing = [(f.evidence.line, f.pci, f.reason) for f in facts if f.kind == "rdma_plugin_device_spec_missing"]
    assert missing[:2] == [(3, "0000:16:00.0", 'RDMA device "rdma_cm" not found'),
                           (4, "0000:16:00.1", 'RDMA device "rdma_cm" not found')]
    assert [(f.evidence.line, f.resource) for f in facts if f.kind == "rdma_plugin_resource_empty"] == [(5, None)]


def test_zero_devices_exposed_named_by_the_update_line_before_it():
    text = ('error creating new device: "missing RDMA device spec for device 0000:16:00.0, RDMA device \\"rdma_cm\\" not found"\n'
            '2024/05/17 09:54:41 Updating "rdma_shared_device_a" devices\n'
            '2024/05/17 09:54:41 exposing "0" devices\n'
            '2024/05/17 09:54:41 Updating "rdma_shared_device_b" devices\n'
            '2024/05/17 09:54:41 exposing "2" devices\n'
            '2024/05/17 09:59:41 Updating "rdma_shared_device_a" devices\n'
            '2024/05/17 09:59:41 exposing "0" devices\n')
    assert [(f.evidence.line, f.resource) for f in parse_text(text).facts
            if f.kind == "rdma_plugin_resource_empty"] == [(3, "rdma_shared_device_a")]
    # near misses: a count that is not zero, a zero inside a larger number
    for line in ('exposing "10" devices', 'exposing "0"devices', 'exposing 0 devices'):
        assert [f for f in parse_text(text.splitlines()[0] + "\n" + line + "\n").facts
                if f.kind == "rdma_plugin_resource_empty"] == []
