"""A training script refusing the local-rank argument its launcher passes, in any program's output (each worker prints
argparse's usage and error, then the launcher reports the exits), so it is looked for anywhere in a file.

Launchers that start one process per GPU tell each its local rank on its command line unless told not to: DeepSpeed's
(deepspeed/launcher/launch.py: ``cmd.append(f"--local_rank={local_rank}")`` unless ``--no_local_rank``),
torch.distributed.launch (torch/distributed/run.py ``config_from_args``: ``if not use_env:
cmd_args.append(f"--local-rank={macros.local_rank}")``, ``--local_rank=`` before PyTorch 2.0; torchrun never passes it).
A script whose argparse does not declare that spelling stops at once, every worker alike: CPython's argparse
``parse_args`` calls ``self.error(_('unrecognized arguments: %s') % ' '.join(argv))``, printed as ``%(prog)s: error:
%(message)s`` under the usage lines, exit status 2. Sample lines (real)::

    pretrain_gpt.py: error: unrecognized arguments: --local_rank=1    (deepspeedai/Megatron-DeepSpeed#178, the title: its MoE example under the deepspeed launcher)

and, CONSTRUCTED from argparse's format and PyTorch 2.0's launcher argument::

    train.py: error: unrecognized arguments: --local-rank=1

Only the local-rank argument is read (the launcher put it there: a mismatch of launcher and script); any other
unrecognised argument is the user's own command line, not read here.

Facts: ``script_local_rank_rejected`` per line (the program, the spelling passed, its value). Empty input, or no such
line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import ScriptLocalRankRejected  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "script_local_rank_rejected"

# pretrain_gpt.py: error: unrecognized arguments: --local_rank=1               (deepspeedai/Megatron-DeepSpeed#178)
# train.py: error: unrecognized arguments: --local-rank=1                      (CONSTRUCTED: PyTorch 2.0's spelling)
# train.py: error: unrecognized arguments: --foo --local_rank=0                (CONSTRUCTED: argparse joins every leftover)
#   (argparse's prog, a word without blanks, at the line's start; the local-rank argument among the leftovers)
REJECTED = re.compile(
    r"^(?P<prog>[^\s:]{1,200}): error: unrecognized arguments: (?:[^\n]{0,400}? )?(?P<arg>--local[_-]rank)(?:=(?P<val>\d{1,6}))?(?![\w-])",
    re.M)


def detect(head: str) -> bool:
    return "error: unrecognized arguments: " in head and REJECTED.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if "error: unrecognized arguments: " not in artefact.text:
        return result
    for n, m in iter_matches(REJECTED, artefact):
        result.lines_used += 1
        fb.add(ScriptLocalRankRejected, n, program=m["prog"], argument=m["arg"],
               local_rank=int(m["val"]) if m["val"] else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)^[^\s:]+: error: unrecognized arguments: ",)
