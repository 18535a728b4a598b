"""A small S3 client: the dozen calls the evidence store makes, over ``http.client``, signed with SigV4.

Why not a boto3 client (decision 0022): a boto3 S3 client loads botocore's service model and endpoint rules, about
20 MiB in every web and worker process (and botocore's signer alone 3.4 MiB), to make the same dozen REST calls
written out here; uploads need calls below boto3's managed transfers anyway (a multipart upload that outlives a
request, parts numbered by the tus offset). Ours: SigV4 (``sign``, about thirty lines as AWS specifies it, checked
against AWS's example and by the real store in every test), a path (path-style under an endpoint URL,
virtual-hosted on AWS), a query, a body, the XML answers of the list and multipart calls. botocore's: the credential
chain (the environment, ``~/.aws``, an instance or container role, web identity), loaded only when no keys are
configured.

Bodies are sent from memory views (no copy), whole parts can be streamed as they arrive (``stream``), and ranged
GETs are read straight into the caller's buffer (``get_range_into``). A body held in memory is signed with its
sha256 over plain HTTP (the store checks it) and sent as ``UNSIGNED-PAYLOAD`` over HTTPS, as AWS's SDKs do; a
streamed body is always ``UNSIGNED-PAYLOAD`` (it cannot be hashed before it is sent). A request that fails to
connect, times out, or gets a 5xx / SlowDown is retried with backoff (``ATTEMPTS`` in all; a streamed body cannot
be); then ``StoreUnreachable`` is raised, which the API answers as 503 (``config/errors.py``). Every other refusal
is an ``S3Error`` with the store's code.

Every object is written with ``Content-Type: OBJECT_TYPE``. S3 keeps it as metadata only (downloads go through the
web, which sets its own headers), but SeaweedFS decides by it whether to gzip what it stores: given no type (or
``application/octet-stream``) it gzips any chunk whose first 128 bytes compress, and then inflates every read with
Go's ``compress/flate``: a 386 MB capture cost it 2.6 s of CPU to serve, against 0.65 s stored as it came.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import http.client
import random
import select
import socket
import ssl
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
#: Tries per request (the first and four retries) before the store counts as unreachable.
ATTEMPTS = 5
#: Idle connections kept per client (a web process has at most one request per thread in flight).
POOL_SIZE = 32
#: The type every evidence object is written with: opaque bytes the store keeps as they are (see above).
OBJECT_TYPE = "application/x-whodunnet-evidence"
_WRITE = {"Content-Type": OBJECT_TYPE}
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


@dataclass(frozen=True)
class Keys:
    """One set of credentials: an access key, its secret, and a session token for temporary ones (roles)."""

    access_key: str
    secret_key: str
    token: str | None = None


@lru_cache(maxsize=16)
def _signing_key(secret: str, day: str, region: str) -> bytes:
    key = f"AWS4{secret}".encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def sign(
    keys: Keys,
    *,
    method: str,
    path: str,
    query: str,
    headers: dict[str, str],
    payload: str,
    region: str,
    now: dt.datetime,
) -> dict[str, str]:
    """``headers`` with the SigV4 headers added (x-amz-date, x-amz-content-sha256, the token, Authorization).

    AWS Signature Version 4 for S3 as AWS specifies it: ``path`` is already URI-encoded (S3 does not normalise it),
    ``query`` is the encoded query string, every header given is signed, ``payload`` is the body's hex sha256 or
    ``UNSIGNED-PAYLOAD``. Checked against AWS's published example and by every request to a real store in the tests.
    """
    stamp = now.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    out = {**headers, "x-amz-date": stamp, "x-amz-content-sha256": payload}
    if keys.token:
        out["x-amz-security-token"] = keys.token
    canonical_headers = {name.lower(): " ".join(str(value).split()) for name, value in out.items()}
    names = sorted(canonical_headers)
    pairs = sorted(tuple(pair.split("=", 1)) for pair in query.split("&")) if query else []
    canonical = "\n".join(
        [
            method,
            path,
            "&".join(f"{k}={v}" for k, v in pairs),
            "".join(f"{name}:{canonical_headers[name]}\n" for name in names),
            ";".join(names),
            payload,
        ]
    )
    scope = f"{stamp[:8]}/{region}/s3/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    signature = hmac.new(_signing_key(keys.secret_key, stamp[:8], region), to_sign.encode(), hashlib.sha256)
    out["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={keys.access_key}/{scope}, SignedHeaders={';'.join(names)}, "
        f"Signature={signature.hexdigest()}"
    )
    return out


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


def _dropped(connection: http.client.HTTPConnection) -> bool:
    """An idle kept-alive connection the store has closed (an idle HTTP connection has nothing to read)."""
    if connection.sock is None:
        return True
    try:
        readable, _, _ = select.select([connection.sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class Upstream:
    """One request body on its way to the store: ``write`` what arrives, then ``finish`` for the answer's headers;
    ``abort`` drops the connection, so the store keeps nothing of it."""

    def __init__(self, client: S3Client, connection: http.client.HTTPConnection, length: int, label: str) -> None:
        self._client = client
        self._connection: http.client.HTTPConnection | None = connection
        self.left = length
        self._label = label

    def write(self, data: memoryview) -> None:
        if self._connection is None or len(data) > self.left:
            raise RuntimeError(f"{self._label}: {len(data):,} bytes more than the {self.left:,} declared")
        try:
            self._connection.send(data)
        except (OSError, http.client.HTTPException) as exc:
            self.abort()
            raise StoreUnreachable(f"{self._label}: {type(exc).__name__}: {exc}") from None
        self.left -= len(data)

    def finish(self) -> http.client.HTTPMessage:
        connection = self._connection
        if connection is None or self.left:
            raise RuntimeError(f"{self._label}: finished with {self.left:,} bytes still to send")
        try:
            answer = connection.getresponse()
            data = answer.read()
        except (OSError, http.client.HTTPException) as exc:
            self.abort()
            raise StoreUnreachable(f"{self._label}: {type(exc).__name__}: {exc}") from None
        self._connection = None
        if answer.will_close:
            connection.close()
        else:
            self._client._release(connection)
        if answer.status != 200:
            code, message = S3Client._error(answer.status, data)
            if answer.status in _RETRY_STATUS or code in _RETRY_CODES:
                raise StoreUnreachable(f"{self._label}: {answer.status} {code}: {message}")
            raise S3Error(answer.status, code, message)
        return answer.headers

    def abort(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


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
        self._static = Keys(access_key, secret_key) if access_key and secret_key else None
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
        self._request("PUT", key, headers=_WRITE, body=body)

    def delete(self, key: str) -> None:
        self._request("DELETE", key, ok=(200, 204, 404))

    def create_multipart(self, key: str) -> str:
        answer = self._request("POST", key, query={"uploads": ""}, headers=_WRITE)
        return _text(_xml(answer.body), "UploadId")

    def upload_part(self, key: str, upload_id: str, number: int, body: bytes | bytearray | memoryview) -> str:
        """Send part ``number`` (1-based) of a multipart upload; its ETag."""
        query = {"partNumber": str(number), "uploadId": upload_id}
        answer = self._request("PUT", key, query=query, headers=_WRITE, body=body)
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

    def _credentials(self) -> Keys:
        if self._static is not None:
            return self._static
        if self._chain is None:
            import botocore.session  # only without configured keys: botocore's chain (roles, ~/.aws)

            self._chain = botocore.session.Session().get_credentials()
            if self._chain is None:
                raise StoreUnreachable("no credentials for the evidence store: set WHODUNNET_S3_ACCESS_KEY_ID")
        frozen = self._chain.get_frozen_credentials()  # refreshed by botocore before temporary keys expire
        return Keys(frozen.access_key, frozen.secret_key, frozen.token)

    def _payload_hash(self, body: bytes | bytearray | memoryview) -> str:
        if not body:
            return EMPTY_SHA256
        return UNSIGNED_PAYLOAD if self.scheme == "https" else hashlib.sha256(body).hexdigest()

    def _signed(self, method: str, path: str, query: str, headers: dict[str, str], payload: str) -> dict[str, str]:
        now = dt.datetime.now(dt.UTC)
        return sign(
            self._credentials(),
            method=method,
            path=path,
            query=query,
            headers=headers,
            payload=payload,
            region=self.region,
            now=now,
        )

    def _connection(self) -> tuple[http.client.HTTPConnection, bool]:
        with self._lock:
            while self._idle:
                connection = self._idle.pop()
                if not _dropped(connection):
                    return connection, True
                connection.close()
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
        path, encoded, target = self._target(key, query)
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

    def _target(self, key: str, query: dict[str, str] | None) -> tuple[str, str, str]:
        """The request's path, its encoded query, and both as sent."""
        path = self.base + "/" + _quote(key, safe="/-_.~") if key else self.base + "/"
        encoded = "&".join(f"{_quote(k)}={_quote(v)}" for k, v in sorted((query or {}).items()))
        return path, encoded, path + (f"?{encoded}" if encoded else "")

    def stream(self, key: str, length: int, *, query: dict[str, str] | None = None) -> Upstream:
        """A PUT of ``length`` bytes sent as they arrive (``Upstream.write``, then ``finish``). Its payload is
        ``UNSIGNED-PAYLOAD`` (it cannot be hashed before it is sent), and it is not retried: sent bytes are gone."""
        path, encoded, target = self._target(key, query)
        headers = self._signed(
            "PUT", path, encoded, {"Host": self.netloc, "Content-Length": str(length), **_WRITE}, UNSIGNED_PAYLOAD
        )
        connection, _ = self._connection()
        try:
            connection.putrequest("PUT", target, skip_host=True, skip_accept_encoding=True)
            for name, value in headers.items():
                connection.putheader(name, value)
            connection.endheaders()
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise StoreUnreachable(f"PUT {self.netloc}{path}: {type(exc).__name__}: {exc}") from None
        return Upstream(self, connection, length, f"PUT {self.netloc}{path}")

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
