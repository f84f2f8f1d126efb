"""An object store (Amazon S3, or a store speaking its API) refusing a job's requests as too many:
S3's ``503 SlowDown`` ("Please reduce your request rate."), as the clients a training or data job reads
and writes through report it, in any program's output, so it is looked for anywhere in a file.

S3 serves each key prefix up to a request rate (3,500 PUT/COPY/POST/DELETE and 5,500 GET/HEAD requests
a second) and answers more with HTTP 503, error code ``SlowDown``, while it scales the prefix out; a
shared bucket (a public data set's) is shared with everyone reading it. The SDKs retry it with backoff;
what reaches the program's output is the request that failed after the retries:

- botocore (boto3, and s3fs, fsspec, smart_open on top of it) raises ``ClientError``, whose text is
  ``An error occurred (<code>) when calling the <operation> operation[ (reached max retries: N)]:
  <message>`` (botocore/exceptions.py); a program that logs the exception's ``response`` prints its dict,
  ``{'Error': {'Code': 'SlowDown', 'Message': '...'}, ...}``.
- Apache Arrow's S3 file system (pyarrow.fs, and Ray Data, Hugging Face datasets on it) raises OSError
  ``[When <doing what>: ]AWS Error SLOW_DOWN during <operation> operation: <message>`` (arrow
  cpp/src/arrow/filesystem/s3_internal.h ErrorToStatus: "AWS Error " << the error type's name << " during "
  << operation << " operation: " << message).

Sample lines (real)::

    {'errorMessage': 'An error occurred (SlowDown) when calling the PutObject operation (reached max retries: 5): Please reduce your request rate.', 'errorType': 'ClientError' }    (aws/aws-sdk-pandas#1316)
    When processing CommonCrawl, I frequently get SlowDown Errors: `{'Error': {'Code': 'SlowDown', 'Message': 'Please reduce your request rate.'}`.    (huggingface/datatrove#302)

Facts: ``object_store_throttled`` per distinct operation and client (``count`` the lines that repeat it): the
client's form, the operation (PutObject, GetObject, ...) where the line names it, botocore's retry count where
it printed one. A ``ClientError(...)`` built in code (a test's mock) is no report and is not read. Empty input,
or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import ObjectStoreThrottled  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "object_store_client"

# 'An error occurred (SlowDown) when calling the PutObject operation (reached max retries: 5): Please reduce your request rate.'   (aws/aws-sdk-pandas#1316)
#   (botocore/exceptions.py ClientError MSG_TEMPLATE 'An error occurred ({error_code}) when calling the {operation_name}
#   operation{retry_info}: {error_message}', retry_info ' (reached max retries: {retry_attempts})')
_BOTOCORE = re.compile(r"\bAn error occurred \(SlowDown\) when calling the (?P<op>\w{1,64}) operation"
                       r"(?: \(reached max retries: (?P<retries>\d{1,4})\))?")
# `{'Error': {'Code': 'SlowDown', 'Message': 'Please reduce your request rate.'}`   (huggingface/datatrove#302: the ClientError's response)
_RESPONSE = re.compile(r"\{['\"]Error['\"]: \{['\"]Code['\"]: ['\"]SlowDown['\"]")
# OSError: When creating key x in bucket y: AWS Error SLOW_DOWN during PutObject operation: Please reduce your request rate.
#   (arrow s3_internal.h ErrorToStatus, filled in with the PutObject a writer's open issues)
_ARROW = re.compile(r"\bAWS Error SLOW_DOWN during (?P<op>\w{1,64}) operation\b")
# a ClientError built in code (a test's side_effect, a mock): ClientError({'Error': {'Code': 'SlowDown'}}, 'PutObject')
_CONSTRUCTED = re.compile(r"\bClientError\(\s*(?:error_response=)?\{")
_MARK = re.compile(r"\(SlowDown\) when calling|['\"]Code['\"]: ['\"]SlowDown['\"]|AWS Error SLOW_DOWN during ")


def detect(head: str) -> bool:
    return ("SlowDown" in head or "SLOW_DOWN" in head) and any(
        _read(line) is not None for line in head.splitlines() if "SlowDown" in line or "SLOW_DOWN" in line)


def _read(line: str) -> tuple[str, str | None, int | None] | None:
    """(client form, operation, retries) of a line that reports a throttled request, else None."""
    if _CONSTRUCTED.search(line):
        return None
    if m := _BOTOCORE.search(line):
        return "botocore", m["op"], int(m["retries"]) if m["retries"] else None
    if _RESPONSE.search(line):
        return "botocore_response", None, None
    if m := _ARROW.search(line):
        return "arrow", m["op"], None
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    first: dict[tuple[str, str | None], tuple[int, int | None]] = {}
    count: dict[tuple[str, str | None], int] = {}
    for n, line in iter_lines(_MARK, artefact):
        if (got := _read(line)) is None:
            continue
        result.lines_used += 1
        client, op, retries = got
        first.setdefault((client, op), (n, retries))
        count[(client, op)] = count.get((client, op), 0) + 1
    for (client, op), (n, retries) in first.items():
        fb.add(ObjectStoreThrottled, n, client=client, operation=op, retries=retries, count=count[(client, op)])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"An error occurred \(SlowDown\) when calling the ", r"\{['\"]Error['\"]: \{['\"]Code['\"]: ['\"]SlowDown['\"]",
              r"AWS Error SLOW_DOWN during ")
