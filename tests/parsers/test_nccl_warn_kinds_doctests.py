"""nccl_warn_kinds' docstring examples run as doctests (the kinds of its areas' modules, the near misses that stay
None, the RAS client's source), so that a split or a new pattern that changes one fails here, not in a later round."""
from __future__ import annotations

import doctest

from stethoscope.facts.parsers import nccl_warn_kinds


def test_nccl_warn_kinds_doctests():
    got = doctest.testmod(nccl_warn_kinds)
    assert got.attempted >= 30 and got.failed == 0, got
