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
- The AWS SDK for Java (v1; Hadoop's S3A and EMRFS shade it) throws ``AmazonS3Exception: <message> (Service:
  Amazon S3; Status Code: 503; Error Code: <code>; Request ID: ...)`` (AmazonServiceException.getMessage);
  the code is ``SlowDown``, or ``503 Slow Down`` where a response had no XML body; v2 prints ``(Service: S3,
  Status Code: 503, Request ID: ...)`` after the message, no code: read where the message is S3's
  ("Please reduce your request rate." or "Slow Down").
- The AWS SDK for C++ (Arrow's under its OSError, ClickHouse, TiFlash) logs ``Encountered AWSError 'SlowDown':
  <message>`` (AWSErrorMarshaller) and ``Exception name: SlowDown`` in the client's response dump.

Other stores refuse in their own words, the same fault:

- Google Cloud Storage answers HTTP 429 with the reason ``rateLimitExceeded`` (a bucket's or project's
  request or mutation rate, bucket creation and deletion): the Python client raises
  ``google.api_core.exceptions.TooManyRequests: 429 <METHOD> https://storage.googleapis.com/...: <message>``;
  google-cloud-cpp prints the Status's ``error_info={reason=rateLimitExceeded, domain=usageLimits,
  metadata={http_status_code=429}}``, Go's googleapi ``Error 429: <message>, rateLimitExceeded``: read where
  the line names storage or a bucket (the same reason is every Google API's).
- Azure Storage answers HTTP 503 with the error code ``ServerBusy`` ("Ingress is over the account limit.",
  "Egress is over the account limit.", "Operations per second is over the account limit."): the XML body
  ``<Code>ServerBusy</Code>``, the header ``x-ms-error-code: ServerBusy``, the .NET and Python clients'
  ``ErrorCode:ServerBusy``.

Sample lines (real)::

    {'errorMessage': 'An error occurred (SlowDown) when calling the PutObject operation (reached max retries: 5): Please reduce your request rate.', 'errorType': 'ClientError' }    (aws/aws-sdk-pandas#1316)
    When processing CommonCrawl, I frequently get SlowDown Errors: `{'Error': {'Code': 'SlowDown', 'Message': 'Please reduce your request rate.'}`.    (huggingface/datatrove#302)
    > Caused by: com.amazon.ws.emr.hadoop.fs.shaded.com.amazonaws.services.s3.model.AmazonS3Exception: Slow Down (Service: Amazon S3; Status Code: 503; Error Code: 503 Slow Down; Request ID: 8W5H2QDTFGAJBW9M; ...    (apache/hudi#1872)
    [2025/11/07 21:19:56.146 +00:00] [WARN] [S3Common.cpp:156] ["tag=AWSErrorMarshaller message=Encountered AWSError 'SlowDown': Please reduce your request rate."] ...    (pingcap/tiflash#10538)
    `google.api_core.exceptions.TooManyRequests: 429 POST https://storage.googleapis.com/storage/v1/b?project=mtech-platform-ml: The project exceeded the rate limit for creating and deleting buckets.`    (kubeflow/pipelines#3674)
    "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>ServerBusy</Code><Message>Egress is over the account limit.\nRequestId:...    (buckets/application#830)

Facts: ``object_store_throttled`` per distinct operation and client (``count`` the lines that repeat it): the
client's form, the store's own word for the refusal (``code``: SlowDown, rateLimitExceeded, ServerBusy) and its
HTTP status, the operation (PutObject, GetObject, ...) where the line names it, botocore's retry count where
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
# > Caused by: ...AmazonS3Exception: Slow Down (Service: Amazon S3; Status Code: 503; Error Code: 503 Slow Down; Request ID: 8W5H2QDTFGAJBW9M; ...   (apache/hudi#1872)
# AmazonS3Exception: Please reduce your request rate. (Service: Amazon S3; Status Code: 503; Error Code: SlowDown; Request ID: ...)
#   (aws-sdk-java AmazonServiceException.getMessage: errorMessage + " (Service: " + service + "; Status Code: " + status
#   + "; Error Code: " + code + "; Request ID: " + id + ...; v2 AwsServiceException: "(Service: S3, Status Code: 503, Request ID: ...)")
_JAVA = re.compile(r"(?:Please reduce your request rate\.?|Slow ?Down) \(Service: (?:Amazon )?S3[;,] Status Code: 503\b")
# [WARN] [S3Common.cpp:156] ["tag=AWSErrorMarshaller message=Encountered AWSError 'SlowDown': Please reduce your request rate."]   (pingcap/tiflash#10538)
# ["tag=AWSXmlClient message=HTTP response code: 503\n...\nException name: SlowDown\nError message: Please reduce your request rate. ...   (the same)
#   (the dump's lines are joined with a literal "\n" in a log that quotes it: no word boundary before "Exception")
_AWS_CPP = re.compile(r"\bEncountered AWSError 'SlowDown'|Exception name: SlowDown\b")
# google.api_core.exceptions.TooManyRequests: 429 POST https://storage.googleapis.com/storage/v1/b?project=x: The project exceeded the rate limit for creating and deleting buckets.   (kubeflow/pipelines#3674)
#   (google-api-core exceptions.from_http_response: "{code} {method} {url}: {message}", TooManyRequests for 429)
_GCS_PY = re.compile(r"\bTooManyRequests: 429 (?P<method>GET|POST|PUT|PATCH|DELETE) https://(?:storage\.googleapis\.com|www\.googleapis\.com/(?:upload/)?storage)/")
# CreateBucket() >> status={UNAVAILABLE: Create Bucket quota limit limit exceeded on the Google Cloud project. ... error_info={reason=rateLimitExceeded, domain=usageLimits, metadata={http_status_code=429}}}   (googleapis/google-cloud-cpp#11512)
# googleapi: Error 429: The object b/o exceeded the rate limit for object mutation operations (create, update, and delete). ..., rateLimitExceeded   (google-api-go-client googleapi.Error: "googleapi: Error %d: %s, %s")
_GCS_REASON = re.compile(r"\breason=rateLimitExceeded, domain=usageLimits, metadata=\{http_status_code=429\b"
                         r"|\bgoogleapi: Error 429: .{0,400}, rateLimitExceeded\b")
_STORAGE_WORDS = re.compile(r"storage|[Bb]ucket|object mutation")  # GCS, not another Google API
# "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>ServerBusy</Code><Message>Egress is over the account limit. ...   (buckets/application#830)
#   "x-ms-error-code": "ServerBusy",   (the same response's headers)
# ErrorCode:ServerBusy  (azure-storage .NET RequestResult, azure-core's HttpResponseError "ErrorCode:ServerBusy")
_AZURE = re.compile(r"<Code>ServerBusy</Code>|\bx-ms-error-code['\"]?:\s*['\"]?ServerBusy\b|\bErrorCode:\s?ServerBusy\b")
# a ClientError built in code (a test's side_effect, a mock): ClientError({'Error': {'Code': 'SlowDown'}}, 'PutObject')
_CONSTRUCTED = re.compile(r"\bClientError\(\s*(?:error_response=)?\{")
_MARK = re.compile(r"\(SlowDown\) when calling|['\"]Code['\"]: ['\"]SlowDown['\"]|AWS Error SLOW_DOWN during "
                   r"|\(Service: (?:Amazon )?S3[;,] Status Code: 503|AWSError 'SlowDown'|Exception name: SlowDown"
                   r"|TooManyRequests: 429 |rateLimitExceeded|ServerBusy")


_WORDS = ("SlowDown", "SLOW_DOWN", "Slow Down", "Status Code: 503", "TooManyRequests", "rateLimitExceeded", "ServerBusy")


def detect(head: str) -> bool:
    return any(w in head for w in _WORDS) and any(
        _read(line) is not None for line in head.splitlines() if any(w in line for w in _WORDS))


def _read(line: str) -> tuple[str, str, int, str | None, int | None] | None:
    """(client form, the store's code, HTTP status, operation, retries) of a line that reports a throttled
    request, else None."""
    if _CONSTRUCTED.search(line):
        return None
    if m := _BOTOCORE.search(line):
        return "botocore", "SlowDown", 503, m["op"], int(m["retries"]) if m["retries"] else None
    if _RESPONSE.search(line):
        return "botocore_response", "SlowDown", 503, None, None
    if m := _ARROW.search(line):
        return "arrow", "SlowDown", 503, m["op"], None
    if _JAVA.search(line):
        return "aws_java", "SlowDown", 503, None, None
    if _AWS_CPP.search(line):
        return "aws_cpp", "SlowDown", 503, None, None
    if m := _GCS_PY.search(line):
        return "gcs", "rateLimitExceeded", 429, m["method"], None
    if _GCS_REASON.search(line) and _STORAGE_WORDS.search(line):
        return "gcs", "rateLimitExceeded", 429, None, None
    if _AZURE.search(line):
        return "azure", "ServerBusy", 503, None, None
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    first: dict[tuple[str, str | None], tuple[int, str, int, int | None]] = {}
    count: dict[tuple[str, str | None], int] = {}
    for n, line in iter_lines(_MARK, artefact):
        if (got := _read(line)) is None:
            continue
        result.lines_used += 1
        client, code, status, op, retries = got
        first.setdefault((client, op), (n, code, status, retries))
        count[(client, op)] = count.get((client, op), 0) + 1
    for (client, op), (n, code, status, retries) in first.items():
        fb.add(ObjectStoreThrottled, n, client=client, code=code, status=status, operation=op, retries=retries,
               count=count[(client, op)])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"An error occurred \(SlowDown\) when calling the ", r"\{['\"]Error['\"]: \{['\"]Code['\"]: ['\"]SlowDown['\"]",
              r"AWS Error SLOW_DOWN during ", _JAVA, _AWS_CPP, _GCS_PY, _GCS_REASON, _AZURE)
