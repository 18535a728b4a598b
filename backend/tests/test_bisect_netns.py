"""A bisect whose reproducer is a real measurement: a TCP transfer timed by a tiny C program the
reproducer builds from the repository, run in the workers' sandbox.

The regression planted in the history is a smaller SO_RCVBUF on the receiving socket (the
receive-window cap behind cross-region timeouts). The receiver does a fixed amount of work per
read (1 ms), so each read can only drain what the receive buffer held: 1 MiB takes ~5 ms with a
256 KiB buffer and ~0.4 s with a 4 KiB one. (There is no netem here to add a path RTT; a slow
reader makes the buffer the bottleneck the same way.) Each run has a network namespace of its
own: the transfer uses the sandbox's loopback, so a port the worker's host already uses, or two
runs at once, never collide, and nothing is left behind.
"""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from bisects.models import BisectJob
from config.celery import app
from tests.conftest import client_for
from tests.gitrepo import git
from tests.worker import WorkerProcess, wait_for
from whodunnet.bisect.sandbox import Sandbox, SandboxError

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

XFER_C = r"""/* Send BYTES from a server to a client; the client sets SO_RCVBUF and reads like a consumer
 * that does a fixed amount of work per read, then prints transfer_seconds=... */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RCVBUF 262144

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[3]))};
    inet_pton(AF_INET, argv[2], &addr.sin_addr);
    static char buf[1 << 20];
    if (strcmp(argv[1], "server") == 0) {
        long left = atol(argv[4]);
        int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(ls, (struct sockaddr *)&addr, sizeof addr) || listen(ls, 1)) return 3;
        int s = accept(ls, NULL, NULL);
        memset(buf, 'x', sizeof buf);
        while (left > 0) {
            ssize_t n = send(s, buf, left < (long)sizeof buf ? left : (long)sizeof buf, 0);
            if (n <= 0) return 4;
            left -= n;
        }
        close(s);
        return 0;
    }
    int s = socket(AF_INET, SOCK_STREAM, 0), rcvbuf = RCVBUF;
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    for (int i = 0; connect(s, (struct sockaddr *)&addr, sizeof addr) != 0; i++) {
        if (i > 200) return 5;
        close(s);
        s = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
        usleep(10000);
    }
    double start = now();
    long total = 0;
    ssize_t n;
    while ((n = recv(s, buf, sizeof buf, 0)) > 0) {
        total += n;
        usleep(1000); /* the consumer's work per read */
    }
    printf("bytes=%ld\ntransfer_seconds=%.3f\n", total, now() - start);
    return 0;
}
"""

REPRO_SH = r"""# Build xfer.c and time a transfer over the sandbox's own loopback; print transfer_seconds.
set -u
cc -O2 -o "$WHODUNNET_SCRATCH/xfer" xfer.c || exit 125
"$WHODUNNET_SCRATCH/xfer" server 127.0.0.1 "$XFER_PORT" "$XFER_BYTES" &
server=$!
"$WHODUNNET_SCRATCH/xfer" client 127.0.0.1 "$XFER_PORT" || exit 255
wait $server
"""
COMMITS, PLANTED = 48, 31
GOOD_BUFFER, BAD_BUFFER = 262144, 4096


def _unavailable() -> str | None:
    if shutil.which("cc") is None:
        return "needs a C compiler (cc)"
    try:
        problem = Sandbox.for_worker().check()
    except SandboxError as exc:
        problem = str(exc)
    return f"the bisect sandbox cannot start here: {problem}" if problem else None


def build_repo(path: Path) -> str:
    """A small history of the transfer program; commit PLANTED shrinks its receive buffer. Returns its id."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    source = XFER_C
    planted = ""
    for i in range(COMMITS):
        buffer = BAD_BUFFER if i >= PLANTED else GOOD_BUFFER
        (path / "xfer.c").write_text(source.replace(f"#define RCVBUF {GOOD_BUFFER}", f"#define RCVBUF {buffer}"))
        (path / "CHANGES").write_text(f"change {i}\n")
        message = "xfer: use a 4 KiB receive buffer" if i == PLANTED else f"xfer: change {i}"
        git(path, "add", "-A")
        git(path, "commit", "--quiet", "-m", message)
        if i == 0:
            git(path, "tag", "good")
        if i == PLANTED:
            planted = git(path, "rev-parse", "HEAD").strip()
    git(path, "tag", "bad")
    return planted


@pytest.fixture
def worker(evidence_dir: Path, tmp_path: Path, bisect_cache: Path) -> Iterator[WorkerProcess]:
    reason = _unavailable()
    if reason:
        pytest.skip(reason)
    app.control.purge()
    process = WorkerProcess(
        kind="bisect",
        evidence_dir=evidence_dir,
        log_dir=tmp_path,
        extra_env={"WHODUNNET_BISECT_CACHE_DIR": str(bisect_cache)},
    ).start()
    yield process
    process.stop()


def test_it_bisects_a_socket_buffer_regression_measured_inside_the_sandbox(
    owner: User, incident: Any, worker: WorkerProcess, tmp_path: Path
) -> None:
    planted = build_repo(tmp_path / "xfer")
    # The worker's host already listens on the port the reproducer uses: its runs must not see it.
    # (A port of the kernel's choosing, so two checkouts running this test at once do not collide.)
    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    response = client_for(owner).post(
        f"/api/incidents/{incident.pk}/bisects/",
        {
            "repo": str(tmp_path / "xfer"),
            "good": "good",
            "bad": "bad",
            "command": REPRO_SH,
            "env": {"XFER_BYTES": "1048576", "XFER_PORT": str(port)},
            "rule": "metric",
            "metric": "transfer_seconds",
            "threshold": 0.1,
            "direction": "above_is_bad",
            "repeats": 2,
            "step_timeout": 20,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    job_id = response.json()["id"]

    try:
        job = wait_for(
            lambda: (j := BisectJob.objects.get(pk=job_id)) and j.is_terminal and j,
            timeout=90,
            what="the measured bisect to finish",
            worker=worker,
        )
    finally:
        taken.close()

    assert job.status == "found", job.error
    assert job.first_bad_commit == planted
    assert job.first_bad_title == "xfer: use a 4 KiB receive buffer"
    values: dict[str, list[float]] = {"good": [], "bad": []}
    for step in job.steps.filter(verdict__in=["good", "bad"]):
        values[step.verdict] += [run["metric_value"] for run in step.runs]
    assert max(values["good"]) < 0.1 < min(values["bad"]), values
