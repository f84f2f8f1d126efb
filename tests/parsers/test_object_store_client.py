"""object_store_client: an object store's 503 SlowDown, as botocore and Arrow report it, anywhere in a file."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import object_store_client
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/object_store_client"


def parse_text(text: str):
    return object_store_client.parse(Artefact(path="t.log", text=text, node="node1"))


@pytest.mark.parametrize("name,want", [
    ("awssdkpandas1316_putobject_slowdown_max_retries.txt", [(1, "botocore", "PutObject", 5, 1)]),
    ("datatrove302_slowdown_response_dict.txt", [(1, "botocore_response", None, None, 1)]),
    ("hudi1872_java_sdk_slow_down.txt", [(1, "aws_java", None, None, 1)]),
    ("tiflash10538_aws_cpp_slowdown.log", [(1, "aws_cpp", None, None, 2)]),
    ("kfp3674_gcs_429_too_many_requests.txt", [(1, "gcs", "POST", None, 1)]),
    ("gcloudcpp11512_gcs_rate_limit_exceeded.log", [(2, "gcs", None, None, 1)]),
    ("buckets830_azure_server_busy.txt", [(2, "azure", None, None, 2)]),
])
def test_real_files(name, want):
    text = (FIX / name).read_text()
    assert object_store_client.detect(text)
    assert [(f.evidence.line, f.client, f.operation, f.retries, f.count) for f in parse_text(text).facts] == want


@pytest.mark.parametrize("name,code,status", [
    ("awssdkpandas1316_putobject_slowdown_max_retries.txt", "SlowDown", 503),
    ("kfp3674_gcs_429_too_many_requests.txt", "rateLimitExceeded", 429),
    ("buckets830_azure_server_busy.txt", "ServerBusy", 503),
])
def test_code_and_status(name, code, status):
    [fact] = parse_text((FIX / name).read_text()).facts
    assert (fact.code, fact.status) == (code, status)


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED: botocore's ClientError text without retry info (retries off), twice: one fact, counted
    ("botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the GetObject operation: Please reduce your request rate.\n" * 2,
     [("botocore", "GetObject", None, 2)]),
    # CONSTRUCTED: Arrow's S3 file system (s3_internal.h ErrorToStatus), as pyarrow raises it
    ("OSError: When reading information for key 'a/b' in bucket 'c': AWS Error SLOW_DOWN during HeadObject operation: Please reduce your request rate.\n",
     [("arrow", "HeadObject", None, 1)]),
    # CONSTRUCTED: the Java SDK v1's message with the XML body's code, and v2's (no code, S3's message)
    ("com.amazonaws.services.s3.model.AmazonS3Exception: Please reduce your request rate. (Service: Amazon S3; Status Code: 503; Error Code: SlowDown; Request ID: X)\n",
     [("aws_java", None, None, 1)]),
    ("software.amazon.awssdk.services.s3.model.S3Exception: Please reduce your request rate. (Service: S3, Status Code: 503, Request ID: X)\n",
     [("aws_java", None, None, 1)]),
    # CONSTRUCTED: Go's googleapi error for GCS's object mutation rate (google-api-go-client googleapi.Error)
    ("googleapi: Error 429: The object b/ckpt/step100.pt exceeded the rate limit for object mutation operations (create, update, and delete). Please reduce your request rate., rateLimitExceeded\n",
     [("gcs", None, None, 1)]),
    # CONSTRUCTED: Azure's .NET client's RequestResult text
    ("ErrorCode:ServerBusy\n", [("azure", None, None, 1)]),
    # another S3 503 (not S3's throttling message), another Google API's rate limit, another Azure code: not read
    ("AmazonS3Exception: Service Unavailable (Service: Amazon S3; Status Code: 503; Error Code: ServiceUnavailable; Request ID: X)\n", []),
    ("googleapi: Error 429: Quota exceeded for quota metric 'Queries', rateLimitExceeded\n", []),
    ("google.api_core.exceptions.TooManyRequests: 429 POST https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs: Exceeded rate limits\n", []),
    ("ErrorCode:AuthenticationFailed\n", []),
    # a ClientError built in code (a test's mock) is no report
    ("mock_s3.get_object.side_effect = ClientError({'Error': {'Code': 'SlowDown', 'Message': 'x'}}, 'GetObject')\n", []),
    ("        ClientError(error_response={'Error': {'Code': 'SlowDown'}}, operation_name='PutObject')\n", []),
    # another code, or the word alone
    ("An error occurred (AccessDenied) when calling the GetObject operation: Access Denied\n", []),
    ("the bucket may answer SlowDown under load\n", []),
])
def test_forms(text, want):
    assert [(f.client, f.operation, f.retries, f.count) for f in parse_text(text).facts] == want
    assert object_store_client.detect(text) == bool(want)
