"""A small S3 client: the dozen calls the evidence store makes, over ``http.client``, signed by botocore's SigV4.

Why not a boto3 client (decision 0022): a boto3 S3 client loads botocore's service model and endpoint rules, about
20 MiB in every web and worker process, to make the same dozen REST calls written out here; uploads need calls
below boto3's managed transfers anyway (a multipart upload that outlives a request, parts numbered by the tus
offset). What is subtle is kept in the library: botocore's ``S3SigV4Auth`` signs every request and botocore's
credential chain (the environment, ``~/.aws``, an instance or container role, web identity) supplies keys when
none are configured. What is ours is plain HTTP: a path (path-style under an endpoint URL, virtual-hosted on AWS),
a query, a body, and the XML answers of the list and multipart calls.

Bodies are sent from memory views (no copy) and ranged GETs are read straight into the caller's buffer
(``get_range_into``). Over HTTPS the payload is ``UNSIGNED-PAYLOAD`` (TLS protects it, as every AWS SDK does);
over plain HTTP it is signed with its sha256, which the store checks. A request that fails to connect, times out,
or gets a 5xx / SlowDown is retried with backoff (``ATTEMPTS`` in all); then ``StoreUnreachable`` is raised, which
the API answers as 503 (``config/errors.py``). Every other refusal is an ``S3Error`` with the store's code.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import http.client
import random
import socket
import ssl
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
#: Tries per request (the first and four retries) before the store counts as unreachable.
ATTEMPTS = 5
#: Idle connections kept per client (a web process has at most one request per thread in flight).
POOL_SIZE = 32
_RETRY_STATUS = frozenset({500, 502, 503, 504})
_RETRY_CODES = frozenset({"SlowDown", "InternalError", "RequestTimeout", "ServiceUnavailable"})


class S3Error(Exception):
    """The store refused a request: ``status`` is the HTTP status, ``code`` the S3 error code (``NoSuchKey``)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class StoreUnreachable(Exception):
    """The store could not be reached, or kept failing (timeouts, 5xx), after every retry."""


@dataclass(frozen=True)
class MultipartUpload:
    key: str
    upload_id: str
    initiated: dt.datetime


@dataclass(frozen=True)
class Part:
    number: int
    etag: str
    size: int


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    last_modified: dt.datetime


@cache
def _botocore() -> tuple[Any, Any, Any]:
    """botocore's S3 SigV4 signer (told the payload's hash instead of reading the body for it), its request and its
    credentials; imported on first use, so a console that keeps evidence on local disk never loads them."""
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    class Signer(S3SigV4Auth):  # type: ignore[misc]
        def payload(self, request: Any) -> str:
            return str(request.context["payload_hash"])

    return Signer, AWSRequest, Credentials


def _xml(data: bytes) -> ET.Element:
    root = ET.fromstring(data)
    for element in root.iter():  # S3 answers in its namespace; drop it so paths stay readable
        element.tag = element.tag.rpartition("}")[2]
    return root


def _text(element: ET.Element, path: str, default: str = "") -> str:
    found = element.find(path)
    return found.text or default if found is not None else default


def _when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _quote(value: str, safe: str = "-_.~") -> str:
    return urllib.parse.quote(value, safe=safe)


class Response:
    """A finished answer: status, headers and body (empty when it was read into a caller's buffer)."""

    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


class S3Client:
    """The calls on one bucket. Thread-safe: each request takes an idle connection from a small pool."""

    def __init__(
        self,
        *,
        endpoint_url: str | None,
        bucket: str,
        region: str,
        access_key: str | None = None,
        secret_key: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        if endpoint_url:  # MinIO, SeaweedFS, Ceph RGW…: path-style, as they all accept it
            parts = urllib.parse.urlsplit(endpoint_url)
            self.scheme, self.netloc = parts.scheme, parts.netloc
            self.base = f"{parts.path.rstrip('/')}/{_quote(bucket)}"
        else:  # AWS S3 itself: the bucket's virtual host
            self.scheme, self.netloc, self.base = "https", f"{bucket}.s3.{region}.amazonaws.com", ""
        if self.scheme not in ("http", "https"):
            raise ValueError(f"the store's URL must start with http:// or https://, not {endpoint_url!r}")
        self.bucket = bucket
        self.region = region or "us-east-1"
        self.timeout = timeout
        self._static = _botocore()[2](access_key, secret_key) if access_key and secret_key else None
        self._chain: Any = None
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._tls = ssl.create_default_context() if self.scheme == "https" else None

    # --- the calls ---------------------------------------------------------------------------------------

    def head(self, key: str) -> int | None:
        """The object's size, or None when there is none."""
        answer = self._request("HEAD", key, ok=(200, 404))
        return int(answer.headers["Content-Length"]) if answer.status == 200 else None

    def get(self, key: str) -> bytes | None:
        """A whole (small) object, or None when there is none."""
        answer = self._request("GET", key, ok=(200, 404))
        return answer.body if answer.status == 200 else None

    def get_range_into(self, key: str, start: int, into: memoryview) -> int:
        """Bytes ``start``… of an object read straight into ``into`` (as many as fit); how many came."""
        end = start + len(into) - 1
        answer = self._request("GET", key, headers={"Range": f"bytes={start}-{end}"}, ok=(200, 206), into=into)
        return int(answer.headers["Content-Length"])

    def put(self, key: str, body: bytes | bytearray | memoryview) -> None:
        self._request("PUT", key, body=body)

    def delete(self, key: str) -> None:
        self._request("DELETE", key, ok=(200, 204, 404))

    def create_multipart(self, key: str) -> str:
        answer = self._request("POST", key, query={"uploads": ""})
        return _text(_xml(answer.body), "UploadId")

    def upload_part(self, key: str, upload_id: str, number: int, body: bytes | bytearray | memoryview) -> str:
        """Send part ``number`` (1-based) of a multipart upload; its ETag."""
        answer = self._request("PUT", key, query={"partNumber": str(number), "uploadId": upload_id}, body=body)
        return str(answer.headers["ETag"])

    def complete_multipart(self, key: str, upload_id: str, parts: list[Part]) -> None:
        xml = "".join(f"<Part><PartNumber>{p.number}</PartNumber><ETag>{p.etag}</ETag></Part>" for p in parts)
        body = f"<CompleteMultipartUpload>{xml}</CompleteMultipartUpload>".encode()
        answer = self._request("POST", key, query={"uploadId": upload_id}, body=body)
        root = _xml(answer.body)
        if root.tag == "Error":  # a 200 whose body says it failed (S3 may answer so after a long assembly)
            raise S3Error(answer.status, _text(root, "Code"), _text(root, "Message"))

    def abort_multipart(self, key: str, upload_id: str) -> None:
        self._request("DELETE", key, query={"uploadId": upload_id}, ok=(200, 204, 404))

    def multipart_uploads(self, prefix: str = "") -> Iterator[MultipartUpload]:
        """The bucket's unfinished multipart uploads whose key starts with ``prefix``."""
        marker: dict[str, str] = {}
        while True:
            root = _xml(self._request("GET", "", query={"uploads": "", "prefix": prefix, **marker}).body)
            for item in root.iter("Upload"):
                yield MultipartUpload(_text(item, "Key"), _text(item, "UploadId"), _when(_text(item, "Initiated")))
            if _text(root, "IsTruncated") != "true":
                return
            marker = {"key-marker": _text(root, "NextKeyMarker"), "upload-id-marker": _text(root, "NextUploadIdMarker")}

    def parts(self, key: str, upload_id: str) -> list[Part]:
        """The parts a multipart upload holds, by number."""
        out: list[Part] = []
        marker: dict[str, str] = {}
        while True:
            root = _xml(self._request("GET", key, query={"uploadId": upload_id, **marker}).body)
            for item in root.iter("Part"):
                out.append(Part(int(_text(item, "PartNumber")), _text(item, "ETag"), int(_text(item, "Size", "0"))))
            if _text(root, "IsTruncated") != "true":
                return sorted(out, key=lambda p: p.number)
            marker = {"part-number-marker": _text(root, "NextPartNumberMarker")}

    def objects(self, prefix: str) -> Iterator[StoredObject]:
        """The objects whose key starts with ``prefix``."""
        token: dict[str, str] = {}
        while True:
            root = _xml(self._request("GET", "", query={"list-type": "2", "prefix": prefix, **token}).body)
            for item in root.iter("Contents"):
                yield StoredObject(
                    _text(item, "Key"), int(_text(item, "Size", "0")), _when(_text(item, "LastModified"))
                )
            if _text(root, "IsTruncated") != "true":
                return
            token = {"continuation-token": _text(root, "NextContinuationToken")}

    # --- one request -------------------------------------------------------------------------------------

    def _credentials(self) -> Any:
        if self._static is not None:
            return self._static
        if self._chain is None:
            import botocore.session  # only without configured keys: botocore's chain (roles, ~/.aws)

            self._chain = botocore.session.Session().get_credentials()
            if self._chain is None:
                raise StoreUnreachable("no credentials for the evidence store: set WHODUNNET_S3_ACCESS_KEY_ID")
        return self._chain.get_frozen_credentials()

    def _payload_hash(self, body: bytes | bytearray | memoryview) -> str:
        if not body:
            return EMPTY_SHA256
        return UNSIGNED_PAYLOAD if self.scheme == "https" else hashlib.sha256(body).hexdigest()

    def _signed(self, method: str, path: str, query: str, headers: dict[str, str], payload: str) -> dict[str, str]:
        signer, aws_request, _ = _botocore()
        url = f"{self.scheme}://{self.netloc}{path}" + (f"?{query}" if query else "")
        request = aws_request(method=method, url=url, headers=headers)
        request.context["payload_hash"] = payload
        signer(self._credentials(), "s3", self.region).add_auth(request)
        return dict(request.headers.items())

    def _connection(self) -> tuple[http.client.HTTPConnection, bool]:
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        if self._tls is not None:
            return http.client.HTTPSConnection(self.netloc, timeout=self.timeout, context=self._tls), False
        return http.client.HTTPConnection(self.netloc, timeout=self.timeout), False

    def _release(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < POOL_SIZE:
                self._idle.append(connection)
                return
        connection.close()

    def _request(
        self,
        method: str,
        key: str,
        *,
        query: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        body: bytes | bytearray | memoryview = b"",
        ok: tuple[int, ...] = (200,),
        into: memoryview | None = None,
    ) -> Response:
        path = self.base + "/" + _quote(key, safe="/-_.~") if key else self.base + "/"
        encoded = "&".join(f"{_quote(k)}={_quote(v)}" for k, v in sorted((query or {}).items()))
        target = path + (f"?{encoded}" if encoded else "")
        payload = self._payload_hash(body)
        fixed = {"Host": self.netloc, **(headers or {})}
        if method in ("PUT", "POST"):
            fixed["Content-Length"] = str(len(body))
        failure = ""
        attempt = 0
        while attempt < ATTEMPTS:
            if attempt:
                time.sleep(min(2.0, 0.1 * 2**attempt) * random.uniform(0.5, 1.0))
            attempt += 1
            connection, reused = self._connection()
            try:
                signed = self._signed(method, path, encoded, fixed, payload)
                connection.request(method, target, body=body if body else None, headers=signed)
                answer = connection.getresponse()
                status = answer.status
                if into is not None and status in (200, 206):
                    data = b""
                    self._read_into(answer, into)
                else:
                    data = answer.read()
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                failure = f"{type(exc).__name__}: {exc}"
                if reused and isinstance(exc, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
                    attempt -= 1  # the store had closed an idle kept-alive connection: not a failure of the store
                    continue
                if isinstance(exc, socket.gaierror | ssl.SSLCertVerificationError):
                    break  # a wrong name or certificate does not get better by retrying
                continue
            except S3Error:
                connection.close()
                raise
            if answer.will_close:
                connection.close()
            else:
                self._release(connection)
            if status in ok:
                return Response(status, answer.headers, data)
            code, message = self._error(status, data)
            if status in _RETRY_STATUS or code in _RETRY_CODES:
                failure = f"{status} {code}: {message}"
                continue
            raise S3Error(status, code, message)
        raise StoreUnreachable(f"{method} {self.netloc}{path}: {failure}")

    @staticmethod
    def _read_into(answer: http.client.HTTPResponse, into: memoryview) -> None:
        want = int(answer.headers.get("Content-Length") or 0)
        if want > len(into):
            raise S3Error(answer.status, "RangeTooLong", f"the store sent {want:,} bytes for {len(into):,} asked")
        got = 0
        while got < want:
            n = answer.readinto(into[got:want])
            if not n:
                raise http.client.IncompleteRead(b"", want - got)
            got += n

    @staticmethod
    def _error(status: int, data: bytes) -> tuple[str, str]:
        if not data:
            return {404: "NotFound", 403: "Forbidden"}.get(status, str(status)), http.client.responses.get(status, "")
        try:
            root = _xml(data)
        except ET.ParseError:
            return str(status), data[:200].decode(errors="replace")
        return _text(root, "Code", str(status)), _text(root, "Message")
