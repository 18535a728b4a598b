"""``ss -tin`` (also ``-e -m -o``) snapshots, ``netstat -tan`` and tcp_info exports (CSV, JSON) → socket samples.

``ss`` with one state filter (``ss -tin state established``, what an edge operator types) prints no
State column: the state is then the one a ``$ ss ... state X`` line above the output names, else
unknown (``""``). ``netstat -tan`` (net-tools, and the BSDs' ``a.b.c.d.port`` addresses) gives each
socket's state, never tcp_info; its state names are read as ss's (``TIME_WAIT`` → ``TIME-WAIT``).

ss units are kept as ss prints them, converted to one set: rtt/rttvar/minrtt in ms,
rates in bit/s, bytes in bytes. In CSV/JSON exports, columns named ``tcpi_*`` follow
the kernel's ``struct tcp_info`` units (rtt in µs, rates in bytes/s) and are converted;
other names are taken in ss units, unless a suffix says otherwise (``_us``, ``_ms``,
``_Bps``). Snapshots are separated by ``=== <epoch>`` lines (a sampling loop) or by a
repeated ``State Recv-Q ...`` header; CSV/JSON rows carry their own ``ts``.

Every reader here is fed one line at a time and hands each complete sample to ``emit`` (an ss
socket is complete when the next socket, header or snapshot line starts, or at ``finish``), so
the analyzer keeps aggregates, never the samples. ``SocketReader`` picks the reader from the
first line. A JSON document (not JSON lines) has to be parsed whole: it is held up to
``MAX_JSON_DOCUMENT_BYTES``.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from whodunnet.kinds.text import LineLog, LineReader

#: The largest JSON document (as opposed to JSON lines) read; past it the rest is a bad line.
MAX_JSON_DOCUMENT_BYTES = 64 * 1024 * 1024
#: Where a JSON document that is one object keeps its list of rows.
DOCUMENT_LISTS = ("sockets", "data", "rows", "samples")

_HEADER = re.compile(r"^(?:Netid\s+)?(?P<state>State\s+)?Recv-Q\s+Send-Q\s+Local")
_SNAP = re.compile(r"^===\s*(?P<ts>\d+(?:\.\d+)?)?")
_SOCK = re.compile(
    r"^(?:(?P<netid>tcp|udp|u_str|raw|mptcp)\s+)?(?:(?P<state>[A-Z][A-Z0-9-]*)\s+)?(?P<recvq>\d+)\s+(?P<sendq>\d+)\s+"
    r"(?P<local>\S+)\s+(?P<peer>\S+)(?:\s+(?P<rest>.*))?$"
)
#: ``$ ss -tin state established`` (or ``# ss ...``): the command above the output, for the state it filtered on.
_SS_COMMAND = re.compile(r"^[$#]\s*(?:sudo\s+)?ss\s.*?\bstate\s+(?P<state>[a-z0-9-]+)")
#: ss's state filter names → the names ss prints in its State column.
SS_FILTER_STATES = {
    "established": "ESTAB", "syn-sent": "SYN-SENT", "syn-recv": "SYN-RECV", "fin-wait-1": "FIN-WAIT-1",
    "fin-wait-2": "FIN-WAIT-2", "time-wait": "TIME-WAIT", "closed": "UNCONN", "close-wait": "CLOSE-WAIT",
    "last-ack": "LAST-ACK", "listening": "LISTEN", "closing": "CLOSING",
}  # fmt: skip
#: netstat's state names (net-tools and the BSDs) → ss's.
NETSTAT_STATES = {
    "ESTABLISHED": "ESTAB", "SYN_SENT": "SYN-SENT", "SYN_RECV": "SYN-RECV", "SYN_RCVD": "SYN-RECV",
    "FIN_WAIT1": "FIN-WAIT-1", "FIN_WAIT_1": "FIN-WAIT-1", "FIN_WAIT2": "FIN-WAIT-2", "FIN_WAIT_2": "FIN-WAIT-2",
    "TIME_WAIT": "TIME-WAIT", "CLOSE": "UNCONN", "CLOSED": "UNCONN", "CLOSE_WAIT": "CLOSE-WAIT",
    "LAST_ACK": "LAST-ACK", "LISTEN": "LISTEN", "CLOSING": "CLOSING", "UNKNOWN": "UNKNOWN",
}  # fmt: skip
_NETSTAT_HEADER = re.compile(r"^(?:Tcpcb\s+)?Proto\s+Recv-Q\s+Send-Q\s+Local\s+Address")
_NETSTAT_PROTO = re.compile(r"^(?P<proto>tcp|udp|raw)(?:4|6|46)?$")
_BSD_ADDR = re.compile(r"^(?P<host>.+)\.(?P<port>[^.:\]]+)$")
_RATE = re.compile(r"^(?P<v>\d+(?:\.\d+)?)(?P<u>[KMGT]?)bps$")
_KV = re.compile(r"^(?P<k>[a-z_]+):(?P<v>\S+)$")
CONGESTION = frozenset({"cubic", "bbr", "bbr2", "bbr3", "reno", "dctcp", "vegas", "westwood", "htcp", "bic", "illinois", "hybla", "scalable", "yeah", "lp", "nv", "cdg", "highspeed", "veno"})  # noqa: E501  # fmt: skip
RATE_WORDS = frozenset({"send", "pacing_rate", "delivery_rate"})
UNIT = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
NUMERIC = (
    "cwnd",
    "ssthresh",
    "mss",
    "rto",
    "bytes_acked",
    "bytes_received",
    "bytes_sent",
    "bytes_retrans",
    "segs_out",
    "segs_in",
    "data_segs_out",
    "data_segs_in",
    "unacked",
    "lost",
    "delivered",
    "notsent",
    "rcv_space",
)


@dataclass
class Sample:
    """One socket in one snapshot."""

    snapshot: int
    time: float | None
    line: int
    state: str
    local: str
    peer: str
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.local} {self.peer}"

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot": self.snapshot,
            "time": self.time,
            "line": self.line,
            "state": self.state,
            "local": self.local,
            "peer": self.peer,
            **self.fields,
        }


def parse_info(tokens: list[str], out: dict[str, Any]) -> None:
    """The tcp_info words of one ss socket (``rtt:0.057/0.033``, ``send 32.2Mbps``, ``cubic`` ...)."""
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in RATE_WORDS and i + 1 < len(tokens) and (m := _RATE.match(tokens[i + 1])):
            out["send_bps" if tok == "send" else tok + "_bps"] = float(m.group("v")) * UNIT[m.group("u")]
            i += 2
            continue
        if tok in CONGESTION:
            out["cc"] = tok
        elif tok == "app_limited":
            out["app_limited"] = True
        elif (m := _KV.match(tok)) is not None:
            k, v = m.group("k"), m.group("v")
            if k == "rtt" and "/" in v:
                a, b = v.split("/", 1)
                out["rtt_ms"], out["rttvar_ms"] = _f(a), _f(b)
            elif k == "retrans" and "/" in v:
                a, b = v.split("/", 1)
                out["retrans"], out["retrans_total"] = _i(a), _i(b)
            elif k in ("minrtt", "rcv_rtt"):
                out[k + "_ms"] = _f(v)
            elif k == "rwnd_limited" or k == "sndbuf_limited" or k == "busy":
                ms = re.match(r"(\d+)ms(?:\((\d+(?:\.\d+)?)%\))?", v)
                if ms:
                    out[k + "_ms"] = int(ms.group(1))
                    if ms.group(2):
                        out[k + "_pct"] = float(ms.group(2))
            elif k == "wscale":
                out["wscale"] = v
            elif k == "timer":
                out["timer"] = v
            elif k == "skmem":
                for part in v.strip("()").split(","):
                    if (sm := re.fullmatch(r"([a-z]+)(\d+)", part)) is not None:
                        out["skmem_" + sm.group(1)] = int(sm.group(2))
            elif k in NUMERIC:
                iv = _i(v)
                if iv is not None:
                    out[k] = iv
        i += 1


Emit = Callable[[Sample], None]


class SsParser:
    """ss text output, one line at a time; each socket goes to ``emit`` once its details are read.

    Without ``emit``, the samples are collected in ``samples``.
    """

    def __init__(self, log: LineLog, emit: Emit | None = None) -> None:
        self.log = log
        self.samples: list[Sample] = []
        self.emit: Emit = emit if emit is not None else self.samples.append
        self.snapshots = 0
        self._time: float | None = None
        self._current: Sample | None = None
        self._seen_header_in_snapshot = False
        #: The state of the sockets when the header has no State column ("" when no command says it).
        self._filtered = ""
        self._command_state = ""

    def _flush(self) -> None:
        if self._current is not None:
            self.emit(self._current)
            self._current = None

    def finish(self) -> None:
        self._flush()

    def feed(self, n: int, text: str) -> None:
        s = text.rstrip()
        if not s.strip():
            return
        if (m := _SNAP.match(s)) is not None:
            self._flush()
            self.snapshots += 1
            self._time = float(m.group("ts")) if m.group("ts") else None
            self._seen_header_in_snapshot = False
            return
        if (h := _HEADER.match(s)) is not None:
            self._flush()
            if self.snapshots == 0 or self._seen_header_in_snapshot:
                self.snapshots += 1
            self._seen_header_in_snapshot = True
            self._filtered = "" if h.group("state") else self._command_state
            return
        if s.startswith(("$", "#")):
            self._flush()
            if (c := _SS_COMMAND.match(s)) is not None:
                self._command_state = SS_FILTER_STATES.get(c.group("state"), "")
            return
        if s[:1].isspace():
            if self._current is None:
                self.log.bad(n, "socket details without a socket line above them", text)
                return
            parse_info(s.split(), self._current.fields)
            return
        self._flush()
        m = _SOCK.match(s)
        if m is None:
            self.log.bad(n, "not an ss socket line", text)
            return
        if self.snapshots == 0:
            self.snapshots = 1
        state = m.group("state") or self._filtered
        sample = Sample(self.snapshots - 1, self._time, n, state, m.group("local"), m.group("peer"))
        sample.fields["recv_q"], sample.fields["send_q"] = int(m.group("recvq")), int(m.group("sendq"))
        rest = (m.group("rest") or "").split()
        parse_info(rest, sample.fields)
        self._current = sample


class NetstatParser:
    """``netstat -tan`` (``-tanp``, ``-taneo``...; net-tools or a BSD), one snapshot per ``===`` line or header.

    TCP sockets become samples with their state; UDP rows and the UNIX-socket section are not TCP
    and are passed over.
    """

    def __init__(self, log: LineLog, emit: Emit) -> None:
        self.log = log
        self.emit = emit
        self.snapshots = 0
        self._time: float | None = None
        self._inet = True
        self._has_state = True
        self._seen_header_in_snapshot = False

    def feed(self, n: int, text: str) -> None:
        s = text.strip()
        if not s:
            return
        if (m := _SNAP.match(s)) is not None:
            self.snapshots += 1
            self._time = float(m.group("ts")) if m.group("ts") else None
            self._seen_header_in_snapshot = False
            return
        if s.startswith("Active "):
            self._inet = "Internet" in s
            return
        if _NETSTAT_HEADER.match(s):
            if self.snapshots == 0 or self._seen_header_in_snapshot:
                self.snapshots += 1
            self._seen_header_in_snapshot, self._inet = True, True
            self._has_state = re.search(r"\(state\)|\bState\b", s) is not None
            return
        if self._inet and re.match(r"^(?:Tcpcb\s+)?Proto\s", s):
            self._inet = False  # BSD netstat -T: retransmit columns where the queues would be
            self.log.bad(n, "a netstat table without Recv-Q/Send-Q columns: its sockets are not read", text)
            return
        if not self._inet or s.startswith(("$", "#")):
            return
        tokens = s.split()
        at = next((i for i, t in enumerate(tokens[:2]) if _NETSTAT_PROTO.match(t)), None)
        if at is None or len(tokens) < at + 5:
            self.log.bad(n, "not a netstat socket line", text)
            return
        proto, recvq, sendq, local, peer = tokens[at : at + 5]
        if not proto.startswith("tcp"):
            return
        if not (recvq.isdigit() and sendq.isdigit()):
            self.log.bad(n, "netstat queue sizes that are not numbers", text)
            return
        state = tokens[at + 5] if self._has_state and len(tokens) > at + 5 else ""
        state = state if re.fullmatch(r"[A-Z][A-Z0-9_]*", state) else ""
        if self.snapshots == 0:
            self.snapshots = 1
        sample = Sample(
            self.snapshots - 1,
            self._time,
            n,
            NETSTAT_STATES.get(state, state),
            _netstat_addr(local),
            _netstat_addr(peer),
        )
        sample.fields["recv_q"], sample.fields["send_q"] = int(recvq), int(sendq)
        self.emit(sample)


def _netstat_addr(addr: str) -> str:
    """net-tools prints ``10.0.0.1:22``; the BSDs print ``10.0.0.1.22`` and ``*.*``: both become ``host:port``."""
    if addr.count(":") == 1 or addr.startswith("[") or (":" in addr and "." not in addr.rsplit(":", 1)[1]):
        return addr
    if (m := _BSD_ADDR.match(addr)) is not None:
        host = m.group("host")
        return f"[{host}]:{m.group('port')}" if ":" in host else f"{host}:{m.group('port')}"
    return addr


ALIASES: dict[str, tuple[str, float]] = {
    # name in export → (our field, multiplier to our unit)
    "tcpi_rtt": ("rtt_ms", 1e-3), "tcpi_rttvar": ("rttvar_ms", 1e-3), "tcpi_min_rtt": ("minrtt_ms", 1e-3),
    "tcpi_snd_cwnd": ("cwnd", 1), "tcpi_snd_ssthresh": ("ssthresh", 1), "tcpi_total_retrans": ("retrans_total", 1),
    "tcpi_delivery_rate": ("delivery_rate_bps", 8), "tcpi_pacing_rate": ("pacing_rate_bps", 8),
    "tcpi_bytes_acked": ("bytes_acked", 1), "tcpi_bytes_received": ("bytes_received", 1),
    "tcpi_delivery_rate_app_limited": ("app_limited", 1),
    "rtt": ("rtt_ms", 1), "rtt_ms": ("rtt_ms", 1), "rtt_us": ("rtt_ms", 1e-3), "rttvar": ("rttvar_ms", 1),
    "rttvar_ms": ("rttvar_ms", 1), "rttvar_us": ("rttvar_ms", 1e-3), "min_rtt": ("minrtt_ms", 1), "minrtt": ("minrtt_ms", 1),  # noqa: E501
    "cwnd": ("cwnd", 1), "snd_cwnd": ("cwnd", 1), "ssthresh": ("ssthresh", 1), "snd_ssthresh": ("ssthresh", 1),
    "delivery_rate": ("delivery_rate_bps", 1), "delivery_rate_bps": ("delivery_rate_bps", 1),
    "delivery_rate_Bps": ("delivery_rate_bps", 8), "pacing_rate": ("pacing_rate_bps", 1),
    "pacing_rate_bps": ("pacing_rate_bps", 1), "retrans": ("retrans_total", 1), "total_retrans": ("retrans_total", 1),
    "retrans_total": ("retrans_total", 1), "bytes_acked": ("bytes_acked", 1), "bytes_received": ("bytes_received", 1),
    "app_limited": ("app_limited", 1),
}  # fmt: skip
TEXT_ALIASES = {"cc": "cc", "congestion": "cc", "ca_name": "cc", "tcpi_ca_name": "cc", "state": "state"}
LOCAL_KEYS = ("local", "saddr", "src", "local_addr")
PEER_KEYS = ("peer", "daddr", "dst", "remote", "peer_addr", "remote_addr")
TIME_KEYS = ("ts", "time", "timestamp", "epoch")


class RowSampler:
    """tcp_info export rows (from CSV or JSON) → samples; a snapshot per distinct timestamp."""

    def __init__(self, log: LineLog, emit: Emit) -> None:
        self.log = log
        self.emit = emit
        self.stamps: dict[Any, int] = {}

    def row(self, line: int, row: dict[Any, Any]) -> None:
        low = {str(k).strip(): v for k, v in row.items()}
        local = _addr(low, LOCAL_KEYS, ("sport", "src_port", "local_port"))
        peer = _addr(low, PEER_KEYS, ("dport", "dst_port", "remote_port", "peer_port"))
        if peer is None:
            self.log.bad(line, "row without a peer address (daddr/peer/dst)", json.dumps(row, default=str)[:200])
            return
        ts_raw = next((low[k] for k in TIME_KEYS if low.get(k) not in (None, "")), None)
        ts = _f(str(ts_raw)) if ts_raw is not None else None
        snap = self.stamps.setdefault(ts if ts is not None else line, len(self.stamps))
        sample = Sample(snap, ts, line, str(low.get("state", "ESTAB")), local or "?", peer)
        for k, v in low.items():
            if k in ALIASES and v not in (None, ""):
                name, mult = ALIASES[k]
                fv = _f(str(v))
                if fv is None:
                    if str(v).lower() in ("true", "false"):
                        sample.fields[name] = str(v).lower() == "true"
                    continue
                sample.fields[name] = bool(fv) if name == "app_limited" else fv * mult
            elif k in TEXT_ALIASES and k != "state" and v not in (None, ""):
                sample.fields[TEXT_ALIASES[k]] = str(v)
        self.emit(sample)


class CsvReader:
    """A CSV export: the first record is the header; a quoted field may span lines.

    A record the csv module cannot read ends the table (reported as a bad line).
    """

    def __init__(self, log: LineLog, emit: Emit) -> None:
        self.log = log
        self.rows = RowSampler(log, emit)
        self.header: list[str] | None = None
        self._pending = ""
        self._broken = False

    def feed(self, n: int, text: str) -> None:
        if self._broken:
            return
        record = (self._pending + "\n" if self._pending else "") + text.replace("\r", " ")
        if record.count('"') % 2:
            self._pending = record
            return
        self._pending = ""
        try:
            cells = next(csv.reader([record]), [])
        except csv.Error as exc:
            self.log.bad(n, f"unreadable CSV ({exc})", "")
            self._broken = True
            return
        if not cells:
            return
        if self.header is None:
            self.header = cells
            return
        row: dict[Any, Any] = dict(zip(self.header, cells, strict=False))
        if len(cells) > len(self.header):
            row[None] = cells[len(self.header) :]
        self.rows.row(n, row)


class JsonReader:
    """JSON lines (one object per line), or one JSON document: a list of objects, or an object with a
    list under ``sockets``/``data``/``rows``/``samples``. A document's rows are numbered by position."""

    def __init__(self, log: LineLog, emit: Emit, *, lines: bool) -> None:
        self.log = log
        self.rows = RowSampler(log, emit)
        self.lines = lines
        self._doc: list[tuple[int, str]] = []
        self._size = 0
        self._overflow = False

    def feed(self, n: int, text: str) -> None:
        if self.lines:
            self._line(n, text)
            return
        if self._overflow:
            return
        self._size += len(text) + 1
        if self._size > MAX_JSON_DOCUMENT_BYTES:
            self._overflow = True
            size = f"{MAX_JSON_DOCUMENT_BYTES >> 20} MiB"
            self.log.bad(n, f"a JSON document over {size} is not read: export one object per line", "")
            return
        self._doc.append((n, text))

    def finish(self) -> None:
        if self.lines or self._overflow or not self._doc:
            return
        text = "\n".join(t for _, t in self._doc).strip()
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            for n, line in self._doc:  # not one document: JSON lines after all
                self._line(n, line)
            return
        if isinstance(doc, dict):
            doc = next((doc[k] for k in DOCUMENT_LISTS if isinstance(doc.get(k), list)), [doc])
        if not isinstance(doc, list):
            self.log.bad(self._doc[0][0], "JSON that is neither an object nor a list of objects", text[:200])
            return
        for i, r in enumerate(doc):
            if isinstance(r, dict):
                self.rows.row(i + 1, r)

    def _line(self, n: int, line: str) -> None:
        if not line.strip():
            return
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            self.log.bad(n, f"not JSON ({exc.msg})", line)
            return
        if isinstance(obj, dict):
            self.rows.row(n, obj)
        else:
            self.log.bad(n, "a JSON line that is not an object", line)


def choose_reader(head: list[tuple[int, str]], log: LineLog, emit: Emit) -> tuple[str, LineReader]:
    """The format and the reader for a file whose first non-blank line is ``head[0]``."""
    first = head[0][1].strip() if head else ""
    if any(_NETSTAT_HEADER.match(t.strip()) for _, t in head) or first.startswith("Active Internet connections"):
        return "netstat", NetstatParser(log, emit)
    if first.startswith(("{", "[")):
        return "tcp_info JSON", JsonReader(log, emit, lines=_is_json_object(first))
    if "," in first and not first.startswith(("State", "Netid", "===")):
        return "tcp_info CSV", CsvReader(log, emit)
    return "ss", SsParser(log, emit)


def _is_json_object(line: str) -> bool:
    """A first line that is a whole JSON object by itself (JSON lines), not a list of rows in one object."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(obj, dict) and not any(isinstance(obj.get(k), list) for k in DOCUMENT_LISTS)


def _addr(row: dict[str, Any], keys: tuple[str, ...], port_keys: tuple[str, ...]) -> str | None:
    addr = next((str(row[k]) for k in keys if row.get(k) not in (None, "")), None)
    if addr is None:
        return None
    port = next((str(row[k]) for k in port_keys if row.get(k) not in (None, "")), None)
    if port is not None:
        return f"[{addr}]:{port}" if ":" in addr else f"{addr}:{port}"
    return addr


def _f(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _i(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None
