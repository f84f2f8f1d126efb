"""Open MPI's shared-memory single copy (CMA) failing, in any program's output: a rank's ``opal_output`` line saying
that process_vm_readv / process_vm_writev could not copy a message from or into its peer on the same node.

Open MPI's vader BTL (2.x-4.x; opal/mca/btl/vader/btl_vader_get.c and btl_vader_put.c, ``mca_btl_vader_get_cma`` /
``mca_btl_vader_put_cma``) reads a peer's buffer directly with CMA for messages above its eager limit::

    opal_output(0, "Read %ld, expected %lu, errno = %d\\n", (long)ret, (unsigned long)size, errno);
    opal_output(0, "Wrote %ld, expected %lu, errno = %d\\n", (long)ret, (unsigned long)size, errno);

and Open MPI 5's smsc/cma component says ``CMA wrote %ld, expected %lu, errno = %d`` (and ``CMA read``) at its error
verbosity. opal_output puts ``[host:pid] `` before the line. Sample (real, ROCm/rocHPL#14, rocHPL under srun on two
MI250X GCDs of one node)::

    [MI250-1:103933] Read -1, expected 549888, errno = 14

The errno says why: 1 (EPERM) the kernel refused to let one rank read another's memory (ptrace access: a container
without CAP_SYS_PTRACE, kernel.yama.ptrace_scope of 1 or more, ranks of different users or namespaces); 14 (EFAULT) the
address is not host memory the kernel can copy in that process (a GPU device buffer handed to an MPI path that is not
GPU-aware); 3 (ESRCH) the peer process is gone. Facts: ``mpi_cma_copy_failed`` per host and errno (the lines counted,
cited at the first). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import MpiCmaCopyFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "openmpi_cma"

# [MI250-1:103933] Read -1, expected 549888, errno = 14          (vader, ROCm/rocHPL#14)
# [host:12345] Wrote -1, expected 65536, errno = 1               (vader's put: the same format)
# CMA wrote -1, expected 65536, errno = 1                        (Open MPI 5 smsc/cma, verbose)
_CMA = re.compile(r"^(?:\[(?P<host>[\w.-]{1,128}):\d{1,10}\] )?(?P<op>Read|Wrote|CMA read|CMA wrote) (?P<ret>-?\d{1,20}), "
                  r"expected (?P<size>\d{1,20}), errno = (?P<errno>\d{1,4})\s*$", re.M)


def detect(head: str) -> bool:
    return ", errno = " in head and _CMA.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    seen: dict[tuple[str | None, int], dict] = {}  # (host, errno) -> the first line's fields and the count
    for n, line in enumerate(artefact.lines, 1):
        if ", errno = " not in line or (m := _CMA.match(line)) is None:
            continue
        result.lines_used += 1
        if int(m["ret"]) == int(m["size"]):  # (a copy that did move everything is no failure: not printed by Open MPI)
            continue
        f = seen.setdefault((m["host"], int(m["errno"])), {"line": n, "op": "read" if m["op"].lower().endswith("read") else "write",
                                                           "size": int(m["size"]), "count": 0})
        f["count"] += 1
    for (host, errno), f in seen.items():
        b.add(MpiCmaCopyFailed, f["line"], op=f["op"], errno=errno, expected_bytes=f["size"], count=f["count"],
              **({"node": host} if host else {}))
    return result


#: the line signatures this reader owns (facts/classify.py: one pass over every reader's)
SIGNATURES = (_CMA,)
