"""An strace's poll loop counting down one deadline: the deadline is stated, however the loop ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from whodunnet.engine import analyze

HEAD = (
    "1699  10:00:00.000100 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 5\n"
    "1699  10:00:00.000200 setsockopt(5, SOL_SOCKET, SO_RCVBUF, [65536], 4) = 0\n"
    '1699  10:00:00.000300 connect(5, {sa_family=AF_INET, sin_port=htons(7003), sin_addr=inet_addr("10.91.3.2")}, 16)'
    " = 0\n"
    "1699  10:00:00.160000 poll([{fd=5, events=POLLIN}], 1, 10000) = 1 ([{fd=5, revents=POLLIN}])\n"
    '1699  10:00:00.160100 recvfrom(5, "x"..., 65536, 0, NULL, NULL) = 32768\n'
    "1699  10:00:00.310000 poll([{fd=5, events=POLLIN}], 1, 9850) = 1 ([{fd=5, revents=POLLIN}])\n"
    "1699  10:00:00.310500 poll([{fd=5, events=POLLIN}], 1, 9850) = 1 ([{fd=5, revents=POLLIN}])\n"
)
TIMED_OUT = "1699  10:00:09.998000 poll([{fd=5, events=POLLIN}], 1, 2) = 0 (Timeout)\n"
ENDED = "1699  10:00:09.990000 poll([{fd=5, events=POLLIN}], 1, 10) = 1 ([{fd=5, revents=POLLIN}])\n"
TAIL = "1699  10:00:10.000300 shutdown(5, SHUT_WR) = 0\n1699  10:00:10.000400 close(5) = 0\n"
#: Two waits of one fixed timeout are no countdown.
FIXED = (
    "1699  10:00:00.000100 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 5\n"
    "1699  10:00:00.100000 poll([{fd=5, events=POLLIN}], 1, 500) = 1 ([{fd=5, revents=POLLIN}])\n"
    "1699  10:00:00.700000 poll([{fd=5, events=POLLIN}], 1, 500) = 0 (Timeout)\n"
)


@pytest.mark.parametrize(("body", "title"), [
    (TIMED_OUT, "poll timed out 1 time on fd 5: the end of a poll loop counting down a 10.0 s deadline"),
    (ENDED, "a poll loop on fd 5 counting down a 10.0 s deadline, then shutdown: the deadline ran out"),
])  # fmt: skip
def test_the_deadline_a_poll_loop_counts_down_is_stated(tmp_path: Path, body: str, title: str) -> None:
    path = tmp_path / "client.strace"
    path.write_text(HEAD + body + TAIL)
    (f,) = [f for f in analyze([path]).findings if f.kind == "app.timeout"]
    assert f.title == title
    assert f.data["deadline_s"] == pytest.approx(10.0, abs=0.01) and f.data["countdown_waits"] == 4
    assert f.data["countdown_lines"] == [4]


def test_a_fixed_timeout_is_not_a_countdown(tmp_path: Path) -> None:
    path = tmp_path / "fixed.strace"
    path.write_text(FIXED)
    (f,) = [f for f in analyze([path]).findings if f.kind == "app.timeout"]
    assert "deadline_ms" not in f.data and f.title == "poll timed out 1 time after 500 ms on fd 5"


def test_a_fixed_timeout_title_says_its_milliseconds_with_separators(tmp_path: Path) -> None:
    path = tmp_path / "fixed.strace"
    path.write_text(FIXED.replace(", 500)", ", 30000)"))
    (f,) = [f for f in analyze([path]).findings if f.kind == "app.timeout"]
    assert f.title == "poll timed out 1 time after 30,000 ms on fd 5"


def test_the_window_model_takes_the_deadline_and_a_lower_bound_of_the_size_from_strace(tmp_path: Path) -> None:
    trace = tmp_path / "client.strace"
    trace.write_text(HEAD + TIMED_OUT + TAIL)
    kernels = tmp_path / "kernels.txt"
    kernels.write_text("before: 6.5.13\nafter: 6.6.10\n")
    (model,) = [f for f in analyze([trace, kernels]).findings if f.kind == "kernel.receive_window_model"]
    assert model.data["timeout_ms"] == pytest.approx(10_000, abs=10)
    assert model.data["timeout_source"] == "strace client.strace: a poll loop counting down 10.0 s"
    assert model.data["transfer_bytes"] == 32768
    assert model.data["transfer_source"].startswith("strace client.strace: what fd 5 read before the close cut it off")
    assert model.data["rtt_ms"] is None and model.data["missing"][0].startswith("no RTT: upload a capture")
    assert all(k["transfer_s"] is None for k in model.data["kernels"])
