"""A cloud cluster's node launch refused by EC2: AWS ParallelCluster's resume log and slurmctld's
node reason (real lines, fixtures/artefacts/cloud_node_launch/README.md)."""
from __future__ import annotations

from parse_helper import parse_fixture

from stethoscope.facts.parsers import cloud_node_launch


def _launch(res):
    return [(f.error_code, f.capacity, f.node_names, f.instance_type, f.zone, f.operation)
            for f in res.facts if f.kind == "cloud_instance_launch_failed"]


def test_runinstances_insufficient_capacity_names_node_type_and_zone() -> None:
    res = parse_fixture(cloud_node_launch, "cloud_node_launch/pcluster2716_ice_g4dn_resume.log")  # aws-parallelcluster#2716
    assert _launch(res) == [("InsufficientInstanceCapacity", True, "gpu1-dy-g4dnxlarge-7", "g4dn.xlarge", "us-east-1a",
                             "RunInstances")]
    (f,) = [f for f in res.facts if f.kind == "cloud_instance_launch_failed"]
    assert f.subject == "the instance of node gpu1-dy-g4dnxlarge-7 (g4dn.xlarge in us-east-1a)"
    # the request id and the set-down line are the program's own error lines: kept, not hidden
    assert [f.message.split(" - ERROR - ")[1] for f in res.facts if f.kind == "text_error_line"] == [
        "Failed RunInstances request: b448eec1-bdf9-49de-8b4e-a1a9a82a7d22",
        "Failed to launch following nodes, setting nodes to down: (x1) ['gpu1-dy-g4dnxlarge-7']"]


def test_createfleet_insufficient_capacity_without_node() -> None:
    res = parse_fixture(cloud_node_launch, "cloud_node_launch/pclusternode564_createfleet_ice_p4d.log")  # aws-parallelcluster-node#564
    assert _launch(res) == [("InsufficientInstanceCapacity", True, "", "p4d.24xlarge", "us-east-1d", "CreateFleet")]
    assert [f.subject for f in res.facts] == ["a p4d.24xlarge in us-east-1d"]
    assert res.lines_used == 2  # the INFO line of the CreateFleet parameters is read


def test_slurmctld_reason_of_a_node_set_down() -> None:
    res = parse_fixture(cloud_node_launch, "cloud_node_launch/pcluster5670_slurmctld_limited_capacity.log")  # aws-parallelcluster#5670
    assert _launch(res) == [("LimitedInstanceCapacity", True, "a10g-1x-spot-dy-a10g-1x-spot-cr-0-1", None, None, None)]
    # slurmctld's requeue and the health check's reason after it are the failure's lines, kept for the engine to weigh
    assert len([f for f in res.facts if f.kind == "text_error_line"]) == 2


def test_another_ec2_code_is_no_capacity_shortage() -> None:
    res = parse_fixture(cloud_node_launch, "cloud_node_launch/pclusternode676_createfleet_invalid_parameter.log")  # aws-parallelcluster-node#676
    assert _launch(res) == [("InvalidParameter", False, "", None, None, "CreateFleet")]


def test_scontrol_reason_takes_the_blocks_node_and_clustermgtd_names_the_compute_resource() -> None:
    # ParallelCluster's reason as scontrol prints it (aws-parallelcluster-node's own tests, slurm_resources)
    text = ("NodeName=queue1-dy-c-1-1 Arch=x86_64 CoresPerSocket=1\n"
            "   Reason=(Code:InsufficientInstanceCapacity)Failure when resuming nodes [root@2023-01-31T21:24:55]\n"
            # aws-parallelcluster-node#676, clustermgtd
            "2025-10-30 12:26:48,861 - [slurm_plugin.clustermgtd:_reset_timeout_expired_compute_resources] - INFO - The following "
            "compute resources are in down state due to insufficient capacity: {'compute': {'cit': ComputeResourceFailureEvent("
            "timestamp=datetime.datetime(2025, 10, 30, 12, 16, 42, 904354, tzinfo=datetime.timezone.utc), error_code="
            "'InsufficientInstanceCapacity')}}, compute resources will be reset after insufficient capacity timeout (600.0 "
            "seconds) expired. Check the slurm_resume log for EC2 error codes.\n")
    res = parse_fixture(cloud_node_launch, text=text)
    assert [(f.error_code, f.node_names, f.subject) for f in res.facts] == [
        ("InsufficientInstanceCapacity", "queue1-dy-c-1-1", "the instance of node queue1-dy-c-1-1"),
        ("InsufficientInstanceCapacity", "", "compute resource cit of queue compute")]


def test_info_lines_are_read_without_a_fact_and_detect_needs_a_form() -> None:
    # aws-parallelcluster-node#398 (clustermgtd): the program judged these INFO
    text = ("2022-04-01 04:22:19,441 - [slurm_plugin.common:read_json] - INFO - Unable to read file "
            "'/opt/slurm/etc/pcluster/run_instances_overrides.json'. Using default: {}\n"
            "2022-04-01 04:22:19,442 - [slurm_plugin.clustermgtd:manage_cluster] - INFO - Managing cluster...\n")
    assert cloud_node_launch.detect(text)
    res = parse_fixture(cloud_node_launch, text=text)
    assert (res.facts, res.lines_used) == ([], 2)
    # Slurm's own reason without ParallelCluster's code, or a plain Python log, is not this reader's
    assert not cloud_node_launch.detect("[2023-08-28T16:56:21.727] update_node: node n1 reason set to: Scheduler health check failed\n")
    assert not cloud_node_launch.detect("2023-08-28 16:55:46,889 - [root:main] - ERROR - Failed\n")
