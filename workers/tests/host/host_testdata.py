"""Paths to the host-evidence test data (copied from /work/shared/corpus, see INDEX there)."""

from __future__ import annotations

from pathlib import Path

HOST_DATA = Path(__file__).parent / "data"
LOOPBACK = HOST_DATA / "loopback"

RCVBUF_DEADLINE_STRACE = """\
[pid  1699] 18:47:06.101010 socket(AF_INET6, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = 917
[pid  1699] 18:47:06.101100 setsockopt(917, SOL_IPV6, IPV6_V6ONLY, [0], 4) = 0
[pid  1699] 18:47:06.101200 setsockopt(917, SOL_SOCKET, SO_KEEPALIVE, [1], 4) = 0
[pid  1699] 18:47:06.101300 setsockopt(917, SOL_SOCKET, SO_SNDBUF, [131072], 4) = 0
[pid  1699] 18:47:06.101400 setsockopt(917, SOL_SOCKET, SO_RCVBUF, [65536], 4) = 0
[pid  1699] 18:47:06.101500 setsockopt(917, SOL_TCP, TCP_NODELAY, [1], 4) = 0
[pid  1699] 18:47:06.101600 connect(917, {sa_family=AF_INET6, sin6_port=htons(9092), sin6_flowinfo=htonl(0), \
inet_pton(AF_INET6, "2001:db8::5", &sin6_addr), sin6_scope_id=0}, 28) = -1 EINPROGRESS (Operation now in progress)
[pid  1700] 18:47:06.101700 epoll_wait(5,  <unfinished ...>
[pid  1699] 18:47:06.101800 poll([{fd=917, events=POLLOUT}], 1, 30000 <unfinished ...>
[pid  1700] 18:47:06.300000 <... epoll_wait resumed>[], 1024, 100) = 0
[pid  1699] 18:47:36.101900 <... poll resumed>) = 0 (Timeout)
[pid  1699] 18:47:36.102000 close(917) = 0
[pid  1699] 18:47:36.102100 --- SIGPIPE {si_signo=SIGPIPE, si_code=SI_USER, si_pid=1699, si_uid=0} ---
[pid  1699] 18:47:36.102200 write(1, "timed out after 30 s"..., 40) = 40
[pid  1699] 18:47:36.200000 +++ exited with 1 +++
"""
