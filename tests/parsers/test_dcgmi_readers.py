"""dcgmi discovery -l and dcgmi dmon on real output (DCGM 3.1.8, H800), and the DCGM 4 forms
of dcgmi/Query.cpp (a GPU not OK under -a)."""

from stethoscope.facts.parsers import dcgmi_discovery, dcgmi_dmon

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_discovery_lists_gpus_and_counts():
    r = _parse(dcgmi_discovery, "dcgmi_discovery/llm_action_h800x8_dcgm318.txt")
    gpus = [f for f in r.facts if f.kind == "dcgm_discovered_gpu"]
    counts = {f.device: f.count for f in r.facts if f.kind == "dcgm_discovery_count"}
    assert counts == {"gpu": 8, "nvswitch": 0} and len(gpus) == 8 and r.errors == []
    assert (gpus[0].gpu_id, gpus[0].name, gpus[0].pci_bus_id, gpus[0].uuid) == (
        0, "NVIDIA H800", "0000:18:00.0", "GPU-34bf77d1-c686-6821-79a8-32d326c5039c")
    assert gpus[0].evidence.line == 5 and not any(g.name_unavailable or g.last_known for g in gpus)


def test_discovery_dcgm4_gpu_not_ok_and_null_name():
    # the rows DCGM 4.6 prints (dcgmi/Query.cpp HelperPopulateGpuDeviceOutput) with -a, a GPU whose status is not OK
    text = ("2 GPUs found (All).\n| GPU ID | Device Information                                                   |\n"
            "| 0      | Name: <<<NULL>>>                                                     |\n"
            "|        | PCI Bus ID: 00000000:4C:00.0                                         |\n"
            "| 1      | Status: Lost                                                         |\n"
            "|        | Name: NVIDIA H100 80GB HBM3 (last known)                             |\n"
            "|        | PCI Bus ID: 00000000:5D:00.0 (last known)                            |\n")
    r = _parse(dcgmi_discovery, text=text)
    g0, g1 = [f for f in r.facts if f.kind == "dcgm_discovered_gpu"]
    assert (g0.name, g0.name_unavailable, g0.pci_bus_id) == (None, True, "0000:4c:00.0")
    assert (g1.status, g1.last_known, g1.name, g1.pci_bus_id) == ("Lost", True, "NVIDIA H100 80GB HBM3", "0000:5d:00.0")
    (c,) = [f for f in r.facts if f.kind == "dcgm_discovery_count"]
    assert (c.count, c.active_only) == (2, False)


def test_dmon_series_per_entity_and_field():
    r = _parse(dcgmi_dmon, "dcgmi_dmon/llm_action_h800_pcie_nvlink_dcgm318.txt")
    got = {f.field: (f.samples, f.missing, f.minimum, f.maximum, f.last) for f in r.facts}
    assert got["PCITX"] == (5, 2, 449138.0, 548740.0, 548740.0)
    assert got["NVLTX"] == (5, 2, 0.0, 0.0, 0.0) and {f.entity for f in r.facts} == {"GPU 0"}
    assert r.lines_used == 7  # header, units, five rows; the command line is not the table's


def test_dmon_four_gpus():
    r = _parse(dcgmi_dmon, "dcgmi_dmon/llm_action_h800x4_nvlink_dcgm318.txt")
    assert sorted({f.gpu for f in r.facts}) == [0, 1, 2, 3] and all(f.samples == 6 for f in r.facts)


def test_dmon_row_with_a_value_missing_is_a_parse_error():
    # inside the table: a problem; a row with more values than fields too, even the last
    r = _parse(dcgmi_dmon, text="#Entity   NVLTX   NVLRX\nID\nGPU 0     12\nGPU 0     12   13\n")
    assert len(r.errors) == 1 and r.errors[0].line == 3 and not r.limits
    r = _parse(dcgmi_dmon, text="#Entity   NVLTX   NVLRX\nID\nGPU 0     12   13   14\n")
    assert r.facts == [] and len(r.errors) == 1 and not r.limits


def test_dmon_dcgm4_na_and_a_paste_cut_inside_its_last_row():
    # NVIDIA/dcgm-exporter#700: DCGM 4.4.1 prints 0 for XIDER, GNVERR and the clock-event counters, VIUTL N/A
    r = _parse(dcgmi_dmon, "dcgmi_dmon/dcgm_exporter700_xider_clk_dcgm441.txt")
    got = {f.field: (f.samples, f.missing, f.last) for f in r.facts}
    assert got["XIDER"] == (3, 0, 0.0) and got["VIUTL"] == (3, 3, None) and len(got) == 9 and not r.errors
    # DCGM 4.5.3's table, the stored excerpt ending after 3 of the row's 9 values: cut, not a parse problem
    r = _parse(dcgmi_dmon, "dcgmi_dmon/dcgm_exporter700_xider_clk_dcgm453_cut.txt")
    assert r.facts == [] and r.errors == []
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", 3)]


def test_diag_json_runtime_error_is_an_error_not_a_clean_run():
    # the shape dcgmi/Diag.cpp writes when the diagnostic cannot run (output[NVVS_NAME][NVVS_RUNTIME_ERROR])
    from stethoscope.facts.parsers import dcgmi_diag
    text = '{\n  "DCGM Diagnostic": {\n    "runtime_error": "Error: unable to establish a connection to the specified host: localhost",\n    "version": "4.6.0"\n  }\n}\n'
    r = _parse(dcgmi_diag, text=text)
    assert [(f.kind, f.evidence.line) for f in r.facts] == [("dcgm_error", 3)]
