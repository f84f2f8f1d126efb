"""``ibv_devinfo`` and ``ibv_devinfo -v`` (rdma-core libibverbs/examples/devinfo.c): each RDMA
device, its ports' state, link layer, LIDs, and with ``-v`` the active width and speed and the
GID table.

Sample content (NVIDIA/nccl#426, a RoCE bond on ConnectX-5; the ``-v`` port lines from
Mellanox/k8s-rdma-shared-dev-plugin#164)::

    hca_id:	mlx5_bond_0
    	transport:			InfiniBand (0)
    	fw_ver:				16.28.2006
    	node_guid:			0c42:a103:0023:ac92
    	vendor_part_id:			4119
    	phys_port_cnt:			1
    		port:	1
    			state:			PORT_ACTIVE (4)
    			max_mtu:		4096 (5)
    			active_mtu:		1024 (3)
    			sm_lid:			0
    			port_lid:		0
    			link_layer:		Ethernet
                        active_width:           1X (1)
                        active_speed:           25.0 Gbps (32)
                        phys_state:             LINK_UP (5)
                        GID[ 15]:               0000:0000:0000:0000:0000:ffff:c0a8:0606

A fragment is read from any of its port lines: ``state: PORT_ACTIVE (4)`` with no ``hca_id:``
above it belongs to an unnamed device (``unnamed1``). ``No IB devices found`` (the whole output
when there is none, or none visible in the container) gives ``ib_no_hca``, and so does
``Failed to get IB devices list: Function not implemented`` (libibverbs found no kernel verbs
interface: ib_uverbs not loaded, the RDMA stack stopped).

Facts: ``ib_hca`` per ``hca_id:`` (firmware, node GUID, port count), ``ib_port`` per ``port:``
block (``source: ibv_devinfo``; evidence: its ``state:`` line; rate = lanes x lane speed when
``-v`` printed them), ``ib_gid`` per ``GID[ n]:`` line. Capability lines of ``-v`` (max_qp,
max_mr_size, ...) count as read. A ``state:`` value that is not ``PORT_<NAME> (n)`` is a parse error, a
port block without state lines too, except where the text ends at its ``port:`` line (a cut paste:
a ``cut_short`` limit: devinfo.c prints a port's ``port:`` and ``state:`` lines together).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import IbGid  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import PHYS_STATES, STATES, IbHca, IbNoHca, IbPort, port_id

KIND = "ibv_devinfo"

# hca_id:	mlx5_bond_0
_HCA = re.compile(r"^\s*hca_id:\s+(?P<hca>\S+)\s*$")
# 		port:	1
_PORT = re.compile(r"^\s*port:\s+(?P<port>\d+)\s*$")
# 			state:			PORT_ACTIVE (4)        phys_state:		LINK_UP (5)       fw_ver:	16.28.2006
_FIELD = re.compile(r"^\s*(?P<key>[a-z_]+):\s*(?P<value>(?:.*\S)?)\s*$")
# 			GID[  3]:		::ffff:192.168.1.10, RoCE v2
# 			**GID[ 14]:		0000:0000:0000:0000:0000:ffff:c0a8:0606      (k8s-rdma-shared-dev-plugin#164, markdown residue as posted)
# rdma-core >= 28 appends the type (rdma-core#682): "GID[%3d]:\t\t%s, %s" with "RoCE v2" or "IB/RoCE v1"
_GID = re.compile(r"^\s*(?:\*\*)?GID\[\s*(?P<index>\d+)\]:\s+(?P<gid>[0-9a-fA-F:.]+)(?:, (?P<ver>RoCE v2|IB/RoCE v1|RoCE v1|IB))?\s*$")
# PORT_ACTIVE (4)      LINK_UP (5)      4X (2)      25.0 Gbps (32)
_ENUM = re.compile(r"^(?P<name>(?:.*?\S)??)\s*\((?P<num>\d+)\)$")  # name ends on a non-space: linear in a run of blanks
_SPEED = re.compile(r"^(?P<gbps>\d+(?:\.\d+)?) Gbps")
_NONE = re.compile(r"^\s*No IB devices found\s*$")
# a heading some ibv_devinfo builds print between a device's attributes and its first port (the public rdma-core
# devinfo.c has none; real, openucx/ucx#2534, ConnectX-4/-5 on firmware 12.20 / 14.17, 2018):
# 	phys_port_cnt:			1
# 	Device ports:
# 		port:	1
_DEVICE_PORTS = re.compile(r"^\s*Device ports:\s*$")
# Failed to get IB devices list: Function not implemented
#   rdma-core libibverbs/examples/devinfo.c: perror("Failed to get IB devices list") when ibv_get_device_list() returns
#   NULL (perror's "<msg>: <strerror(errno)>", strerror(ENOSYS) "Function not implemented"); libibverbs
#   sets ENOSYS where the kernel's verbs interface is absent (ib_uverbs not loaded: no /sys/class/infiniband_verbs)
_LIST_FAILED = re.compile(r"^\s*Failed to get IB devices list: (?P<why>[A-Za-z](?:[^\n]{0,78}\S)?)\s*$")

_HCA_KEYS = frozenset({"transport", "fw_ver", "node_guid", "sys_image_guid", "vendor_id", "vendor_part_id", "hw_ver",
                       "board_id", "phys_port_cnt"})
_PORT_KEYS = frozenset({"state", "max_mtu", "active_mtu", "sm_lid", "port_lid", "port_lmc", "link_layer", "active_width",
                        "active_speed", "phys_state", "max_msg_sz", "port_cap_flags", "port_cap_flags2", "max_vl_num",
                        "bad_pkey_cntr", "qkey_viol_cntr", "sm_sl", "pkey_tbl_len", "gid_tbl_len", "subnet_timeout",
                        "init_type_reply", "effective_speed"})

_DETECT = re.compile(
    r"^\s*hca_id:\s+\S+\s*$|^\s*state:\s+PORT_[A-Z_]+ \(\d\)|^\s*phys_state:\s+[A-Z_]+ \(\d\)|^\s*No IB devices found\s*$"
    r"|^\s*Failed to get IB devices list: [A-Za-z]",
    re.M,
)


_HEX4 = re.compile(r"[0-9a-fA-F]{1,4}")


def ipv4_of(gid: str) -> str | None:
    """``::ffff:192.168.1.10`` or ``0000:...:ffff:c0a8:010a`` -> ``192.168.1.10``."""
    if m := re.match(r"^(?:0{1,4}:){0,5}:?ffff:(?P<a>\d{1,3}(?:\.\d{1,3}){3})$", gid):
        return m["a"]
    parts = gid.split(":")
    if (len(parts) == 8 and all(p in ("0", "0000") for p in parts[:5]) and parts[5].lower() == "ffff"
            and all(_HEX4.fullmatch(p) for p in parts[6:])):
        v = int(parts[6], 16) << 16 | int(parts[7], 16)
        return ".".join(str(v >> s & 255) for s in (24, 16, 8, 0))
    return None


def detect(head: str) -> bool:
    if "hca_id:" not in head and "PORT_" not in head and "phys_state:" not in head and "No IB devices" not in head \
            and "IB devices list" not in head:
        return False
    return _DETECT.search(head) is not None


def _enum(value: str) -> tuple[str, int | None]:
    m = _ENUM.match(value)
    return (m["name"], int(m["num"])) if m else (value, None)


def _int(value: str | None) -> int | None:
    try:
        return int(value, 0) if value else None
    except ValueError:
        return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    hca: str | None = None
    hca_line = 0
    hca_fields: dict[str, str] = {}
    port: dict[str, str] | None = None
    port_num = port_line = state_line = 0
    unnamed = 0

    def flush_port() -> None:
        nonlocal port
        if port is None or hca is None:
            port = None
            return
        if "state" not in port:
            if not port and port_line == last_line:
                # devinfo.c prints a port's "port:" line and its "state:" line together
                # (print_hca_cap): a text that ends at the port line was cut there
                fb.limit(port_line, "cut_short", f"ibv_devinfo: the text ends at port {port_num} of {hca}, "
                                                 "before its state line (cut): that port's state is not known")
            elif "phys_state" not in port:
                fb.error(port_line, f"ibv_devinfo: port {port_num} of {hca} has no state line")
            port = None
            return
        name, num = _enum(port["state"])
        state = STATES.get(num) if num is not None else None
        if state is None:
            fb.error(state_line, f"ibv_devinfo: port state {port['state']!r} is not PORT_<NAME> (n)")
            port = None
            return
        phys = None
        if "phys_state" in port:
            pname, pnum = _enum(port["phys_state"])
            phys = PHYS_STATES.get(pnum, pname) if pnum is not None else pname
        width, rate = None, None
        if "active_width" in port:
            width = _enum(port["active_width"])[0] or None
            lanes = _int(width[:-1]) if width and width.endswith("X") else None
            speed = _SPEED.match(port.get("active_speed", ""))
            rate = lanes * float(speed["gbps"]) if lanes and speed else None
        fb.add(IbPort, state_line, hca=hca, port=port_num, port_id=port_id(artefact.node, hca, port_num), state=state,
               physical_state=phys, rate_gbps=rate, width=width, link_layer=port.get("link_layer") or None,
               lid=_int(port.get("port_lid")), sm_lid=_int(port.get("sm_lid")), source="ibv_devinfo")
        port = None

    def flush_hca() -> None:
        nonlocal hca
        flush_port()
        if hca is not None and hca_line:
            part = hca_fields.get("vendor_part_id")
            fb.add(IbHca, hca_line, hca=hca, ca_type=f"MT{part}" if part and part.isdecimal() and part != "0" else None,
                   firmware=hca_fields.get("fw_ver"), node_guid=hca_fields.get("node_guid"),
                   ports=_int(hca_fields.get("phys_port_cnt")))
        hca = None

    def open_port(n: int, num: int) -> None:
        nonlocal port, port_num, port_line, state_line, hca, hca_line, hca_fields, unnamed
        flush_port()
        if hca is None:  # a port block pasted without its hca_id line
            unnamed += 1
            hca, hca_line, hca_fields = f"unnamed{unnamed}", 0, {}
        port, port_num, port_line, state_line = {}, num, n, n

    last_line = next((i for i in range(len(artefact.lines), 0, -1) if artefact.lines[i - 1].strip()), 0)
    for n, line in enumerate(artefact.lines, 1):
        if m := _HCA.match(line):
            flush_hca()
            hca, hca_line, hca_fields = m["hca"], n, {}
            result.lines_used += 1
            continue
        if m := _PORT.match(line):
            open_port(n, int(m["port"]))
            result.lines_used += 1
            continue
        if _NONE.match(line) or ("IB devices list" in line and _LIST_FAILED.match(line)):
            flush_hca()
            fb.add(IbNoHca, n, source="ibv_devinfo")
            result.lines_used += 1
            continue
        if m := _GID.match(line):
            if port is not None and hca is not None:
                fb.add(IbGid, n, hca=hca, port=port_num, index=int(m["index"]), gid=m["gid"], ipv4=ipv4_of(m["gid"]),
                       version={"RoCE v1": "v1", "IB/RoCE v1": "v1", "RoCE v2": "v2"}.get(m["ver"] or ""), source="ibv_devinfo")
                result.lines_used += 1
            continue
        if hca is not None and "Device ports:" in line and _DEVICE_PORTS.match(line):
            result.lines_used += 1
            continue
        m = _FIELD.match(line)
        key = m["key"] if m else ""
        if key in _PORT_KEYS and (port is not None or key in ("state", "phys_state")):
            if port is None:  # "state: PORT_ACTIVE (4)" with no port line above: port 1 of an unnamed device
                open_port(n, 1)
            if key in port:  # a second state line: the next port of a pasted run of blocks
                open_port(n, port_num + 1)
            port[key] = m["value"]
            if key == "state":
                state_line = n
            result.lines_used += 1
            continue
        if key in _HCA_KEYS and hca is not None:
            flush_port()
            hca_fields[key] = m["value"]
            result.lines_used += 1
            continue
        if m and hca is not None and line[:1].isspace():
            result.lines_used += 1  # -v capability lines (max_qp, atomic_cap, ...)
    flush_hca()
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_DETECT,)
