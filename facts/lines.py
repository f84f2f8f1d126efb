"""Line normalisation: the wrappers that pasting, launchers and log shippers put around lines.

People paste logs into tickets and threads, launchers label every line with its rank, and log
shippers stamp every line with their own time. None of that belongs to the artefact's format,
so it is stripped before any parser looks at a line. Format-specific prefixes (syslog,
journald, Talos, ``dmesg -T``, NCCL's ``host:pid:tid [dev]``, torchrun's ``[rank3]:`` and
``[default0]:``, which carry a host or a rank) are left to the parser that owns the format.

Stripping keeps one line for one line, so line numbers do not move: a parser reads the
normalised text and its evidence quotes the original line (``Artefact.raw_line``).

Wrappers, each with a real sample:

- markdown quoting ``> `` (GitHub and mail replies), possibly nested::

      > [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer

- a code-fence line (dropped) or a line wrapped in backticks or a one-line fence (unwrapped)::

      ```docker run --gpus all --rm -it video-diffusion /bin/bash```
      `init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.`
      `ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-`

- Open MPI's ``--tag-output``: ``[1,3]<stdout>:node2:1234:1290 [3] NCCL INFO ...``
- Slurm's ``srun -l`` label: ``10: torch.distributed.DistBackendError: NCCL error in: ...``
- container runtimes: CRI log files (``/var/log/pods``) and ``docker logs -t`` / ``kubectl logs
  --timestamps`` stamp each line with an RFC 3339 time in UTC (``Z``)::

      2024-05-01T12:00:00.123456789Z stdout F gpu-operator-validator: Failed to initialize NVML
      2023-09-12T08:14:05.000000001Z I0912 08:14:05.123 1 main.go:154] Starting FS watcher.

  A time followed by a syslog host and tag (``2024-05-01T12:00:00Z node1 kernel: ...``,
  journald's ``short-iso``) is journald's, not a container's: it is left to the kernel log.
- links a rich-text paste leaves inside a line, where the link's text is its own address
  (GitHub turns ``net_ib.cc:101`` and ``10.1.3.201`` into links when a rendered page is
  copied back into an issue): the text stays, the address goes::

      node201:127799:127863 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error
"""
from __future__ import annotations

import re

# ```bash   /   ```   /   ```docker run --gpus all --rm -it video-diffusion /bin/bash```
_FENCE = re.compile(r"\n[ \t]*```(?P<body>[^\n]*?)[ \t]*(?=\n)")
# `ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-`
_TICKS = re.compile(r"\n[ \t]*`(?P<body>[^`\n]+)`[ \t]*(?=\n)")
# > [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>
_QUOTE = re.compile(r"\n(?:[ \t]{0,3}>(?:[ \t]|(?=\n)))+")
# [1,3]<stdout>:node2:1234:1290 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via P2P/CUMEM
_MPIRUN = re.compile(r"\n\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:[ \t]?")
# 10: torch.distributed.DistBackendError: NCCL error in: .../ProcessGroupNCCL.cpp:1331, unhandled system error
# (not ``ip addr``'s "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536", whose number is the interface's)
_SRUN = re.compile(r"\n\d{1,5}: (?=\S)(?![\w.@-]+: <)")
# 2024-05-01T12:00:00.123456789Z stdout F gpu-operator-validator: Failed to initialize NVML
# 2023-09-12T08:14:05.000000001Z I0912 08:14:05.123 1 main.go:154] Starting FS watcher.
_CONTAINER_TS = re.compile(
    r"\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z[ \t]+(?:(?:stdout|stderr)[ \t]+[FP][ \t]+)?"
    r"(?![A-Za-z0-9][\w.-]* [\w./-]+(?:\[\d+\])?: )",  # "node1 kernel: ..." is journald's: kept
)

# transport/[net_ib.cc:101](http://net_ib.cc:101/)     peer [10.1.3.201](http://10.1.3.201/)<33057>   (nccl#1710)
_AUTOLINK = re.compile(r"\[(?P<text>[^\]\n]{1,200})\]\(https?://(?P=text)/?\)")

#: literal gates: a text holding none of these has no wrapper, and is returned as it is
_GATES = ("`", ">", "]<std", ": ", "Z ")
#: one scan that says whether any line starts like a wrapper (most files: none, and no more work)
_ANY = re.compile(r"\n(?:[ \t]{0,3}>|[ \t]*`|\[\d+,\d+\]<|\d{1,5}: |\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)")


def _fence(m: re.Match[str]) -> str:
    body = m["body"]
    if body.endswith("```"):
        return "\n" + body[:-3].rstrip()
    # an opening or closing fence carries at most a language tag
    return "\n" if re.fullmatch(r"[\w+.-]{0,20}", body) else "\n" + body


def normalise(text: str) -> str:
    """``text`` with the wrappers above stripped from each line, line for line.

    The same string object comes back when nothing was stripped, so callers can test
    ``is`` to know whether the text changed."""
    original = text
    if "](http" in text:  # links inside lines, whatever the line starts with
        text = _AUTOLINK.sub(r"\g<text>", text)
    if not any(g in text for g in _GATES):
        return text
    # every pattern starts with the newline before its line (a literal: the regex engine skips
    # ahead to it), so the text gets one in front and loses it at the end
    out = "\n" + text + "\n"
    if _ANY.search(out) is None:
        return text  # (the links above stripped, if any)
    for _ in range(3):  # wrappers nest: a quoted fence line, a labelled quoted line
        before = out
        if "\n>" in out or "\n " in out or "\n\t" in out:
            out = _QUOTE.sub("\n", out)
        if "```" in out:
            out = _FENCE.sub(_fence, out)
        if "`" in out:
            out = _TICKS.sub("\n\\g<body>", out)
        if "]<std" in out:
            out = _MPIRUN.sub("\n", out)
        if ": " in out:
            out = _SRUN.sub("\n", out)
        if "Z " in out or "Z\t" in out:
            out = _CONTAINER_TS.sub("\n", out)
        if out == before:
            break
    out = out[1:-1]
    return original if out == original else out
