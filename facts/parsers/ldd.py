"""``ldd <program>`` (and ``ldd -r``): the shared libraries the dynamic loader resolves for a
program, pasted when a program loads the wrong copy of a library or none (NCCL built from GitHub
against the one of the CUDA toolkit, a CUDA runtime for another release, a driver library missing
in a container).

glibc's loader in trace mode (elf/rtld.c, ``_dl_printf``) prints one line per library, a tab first:
``\\t%s => not found``, ``\\t%s (0x%0*Zx)`` (the vDSO, the loader itself) and ``\\t%s => %s
(0x%0*Zx)``. Sample content (real, NVIDIA/nccl#76: a user's ldd of NCCL 1's test binary; harvest 2607)::

    [tru@borma nccl]$ ldd build/test/single/all_reduce_scan
    	linux-vdso.so.1 =>  (0x00007fff09da1000)
    	libnccl.so.1 => /c7/home/tru/bench/nccl/nccl/build/lib/libnccl.so.1 (0x00007f56ab34b000)
    	libcudart.so.8.0 => /c7/shared/cuda/8.0.61.2/lib64/libcudart.so.8.0 (0x00007f56ab0e4000)

(glibc before 2.18 printed the vDSO as ``linux-vdso.so.1 =>  (0x...)``, an empty path.) A library the
loader found no file for::

    	libcuda.so.1 => not found      (a public note in the code index: ldd of a CUDA program in a container without the driver)

Facts: ``linked_library`` per resolved library (soname, path, the soname's version, the program
when the ``ldd`` command line is in the file, ``provider`` by name: ``nccl`` for libnccl, else
dynamic_linker.provider_of's ``nvidia_driver`` / ``cuda_toolkit`` / ...; for a driver library, ``compat`` True
when its path is a CUDA install's forward-compatibility directory, as ldconfig_cache says it);
``shared_library_missing``
per ``not found`` line (the same fact as the loader's "cannot open shared object file", so the same
rules judge it: a driver library missing, a CUDA library missing). Empty input, or no such line:
not recognised.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import LinkedLibrary, SharedLibraryMissing  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.dynamic_linker import provider_of
from stethoscope.facts.parsers.ldconfig_cache import COMPAT_DIR  # a CUDA install's compat directory, as the loader's cache names it

KIND = "ldd"

# 	libnccl.so.1 => /c7/home/tru/bench/nccl/nccl/build/lib/libnccl.so.1 (0x00007f56ab34b000)     (NVIDIA/nccl#76)
# 	linux-vdso.so.1 =>  (0x00007fff09da1000)                                                     (NVIDIA/nccl#76: glibc < 2.18)
# 	/lib64/ld-linux-x86-64.so.2 (0x00007f0e2a3c5000)                                              (glibc's "\t%s (0x%0*Zx)")
# 	libcuda.so.1 => not found                                                                     (glibc's "\t%s => not found")
_ROW = re.compile(r"^[ \t]+(?P<lib>[^\s=]{1,400}\.so(?:\.(?P<ver>[\w.]{1,40}))?)"
                  r"(?:[ \t]+=>[ \t]++(?:(?P<missing>not found)|(?P<path>/[^\s()]{0,1000})?[ \t]*\(0x[0-9a-f]{1,16}\))"
                  r"|[ \t]+\(0x[0-9a-f]{1,16}\))[ \t]*$")
# [tru@borma nccl]$ ldd build/test/single/all_reduce_scan      $ ldd -r ./libggml-cuda.so
_COMMAND = re.compile(r"(?:^|[#$>]\s*)(?:sudo\s+)?ldd\s+(?:-\w+\s+)*(?P<program>[^\s|;&]{1,1000})\s*$")
# the rows whose form is ldd's alone (a path and a load address, or not found): a vDSO row is also ldd -v's
_SIGNATURE = r"^[ \t]+[^\s=]{1,400}\.so[\w.]* => (?:not found|/\S* \(0x[0-9a-f]+\))[ \t]*$"
_DETECT = re.compile(_SIGNATURE, re.M)


def detect(head: str) -> bool:
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    program = None
    for n, line in enumerate(artefact.lines, 1):
        if "ldd" in line and (c := _COMMAND.search(line)):
            program = c["program"]
            result.lines_used += 1
            continue
        if (r := _ROW.match(line)) is None:
            continue
        lib = r["lib"]
        name = lib.rsplit("/", 1)[-1]
        provider = "nccl" if name.startswith("libnccl.so") else provider_of(name)
        if r["missing"]:
            fb.add(SharedLibraryMissing, n, library=lib, program=program,
                   provider=provider if provider in ("nvidia_driver", "cuda_toolkit", "tensorrt", "cuda_profiler") else None)
        else:
            path = r["path"] or None
            fb.add(LinkedLibrary, n, library=lib, path=path, soname_version=r["ver"], program=program,
                   provider=provider, compat=COMPAT_DIR.search(path) is not None if path and provider == "nvidia_driver" else None)
        result.lines_used += 1
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (_DETECT,)
