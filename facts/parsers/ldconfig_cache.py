"""The dynamic loader's cache as ``ldconfig -p`` prints it (``/etc/ld.so.cache``): which copy of a
shared library a program gets. People paste it, usually filtered (``ldconfig -p | grep libcuda``),
to show which ``libcuda.so.1`` a container resolves: the host driver's, which the container
runtime mounts, or a CUDA image's forward-compatibility copy under ``/usr/local/cuda*/compat``.

glibc's ldconfig prints ``%d libs found in cache `%s'`` and then one line per entry, a tab first:
``\\t<soname> (<flags>[, hwcap: ...][, OS ABI: ...]) => <path>`` (elf/cache.c print_cache,
print_entry), in the cache's lookup order: of several entries of one soname the first is the one the
loader takes. Sample content (real: vllm-project/vllm#19794, a vLLM image resolving the compat copy;
vllm-project/vllm#33992, the host driver's copy; vllm-project/vllm#32474, a GH200 container)::

    $ ldconfig -p | grep -F 'libcuda.so'
            libcuda.so.1 (libc6,x86-64) => /usr/local/cuda-12.8/compat/libcuda.so.1
            libcuda.so (libc6,x86-64) => /usr/local/cuda-12.8/compat/libcuda.so
            libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1
    	libnvidia-gpucomp.so.580.82.07 (libc6,AArch64) => /usr/local/cuda-13.0/compat/libnvidia-gpucomp.so.580.82.07

Facts: ``linked_library`` for the first entry of each NVIDIA driver library's soname
(dynamic_linker.provider_of ``nvidia_driver``: libcuda, libnvidia-*), with ``compat`` True where its
path is a CUDA install's ``compat`` directory: which driver library the loader takes, from where.
Other entries and the header are read without a fact. Empty input, or no entry line: not recognised.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import LinkedLibrary  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.dynamic_linker import provider_of

KIND = "ldconfig_cache"

#         libcuda.so.1 (libc6,x86-64) => /usr/local/cuda-12.8/compat/libcuda.so.1                      (vllm#19794)
# 	libnvrtc.so.13 (libc6,AArch64) => /usr/local/cuda/targets/sbsa-linux/lib/libnvrtc.so.13            (vllm#32474)
# 	libc.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libc.so.6                   (elf/cache.c's OS ABI note)
_ENTRY = re.compile(r"^[ \t]+(?P<lib>[^\s()=]{1,400}\.so(?:\.(?P<ver>[\w.]{1,40}))?) \((?P<flags>[^()\n]{1,200})\) => (?P<path>/\S{1,1000})[ \t]*$")
# 82 libs found in cache `/etc/ld.so.cache'                  (flox/flox cli/tests/cuda/ldconfig-mock-absent.sh: ubuntu:24.04's ldconfig --print-cache)
_HEADER = re.compile(r"^\d+ libs? found in cache `[^'\n]{1,400}'[ \t]*$")
# /usr/local/cuda-12.8/compat/libcuda.so.1   /usr/local/cuda/compat/lib/libcuda.so.1   /usr/local/cuda-13.0/compat/...
COMPAT_DIR = re.compile(r"/cuda[\w.-]*/compat/")  # public: ldd reads its rows' paths with it
_DETECT = re.compile(r"^[ \t]+[^\s()=]{1,400}\.so[\w.]* \((?:libc\d|libc5|ELF)[^()\n]{0,200}\) => /", re.M)


def detect(head: str) -> bool:
    return ") => /" in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    seen: set[str] = set()
    for n, line in enumerate(artefact.lines, 1):
        if (m := _ENTRY.match(line)) is None:
            if _HEADER.match(line.strip()):
                result.lines_used += 1
            continue
        result.lines_used += 1
        lib = m["lib"]
        if lib in seen or provider_of(lib) != "nvidia_driver":
            continue
        seen.add(lib)  # the first entry of a soname is the one the loader takes
        b.add(LinkedLibrary, n, library=lib, path=m["path"], soname_version=m["ver"], provider="nvidia_driver",
              compat=COMPAT_DIR.search(m["path"]) is not None)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_DETECT,)
