"""``ss -tin`` (also ``-e -m -o``) snapshots and tcp_info exports (CSV, JSON) → socket samples.

ss units are kept as ss prints them, converted to one set: rtt/rttvar/minrtt in ms,
rates in bit/s, bytes in bytes. In CSV/JSON exports, columns named ``tcpi_*`` follow
the kernel's ``struct tcp_info`` units (rtt in µs, rates in bytes/s) and are converted;
other names are taken in ss units, unless a suffix says otherwise (``_us``, ``_ms``,
``_Bps``). Snapshots are separated by ``=== <epoch>`` lines (a sampling loop) or by a
repeated ``State Recv-Q ...`` header; CSV/JSON rows carry their own ``ts``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

from whodunnet.textkinds import LineLog

_HEADER = re.compile(r"^(?:Netid\s+)?State\s+Recv-Q\s+Send-Q\s+Local")
_SNAP = re.compile(r"^===\s*(?P<ts>\d+(?:\.\d+)?)?")
_SOCK = re.compile(
    r"^(?:(?P<netid>tcp|udp|u_str|raw|mptcp)\s+)?(?P<state>[A-Z][A-Z0-9-]*)\s+(?P<recvq>\d+)\s+(?P<sendq>\d+)\s+"
    r"(?P<local>\S+)\s+(?P<peer>\S+)(?:\s+(?P<rest>.*))?$"
)
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


class SsParser:
    """ss text output, one line at a time; ``samples`` grows as sockets are read."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.samples: list[Sample] = []
        self.snapshots = 0
        self._time: float | None = None
        self._current: Sample | None = None
        self._seen_header_in_snapshot = False

    def feed(self, n: int, text: str) -> None:
        s = text.rstrip()
        if not s.strip():
            return
        if (m := _SNAP.match(s)) is not None:
            self.snapshots += 1
            self._time = float(m.group("ts")) if m.group("ts") else None
            self._seen_header_in_snapshot = False
            self._current = None
            return
        if _HEADER.match(s):
            if self.snapshots == 0 or self._seen_header_in_snapshot:
                self.snapshots += 1
            self._seen_header_in_snapshot = True
            self._current = None
            return
        if s[:1].isspace():
            if self._current is None:
                self.log.bad(n, "socket details without a socket line above them", text)
                return
            parse_info(s.split(), self._current.fields)
            return
        m = _SOCK.match(s)
        if m is None:
            self.log.bad(n, "not an ss socket line", text)
            self._current = None
            return
        if self.snapshots == 0:
            self.snapshots = 1
        sample = Sample(self.snapshots - 1, self._time, n, m.group("state"), m.group("local"), m.group("peer"))
        sample.fields["recv_q"], sample.fields["send_q"] = int(m.group("recvq")), int(m.group("sendq"))
        rest = (m.group("rest") or "").split()
        parse_info(rest, sample.fields)
        self.samples.append(sample)
        self._current = sample


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


def rows_to_samples(rows: list[tuple[int, dict[str, Any]]], log: LineLog) -> list[Sample]:
    """tcp_info export rows (from CSV or JSON) → samples; a snapshot per distinct timestamp."""
    out: list[Sample] = []
    stamps: dict[Any, int] = {}
    for line, row in rows:
        low = {str(k).strip(): v for k, v in row.items()}
        local = _addr(low, LOCAL_KEYS, ("sport", "src_port", "local_port"))
        peer = _addr(low, PEER_KEYS, ("dport", "dst_port", "remote_port", "peer_port"))
        if peer is None:
            log.bad(line, "row without a peer address (daddr/peer/dst)", json.dumps(row)[:200])
            continue
        ts_raw = next((low[k] for k in TIME_KEYS if low.get(k) not in (None, "")), None)
        ts = _f(str(ts_raw)) if ts_raw is not None else None
        snap = stamps.setdefault(ts if ts is not None else line, len(stamps))
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
        out.append(sample)
    return out


def parse_csv(text: str, first_line: int = 1, log: LineLog | None = None) -> list[tuple[int, dict[str, Any]]]:
    """CSV rows with their line numbers; a row the csv module cannot read ends the table (reported)."""
    reader = csv.DictReader(io.StringIO(text.replace("\r", " ")))
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        for row in reader:
            rows.append((first_line + reader.line_num - 1, dict(row)))
    except csv.Error as exc:
        if log is not None:
            log.bad(first_line + reader.line_num - 1, f"unreadable CSV ({exc})", "")
    return rows


def parse_json(text: str, log: LineLog) -> list[tuple[int, dict[str, Any]]]:
    """A JSON array of objects, an object with a list under ``sockets``/``data``, or JSON lines."""
    stripped = text.strip()
    try:
        doc = json.loads(stripped)
    except json.JSONDecodeError:
        rows = []
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                log.bad(i, f"not JSON ({exc.msg})", line)
                continue
            if isinstance(obj, dict):
                rows.append((i, obj))
            else:
                log.bad(i, "a JSON line that is not an object", line)
        return rows
    if isinstance(doc, dict):
        doc = next((doc[k] for k in ("sockets", "data", "rows", "samples") if isinstance(doc.get(k), list)), [doc])
    if not isinstance(doc, list):
        log.bad(1, "JSON that is neither an object nor a list of objects", stripped[:200])
        return []
    return [(i + 1, r) for i, r in enumerate(doc) if isinstance(r, dict)]


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
