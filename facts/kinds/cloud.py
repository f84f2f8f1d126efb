"""Cloud provisioning: what a cluster's resume program says when the cloud would not give it the
instance a node needs (AWS ParallelCluster's slurm plugin, the EC2 API's error codes).

Generated layout (issue 12): every fact class lives in facts/kinds, by family."""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class CloudInstanceLaunchFailed(Fact):
    """The cloud refused an instance for a scheduler's node: EC2's error code for the launch
    (RunInstances, CreateFleet) as the resume program logged it or set it as the node's reason."""

    kind: Literal["cloud_instance_launch_failed"] = "cloud_instance_launch_failed"
    provider: str  # "aws"
    error_code: str  # EC2's code: "InsufficientInstanceCapacity", "LimitedInstanceCapacity", "InvalidParameter" ...
    #: the code says the cloud had no capacity to give (ParallelCluster's ice-failures: EC2's Insufficient*Capacity
    #: codes, MaxSpotInstanceCountExceeded, Unsupported, SpotMaxPriceTooLow, and its own LimitedInstanceCapacity)
    capacity: bool
    node_names: str = ""  # the scheduler nodes named ("gpu1-dy-g4dnxlarge-7"; a few, comma-separated), "" when none is
    instance_type: str | None = None  # "p4d.24xlarge", from EC2's message where it names it
    zone: str | None = None  # "us-east-1d", the Availability Zone EC2's message names
    operation: str | None = None  # "RunInstances", "CreateFleet"
    #: what EC2 was asked for, in words: "the instance of node gpu1-dy-g4dnxlarge-7 (g4dn.xlarge in us-east-1a)",
    #: "a p4d.24xlarge in us-east-1d", "compute resource cit of queue compute"
    subject: str = "a node's instance"
    message: str = ""


@fact_kind
class InstanceMetadataUnreachable(Fact):
    """A program on the node could not reach the cloud's instance metadata service (IMDS: 169.254.169.254,
    AWS's fd00:ec2::254, GCP's metadata.google.internal): curl's or Python's connection error naming its address.
    A boot script that asks it what the instance is (its type, its region) then goes on without the answer."""

    kind: Literal["instance_metadata_unreachable"] = "instance_metadata_unreachable"
    address: str  # "169.254.169.254", "fd00:ec2::254", "metadata.google.internal"
    client: str  # curl | python (urllib3's HTTPConnectionPool, which requests and botocore use)
    error: str  # the client's words after its prefix: "Failed to connect to 169.254.169.254 port 80 after 0 ms: ..."
    program: str | None = None  # the syslog/journal tag of the program that ran the client: "configure-nvidia.sh"
    curl_code: int | None = None  # curl's exit code (7: could not connect, 28: timed out, 6: could not resolve)
