"""Hugging Face Accelerate's check that several GeForce RTX 40-series GPUs cannot use NCCL's peer-to-peer
and InfiniBand transports.

``check_cuda_p2p_ib_support`` (src/accelerate/utils/environment.py, 0.27+) answers no where more than one GPU
is named "RTX 40..." (from 0.29 only with a driver older than 550.40.07). ``AcceleratorState`` (state.py)
then refuses to set up a multi-GPU process unless NCCL_P2P_DISABLE and NCCL_IB_DISABLE are both set (a script
started without ``accelerate launch``, which sets them), and ``dispatch_model`` (big_modeling.py, 0.29+)
warns before splitting a model over such GPUs::

    raise NotImplementedError(
        "Using RTX 4000 series doesn't support faster communication broadband via P2P or IB. "
        'Please set `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1" or use `accelerate launch` which '
        "will do this automatically."
    )
    logger.warning(
        "We've detected an older driver with an RTX 4000 series GPU. These drivers have issues with P2P. "
        "This can affect the multi-gpu inference when using accelerate device_map."
        "Please make sure to update your driver to the latest version which resolves this."
    )

``accelerate launch``'s own note that it set the variables ("Using RTX 4000 series which doesn't support
faster communication speedups. Ensuring P2P and IB communications are disabled.") is the remedy applied, not
read. Sample (real, McGill-NLP/llm2vec#84, the exception's text pasted inside a code fence)::

    NotImplementedError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB. Please set NCCL_P2P_DISABLE="1" and NCCL_IB_DISABLE="1" or use accelerate launch` which will do this automatically.

Facts: one ``accelerate_p2p_check`` per line (``form``: refused or old_driver). Text without such a line
yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import AccelerateP2pCheck  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "accelerate_p2p"

# NotImplementedError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB. Please set ...
#   (McGill-NLP/llm2vec#84; the poster's paste lost the backticks around NCCL_P2P_DISABLE="1")
_REFUSED = re.compile(r"Using RTX 4000 series doesn't support faster communication broadband via P2P or IB\b")
# We've detected an older driver with an RTX 4000 series GPU. These drivers have issues with P2P.
#   (big_modeling.py's logger.warning, 0.29+; the text from the source)
_OLD_DRIVER = re.compile(r"We've detected an older driver with an RTX 4000 series GPU\. These drivers have issues with P2P\b")
#: the literal both lines hold, for the scan (iter_lines: a pattern that starts with a literal)
_FIND = re.compile(r"RTX 4000 series")


def detect(text: str) -> bool:
    # asked only where SIGNATURES matched (facts/classify.py)
    return "RTX 4000 series" in text and (_REFUSED.search(text) or _OLD_DRIVER.search(text)) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines(_FIND, artefact):
        form = "refused" if _REFUSED.search(line) else "old_driver" if _OLD_DRIVER.search(line) else None
        if form is None:
            continue
        result.lines_used += 1
        fb.add(AccelerateP2pCheck, n, form=form)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_REFUSED, _OLD_DRIVER)
