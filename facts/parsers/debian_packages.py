"""Debian/Ubuntu package lists: ``dpkg -l`` (``dpkg -l '*nvidia*'``, ``dpkg -l | grep nccl``) and
``apt list`` (``apt list --installed``, ``apt list <pkg> -a``), read for the GPU and RDMA stack.

The forms, from the tools' own sources:

- dpkg-query's list (src/query/main.c ``list_format``: the three status letters, then name,
  version, architecture and description in columns, under a five-line header; a narrow
  terminal cuts each row and ends it with ``>``). The first letter is what was asked (u, i, h,
  r, p), the second the state: ``i`` installed; ``c`` only its configuration files are left
  (``rc``: removed); ``n`` not installed (``un``)::

      ||/ Name                             Version                  Architecture Description
      ii  libnvidia-compute-450:amd64      450.51.06-0ubuntu1       amd64        NVIDIA libcompute package
      rc  libnvidia-compute-418:amd64      418.87.01-0ubuntu1       amd64        NVIDIA libcompute package
      ii  libnccl2                                   2.22.3-1+cuda12.2                       amd64        NVIDIA Collective Communication Library (NCCL) Runtime

- apt's list (apt-private/private-output.cc ``ListSingleVersion``: ``name/suites version arch``
  and a status: ``[installed]``, ``[installed,automatic]``, ``[installed,local]``,
  ``[installed,auto-removable]``, ``[installed,upgradable to: V]``, ``[upgradable from: V]`` on
  the candidate of an installed package, ``[residual-config]``; none for a version that is only
  available)::

      nvidia-fs-dkms/unknown 2.25.6-1 amd64 [upgradable from: 2.12.4-1]

Sample content (karpathy/llm.c#742, NVIDIA/nvidia-docker#1364, NVIDIA/nvidia-container-toolkit#188;
``apt list`` from NVIDIA/gds-nvidia-fs#60: harvest case 1201).

Facts: ``package_version`` (the kind :mod:`python_packages` makes of pip and conda listings) per
INSTALLED package of the GPU/RDMA stack (NVIDIA driver and libraries, CUDA, cuDNN, NCCL, TensorRT,
DCGM, nvidia-fs, UCX, Open MPI, rdma-core, MLNX/DOCA): ``manager`` dpkg | apt, ``version`` as
listed (with its Debian revision), ``cuda_build`` where the package says which CUDA it is or was
built for (``2.22.3-1+cuda12.2``; ``cuda-cudart-12-2``, ``cuda-toolkit-12-2``, the ``cuda``
metapackage's version; not ``cuda-compat``, which lets newer CUDA run on an older driver),
``nvidia_driver`` for the driver's own packages (nvidia-driver-NNN, nvidia-utils-NNN,
libnvidia-compute-NNN, ...; their version is the driver's: engine/combine/version_compat.py
takes the newest as the node's driver when nothing running reports one). Rows of packages not
installed (``un``, ``rc``, an apt version only available) and other packages are counted as read,
no fact. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import PackageVersion  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.python_packages import add_package

KIND = "debian_packages"

_ARCH = r"(?:amd64|arm64|all|i386|armhf|ppc64el|s390x|<none>)"
# ii  libnvidia-compute-450:amd64      450.51.06-0ubuntu1       amd64        NVIDIA libcompute package
# ii  libnvidia-cfg1-470:amd64           470.103.01-0ubuntu0.20.04.1 amd64       >      (a narrow terminal)
_DPKG_ROW = re.compile(r"^(?P<want>[uihrp])(?P<state>[ncHUFWti])(?P<err>[ R]) (?P<pkg>[a-z0-9][a-z0-9+.-]*)(?::(?P<arch>[a-z0-9-]+))?\s+"
                       r"(?P<ver>\S+)\s+" + _ARCH + r"(?:\s.*)?$")
# ||/ Name                             Version                  Architecture Description
_DPKG_HEADER = re.compile(r"^(?:Desired=Unknown/Install|\| Status=Not/Inst|\|/ Err\?=|\|\|/ Name\s|\+\+\+-=)")
# nvidia-fs-dkms/unknown 2.25.6-1 amd64 [upgradable from: 2.12.4-1]      libnccl2/now 2.18.3-1+cuda12.2 amd64 [installed,local]
_APT_ROW = re.compile(r"^(?P<pkg>[a-z0-9][a-z0-9+.-]*)/(?P<suites>[\w.,~+-]*) (?P<ver>\S+) (?P<arch>" + _ARCH[3:-1] + r")"
                      r"(?: \[(?P<status>[^\]\n]{1,80})\])?\s*(?:#.*)?$")
_APT_HEADER = re.compile(r"^(?:.*[$#] )?(?:Listing\.\.\.(?: Done)?|.*\bapt list\b.*)\s*$")
_DETECT = re.compile(r"^\|\|/ Name\s+Version\s+Architecture|^(?:ii|hi|rc) [ R][a-z0-9][a-z0-9+.-]*(?::[a-z0-9-]+)?\s+\S+\s+" + _ARCH
                     + r"\s|^[a-z0-9][a-z0-9+.-]*/[\w.,~+-]+ \S+ (?:amd64|arm64|all|i386|armhf|ppc64el|s390x)(?: \[(?:installed|upgradable))?\s*(?:#[^\n]*)?$",
                     re.M)

#: the GPU and RDMA stack: what a diagnosis may compare (other packages are counted, not kept)
_RELEVANT = re.compile(r"^(?:nvidia-|libnvidia-|cuda(?:$|-)|cudnn|libcudnn|libnccl|libcu(?:blas|fft|rand|solver|sparse|file|pti|tensor)"
                       r"|libnvinfer|tensorrt|datacenter-gpu-manager|libnvjitlink|nv-peer-mem|ucx|libucx|openmpi|libopenmpi"
                       r"|rdma-core|ibverbs-|libibverbs|librdmacm|mlnx-|doca-|libnvshmem|nvshmem|linux-(?:modules|objects|signatures)-nvidia|libcuda1$)")
#: the NVIDIA driver's own packages (Ubuntu's graphics-drivers names and the CUDA repository's): their version is the driver's
# Ubuntu's (and NVIDIA's repository's) driver packages carry the branch (nvidia-driver-535, libnvidia-compute-535);
# Debian's, built from the same nvidia-graphics-drivers source, do not: nvidia-driver, nvidia-smi, libnvidia-ml1,
# libcuda1, nvidia-kernel-dkms, nvidia-driver-libs (packages.debian.org; illinois-scicomp/machine-shop-maintenance#70:
# 'ii  nvidia-smi     525.85.12-1  amd64  NVIDIA System Management Interface')
_DRIVER = re.compile(r"^(?:nvidia-(?:driver|utils|dkms|kernel-common|kernel-source|compute-utils|headless(?:-no-dkms)?|open)"
                     r"|libnvidia-(?:compute|gl|common|cfg1|decode|encode|extra|fbc1)|cuda-drivers)(?:-\d{3})?(?:-server|-open)?$"
                     r"|^(?:nvidia-smi|libnvidia-ml1|libcuda1|nvidia-kernel-dkms|nvidia-driver-libs)$")
_DRIVER_VERSION = re.compile(r"^(?P<release>\d{3}\.\d+(?:\.\d+)?)(?:-|$)")
_CUDA_SUFFIX = re.compile(r"\+cuda(?P<cuda>\d+\.\d+)")  # 2.22.3-1+cuda12.2, 8.9.7.29-1+cuda12.2
_CUDA_NAMED = re.compile(r"^cuda-(?:runtime|cudart|toolkit|libraries|nvcc)-(?P<maj>\d+)-(?P<min>\d+)$")  # cuda-cudart-12-2
_CUDA_META = re.compile(r"^cuda(?:-toolkit|-runtime)?$")  # cuda 12.2.2-1: the release itself


def driver_package(name: str) -> bool:
    """Whether a Debian/Ubuntu package name is one of the NVIDIA driver's own packages (also :mod:`package_install`'s)."""
    return _DRIVER.match(name) is not None


def detect(head: str) -> bool:
    # every row names an architecture; dpkg's header says "Architecture"
    if not any(a in head for a in ("amd64", "arm64", "Architecture", "[installed", "ii  ", " all ", "i386", "ppc64el")):
        return False
    return _DETECT.search(head) is not None


def _cuda_of(name: str, version: str) -> str | None:
    if (m := _CUDA_SUFFIX.search(version)) is not None:
        return m["cuda"]
    if (m := _CUDA_NAMED.match(name)) is not None:
        return f"{m['maj']}.{m['min']}"
    if _CUDA_META.match(name) and (m := re.match(r"\d+\.\d+", version)):
        return m[0]
    return None


def _add(b: FactBuilder, n: int, name: str, version: str, manager: str) -> None:
    if not _RELEVANT.match(name):
        return
    release = _DRIVER_VERSION.match(version) if _DRIVER.match(name) else None
    add_package(b, n, name, version, manager, _cuda_of(name, version),
                nvidia_driver=release is not None, driver_release=release["release"] if release else None)


def _apt_installed(m: re.Match[str]) -> str | None:
    """The installed version an apt list row shows, if any."""
    status = (m["status"] or "").strip()
    if status.startswith("installed"):
        return m["ver"]
    if status.startswith("upgradable from: "):
        return status.removeprefix("upgradable from: ").strip() or None
    return None  # only available, or residual-config


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if (m := _DPKG_ROW.match(line)) is not None:
            if m["state"] == "i" and m["ver"] != "<none>":
                _add(b, n, m["pkg"], m["ver"], "dpkg")
        elif (m := _APT_ROW.match(line)) is not None:
            if (installed := _apt_installed(m)) is not None:
                _add(b, n, m["pkg"], installed, "apt")
        elif not (_DPKG_HEADER.match(line) or _APT_HEADER.match(line)):
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)
