"""Readers of the storage and host branches: iostat -x, numactl -H, lscpu, mpirun --report-bindings
(real samples: fixtures/artefacts/{iostat,numactl_hardware,lscpu,cpu_binding_report}/README.md)."""
from parse_helper import parse_fixture

from stethoscope.facts.parsers import cpu_binding_report, iostat, lscpu, numactl_hardware


def _one(res, kind):
    got = [f for f in res.facts if f.kind == kind]
    assert len(got) == 1, got
    return got[0]


def test_iostat_saturated_hdd_under_writes():
    res = parse_fixture(iostat, "iostat/stress-ng148_sdb_write_saturated.txt")
    d = _one(res, "disk_io")
    assert (d.device, d.reports, d.util_max_pct, d.saturated_reports, d.aqu_sz_max, d.w_await_max_ms) == ("sdb", 4, 100.0, 2, 7.5, 54.72)
    assert d.util_mean_pct == 69.45 and d.write_mb_s_mean == 117.84 and d.read_mb_s_mean == 0.0
    assert d.evidence.line == 6 and "182784.00" in d.evidence.text
    assert not res.errors and res.lines_used == 8


def test_iostat_megabyte_layout_with_time_stamp():
    res = parse_fixture(iostat, "iostat/sysstat374_dm_mb_idle.txt")
    d = _one(res, "disk_io")
    assert (d.device, d.util_max_pct, d.saturated_reports, d.write_mb_s_mean) == ("dm-0", 0.12, 0, 0.03)
    assert not res.errors and res.lines_used == 3


def test_iostat_older_layout_and_a_short_row():
    # sysstat 10/11 column names (iostat(1) of those releases); the second row lost a column
    text = ("Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util\n"
            "sda               0.00     3.00    0.00    2.00     0.00    20.00    20.00     0.01    5.00    0.00    5.00   2.50   0.50\n"
            "sdb               0.00     3.00    0.00    2.00     0.00    20.00    20.00     0.01    5.00    0.00    5.00   2.50\n")
    res = parse_fixture(iostat, text=text)
    d = _one(res, "disk_io")
    assert (d.device, d.aqu_sz_max, d.w_await_max_ms, d.util_max_pct) == ("sda", 0.01, 5.0, 0.5)
    assert [e.line for e in res.errors] == [3]


def test_numactl_the_device_machine():
    res = parse_fixture(numactl_hardware, "numactl_hardware/device_h200_vm_one_node.txt")
    assert [(f.numa_node, f.cpus) for f in res.facts if f.kind == "numa_node"] == [(0, "0-15")]
    assert _one(res, "numa_topology").max_distance == 10


def test_lscpu_the_device_machine():
    res = parse_fixture(lscpu, "lscpu/device_h200_vm.txt")
    t = _one(res, "cpu_topology")
    assert (t.arch, t.cpus, t.sockets, t.cores_per_socket, t.threads_per_core, t.numa_nodes, t.numa_nodes_with_cpus) == (
        "x86_64", 16, 1, 16, 1, 1, 1)
    assert (t.model_name, t.hypervisor) == ("Intel(R) Xeon(R) Processor", "KVM")
    assert [(f.numa_node, f.cpus) for f in res.facts if f.kind == "lscpu_numa_node"] == [(0, "0-15")]
    assert not res.errors


def test_lscpu_bad_count_is_a_parse_error():
    res = parse_fixture(lscpu, text="Architecture:        x86_64\nCPU(s):              lots\nSocket(s):           2\n")
    assert [e.line for e in res.errors] == [2] and _one(res, "cpu_topology").sockets == 2


def test_report_bindings_one_core_per_rank():
    res = parse_fixture(cpu_binding_report, "cpu_binding_report/ompi7660_four_ranks_one_core_each.txt")
    ranks = [(f.rank, f.cores, f.hwthreads, f.sockets) for f in res.facts if f.kind == "rank_cpu_binding"]
    assert ranks == [(0, 1, 1, 1), (1, 1, 1, 1), (2, 1, 1, 1), (3, 1, 1, 1)]
    s = _one(res, "cpu_binding_summary")
    assert (s.host, s.ranks, s.single_core_ranks, s.min_cores) == ("a1a-u2-c4-b1", 4, 4, 1)


def test_report_bindings_wide_and_unbound_ranks():
    # the layout of the report line with two cores of two threads, and Open MPI's unbound wording
    text = ("[gpu01:2001] MCW rank 0 bound to socket 0[core 0[hwt 0-1]], socket 0[core 1[hwt 0-1]]: [BB/BB/../..][../../../..]\n"
            "[gpu01:2001] MCW rank 1 is not bound (or bound to all available processors)\n"
            "[gpu01:2001] MCW rank 2 bound to something odd: [B]\n")
    res = parse_fixture(cpu_binding_report, text=text)
    ranks = [(f.rank, f.bound, f.cores, f.hwthreads) for f in res.facts if f.kind == "rank_cpu_binding"]
    assert ranks == [(0, True, 2, 4), (1, False, None, None)]
    assert [e.line for e in res.errors] == [3]
    assert _one(res, "cpu_binding_summary").single_core_ranks == 0


def test_report_bindings_across_two_sockets_and_within_one():
    # Open MPI users 29308 (pc03, 2 x 6 cores): --slot-list 0:0-1,1:0-1 puts every rank on both sockets
    res = parse_fixture(cpu_binding_report, "cpu_binding_report/ompi_users_29308_pc03_slot_list_two_sockets.txt")
    ranks = [(f.rank, f.cores, f.hwthreads, f.sockets) for f in res.facts if f.kind == "rank_cpu_binding"]
    assert ranks == [(0, 4, 8, 2), (0, 4, 8, 2), (1, 4, 8, 2), (2, 4, 8, 2)] and not res.errors
    s = _one(res, "cpu_binding_summary")
    assert (s.host, s.ranks, s.multi_socket_ranks, s.unbound_ranks, s.evidence.line) == ("pc03", 4, 4, 0, 2)
    # the same host without it: one core, then a whole socket per rank
    one = _one(parse_fixture(cpu_binding_report, "cpu_binding_report/ompi_users_29308_pc03_default_one_socket_each.txt"),
               "cpu_binding_summary")
    assert (one.multi_socket_ranks, one.single_core_ranks, one.min_cores) == (0, 1, 1)


def test_report_bindings_rank_not_bound():
    res = parse_fixture(cpu_binding_report, "cpu_binding_report/ompi_users_27770_rank_not_bound.txt")
    s = _one(res, "cpu_binding_summary")
    assert (s.host, s.ranks, s.bound_ranks, s.unbound_ranks, s.min_cores) == ("compute-9-11.local", 1, 0, 1, None)
