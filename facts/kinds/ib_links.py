"""InfiniBand fabric links as the infiniband-diags fabric tools report them (iblinkinfo,
ibqueryerrors -r): a port of any switch or CA of the subnet, not a port of the bundle's node."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class IbLinkInfo(Fact):
    """One port line of ``iblinkinfo`` (or the ``Link info:`` line of ``ibqueryerrors -r``, or a
    ``# Port info:`` block of ``ibportstate`` / ``smpquery portinfo``): a fabric port's width, speed
    and state as the subnet's SMPs read them, and its peer.

    ``node_description`` names the switch or CA the port belongs to (``MF0;SB7700:MSB7700/U1``,
    ``n02 HCA-1``), not the bundle's node; ``lane_speed`` is the per-lane signalling rate
    iblinkinfo prints (``25.78125 Gbps``), ``generation`` its name (EDR) and ``rate_gbps`` the
    link's data rate as ibstat prints it (4X EDR: 100). ``could_be_width`` / ``could_be_speed``:
    iblinkinfo's own ``Could be 4X`` / ``Could be 25.78125 Gbps``, printed where both ends support
    more than the link trained to (infiniband-diags ibdiag_common.c get_max_msg); ibportstate says the
    same as ``Peer ports operating at active width 1 rather than 2 (4x)`` (ibportstate.c validate_*)."""

    kind: Literal["ib_link_info"] = "ib_link_info"
    node_type: str | None = None  # Switch | CA | Router (None: a line without its node header)
    node_description: str | None = None
    node_guid: str | None = None
    lid: int
    port: int
    state: str  # Active | Down | Initialize | Armed
    physical_state: str  # LinkUp | Polling | Disabled | ...
    width: str | None = None  # "4X" (None: a Down port, whose width iblinkinfo does not print)
    lane_speed: str | None = None  # "25.78125 Gbps", "10.0 Gbps (FDR10)"
    generation: str | None = None  # SDR DDR QDR FDR10 FDR EDR HDR NDR XDR
    rate_gbps: float | None = None
    peer_lid: int | None = None
    peer_port: int | None = None
    peer_description: str | None = None
    could_be_width: str | None = None
    could_be_speed: str | None = None
    below_capability: bool = False  # either "Could be" was printed
    peer_note: str | None = None  # the last parentheses as printed ("Could be 4X"), None where empty
    switch: str | None = None  # node_description where the port is a switch's (an entity's switch)
    source: Literal["iblinkinfo", "ibqueryerrors", "ibportstate"] = "iblinkinfo"


@fact_kind
class IbDiagToolError(Fact):
    """An infiniband-diags fabric tool's (or its libraries') own error line: it could not open a MAD
    port on the local HCA, gave up (``iberror``), or an SMP it sent into the fabric timed out.

    ``what``: ``open_port`` (libibmad mad_rpc_open_port ``client_register for mgmt 1 failed``,
    libibnetdisc ``can't open MAD port (mlx5_0:1)``, ``Failed to open 'mlx5_0' port '1'``);
    ``tool_failed`` (``perfquery: iberror: failed: <why>``, the tool exited); ``smp_timeout``
    (libibnetdisc query_smp.c ``umad (DR path slid 0; dlid 0; 0,1,10,19 Attr 0x11:0) bad status 110;
    Connection timed out``: no answer from the node at that directed route; another status:
    ``smp_error``)."""

    kind: Literal["ib_diag_tool_error"] = "ib_diag_tool_error"
    what: Literal["open_port", "tool_failed", "smp_timeout", "smp_error"]
    tool: str | None = None  # "perfquery", "ibnetdiscover" (None: a library's line that does not name it)
    message: str
    dr_path: str | None = None  # smp_timeout: the directed route ("0,1,10,19")
    status: int | None = None  # smp_timeout: the umad status (110 = ETIMEDOUT)
