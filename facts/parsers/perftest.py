"""perftest (https://github.com/linux-rdma/perftest): ``ib_send_bw``, ``ib_write_bw``, ``ib_read_bw``,
``ib_send_lat`` (and the other ``ib_*_bw`` / ``ib_*_lat`` tools) on stdout, server or client side.

Sample content (superbenchmark tests/data/ib_loopback_8M_size.log, ib_write_bw; a public ConnectX-3
capture of ib_read_bw -a and ib_send_lat -a; jebtang/RDMA-Experiment, an older ib_send_bw)::

                        RDMA_Write BW Test
     Dual-port       : OFF		Device         : ib0
     Connection type : RC		Using SRQ      : OFF
     Link type       : IB
     #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
     8388608    20000            24056.74            24056.72		   0.003007
     #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
     2       20000          1.02           11.76        1.07               1.11            0.30             1.68                    5.00

A test starts at its title (``Send BW Test``, ``RDMA_Read Latency Test``, ...), which names the
tool; the column header says which numbers follow and in which unit (``MB/sec``: perftest's
MiB/s, or ``Gb/sec`` with ``--report_gbits``); a row is numbers only, one per column. Lines
perftest interleaves (``Conflicting CPU frequency values detected``) are read past. Facts:
``bench_result`` per row: bandwidth tools ``bw_average`` in Gbit/s (MB/sec converted: x
1,048,576 x 8 / 1e9) and ``msg_rate`` (Mpps) when shown; latency tools ``t_typical``,
``t_avg`` and ``t_p99`` in usec, lower better; entity the device, size the row's ``#bytes``.
A row with fewer numbers than its header is a ParseError. Text without a result row yields
nothing (a server that never saw its client).

perftest's own failure lines (fprintf(stderr) in src/perftest_communication.c, perftest_resources.c,
perftest_parameters.c; real: openucx/ucx#8702's ``Couldn't allocate MR`` / ``failed to create mr`` /
``Failed to create MR`` / `` Couldn't create IB resources``) give ``perftest_failure`` with the
stage it stopped in: connection (the TCP side channel: ``Couldn't connect to <host>:<port>``,
``Unable to init the socket connection``), device (``IB device mlx5_4 not found``, ``Port number 1
state is Down``), resources (memory registration, QP/CQ creation), qp_transition (``Failed to
modify QP 0 to RTR``), completion (``Completion with error at client`` and the ``Failed status``
line after it: the ibv_wc_status and syndrome; the bandwidth loops' ``Poll send CQ error status=12 qp 0``
and -R's key exchange ``Bad wc status -- 5 -- 0``: the status alone; rdma-core's example programs
``ibv_rc_pingpong`` and its siblings, read here for the same stage: ``Failed status transport retry counter
exceeded (12) for wr_id 2`` and their ``parse WC failed 1`` after it, linux-rdma/opensm#38). On an Ethernet (RoCE) link,
an all-zero ``GID: 00:00:...:00`` under ``local address:`` gives ``perftest_local_gid_zero`` (once a
file; Mellanox/k8s-rdma-sriov-dev-plugin#32: a pod's ib_read_bw header and addresses, the LID and
QPN redacted to ``xxx``, pasted without the failure lines that follow).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import PerftestFailure  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.rdma_tools import PerftestLocalGidZero
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "perftest"

#                     RDMA_Write BW Test        /   Send Latency Test   /   RDMA_Read Bidirectional BW Test
_TITLE = re.compile(r"^\s+(?P<op>Send|RDMA_Write|RDMA_Read|Atomic \w+)(?: Post List)?(?: (?P<bidir>Bidirectional))? (?P<kind>BW|Latency) Test\s*$")
#  Dual-port       : OFF		Device         : mlx5_0
_DEVICE = re.compile(r"\bDevice\s+:\s+(?P<dev>\S+)")
#  Connection type : RC		Using SRQ      : OFF
_CONN = re.compile(r"^\s*Connection type\s*:\s*(?P<conn>\w+)")
#  Link type       : Ethernet
_LINK = re.compile(r"^\s*Link type\s*:\s*(?P<link>\w+)")
#  GID index       : 0        (perftest_parameters.c ctx_print_test_info, on an Ethernet link)
_GID_INDEX = re.compile(r"^\s*GID index\s*:\s*(?P<index>\d+)")
#  #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
_HEADER = re.compile(r"^\s*#bytes\s+#iterations\s+(?P<rest>.*\S)\s*$")
_COLUMN = re.compile(r"BW peak\[[^\]]+\]|BW average\[[^\]]+\]|MsgRate\[Mpps\]|t_\w+\[usec\]|99(?:\.9)?% percentile\[usec\]")
#  8388608    20000            24056.74            24056.72		   0.003007
_ROW = re.compile(r"^\s*(?P<bytes>\d+)\s+(?P<iters>\d+)(?P<rest>(?:\s+-?\d+(?:\.\d+)?)+)\s*$")
_DETECT = re.compile(r"^\s+(?:Send|RDMA_Write|RDMA_Read|Atomic \w+)(?: Post List)?(?: Bidirectional)? (?:BW|Latency) Test\s*$"
                     r"|^\s*#bytes\s+#iterations\s+(?:BW peak|t_min|t_avg|BW average)", re.M)
_TOOL = {"Send": "send", "RDMA_Write": "write", "RDMA_Read": "read"}
#: perftest's MB/sec is MiB/s (1,048,576 bytes); Gb/sec is 1e9 bits
_TO_GBPS = {"MB/sec": 1048576 * 8 / 1e9, "Gb/sec": 1.0}


def detect(head: str) -> bool:
    if ("#bytes" in head or " Test" in head) and _DETECT.search(head) is not None:
        return True
    return any(_failure(line) is not None for _start, line in lines_with(head, _FAIL_GATES))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    tool = device = conn = link = gid_index = None
    gid_zero_seen = False
    columns: list[str] | None = None
    for n, line in enumerate(artefact.lines, 1):
        if m := _TITLE.match(line):
            op = _TOOL.get(m["op"], "atomic")
            tool = f"ib_{op}_{'bw' if m['kind'] == 'BW' else 'lat'}" + ("_bidir" if m["bidir"] else "")
            device = conn = link = gid_index = None
            columns = None
            result.lines_used += 1
            continue
        if (m := _DEVICE.search(line)) and tool:
            device = m["dev"]
        if (m := _CONN.match(line)) and tool:
            conn = m["conn"]
        if (m := _LINK.match(line)) and tool:
            link = m["link"]
        if (m := _GID_INDEX.match(line)) and tool:
            gid_index = int(m["index"])
        # the local address's GID all zeros on a RoCE link: once a run (both sides of a pasted pair print it)
        if link == "Ethernet" and not gid_zero_seen and n > 1 and _GID_ZERO.match(line) and _LOCAL_ADDRESS.match(artefact.lines[n - 2]):
            gid_zero_seen = True
            result.lines_used += 1
            fb.add(PerftestLocalGidZero, n, device=device, gid_index=gid_index)
        if m := _HEADER.match(line):
            columns = _COLUMN.findall(m["rest"])
            result.lines_used += 1
            if tool is None:  # rows pasted without the title: the header says bandwidth or latency
                tool = "ib_bw" if columns and columns[0].startswith("BW") else "ib_lat"
            continue
        if columns is None or not (m := _ROW.match(line)):
            continue
        values = [float(v) for v in m["rest"].split()]
        if len(values) < len(columns):
            fb.error(n, f"perftest row with {len(values)} numbers after #bytes and #iterations, its header names {len(columns)}")
            continue
        result.lines_used += 1
        row = dict(zip(columns, values))
        common = dict(benchmark="perftest", test=tool or "perftest", entity=device or "hca", size_bytes=int(m["bytes"]),
                      detail="; ".join(x for x in (f"connection {conn}" if conn else None, f"link {link}" if link else None,
                                                   f"{m['iters']} iterations") if x))
        avg = next((k for k in row if k.startswith("BW average")), None)
        if avg is not None:
            unit = avg[avg.index("[") + 1:-1]
            fb.add(BenchResult, n, metric="bw_average", value=round(row[avg] * _TO_GBPS.get(unit, 1.0), 4), unit="Gbit/s", **common)
            if "MsgRate[Mpps]" in row:
                fb.add(BenchResult, n, metric="msg_rate", value=row["MsgRate[Mpps]"], unit="Mpps", **common)
        for col, metric in (("t_typical[usec]", "t_typical"), ("t_avg[usec]", "t_avg"), ("99% percentile[usec]", "t_p99")):
            if col in row:
                fb.add(BenchResult, n, metric=metric, value=row[col], unit="usec", higher_is_better=False, **common)
    _failures(artefact, fb, result)
    return result


# perftest's own failure lines (linux-rdma/perftest src/perftest_communication.c, perftest_resources.c; fprintf(stderr),
# some with a leading space), each with the stage it stops in:
#  Couldn't connect to 192.168.1.2:18515          (the client's TCP connect to the server's side channel)
#  Unable to init the socket connection           (what main() says after it, or after the server's accept)
#  Couldn't allocate MR                            (openucx/ucx#8702: ib_write_bw on a node whose memory registration failed)
#  Failed to modify QP 0 to RTR
#  Completion with error at client
#  Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81      (later releases: the status's name; before: " Failed status 12: wr_id 0 syndrom 0x81")
_FAIL_STAGES = (
    # ethernet_read_keys: Couldn't read remote address     (perftest's function name first: linux-rdma/perftest#132)
    ("connection", re.compile(r"^\s*(?:\w{1,40}: )?(?:Couldn't connect to (?P<peer>[^\s:]{1,253}:\d{1,5})|Unable to init the socket connection"
                              r"|Unable to set up socket connection|Couldn't listen to port \d{1,5}|Unable to connect \(retries = \d{1,6}\)"
                              r"|Failed to exchange dat[ae] between server and clients|Couldn't read remote address"
                              r"|Unable to (?:read|write) (?:to|from) socket/rdma_cm"
                              r"|Unable to open file descriptor for socket connection|Problem in resolving basic address and port"
                              # -R (RDMA CM): rdma_cm_event_error_handler's "RDMA CM event error:\nEvent: %s; error: %d.",
                              # rdma_event_str()'s name (REJECTED, UNREACHABLE, ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR),
                              # and the failures of the CM calls around it (linux-rdma/perftest#54: REJECTED, -111)
                              r"|Event: RDMA_CM_EVENT_[A-Z_]{1,30}; error: -?\d{1,6}|Failed to (?:resolve RDMA CM address|get RDMA CM event))\b")),
    # ctx_find_dev when ibv_get_device_list finds none, and main() after it (src/perftest_resources.c /
    # perftest_parameters.c: fprintf(stderr," Did not detect devices \n"); fprintf(stderr," If device exists, check if
    # driver is up\n"); then fprintf(stderr," Unable to find the Infiniband/RoCE device\n"); k8snetworkplumbingwg/sriov-cni#348):
    #  Did not detect devices
    #  If device exists, check if driver is up
    #  Unable to find the Infiniband/RoCE device
    ("device", re.compile(r"^\s*(?:IB device \S{1,64} not found|No IB devices found|Port number \d{1,3} state is \S{1,32}"
                          r"|Couldn't get context for the device|Unable to query port \d{1,3} attributes"
                          r"|Did not detect devices|Unable to find the Infiniband/RoCE device)")),
    ("resources", re.compile(r"^\s*(?:Couldn't allocate MR(?: with error=-?\d{1,6})?|failed to create mr|Failed to create MR"
                             r"|Couldn't create IB resources|Couldn't create (?:QP|CQ|SRQ|a receiver CQ|rdma (?:new|old) QP)\b)")),
    ("qp_transition", re.compile(r"^\s*(?:Failed to modify QP (?:\d{1,6} )?to (?:RTR|RTS|INIT)\b|Unable to Connect the HCA's through the link)")),
    # Poll send CQ error status=12 qp 0                  (run_iter_bw / run_iter_bw_server / run_iter_bi: a send completion
    #                                                      with other than IBV_WC_SUCCESS; later releases add " credit=N scredit=N")
    # Bad wc status -- 5 -- 0                            (the RDMA CM data exchange of -R: rdma_read_keys, ctx_xchg_data_rdma;
    #  Bad wc status 12                                   rdma_write_keys; create_ah_from_wc_recv: "when trying to create AH -- %d -- %d")
    # Failed status transport retry counter exceeded (12) for wr_id 2     (rdma-core's example programs ibv_rc_pingpong,
    #                                                      ibv_uc/ud/srq/xsrq_pingpong, libibverbs/examples/*_pingpong.c:
    #                                                      "Failed status %s (%d) for wr_id %d\n", ibv_wc_status_str; linux-rdma/opensm#38)
    ("completion", re.compile(r"^\s*(?:Completion with error at (?P<side>client|server)\b"
                              r"|Failed status (?P<pp_name>[a-zA-Z][^\n(]{0,60}?) \((?P<pp>\d{1,3})\) for wr_id -?\d{1,20}"
                              r"|Poll send CQ error status=(?P<poll>\d{1,3}) qp \d{1,10}"
                              r"|Bad wc status(?: when trying to create AH)?(?: -- (?P<wc>-?\d{1,3}) -- -?\d{1,20}| (?P<wc1>-?\d{1,3}))\b)")),
)
_FAIL_GATES = ("Couldn't ", "Unable to ", "Failed to ", "failed to create mr", "IB device ", "No IB devices", "Port number ", "Did not detect devices",
               "Completion with error at", "Failed status ", "Problem in resolving", "Event: RDMA_CM_EVENT_", "Poll send CQ error", "Bad wc status")
#  Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81     /   Failed status 12: wr_id 0 syndrom 0x81
_FAIL_STATUS = re.compile(r"\s*Failed status(?:-(?P<name>[^\n(]{1,60}?) \((?P<num>\d{1,3})\)| (?P<num0>\d{1,3})): wr_id \d{1,20} "
                          r"syndrom 0x(?P<synd>[0-9a-fA-F]{1,8})")

# parse WC failed 1                                     (libibverbs/examples/rc_pingpong.c: fprintf(stderr, "parse WC failed %d\n", ne),
#                                                        after the "Failed status" line of the same completion; linux-rdma/opensm#38)
_PARSE_WC = re.compile(r"^\s*parse WC failed -?\d{1,10}\s*$")


#  If device exists, check if driver is up             (ctx_find_dev, after " Did not detect devices"; sriov-cni#348)
_DRIVER_UP = re.compile(r"^\s*If device exists, check if driver is up\s*$")


def _failure(line: str) -> tuple[str, re.Match[str]] | None:
    return next(((stage, m) for stage, rx in _FAIL_STAGES if (m := rx.match(line)) is not None), None)


# perftest's buffer in GPU memory (--use_cuda / --use_rocm / --use_musa), printed before the memory region is registered:
#  cuMemAlloc() of a 262144 bytes GPU buffer                                      (perftest <= 4.4: perftest_resources.c; linux-rdma/perftest#126)
#  allocated GPU buffer address at 0000010013000000 pointer=0x10013000000         (same; linux-rdma/perftest#126)
#  allocated GPU buffer of a 16777216 address at 0x594ca786d9b0 for type CUDA_MEM_DEVICE   (src/cuda_memory.c; linux-rdma/perftest#346)
#  allocated 2097152 bytes of GPU buffer at 0x7f2c00000000                        (src/rocm_memory.c "allocated %lu bytes of GPU buffer at %p", format filled)
#  using DMA-BUF for GPU buffer address at 0x7f... aligned at 0x7f... with aligned size 2097152   (cuda/rocm/musa_memory.c, format filled)
_GPU_BUFFER = re.compile(r"^\s*(?:cuMemAlloc\(\) of a \d{1,20} bytes GPU buffer|allocated (?:GPU buffer (?:address at|of a \d{1,20} address at)"
                         r"|\d{1,20} bytes of GPU buffer at)|(?P<dmabuf>using DMA-BUF for GPU buffer address at))")


def _gpu_buffer_lines(artefact: Artefact) -> tuple[int | None, int | None]:
    """The first line that shows perftest's buffer in GPU memory, and the first that shows it registered by DMA-BUF."""
    gpu = dmabuf = None
    for n, line in iter_lines_with(("GPU buffer",), artefact):
        if (m := _GPU_BUFFER.match(line)) is None:
            continue
        gpu = n if gpu is None else gpu
        if m["dmabuf"] and dmabuf is None:
            dmabuf = n
    return gpu, dmabuf


#  local address: LID 0000 QPN 0x00da PSN 0x416f84 RKey 0x1804c1 VAddr 0x007f8de93fe000
#  GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00
#   (Mellanox/k8s-rdma-shared-dev-plugin#112, #72; Mellanox/network-operator#222: ib_write_bw between two pods, Link type
#   Ethernet, GID index 0; perftest_communication.c prints the GID under each address on a RoCE link, then "Failed to
#   modify QP 218 to RTR"): the local GID all zeros is an empty GID table entry at that index
_LOCAL_ADDRESS = re.compile(r"^\s*local address: LID ")
_GID_ZERO = re.compile(r"^\s*GID: 00(?::00){15}\s*$")


def _local_gid_zero(lines: list[str], n: int) -> bool:
    """Whether the last " local address:" block before line ``n`` (1-based) printed an all-zero GID under it."""
    for k in range(n - 2, max(-1, n - 40), -1):
        if _LOCAL_ADDRESS.match(lines[k]):
            return k + 1 < len(lines) and _GID_ZERO.match(lines[k + 1]) is not None
    return False


def _failures(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    lines = artefact.lines
    gpu_at = dmabuf_at = None
    if "GPU buffer" in artefact.text:
        gpu_at, dmabuf_at = _gpu_buffer_lines(artefact)
    for n, line in iter_lines_with(_FAIL_GATES, artefact):
        got = _failure(line)
        if got is None:
            continue
        stage, m = got
        result.lines_used += 1
        fields = m.groupdict()
        status = name = synd = None
        message = line.strip()
        if stage == "device" and n < len(lines) and _DRIVER_UP.match(lines[n]):
            # ctx_find_dev's advice after "Did not detect devices": the same failure
            result.lines_used += 1
            message = f"{message} / {lines[n].strip()}"
        elif stage == "completion" and fields.get("pp") is not None:
            status, name = int(fields["pp"]), fields["pp_name"]
            # the example program's "parse WC failed %d" after the status line: the same completion
            if n < len(lines) and _PARSE_WC.match(lines[n]):
                result.lines_used += 1
                message = f"{message} / {lines[n].strip()}"
        elif stage == "completion":
            # the status on the next line, or on this one where a paste ran the two together (GitHub text outside
            # a code block: " Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 scnt=128, ccnt=0")
            s = _FAIL_STATUS.search(line, m.end())
            if s is None and n < len(lines) and (s := _FAIL_STATUS.match(lines[n])) is not None:
                result.lines_used += 1
                message = f"{message} / {lines[n].strip()}"
            if s is not None:
                status, name, synd = int(s["num"] or s["num0"]), s["name"], int(s["synd"], 16)
            elif (code := fields.get("poll") or fields.get("wc") or fields.get("wc1")) is not None:
                status = int(code)
        gpu = stage == "resources" and gpu_at is not None and gpu_at < n
        fb.add(PerftestFailure, n, stage=stage, message=message[:200], peer=fields.get("peer"), side=fields.get("side"),
               status=status, status_name=name, syndrome=synd, gpu_buffer=gpu,
               dmabuf=gpu and dmabuf_at is not None and dmabuf_at < n,
               gid_zero=stage == "qp_transition" and "GID: 00" in artefact.text and _local_gid_zero(lines, n))


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, r"(?m)^\s*(?:Couldn't connect to [^\s:]+:\d+|Unable to init the socket connection|Couldn't allocate MR"
              r"|failed to create mr|Failed to create MR|Couldn't create IB resources|Failed to modify QP (?:\d+ )?to (?:RTR|RTS|INIT)"
              r"|Completion with error at (?:client|server)|Failed status [a-zA-Z][^\n(]{0,60}? \(\d+\) for wr_id |Poll send CQ error status=\d+ qp |Bad wc status(?: when trying to create AH)? (?:-- )?-?\d|IB device \S+ not found|No IB devices found|Port number \d+ state is "
              r"|Couldn't get context for the device|Did not detect devices|Unable to find the Infiniband/RoCE device"
              r"|Failed to exchange dat[ae] between server and clients|Couldn't listen to port \d+"
              r"|Unable to connect \(retries = \d+\)|\w+: Couldn't read remote address|Unable to (?:read|write) (?:to|from) socket/rdma_cm"
              r"|Unable to Connect the HCA's through the link|Event: RDMA_CM_EVENT_[A-Z_]+; error: -?\d+"
              r"|Failed to (?:resolve RDMA CM address|get RDMA CM event))")
