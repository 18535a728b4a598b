"""Parse ``strace -f`` output into syscalls, and follow sockets by file descriptor.

Handles ``-tt`` (``20:51:40.860970``), ``-ttt`` (epoch), ``-r`` (relative, summed into
a running clock), ``-T`` (``<0.000022>``), ``-y``/``-yy`` (``3<TCP:[a:p->b:q]>``), pid
prefixes (``[pid  1699]`` or a bare ``32450`` from ``-o`` with ``-f``),
``<unfinished ...>`` / ``<... name resumed>`` pairs, signals (``--- SIGCHLD ... ---``),
exits (``+++ exited with 0 +++``), and truncated strings (``"xx"...``). A line that fits
none of these is a bad line; the parser goes on with the next one.

Sockets are tracked by fd number through socket/socketpair/accept/connect/bind/
setsockopt/close/dup/dup2/dup3/fcntl(F_DUPFD). One fd table is kept for the whole
trace: threads (the usual ``-f`` case) share their table; separate processes that
reuse an fd number would be merged, which a trace of one client rarely shows.
An fd number that comes back from socket()/accept() while still open (a missed
close) ends the old socket first, so fd reuse never mixes two connections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from whodunnet.kinds.text import LineLog

_PREFIX = re.compile(
    r"^\s*(?:\[pid\s+(?P<pid>\d+)\]\s+|(?P<pid2>\d+)\s+(?=\d|[a-z_+<-]))?"
    r"(?:(?P<ts>\d{1,2}:\d{2}:\d{2}(?:\.\d+)?|\d+\.\d+)\s+)?(?P<rest>.*)$"
)
_CALL = re.compile(r"^(?P<name>[a-z_][a-z0-9_]*)\((?P<args>.*)\)\s+=\s+(?P<ret>.*?)(?:\s+<(?P<dur>\d+\.\d+)>)?$")
_UNFINISHED = re.compile(r"^(?P<name>[a-z_][a-z0-9_]*)\((?P<args>.*?)\s*<unfinished \.\.\.>\s*$")
_RESUMED = re.compile(
    r"^<\.\.\. (?P<name>[a-z_][a-z0-9_]*) resumed>\s*(?P<args>.*)\)\s+=\s+(?P<ret>.*?)(?:\s+<(?P<dur>\d+\.\d+)>)?$"
)
_SIGNAL = re.compile(r"^--- (?P<sig>SIG[A-Z0-9]+|\w+) (?P<info>.*?)\s*---$")
_EXIT = re.compile(r"^\+\+\+ (?:exited with (?P<code>-?\d+)|killed by (?P<sig>SIG[A-Z0-9]+)[^+]*) \+\+\+$")
_NOTE = re.compile(r"^(strace: |\s*$|Process \d+ (attached|detached))")
_RET = re.compile(
    r"^(?P<val>-?\d+|0x[0-9a-f]+|\?)(?:<(?P<path>[^>]*)>+)?(?:\s+(?P<errno>E[A-Z0-9]+))?(?:\s+\((?P<note>.*)\))?"
)
_FD_ARG = re.compile(r"^(?P<fd>-?\d+)(?:<(?P<path>.*)>)?$")
_YY = re.compile(r"^(?P<proto>TCP|TCPv6|UDP|UDPv6|UNIX|NETLINK|UNIX-STREAM)?:?\[(?P<body>.*)\]$")
_PORT = re.compile(r"(?:sin6?_port|port)=htons\((?P<port>\d+)\)")
_ADDR4 = re.compile(r'sin_addr=inet_addr\("(?P<addr>[^"]+)"\)')
_ADDR6 = re.compile(r'inet_pton\(AF_INET6, "(?P<addr>[^"]+)"')
_UNIXPATH = re.compile(r'sun_path=(?P<path>@?"[^"]*")')
_FAMILY = re.compile(r"sa_family=(?P<fam>AF_\w+)")
_INT_LIST = re.compile(r"^\[(?P<v>-?\d+)\]$")
_POLLFD = re.compile(r"\{fd=(?P<fd>-?\d+)(?:<[^>]*>)?, events=")
_TIMESPEC = re.compile(r"\{tv_sec=(?P<s>\d+), tv_(?P<unit>usec|nsec)=(?P<f>\d+)\}")

SOCKET_CREATORS = frozenset({"socket", "accept", "accept4"})
DUPS = frozenset({"dup", "dup2", "dup3"})


@dataclass
class Syscall:
    """One completed system call (an unfinished/resumed pair is joined into one)."""

    line: int
    pid: int | None
    time: float | None
    name: str
    args: list[str]
    ret: str
    retval: int | None
    errno: str | None
    note: str | None
    duration: float | None
    start_line: int | None = None  # the <unfinished ...> line, when resumed


@dataclass
class Socket:
    """One socket, from its creation to its close, with the options set on it."""

    fd: int
    pid: int | None
    opened_line: int
    opened_at: float | None
    family: str = ""
    type: str = ""
    how: str = "socket"
    local: str | None = None
    peer: str | None = None
    connect_result: str | None = None
    connect_line: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    option_lines: dict[str, int] = field(default_factory=dict)
    closed_line: int | None = None
    closed_at: float | None = None
    closed_how: str | None = None
    fds: list[int] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    #: Bytes the application read from the socket (recv/recvfrom/recvmsg/read return values).
    bytes_received: int = 0

    def age(self) -> float | None:
        if self.opened_at is None or self.closed_at is None:
            return None
        return self.closed_at - self.opened_at

    def to_json(self) -> dict[str, Any]:
        age = self.age()
        return {
            "fd": self.fd,
            "fds": sorted(set(self.fds)),
            "pid": self.pid,
            "family": self.family,
            "type": self.type,
            "how": self.how,
            "local": self.local,
            "peer": self.peer,
            "connect_result": self.connect_result,
            "connect_line": self.connect_line,
            "options": dict(self.options),
            "option_lines": dict(self.option_lines),
            "opened_line": self.opened_line,
            "opened_at": self.opened_at,
            "closed_line": self.closed_line,
            "closed_at": self.closed_at,
            "closed_how": self.closed_how,
            "age_s": round(age, 6) if age is not None else None,
            "timeout_lines": list(self.timeouts),
            "bytes_received": self.bytes_received,
        }


@dataclass
class Timeout:
    """A wait that ran out: poll/ppoll/select/epoll_wait returning 0, or a recv with EAGAIN after SO_RCVTIMEO."""

    line: int
    pid: int | None
    time: float | None
    syscall: str
    fds: list[int]
    timeout_ms: float | None
    waited_s: float | None
    #: When this wait ended a loop of waits on the same descriptors whose timeouts counted
    #: down (each the time left of one deadline): that deadline (the first wait's timeout,
    #: plus the time before it when the trace has timestamps), how many waits, the first's line.
    deadline_ms: float | None = None
    countdown_waits: int = 0
    countdown_line: int | None = None
    #: "timeout" (the wait ran out) or, for a countdown the application ended itself when no
    #: time was left, the call that ended it ("shutdown", "close").
    ended_by: str = "timeout"

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "pid": self.pid,
            "time": self.time,
            "syscall": self.syscall,
            "fds": self.fds,
            "timeout_ms": self.timeout_ms,
            "waited_s": self.waited_s,
            "deadline_ms": self.deadline_ms,
            "countdown_waits": self.countdown_waits,
            "countdown_line": self.countdown_line,
            "ended_by": self.ended_by,
        }


class StraceTrace:
    """Feed lines with ``feed``; read ``calls``, ``sockets``, ``timeouts``, ``signals``, ``exits``."""

    def __init__(self, log: LineLog | None = None, *, keep_calls: bool = False) -> None:
        self.log = log or LineLog()
        self.keep_calls = keep_calls
        self.calls: list[Syscall] = []
        self.call_count = 0
        self.syscall_counts: dict[str, int] = {}
        self.pids: set[int] = set()
        self.sockets: list[Socket] = []
        self.open: dict[int, Socket] = {}
        self.timeouts: list[Timeout] = []
        #: Per (pid, syscall, fds): the waits of a countdown so far, (line, time, timeout ms).
        self._countdowns: dict[tuple[int | None, str, tuple[int, ...]], list[tuple[int, float | None, float]]] = {}
        self.signals: list[dict[str, Any]] = []
        self.exits: list[dict[str, Any]] = []
        self.pending: dict[int | None, tuple[int, str, str, float | None]] = {}
        self.time_format: str | None = None
        self.first_time: float | None = None
        self.last_time: float | None = None
        self._clock = 0.0
        self.lines = 0

    # -- lines ------------------------------------------------------------------------

    def feed(self, number: int, text: str) -> None:
        self.lines = number
        if _NOTE.match(text):
            return
        m = _PREFIX.match(text)
        if m is None:  # pragma: no cover - the pattern matches any string
            self.log.bad(number, "not an strace line", text)
            return
        pid_text = m.group("pid") or m.group("pid2")
        pid = int(pid_text) if pid_text else None
        when = self._time(m.group("ts"))
        rest = m.group("rest")
        if pid is not None:
            self.pids.add(pid)
        if (c := _CALL.match(rest)) is not None:
            self._call(number, pid, when, c.group("name"), c.group("args"), c.group("ret"), c.group("dur"), None)
        elif (u := _UNFINISHED.match(rest)) is not None:
            self.pending[pid] = (number, u.group("name"), u.group("args"), when)
        elif (r := _RESUMED.match(rest)) is not None:
            start = self.pending.pop(pid, None)
            if start is None or start[1] != r.group("name"):
                # The first half was before the trace started (or on another line we could not read):
                # the call is still worth keeping with the arguments we have.
                self._call(number, pid, when, r.group("name"), r.group("args"), r.group("ret"), r.group("dur"), None)
            else:
                args = start[2] + r.group("args")
                self._call(number, pid, start[3], start[1], args, r.group("ret"), r.group("dur"), start[0])
        elif (s := _SIGNAL.match(rest)) is not None:
            self.signals.append({"line": number, "pid": pid, "time": when, "signal": s.group("sig")})
        elif (e := _EXIT.match(rest)) is not None:
            code = e.group("code")
            self.exits.append(
                {
                    "line": number,
                    "pid": pid,
                    "time": when,
                    "code": int(code) if code is not None else None,
                    "signal": e.group("sig"),
                }
            )
        elif rest.endswith("<detached ...>") or rest.startswith("<... "):
            return
        else:
            self.log.bad(number, "not an strace line (no 'name(args) = result')", text)

    def finish(self) -> None:
        """Calls still unfinished at the end of the trace are listed, not guessed."""
        for pid, (line, name, _args, _when) in self.pending.items():
            self.signals.append({"line": line, "pid": pid, "time": None, "signal": None, "unfinished": name})
        self.pending.clear()

    def _time(self, ts: str | None) -> float | None:
        if ts is None:
            return None
        if ":" in ts:
            h, mnt, sec = ts.split(":")
            value = int(h) * 3600 + int(mnt) * 60 + float(sec)
            self.time_format = self.time_format or "-tt"
        else:
            value = float(ts)
            if self.time_format is None:
                self.time_format = "-ttt" if value > 1e8 else "-r"
            if self.time_format == "-r":
                self._clock += value
                value = self._clock
        if self.first_time is None:
            self.first_time = value
        self.last_time = value
        return value

    # -- calls ------------------------------------------------------------------------

    def _call(
        self,
        line: int,
        pid: int | None,
        when: float | None,
        name: str,
        args_text: str,
        ret_text: str,
        dur: str | None,
        start_line: int | None,
    ) -> None:
        rm = _RET.match(ret_text.strip())
        retval: int | None = None
        errno = note = None
        ret_path = None
        if rm is not None:
            val = rm.group("val")
            if val != "?":
                retval = int(val, 16) if val.startswith("0x") else int(val)
            errno = rm.group("errno")
            note = rm.group("note")
            ret_path = rm.group("path")
        call = Syscall(
            line=line,
            pid=pid,
            time=when,
            name=name,
            args=split_args(args_text),
            ret=ret_text,
            retval=retval,
            errno=errno,
            note=note,
            duration=float(dur) if dur else None,
            start_line=start_line,
        )
        self.call_count += 1
        self.syscall_counts[name] = self.syscall_counts.get(name, 0) + 1
        if self.keep_calls:
            self.calls.append(call)
        self._track(call, ret_path)

    def _track(self, c: Syscall, ret_path: str | None) -> None:
        name = c.name
        ok = c.retval is not None and c.retval >= 0
        if name in SOCKET_CREATORS and ok and c.retval is not None:
            sock = self._new(c.retval, c)
            if name == "socket":
                sock.family = c.args[0] if c.args else ""
                sock.type = c.args[1].split("|")[0] if len(c.args) > 1 else ""
            else:
                sock.how = name
                listener = self._fd_socket(c.args[0] if c.args else "")
                if listener is not None:
                    sock.family, sock.type, sock.local = listener.family, listener.type, listener.local
                    sock.options = {k: v for k, v in listener.options.items() if k in INHERITED_OPTIONS}
                if len(c.args) > 1:
                    sock.peer = sock.peer or parse_sockaddr(c.args[1])
            if ret_path:
                self._from_yy(sock, ret_path)
            return
        if name == "socketpair" and ok and len(c.args) >= 4:
            for fd_text in re.findall(r"-?\d+", c.args[3])[:2]:
                sock = self._new(int(fd_text), c)
                sock.family, sock.how = c.args[0], "socketpair"
            return
        if not c.args:
            return
        fd = _fd_number(c.args[0])
        found = self.open.get(fd) if fd is not None else None
        if found is None:
            if name in WAITS:
                self._wait(c)
            return
        sock = found
        if (m := _FD_ARG.match(c.args[0].strip())) and m.group("path"):
            self._from_yy(sock, m.group("path"))
        if name == "connect":
            sock.peer = parse_sockaddr(c.args[1]) if len(c.args) > 1 else sock.peer
            sock.connect_result = "0" if c.retval == 0 else (c.errno or c.ret)
            sock.connect_line = c.line
        elif name == "bind" and len(c.args) > 1:
            sock.local = parse_sockaddr(c.args[1])
        elif name == "setsockopt" and len(c.args) >= 4:
            opt = c.args[2].strip()
            sock.options[opt] = parse_optval(c.args[3])
            sock.option_lines[opt] = c.line
            if c.retval is not None and c.retval < 0:
                sock.options[opt + ":error"] = c.errno or c.ret
        elif name == "close" and fd is not None:
            self._close(fd, c, "close")
        elif name == "shutdown":
            sock.closed_how = "shutdown"
            if fd is not None:
                self._countdown_ended(fd, c, "shutdown")
        elif name in DUPS and ok and c.retval is not None:
            if c.retval in self.open and self.open[c.retval] is not sock:
                self._close(c.retval, c, "replaced by " + name)
            self.open[c.retval] = sock
            sock.fds.append(c.retval)
        elif name == "fcntl" and ok and c.retval is not None and len(c.args) > 1:  # noqa: SIM102
            if c.args[1].startswith("F_DUPFD"):
                self.open[c.retval] = sock
                sock.fds.append(c.retval)
        if name in RECVS and c.retval is not None and c.retval > 0:
            sock.bytes_received += c.retval
        if name in WAITS:
            self._wait(c)
        elif name in RECVS and c.errno in ("EAGAIN", "EWOULDBLOCK"):  # noqa: SIM102
            if "SO_RCVTIMEO" in sock.options or "SO_RCVTIMEO_OLD" in sock.options:
                self._timeout(c, [fd] if fd is not None else [], _rcvtimeo_ms(sock))

    def _new(self, fd: int, c: Syscall) -> Socket:
        if fd in self.open:
            self._close(fd, c, "fd reused")
        sock = Socket(fd=fd, pid=c.pid, opened_line=c.line, opened_at=c.time, fds=[fd])
        self.open[fd] = sock
        self.sockets.append(sock)
        return sock

    def _countdown_ended(self, fd: int, c: Syscall, how: str) -> None:
        """A loop of waits counting down one deadline on ``fd`` that the application ended itself
        (its clock said no time was left, so no wait ran out): the deadline is still stated."""
        for key, chain in list(self._countdowns.items()):
            if fd not in key[2] or len(chain) < 3 or chain[0][2] <= chain[-1][2]:
                continue
            del self._countdowns[key]
            first_line, first_time, first_ms = chain[0]
            last_line, _, last_ms = chain[-1]
            deadline = first_ms
            if first_time is not None and c.time is not None:
                deadline = max(first_ms, (c.time - first_time) * 1000)
            t = Timeout(line=last_line, pid=key[0], time=c.time, syscall=key[1], fds=list(key[2]),
                        timeout_ms=last_ms, waited_s=None, deadline_ms=deadline, countdown_waits=len(chain),
                        countdown_line=first_line, ended_by=how)  # fmt: skip
            self.timeouts.append(t)

    def _close(self, fd: int, c: Syscall, how: str) -> None:
        self._countdown_ended(fd, c, "close")
        sock = self.open.pop(fd, None)
        if sock is None:
            return
        if fd in sock.fds and any(self.open.get(other) is sock for other in sock.fds):
            return  # another descriptor (a dup) still holds the socket open
        sock.closed_line = c.line
        sock.closed_at = c.time
        sock.closed_how = how if sock.closed_how is None else f"{sock.closed_how}+{how}"

    def _fd_socket(self, arg: str) -> Socket | None:
        fd = _fd_number(arg)
        return self.open.get(fd) if fd is not None else None

    def _from_yy(self, sock: Socket, path: str) -> None:
        m = _YY.match(path)
        if m is None:
            return
        proto, body = m.group("proto"), m.group("body")
        if proto and not sock.family:
            sock.family = "AF_INET6" if proto.endswith("v6") else "AF_UNIX" if proto.startswith("UNIX") else "AF_INET"
        if "->" in body:
            local, peer = body.split("->", 1)
            sock.local = sock.local or local
            sock.peer = sock.peer or peer

    def _wait(self, c: Syscall) -> None:
        args = c.args
        fds: list[int] = []
        timeout_ms: float | None = None
        if c.name in ("poll", "ppoll"):
            fds = [int(x) for x in _POLLFD.findall(args[0])] if args else []
            if c.name == "poll" and len(args) > 2:
                timeout_ms = _number(args[2])
            elif len(args) > 2:
                timeout_ms = _timespec_ms(args[2])
        elif c.name in ("select", "pselect6"):
            fds = [int(x) for x in re.findall(r"\d+", args[1])] if len(args) > 1 else []
            if len(args) > 4:
                timeout_ms = _timespec_ms(args[4])
        elif c.name in ("epoll_wait", "epoll_pwait", "epoll_pwait2"):
            fds = [v] if args and (v := _fd_number(args[0])) is not None else []
            if len(args) > 3:
                timeout_ms = _number(args[3]) if c.name != "epoll_pwait2" else _timespec_ms(args[3])
        if timeout_ms is None or timeout_ms < 0:
            return
        key = (c.pid, c.name, tuple(fds))
        chain = self._countdowns.get(key, [])
        line = c.start_line or c.line
        if not chain or timeout_ms > chain[-1][2]:
            chain = [(line, c.time, timeout_ms)]  # a fresh wait, not the time left of the last one
        else:
            chain.append((line, c.time, timeout_ms))
        self._countdowns[key] = chain
        if c.retval != 0:
            return
        del self._countdowns[key]
        deadline = None
        if len(chain) >= 2 and chain[0][2] > chain[-1][2]:  # the time left went down: one deadline
            _, first_time, first_ms = chain[0]
            deadline = first_ms
            if first_time is not None and c.time is not None:  # the same end time: first wait's start + timeout
                deadline = max(first_ms, (c.time - first_time) * 1000 + timeout_ms)
        self._timeout(c, fds, timeout_ms, deadline, len(chain) if deadline is not None else 0, chain[0][0])

    def _timeout(
        self,
        c: Syscall,
        fds: list[int],
        timeout_ms: float | None,
        deadline_ms: float | None = None,
        countdown_waits: int = 0,
        countdown_line: int | None = None,
    ) -> None:
        t = Timeout(
            line=c.start_line or c.line,
            pid=c.pid,
            time=c.time,
            syscall=c.name,
            fds=fds,
            timeout_ms=timeout_ms,
            waited_s=c.duration,
            deadline_ms=deadline_ms,
            countdown_waits=countdown_waits,
            countdown_line=countdown_line if deadline_ms is not None else None,
        )
        self.timeouts.append(t)
        for fd in fds:
            if (sock := self.open.get(fd)) is not None:
                sock.timeouts.append(t.line)


WAITS = frozenset({"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2"})
RECVS = frozenset({"recv", "recvfrom", "recvmsg", "read"})
INHERITED_OPTIONS = frozenset({"SO_RCVBUF", "SO_SNDBUF", "SO_KEEPALIVE", "TCP_NODELAY", "SO_LINGER"})


def split_args(text: str) -> list[str]:
    """Split an strace argument list at top-level commas (quotes, [], {}, () respected)."""
    out: list[str] = []
    depth = 0
    start = 0
    quote = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
        i += 1
    last = text[start:].strip()
    if last or out:
        out.append(last)
    return out


def parse_sockaddr(arg: str) -> str | None:
    """``{sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("1.2.3.4")}`` → ``1.2.3.4:443``."""
    port = _PORT.search(arg)
    if (a4 := _ADDR4.search(arg)) is not None:
        return f"{a4.group('addr')}:{port.group('port') if port else '?'}"
    if (a6 := _ADDR6.search(arg)) is not None:
        return f"[{a6.group('addr')}]:{port.group('port') if port else '?'}"
    if (u := _UNIXPATH.search(arg)) is not None:
        return "unix:" + u.group("path").replace('"', "")
    if (f := _FAMILY.search(arg)) is not None:
        return f.group("fam")
    return None


def parse_optval(arg: str) -> Any:
    """``[65536]`` → 65536; ``{l_onoff=1, l_linger=0}`` → a dict; anything else as written."""
    arg = arg.strip()
    if (m := _INT_LIST.match(arg)) is not None:
        return int(m.group("v"))
    if arg.startswith("{") and arg.endswith("}"):
        out: dict[str, Any] = {}
        for part in split_args(arg[1:-1]):
            key, sep, value = part.partition("=")
            if sep:
                out[key.strip()] = int(value) if re.fullmatch(r"-?\d+", value.strip()) else value.strip()
        return out
    return arg


def _fd_number(arg: str) -> int | None:
    m = _FD_ARG.match(arg.strip())
    return int(m.group("fd")) if m else None


def _number(arg: str) -> float | None:
    try:
        return float(arg.strip())
    except ValueError:
        return None


def _timespec_ms(arg: str) -> float | None:
    m = _TIMESPEC.search(arg)
    if m is None:
        return None
    frac = int(m.group("f")) / (1e3 if m.group("unit") == "usec" else 1e6)
    return int(m.group("s")) * 1000 + frac


def _rcvtimeo_ms(sock: Socket) -> float | None:
    value = sock.options.get("SO_RCVTIMEO", sock.options.get("SO_RCVTIMEO_OLD"))
    if isinstance(value, dict):
        sec = value.get("tv_sec", 0)
        usec = value.get("tv_usec", 0)
        if isinstance(sec, int) and isinstance(usec, int):
            return sec * 1000 + usec / 1000
    return None
