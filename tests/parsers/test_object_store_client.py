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
])
def test_real_files(name, want):
    text = (FIX / name).read_text()
    assert object_store_client.detect(text)
    assert [(f.evidence.line, f.client, f.operation, f.retries, f.count) for f in parse_text(text).facts] == want


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED: botocore's ClientError text without retry info (retries off), twice: one fact, counted
    ("botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the GetObject operation: Please reduce your request rate.\n" * 2,
     [("botocore", "GetObject", None, 2)]),
    # CONSTRUCTED: Arrow's S3 file system (s3_internal.h ErrorToStatus), as pyarrow raises it
    ("OSError: When reading information for key 'a/b' in bucket 'c': AWS Error SLOW_DOWN during HeadObject operation: Please reduce your request rate.\n",
     [("arrow", "HeadObject", None, 1)]),
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
