"""dcgm_exporter_counters: dcgm-exporter's collectors file read as configuration (rows used, no fact)."""
from __future__ import annotations

import pytest
from parse_helper import parse_fixture

from stethoscope.facts.parsers import dcgm_exporter_counters


@pytest.mark.parametrize("rel, used", [
    # NVIDIA/dcgm-exporter#338: help strings that say "uncorrectable errors", "has failed" are descriptions
    ("dcgm_exporter_counters/dcgmexporter338_rows_counter.csv", 4),
    # NVIDIA/dcgm-exporter#310: the ConfigMap's block, its header comments and commented-out rows
    ("dcgm_exporter_counters/dcgmexporter310_configmap_head.yaml", 17),
])
def test_real_files(rel, used):
    r = parse_fixture(dcgm_exporter_counters, rel)
    assert r.facts == [] and r.lines_used == used and r.errors == []


@pytest.mark.parametrize("text", [
    # a scrape's HELP line and a sample are dcgm_exporter_scrape's, not a collectors row
    "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n",
    'DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-1"} 0\n',
    # a prose mention of a field
    "i config csv that get metrics DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS, it's ruuning.\n",
])
def test_not_a_collectors_file(text):
    assert not dcgm_exporter_counters.detect(text)
