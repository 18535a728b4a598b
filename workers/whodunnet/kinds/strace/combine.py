"""``app.deadline_close``: an application deadline seen twice — counted down in an strace, and as
a connection the same application closed at that age in a capture while its peer still sent.

Either alone is a finding of its own kind (``app.timeout``, ``tcp.app_timeout_close``); together they
say which deadline closed which connection. Both ages are from the evidence: the strace's deadline
(the first wait's timeout of the countdown, or a fixed close age) and the capture's first SYN to
first FIN. They agree when they differ by at most 2 % of the deadline plus the connection's
handshake RTT (the application's clock starts when connect returns, a round trip after the SYN).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whodunnet.model import EvidenceResult, Finding, Ref

#: The share of the deadline two readings of it may differ by (timer slack, scheduling).
AGREE_SHARE = 0.02


def _deadlines(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> list[tuple[float, str, Finding]]:
    out = []
    for f in findings:
        if f.kind != "app.timeout":
            continue
        idx = next((r.evidence for r in f.refs), None)
        if idx is None or not 0 <= idx < len(evidence) or evidence[idx].kind != "strace":
            continue
        if f.data.get("deadline_ms"):
            out.append((float(f.data["deadline_ms"]) / 1000, f"a {f.data.get('syscall')} loop counting it down", f))
        elif f.data.get("close_age_s"):
            out.append((float(f.data["close_age_s"]), "sockets closed at that age", f))
    return out


def deadline_close_findings(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> list[Finding]:
    """One finding per strace deadline that a capture's close matches."""
    out: list[Finding] = []
    for deadline, how, f in _deadlines(evidence, findings):
        strace_idx = f.refs[0].evidence
        for cap_idx, ev in enumerate(evidence):
            if ev.kind != "capture":
                continue
            rtt = (ev.summary.get("rtt") or {}).get("handshake_s") or 0.0
            closes = [
                c for c in ev.summary.get("deadline_closes") or ()
                if abs(float(c["age_s"]) - deadline) <= AGREE_SHARE * deadline + float(rtt)
            ]  # fmt: skip
            if not closes:
                continue
            out.append(_finding(evidence, deadline, how, strace_idx, cap_idx, closes, float(rtt)))
    return out


def _finding(
    evidence: Sequence[EvidenceResult],
    deadline: float,
    how: str,
    strace_idx: int,
    cap_idx: int,
    closes: list[dict[str, Any]],
    rtt: float,
) -> Finding:
    st, cap = evidence[strace_idx], evidence[cap_idx]
    closer = closes[0]["closer"]
    peer = "server" if closer == "client" else "client"
    ages = ", ".join(f"{float(c['age_s']):.2f} s" for c in closes[:5])
    pending = sum(int(c.get("peer_unacked_at_fin") or 0) for c in closes)
    after = sum(int(c.get("peer_bytes_after_fin") or 0) for c in closes)
    hosts = [h for h in dict.fromkeys((st.provenance.host, cap.provenance.host)) if h]
    n = len(closes)
    return Finding(
        kind="app.deadline_close",
        layer="application",
        severity="high",
        title=(
            f"The {closer}'s {deadline:.1f} s deadline closed {n} connection{'s' if n != 1 else ''} while the "
            f"{peer} was still sending"
        ),
        explanation=(
            f"{st.name} shows a {deadline:.1f} s deadline ({how}); {cap.name} shows the {closer} closing "
            f"{n} connection{'s' if n != 1 else ''} {ages} after its first SYN (a handshake RTT of "
            f"{rtt * 1000:.0f} ms included), with {pending:,} bytes of the {peer}'s data unacknowledged at the FIN "
            f"and {after:,} bytes sent after it. The application gave up at its deadline: the question is why the "
            "transfer needed longer than that."
        ),
        refs=(
            *(r for r in _strace_refs(strace_idx)),
            *(
                Ref(
                    evidence=cap_idx,
                    label=f"connection {c['connection']}: FIN by the {closer}",
                    connection=str(c["connection"]),
                )
                for c in closes[:20]
            ),
        ),
        key=f"deadline-{strace_idx}-{cap_idx}-{deadline:.1f}",
        data={
            "deadline_s": deadline,
            "deadline_source": f"strace {st.name}: {how}",
            "closer": closer,
            "close_ages_s": [float(c["age_s"]) for c in closes[:100]],
            "connections": n,
            "connection_ids": [c["connection"] for c in closes[:100]],
            "peer_unacked_at_fin": pending,
            "peer_bytes_after_fin": after,
            "rtt_s": rtt,
            "evidence": [strace_idx, cap_idx],
            "hosts": hosts,
        },
    )


def _strace_refs(index: int) -> tuple[Ref, ...]:
    return (Ref(evidence=index, label="the deadline"),)
