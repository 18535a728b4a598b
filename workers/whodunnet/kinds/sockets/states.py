"""TCP socket states per snapshot (``ss -tan``, ``netstat -tan``): ``sockets.states``.

TIME-WAIT sockets matter beyond the host: each holds its 4-tuple for 60 s (Linux's
``TCP_TIMEWAIT_LEN``), so the TIME-WAITs towards one server address and port use up that many
of the client's ephemeral ports, and a stateful firewall or NAT on the path keeps an entry for
each (Linux conntrack: ``nf_conntrack_tcp_timeout_time_wait``, 120 s). The summary gives, for the
snapshot with the most TIME-WAIT sockets, their count per remote endpoint, remote port and local
port, for the conntrack arithmetic drawn across evidence.

Counts are kept one snapshot at a time: memory grows with the remote endpoints of one snapshot,
not with the file.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from whodunnet.kinds.sockets.parser import Sample
from whodunnet.model import Finding, Ref

#: Rows kept per table (remote endpoints, remote ports, local ports) in the summary.
TOP = 20
TIME_WAIT = "TIME-WAIT"
#: What a socket's state is called when its file does not say (ss with one state filter, no command line).
UNKNOWN = "unknown"


def _port(addr: str) -> str:
    return addr.rsplit(":", 1)[1] if ":" in addr else "?"


class SnapshotStates:
    """One snapshot's counts: sockets per state, and TIME-WAIT per remote endpoint, remote port and local port."""

    def __init__(self, snapshot: int, time: float | None) -> None:
        self.snapshot = snapshot
        self.time = time
        self.states: Counter[str] = Counter()
        self.remote: Counter[str] = Counter()
        self.remote_port: Counter[str] = Counter()
        self.local_port: Counter[str] = Counter()
        self.first_line: int | None = None
        self.last_line: int | None = None

    def add(self, s: Sample) -> None:
        self.states[s.state or UNKNOWN] += 1
        self.first_line = s.line if self.first_line is None else self.first_line
        self.last_line = s.line
        if s.state == TIME_WAIT:
            self.remote[s.peer] += 1
            self.remote_port[_port(s.peer)] += 1
            self.local_port[_port(s.local)] += 1

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot": self.snapshot,
            "time": self.time,
            "sockets": sum(self.states.values()),
            "states": dict(self.states.most_common()),
            "time_wait": self.states.get(TIME_WAIT, 0),
            "time_wait_by_remote": dict(self.remote.most_common(TOP)),
            "time_wait_by_remote_port": dict(self.remote_port.most_common(TOP)),
            "time_wait_by_local_port": dict(self.local_port.most_common(TOP)),
            "remote_endpoints": len(self.remote),
            "lines": [self.first_line, self.last_line],
        }


class StateTally:
    """Socket states over the snapshots of one file: the last snapshot and the one with the most TIME-WAIT."""

    def __init__(self) -> None:
        self.current: SnapshotStates | None = None
        self.last: dict[str, Any] | None = None
        self.peak: dict[str, Any] | None = None
        self.snapshots = 0

    def add(self, s: Sample) -> None:
        if self.current is None or self.current.snapshot != s.snapshot:
            self._close()
            self.current = SnapshotStates(s.snapshot, s.time)
        self.current.add(s)

    def _close(self) -> None:
        if self.current is None:
            return
        done = self.current.to_json()
        self.snapshots += 1
        self.last = done
        if self.peak is None or done["time_wait"] > self.peak["time_wait"]:
            self.peak = done
        self.current = None

    def to_json(self) -> dict[str, Any]:
        """``last``: the last snapshot's counts; ``peak``: the snapshot with the most TIME-WAIT sockets."""
        self._close()
        return {"snapshots": self.snapshots, "last": self.last, "peak": self.peak}


def states_finding(index: int, states: dict[str, Any], fmt: str) -> Finding:
    """``sockets.states``: how many sockets in each state, and where the TIME-WAIT ones point."""
    last, peak = states["last"], states["peak"]
    counts = last["states"]
    shown = ", ".join(f"{n:,} {state}" for state, n in list(counts.items())[:4])
    title = f"{last['sockets']:,} TCP socket{'s' if last['sockets'] != 1 else ''}: {shown}"
    parts = [f"In the {'last ' if states['snapshots'] > 1 else ''}snapshot ({fmt}): {shown}."]
    if counts.get(UNKNOWN):
        parts.append(
            f"The state of {counts[UNKNOWN]:,} is not in the file: ss prints no State column when it is given one "
            "state filter (ss -tan state time-wait), nor does netstat -x; with the ss command above the output "
            "($ ss -tan state time-wait) the state is read from it."
        )
    if peak and peak["time_wait"]:
        remote, n = next(iter(peak["time_wait_by_remote"].items()))
        ports = peak["time_wait_by_remote_port"]
        when = "" if peak is last else f" (at most {peak['time_wait']:,}, in snapshot {peak['snapshot'] + 1})"
        title += f"; TIME-WAIT to {len(ports)} remote port{'s' if len(ports) != 1 else ''}{when}"
        parts.append(
            f"{peak['time_wait']:,} sockets in TIME-WAIT{when}, to {peak['remote_endpoints']:,} remote "
            f"endpoint{'s' if peak['remote_endpoints'] != 1 else ''} (the most, {n:,}, to {remote}); by remote port: "
            + ", ".join(f"{p} {c:,}" for p, c in list(ports.items())[:8])
            + ". Each holds its address and port pair for 60 s (Linux), so the TIME-WAITs to one server "
            "address and port use as many of this host's ephemeral ports (net.ipv4.ip_local_port_range: 28,232 by "
            "default), and a stateful firewall or NAT on the path keeps an entry for each (Linux conntrack: 120 s)."
        )
    first, end = (peak or last)["lines"]
    return Finding(
        kind="sockets.states",
        layer="network",
        severity="info",
        title=title,
        explanation=" ".join(parts),
        refs=(Ref(evidence=index, label="sockets", lines=(first, end)),) if first is not None else (),
        key=f"evidence-{index}",
        data={
            "snapshots": states["snapshots"],
            "states": counts,
            "time_wait": (peak or last)["time_wait"],
            "time_wait_by_remote": (peak or last)["time_wait_by_remote"],
            "time_wait_by_remote_port": (peak or last)["time_wait_by_remote_port"],
            "time_wait_by_local_port": (peak or last)["time_wait_by_local_port"],
        },
    )
