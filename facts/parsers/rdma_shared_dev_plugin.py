"""The Kubernetes RDMA shared device plugin's log (Mellanox/k8s-rdma-shared-dev-plugin): which
NICs it could not turn into RDMA devices, and which of its resources it advertises empty.

The plugin builds one resource (``rdma/<resourceName>``) per configured selector. For each NIC
the selector matches it collects the RDMA character devices of the HCA (/dev/infiniband/uverbs<N>,
rdma_cm, umad<N>, issm<N>); when one is absent ``NewPciNetDevice`` (pkg/resources/pci_net_device.go)
fails with ``fmt.Errorf("missing RDMA device spec for device %s, %v", pciAddr, err)`` and the
plugin logs it as ``error creating new device: %q``. A resource left with no device is logged by
the resource server (pkg/resources) as
``log.Printf("Warning: no Rdma Devices were found for resource %s\\n", config.ResourceName)``.
Sample lines, real (Mellanox/k8s-rdma-shared-dev-plugin#44; the same line is quoted by Spiderpool's RDMA
guide, which says to install rdma-core when the resource count is 0)::

    2023/09/02 06:23:37 error creating new device: "missing RDMA device spec for device 0000:2e:00.0, RDMA device \\"issm\\" not found"
    2023/09/02 06:23:37 Warning: no Rdma Devices were found for resource hpc_shared_devices_h

Facts: ``rdma_plugin_device_spec_missing`` per NIC the plugin could not use (``pci``, ``reason``:
the error after the PCI address, quotes unescaped, e.g. ``RDMA device "issm" not found``) and
``rdma_plugin_resource_empty`` per resource advertised without devices (``resource``; also
from the resource server's ``exposing "0" devices``, named by the ``Updating "<name>" devices``
line before it, None where the paste lacks it). Either
alone is not a fault: an Ethernet NIC without issm devices was expected to fail this way before
the plugin stopped requiring issm for Ethernet, and an empty resource can be a selector that
matches no NIC on this node. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re
from typing import Iterator

from stethoscope.facts.kinds.scheduler import (  # noqa: F401 - the fact classes live in facts/kinds
    RdmaPluginDeviceSpecMissing, RdmaPluginResourceEmpty,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "rdma_shared_dev_plugin"

# error creating new device: "missing RDMA device spec for device 0000:2e:00.0, RDMA device \"issm\" not found"
_SPEC = re.compile(
    r"\bmissing RDMA device spec for device (?P<pci>(?:[0-9A-Fa-f]{4}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]), "
    r"(?P<reason>[^\n]{1,300})")
# Warning: no Rdma Devices were found for resource hpc_shared_devices_h
_EMPTY = re.compile(r"\bno Rdma Devices were found for resource (?P<res>[\w./-]{1,253})")
# what the resource server sends the kubelet (pkg/resources/server.go ListAndWatch, sendDevices:
# log.Printf("Updating \"%s\" devices", rs.resourceName), then log.Printf("exposing \"%d\" devices", len(devs))):
# 2025/07/26 20:29:31 exposing "0" devices   (Mellanox/k8s-rdma-shared-dev-plugin#192, the name's line not pasted)
_EXPOSED_NONE = re.compile(r'\bexposing "0" devices')
_COUNT = re.compile(r'\bUpdating "(?P<res>[\w./-]{1,253})" devices|' + _EXPOSED_NONE.pattern)


def _reason(raw: str) -> str:
    r = raw.rstrip().rstrip('"').replace('\\"', '"')
    return r.strip() or raw.strip()


def detect(head: str) -> bool:
    return bool(_SPEC.search(head) or _EMPTY.search(head))


def _exposed_none(artefact: Artefact) -> Iterator[tuple[int, str | None]]:
    """(line, resource) of each ``exposing "0" devices``: the resource named by the latest
    ``Updating "<name>" devices`` before it, None where the log shows none."""
    name = None
    for m in _COUNT.finditer(artefact.text):
        if m["res"] is not None:
            name = m["res"]
        else:
            yield artefact.line_of(m.start()), name


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_SPEC, artefact):
        result.lines_used += 1
        fb.add(RdmaPluginDeviceSpecMissing, n, pci=m["pci"], reason=_reason(m["reason"]))
    named = set()
    for n, m in iter_matches(_EMPTY, artefact):
        result.lines_used += 1
        named.add(m["res"])
        fb.add(RdmaPluginResourceEmpty, n, resource=m["res"])
    if 'exposing "0" devices' in artefact.text:
        for n, res in _exposed_none(artefact):
            result.lines_used += 1
            if res not in named:  # the plugin repeats it every update: one fact a resource
                named.add(res)
                fb.add(RdmaPluginResourceEmpty, n, resource=res)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"missing RDMA device spec for device ", r"no Rdma Devices were found for resource ")
