"""``nvidia-smi nvlink -s`` (``--status``): each NVLink link of each GPU, its speed or ``<inactive>``;
``nvidia-smi nvlink -e``: each link's replay, recovery and CRC error counters.

Sample content (two bridged H100 PCIe, HPE-Japan-Presales/e-learning gpu/h100/mgmt_gpu_on_dl380agen11.md;
the line a GPU without any active link prints, NVIDIA/open-gpu-kernel-modules#1150)::

    root@dl380ag11:~# nvidia-smi nvlink -s
    GPU 0: NVIDIA H100 PCIe (UUID: GPU-6968dfc2-d444-d92c-c36b-6abe53445cb9)
             Link 0: 26.562 GB/s
             Link 4: <inactive>
    NVML:Unable to retrieve Nvlink information as all links are inActive

and ``-e`` (stas00/ml-engineering compute/accelerator/nvidia/debug.md, an H100 SXM with the UUID
masked)::

    GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-abcdefab-cdef-abdc-abcd-abababababab)
             Link 0: Replay Errors: 0
             Link 0: Recovery Errors: 0
             Link 0: CRC Errors: 0

Facts emitted: ``nvlink_error_count`` per counter line (``gpu`` and header fields as below,
``link``, ``counter`` replay | recovery | crc, ``value``: one reading, counted since the last
driver load or counter reset); ``nvlink_link_state`` per link line (``gpu`` "GPU0", ``gpu_index``, ``gpu_name`` and
``gpu_uuid`` from the ``GPU N: name (UUID: ...)`` header above it, ``link``, ``state`` active |
inactive, ``speed_gbps``, ``gpu_active_links``: how many links of that GPU the listing shows
active, ``expected``: what knowledge/nvlink_expected.yaml says this product
does with the link: ``wired`` (an SXM board wires every link), ``bridge`` (wired through an
NVLink bridge, inactive without one), ``unwired`` (never active on this board), None when the
product is not named or not listed), and one with ``link`` None and ``all_links`` for the
"all links are inActive" line. Link lines before any GPU header keep ``gpu`` None. ``elided`` (on both kinds):
the listing does not show all of that GPU's links (its active count is a lower bound): a line of the poster's
marking lines left out (``......``, ``[...]``) stands among them, or the paste stops inside the list. A GPU's list
is shown to its end when a line of another kind follows its last link (the next GPU's header, a prompt) or, where
the paste ends at a link line, when it shows as many link lines, up to the same link, as a GPU of the same product
shown to its end before it (nvidia-smi lists every link of the chip: 18 on each H200 of
fixtures/observations/h200-x2). A fragment ending at ``Link 4`` of an A100's twelve (harvest 155) is elided. A link line
whose state is neither a speed nor ``<inactive>`` is a parse error. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.gpu import (  # noqa: F401 - the fact classes live in facts/kinds
    NvlinkErrorCount, NvlinkLinkState,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_smi_nvlink"

# GPU 0: NVIDIA H100 PCIe (UUID: GPU-6968dfc2-d444-d92c-c36b-6abe53445cb9)
# GPU 3: Tesla V100-SXM2-32GB (UUID: ...)
_GPU = re.compile(r"^\s*GPU (?P<index>\d+): (?P<name>[^()\n]+?)\s*(?:\(UUID: (?P<uuid>[^)\s]*)\))?\s*$")
#          Link 0: 26.562 GB/s
#          Link 4: <inactive>
_LINK = re.compile(r"^\s*Link (?P<link>\d+): (?P<state>\S(?:.*\S)?)\s*$")
_SPEED = re.compile(r"^(?P<gbps>\d+(?:\.\d+)?) GB/s$")
#          Link 0: Replay Errors: 0            Link 0: Recovery Errors: 0            Link 0: CRC Errors: 0
_COUNTER = re.compile(r"^(?P<name>Replay|Recovery|CRC) Errors: (?P<value>\S+)$")
# NVML:Unable to retrieve Nvlink information as all links are inActive
_ALL_INACTIVE = re.compile(r"Unable to retrieve Nvlink information as all links are inActive", re.I)
# a poster's mark of lines left out, alone on its line: '......' after GPU 2's first link (NVIDIA/nccl-tests#228),
# '         [...]' between an H100's links 1 and 17 (stas00/ml-engineering compute/accelerator/nvidia/debug.md)
_ELIDED = re.compile(r"^\s*(?:\.{3,}|\u2026+|\[(?:\.{3}|\u2026)\])\s*$")
_DETECT = re.compile(r"^\s*Link \d+: (?:<inactive>|\d+(?:\.\d+)? GB/s|(?:Replay|Recovery|CRC) Errors: \d+)\s*$|" + _ALL_INACTIVE.pattern, re.M | re.I)


def _products() -> list[knowledge.NvlinkProduct]:
    return knowledge.load("nvlink_expected.yaml").products


def expected(name: str | None, link: int | None) -> str | None:
    """What the product named ``name`` does with ``link`` (knowledge/nvlink_expected.yaml)."""
    if not name:
        return None
    low = name.lower()
    for p in _products():
        if p.match.lower() in low:
            if p.form == "sxm":
                return "wired"
            wired = p.wired_links
            return "unwired" if wired is not None and link is not None and link not in wired else "bridge"
    return None


def detect(head: str) -> bool:
    if not ("Link " in head or "all links are inActive" in head):
        return False
    return _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    gpu: dict = {}
    block: list[tuple[int, type, dict]] = []  # the current GPU's link lines: emitted with its active count
    elided = [False, 0]  # the current GPU's links were cut by the poster (an elision line among them), and that line
    ended = [False]  # a line of another kind follows the current GPU's last link: its list is shown to its end
    whole: dict[str | None, tuple[int, int]] = {}  # product -> (last link, link lines) of a GPU shown to its end

    def flush(at_end: bool = False) -> None:
        shape = (max((f.get("link") or 0 for _, _, f in block), default=0), len(block))
        cut = at_end and not ended[0] and whole.get(gpu.get("gpu_name")) != shape
        if block and not cut and not elided[0] and gpu:
            whole.setdefault(gpu.get("gpu_name"), shape)
        if block and gpu and (elided[0] or cut):  # the GPUs and links not shown were not checked: never a healthy verdict
            last = max(ln for ln, _, _ in block)
            b.limit(elided[1] or last, "cut_short", (
                f"nvidia-smi nvlink lists {gpu['gpu']}'s links with lines left out (line {elided[1]}): its links and the GPUs "
                f"not shown were not checked" if elided[0] else
                f"nvidia-smi nvlink's listing stops after {gpu['gpu']}'s Link {block[-1][2].get('link')} (line {last}): "
                f"its other links and any GPU after it were not shown"))
        active = sum(1 for _, cls, f in block if cls is NvlinkLinkState and f["state"] == "active")
        for ln, cls, f in block:
            extra = {"gpu_active_links": active} if cls is NvlinkLinkState else {}
            b.add(cls, ln, elided=elided[0] or cut, **extra, **f)
        block.clear()
        elided[0] = ended[0] = False
        elided[1] = 0

    for n, line in enumerate(artefact.lines, 1):
        if "GPU " in line and (g := _GPU.match(line)) is not None:
            ended[0] = True
            flush()
            gpu = dict(gpu=f"GPU{g['index']}", gpu_index=int(g["index"]), gpu_name=g["name"].strip(),
                       gpu_uuid=g["uuid"] or None)
            result.lines_used += 1
            continue
        if _ALL_INACTIVE.search(line):
            block.append((n, NvlinkLinkState, dict(link=None, all_links=True, state="inactive",
                                                   expected=expected(gpu.get("gpu_name"), None), **gpu)))
            ended[0] = False
            result.lines_used += 1
            continue
        if "Link " not in line or (m := _LINK.match(line)) is None:
            if ("." in line or "\u2026" in line) and _ELIDED.match(line):
                elided[0] = True
                elided[1] = elided[1] or n
            elif line.strip() and block:
                ended[0] = True  # the command's output went on past this GPU's links (a prompt, another output)
            continue
        raw, link = m["state"], int(m["link"])
        if raw == "<inactive>":
            state, speed = "inactive", None
        elif (s := _SPEED.match(raw)) is not None:
            state, speed = "active", float(s["gbps"])
        elif (c := _COUNTER.match(raw)) is not None:
            if not c["value"].isdecimal():
                b.error(n, f"NVLink {link} {c['name']} Errors that is not a count: {c['value']!r}")
                continue
            block.append((n, NvlinkErrorCount, dict(link=link, counter=c["name"].lower(), value=int(c["value"]), **gpu)))
            ended[0] = False
            result.lines_used += 1
            continue
        elif ":" in raw or "Remote" in raw:
            continue  # another nvlink sub-command's line (-e counters, -R remote ends, -c capabilities)
        else:
            b.error(n, f"NVLink {link} with a state that is neither a speed nor <inactive>: {raw!r}")
            continue
        block.append((n, NvlinkLinkState, dict(link=link, state=state, speed_gbps=speed,
                                               expected=expected(gpu.get("gpu_name"), link), **gpu)))
        ended[0] = False
        result.lines_used += 1
    flush(at_end=True)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
