"""k8s_device_plugin: the kubelet's own device manager lines about a plugin (registration requests, the end of its
ListAndWatch stream) in the kubelet's or k3s' journal (real pastes)."""
from __future__ import annotations

from parse_helper import FIX

from stethoscope.facts.parsers import k8s_device_plugin
from stethoscope.facts.parsers.base import Artefact


def test_kubelet_stream_ended_without_a_registration_after_it():
    # NVIDIA/k8s-device-plugin#368: k3s' kubelet journal; the registration a minute before the stream's EOF is not its restart
    text = (FIX / "k8s_device_plugin" / "k8sdp368_k3s_kubelet_listandwatch_eof.txt").read_text()
    a = Artefact(path="k.txt", text=text, node="n1")
    a.normalise()
    assert k8s_device_plugin.detect(a.text)
    res = k8s_device_plugin.parse(a)
    assert [(f.evidence.line, f.state, f.resource, f.reason, f.message) for f in res.facts] == [
        (6, "stream_ended", "nvidia.com/gpu", "not_reregistered", "rpc error: code = Unavailable desc = error reading from server: EOF")]
    assert res.lines_used == 2  # the registration request and the stream's end; the rest is the kubelet's own


def test_kubelet_streams_ended_around_a_registration_are_read_with_no_fact():
    # kubernetes/kubernetes#96908: pre-1.20 forms; three ends just after the stub registered again (its restart closed them)
    text = (FIX / "k8s_device_plugin" / "k8s96908_kubelet_stub_reregistered_stream_ended.txt").read_text()
    res = k8s_device_plugin.parse(Artefact(path="k.txt", text=text, node="n1"))
    assert res.facts == [] and res.lines_used == 5  # two registrations, three ends; the stub's own lines are not the kubelet's


def test_kubelet_stream_ended_twice_alike_is_one_fact():
    # kubernetes/kubernetes#96908's end lines without the registrations before them: one fact for the repeated line
    text = "".join((FIX / "k8s_device_plugin" / "k8s96908_kubelet_stub_reregistered_stream_ended.txt").read_text().splitlines(True)[7:])
    res = k8s_device_plugin.parse(Artefact(path="k.txt", text=text, node="n1"))
    assert [(f.evidence.line, f.resource, f.reason, f.message) for f in res.facts] == [
        (1, "fake-domain/resource", "not_reregistered", "rpc error: code = Unavailable desc = transport is closing")]


def test_kubelet_registration_alone_is_read_with_no_fact():
    # NVIDIA/k8s-device-plugin#178's kubelet line
    line = ('Jun 01 11:41:24 fabricnode1 kubelet[11402]: I0601 11:41:24.847969   11402 manager.go:411] Got registration request '
            'from device plugin with resource name "nvidia.com/gpu"\n')
    assert k8s_device_plugin.detect(line)
    res = k8s_device_plugin.parse(Artefact(path="k.txt", text=line, node="n1"))
    assert res.facts == [] and res.lines_used == 1
