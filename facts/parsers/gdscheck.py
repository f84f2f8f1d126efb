"""``gdscheck -p``: GPUDirect Storage's platform check (``/usr/local/cuda/gds/tools/gdscheck -p``, ``gdscheck.py -p``
in releases before 1.7), the first thing people paste when GDS does not work.

It prints the GDS, nvidia-fs and libcufile versions, then which storage drivers GDS supports on this host
(``DRIVER CONFIGURATION``; ``cuFile CONFIGURATION`` in the 0.9 beta), cufile.json's properties, the GPUs and
whether each supports GDS, IOMMU, and a verdict line. A value is ``Supported`` or ``Unsupported``, or (1.16+)
the modes a driver offers (``nvfs, compat``). Sample content (real lines: NVIDIA/gds-nvidia-fs#8, #70; a public
repository's H100 notes, found with the code index's exact-string search)::

     GDS release version: 1.15.1.6
     nvidia_fs version:  2.26 libcufile version: 2.12
     =====================
     DRIVER CONFIGURATION:
     =====================
     NVMe P2PDMA        : Unsupported
     NVMe               : Supported
     NFS : Unsupported
     --Mellanox PeerDirect : Disabled
     properties.use_compat_mode : true
     GPU index 0 NVIDIA H100 80GB HBM3 bar:1 bar size (MiB):131072 supports GDS, IOMMU State: Disabled
     IOMMU: disabled
     Platform verification succeeded

Fact: one ``gds_platform_check`` per output (as much as the paste holds: pastes often stop inside the list):
the drivers read whole and how many are supported, peer direct, compatibility mode, the GPUs that support
GDS, IOMMU, the verdict. A DRIVER CONFIGURATION line whose value is cut short (``NVMe               : Un``) is
not counted. Text without gdscheck's headers or lines is not this reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import GdsPlatformCheck  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "gdscheck"

# the section headers, with or without their ===== rules (gds-nvidia-fs#8 pasted them without)
#  DRIVER CONFIGURATION:        (1.0+)          cuFile CONFIGURATION:      (0.9 beta)
_HEADER = re.compile(r"^[ \t]*(?:DRIVER CONFIGURATION|cuFile CONFIGURATION|CUFILE CONFIGURATION|GPU INFO|PLATFORM INFO):[ \t]*$", re.M)
#  NVMe               : Unsupported          NFS : Unsupported          NVMe               : nvfs, compat
#  IBM Spectrum Scale : Unsupported          LUSTRE         : Unsupported   (0.9 beta's capitals)
_DRIVER = re.compile(
    r"^[ \t]*(?:\*\*)?(?P<name>[A-Za-z][A-Za-z0-9 .]{0,30}?)[ \t]*:[ \t]*(?P<value>Supported|Unsupported"
    r"|(?:nvfs|compat|p2pdma|pci_p2pdma)(?:, ?(?:nvfs|compat|p2pdma|pci_p2pdma)){0,3})(?:\*\*)?[ \t]*$")
#  --Mellanox PeerDirect : Disabled           --MOFED peer direct  : enabled   (0.9 beta)
_PEER = re.compile(r"^[ \t]*(?:\*\*)?--(?:Mellanox PeerDirect|MOFED peer direct)[ \t]*:[ \t]*(?P<v>[Ee]nabled|[Dd]isabled)")
#  properties.use_compat_mode : true          properties.use_compat_mode : 0   (0.9 beta)
_COMPAT = re.compile(r"^[ \t]*properties\.use_compat_mode[ \t]*:[ \t]*(?P<v>true|false|[01])[ \t]*$")
#  GPU index 0 NVIDIA H100 80GB HBM3 bar:1 bar size (MiB):131072 supports GDS, IOMMU State: Disabled
#  GPU index 0 Quadro P400 bar:1 bar size (MiB):256 supports GDS
_GPU = re.compile(r"^[ \t]*GPU index \d{1,3} [^\n]{1,80}? bar:\d bar size \(MiB\):\d{1,9} supports GDS\b")
#  IOMMU: disabled          IOMMU : disabled (0.9 beta)
_IOMMU = re.compile(r"^[ \t]*\[?IOMMU[ \t]*:[ \t]*(?P<v>enabled|disabled)\b", re.I)
#  Platform verification succeeded            (a failing check's own line is not in a real paste yet: not read)
_VERDICT = re.compile(r"^[ \t]*Platform verification succeeded\b")
#  nvidia_fs version:  2.26 libcufile version: 2.12
_NVFS = re.compile(r"^[ \t]*nvidia_fs version:[ \t]+(?P<v>\d[\w.]{0,20})")
#  GDS release version: 1.15.1.6             GDS release version (beta): 0.9.1.5
_RELEASE = re.compile(r"^[ \t]*GDS release version(?: \(beta\))?:[ \t]*(?P<v>\d[\w.]{0,20})")
# a DRIVER CONFIGURATION line of a known driver whose value the paste cut ("NVMe               : Un")
_CUT = re.compile(r"^[ \t]*(?:NVMe|NVMeOF|SCSI|NFS|BeeGFS|WekaFS|WEKAFS|LUSTRE|NVMesh)[ \t]*:[ \t]*\w{0,11}[ \t]*$")


def detect(head: str) -> bool:
    if _HEADER.search(head) is not None and ("DRIVER CONFIGURATION:" in head or "cuFile CONFIGURATION:" in head):
        return True
    return "GDS release version" in head and _RELEASE.search(head.replace("\r", "")) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    fields: dict = {"drivers_listed": 0, "drivers_supported": 0, "gpus_supporting": 0}
    supported: list[str] = []
    first = first_driver = None
    for n, line in enumerate(artefact.lines, 1):
        if (m := _DRIVER.match(line)) is not None and not line.lstrip().startswith(("properties.", "fs.", "profile.")):
            fields["drivers_listed"] += 1
            first_driver = first_driver or n
            if m["value"] != "Unsupported":
                fields["drivers_supported"] += 1
                supported.append(m["name"].strip())
        elif (m := _PEER.match(line)) is not None:
            fields["peer_direct"] = m["v"].lower() == "enabled"
        elif (m := _COMPAT.match(line)) is not None:
            fields["use_compat_mode"] = m["v"] in ("true", "1")
        elif _GPU.match(line) is not None:
            fields["gpus_supporting"] += 1
        elif (m := _IOMMU.match(line)) is not None:
            fields["iommu"] = m["v"].lower()
        elif _VERDICT.match(line) is not None:
            fields["verification"] = "succeeded"
        elif (m := _NVFS.match(line)) is not None:
            fields["nvidia_fs_version"] = m["v"]
        elif (m := _RELEASE.match(line)) is not None:
            fields["gds_release"] = m["v"]
        elif _HEADER.match(line) is not None:
            pass
        elif n == len(artefact.lines) and _CUT.match(line) is not None:
            continue  # the paste's last line, its value cut short: not counted
        else:
            continue
        result.lines_used += 1
        first = first or n
    if first is None:
        return result
    b.add(GdsPlatformCheck, first_driver or first, supported=", ".join(supported) or None, **fields)
    return result


#: the line signatures this reader owns
SIGNATURES = (r"(?m)^[ \t]*(?:DRIVER CONFIGURATION|cuFile CONFIGURATION):[ \t]*$", r"GDS release version(?: \(beta\))?: ",
              r"Platform verification succeeded", r"(?m)^[ \t]*--(?:Mellanox PeerDirect|MOFED peer direct)[ \t]*:")
