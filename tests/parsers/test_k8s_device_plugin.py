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


# NVIDIA/k8s-device-plugin#82's plugin log (the description, as the issues corpus stores it): the registration failed and main
# retried it; nothing registered in the pasted part
_DP82 = """2018/11/27 03:43:50 Loading NVML
2018/11/27 03:43:50 Fetching devices.
2018/11/27 03:43:51 Starting FS watcher.
2018/11/27 03:43:51 Starting OS watcher.
2018/11/27 03:44:00 Starting to serve on /var/lib/kubelet/device-plugins/nvidia.sock
2018/11/27 03:44:12 Could not register device plugin: context deadline exceeded
2018/11/27 03:44:13 Could not contact Kubelet, retrying. Did you enable the device plugin feature gate?
"""


def test_register_failure_with_no_registration_after_it_stays_a_failure():
    res = k8s_device_plugin.parse(Artefact(path="p.log", text=_DP82, node="n1"))
    assert [(f.evidence.line, f.state, f.reason) for f in res.facts] == [(6, "register_failed", "other"), (7, "kubelet_unreachable", "other")]


def test_register_failure_the_plugin_registered_after_was_retried():
    # the same lines, then the plugin's registration as v1.x's server.go prints it once Register() returned
    # (log.Println("Registered device plugin with Kubelet"); the probe of bench/wild_sweep_rE9.md): main's retry succeeded
    res = k8s_device_plugin.parse(Artefact(path="p.log", text=_DP82 + "Registered device plugin with Kubelet\n", node="n1"))
    assert [(f.evidence.line, f.state, f.reason) for f in res.facts] == [
        (6, "register_failed", "registered_after"), (7, "kubelet_unreachable", "registered_after")]
    # the registration line is read as used, beside the lifecycle lines and both failures
    assert res.lines_used == k8s_device_plugin.parse(Artefact(path="p.log", text=_DP82, node="n1")).lines_used + 1


def test_a_registration_of_another_resource_does_not_cover_the_failure():
    # k3s-io/k3s#2664's serving line and NVIDIA/k8s-device-plugin#10's failure, then a registration of another resource
    # (server.go: log.Printf("Registered device plugin for '%s' with Kubelet", plugin.rm.Resource()))
    text = ("2020/12/09 13:30:41 Starting to serve 'nvidia.com/gpu' on /var/lib/kubelet/device-plugins/nvidia.sock\n"
            "2017/11/24 09:06:29 Could not register device plugin: context deadline exceeded\n"
            "Registered device plugin for 'nvidia.com/mig-1g.5gb' with Kubelet\n")
    res = k8s_device_plugin.parse(Artefact(path="p.log", text=text, node="n1"))
    assert [(f.state, f.reason) for f in res.facts] == [("register_failed", "other")]
    same = text.replace("nvidia.com/mig-1g.5gb", "nvidia.com/gpu")
    assert [(f.state, f.reason) for f in k8s_device_plugin.parse(Artefact(path="p.log", text=same, node="n1")).facts] == [
        ("register_failed", "registered_after")]


def test_the_configuration_dump_is_read_with_no_fact():
    # NVIDIA/k8s-device-plugin#330 (v0.12, log.Printf): main.go's "\nRunning with config:\n%v" of MarshalIndent's JSON,
    # the header alone on its line: every line read; the one fact is the plugin's "No devices found"
    text = (FIX / "k8s_device_plugin" / "k8sdp330_v0_12_config_dump_no_devices.log").read_text()
    res = k8s_device_plugin.parse(Artefact(path="k.log", text=text, node="n1"))
    assert [(f.evidence.line, f.state) for f in res.facts] == [(34, "no_devices")]
    assert res.lines_used == len([ln for ln in text.splitlines() if ln.strip()]) and not res.limits


def test_a_configuration_dump_cut_by_the_paste_is_a_limit():
    # NVIDIA/k8s-device-plugin#390: the stored paste ends inside the dump's "resources" member: read, and cut_short
    text = (FIX / "k8s_device_plugin" / "k8sdp390_config_dump_cut.log").read_text()
    res = k8s_device_plugin.parse(Artefact(path="k.log", text=text, node="n1"))
    assert res.facts == [] and [h.limit for h in res.limits] == ["cut_short"]
    assert res.lines_used == len([ln for ln in text.splitlines() if ln.strip()])


def test_a_json_object_without_the_dump_line_is_not_read():
    # must not: "Running with config:" that no "{" follows (a runtime's %+v form), and a JSON block of another program
    text = "2022/08/22 17:27:44 Starting OS watcher.\nRunning with config:\n&{Version:v1}\n{\n  \"a\": 1\n}\n"
    res = k8s_device_plugin.parse(Artefact(path="k.log", text=text, node="n1"))
    assert res.lines_used == 1 and not res.limits
