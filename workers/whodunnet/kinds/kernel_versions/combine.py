"""``kernel.known_change_in_range`` and ``kernel.receive_window_model`` from all the evidence.

Where the model's inputs come from (each finding says which was used):

* SO_RCVBUF: the most common SO_RCVBUF set in an strace; else Kafka
  ``receive.buffer.bytes`` from app config (anything but -1).
* kernels: kernel-versions files (``before:``/``after:``; two single-version files are
  before and after in the order given).
* tcp_adv_win_scale, net.core.rmem_max: sysctl evidence, else the defaults (1, none).
* RTT: a capture's summary (``rtt_ms``, or the median ``rtt_ms``/``initial_rtt_ms``
  of its ``connections``) if the capture analyzer provides one; else
  ``whodunnet.rtt_ms = N`` in a sysctl file or ``whodunnet.rtt.ms=N`` in app config;
  else the reference case's RTT: a 10 MiB read that took 22 s through a 65,536-byte
  window, which is an RTT of 22 / (1 + 10 MiB / 65,536) ≈ 136.6 ms.
* transfer size: ``whodunnet.transfer_bytes`` else the reference case's 10 MiB.
* timeout: the longest strace wait that expired before a close (or a fixed close age),
  else Kafka ``request.timeout.ms``, else the reference case's 30 s.

The reference case is the classic victim of the 6.6 receive-window change: a Kafka client
with a 64 KiB SO_RCVBUF reading 10 MiB across regions against a 30 s request timeout.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from whodunnet.kernel.kb import changes, has_change
from whodunnet.kernel.versions import version_tuple
from whodunnet.kernel.window import transfer_seconds, window_for_rcvbuf
from whodunnet.kinds.sysctl.parser import get_int, values_of
from whodunnet.model import EvidenceResult, Finding, Ref

#: The reference case (see the module docstring), used where the evidence does not say.
REFERENCE_TRANSFER_BYTES = 10 * 1024 * 1024
REFERENCE_TIMEOUT_MS = 30_000.0
REFERENCE_RTT_S = 22.0 / (1 + REFERENCE_TRANSFER_BYTES / 65536)


def kernel_pairs(evidence: Sequence[EvidenceResult]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(before, after) version entries, per host where hosts are named."""
    roled: dict[str | None, dict[str, dict[str, Any]]] = {}
    loose: list[dict[str, Any]] = []
    for i, ev in enumerate(evidence):
        if ev.kind != "kernel_versions":
            continue
        for v in ev.summary.get("versions", []):
            entry = {**v, "evidence": i}
            if v.get("role") in ("before", "after"):
                roled.setdefault(v.get("host"), {}).setdefault(v["role"], entry)
            else:
                loose.append(entry)
    pairs = [(p["before"], p["after"]) for p in roled.values() if "before" in p and "after" in p]
    if not pairs and len(loose) >= 2:
        pairs.append(({**loose[0], "role": "before"}, {**loose[-1], "role": "after"}))
    return pairs


def all_versions(evidence: Sequence[EvidenceResult]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, ev in enumerate(evidence):
        if ev.kind == "kernel_versions":
            out.extend({**v, "evidence": i} for v in ev.summary.get("versions", []))
    return out


def known_changes(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> list[Finding]:
    """``kernel.known_change_in_range`` for each before/after pair of kernel versions."""
    return [range_finding(b, a) for b, a in kernel_pairs(evidence)]


def receive_window_model(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> list[Finding]:
    """``kernel.receive_window_model`` when a pinned SO_RCVBUF and kernel versions are both in the evidence."""
    model = window_model(evidence, findings)
    return [model] if model is not None else []


def _ref(v: dict[str, Any]) -> Ref:
    ln = v.get("line")
    return Ref(
        evidence=int(v["evidence"]), label=f"{v.get('role') or 'kernel'} {v['raw']}", lines=(ln, ln) if ln else None
    )


def range_finding(before: dict[str, Any], after: dict[str, Any]) -> Finding:
    b, a = version_tuple(before["upstream"]), version_tuple(after["upstream"])
    rows = []
    for entry in changes():
        had, has = has_change(entry, b), has_change(entry, a)
        if had == has:
            continue
        fixes = [
            {"id": fid, "after_has": has_change(_entry(fid), a), "before_has": has_change(_entry(fid), b)}
            for fid in entry.get("fixed_by", [])
        ]
        rows.append(
            {
                "id": entry["id"],
                "commit": entry["commit"],
                "title": entry["title"],
                "first_release": entry["first_release"],
                "stable_backports": entry.get("stable_backports", []),
                "direction": "gained" if has else "lost",
                "regression": entry.get("regression", False),
                "change": entry["change"],
                "symptoms": entry.get("symptoms", []),
                "settings": entry.get("settings", []),
                "fix": entry.get("fix", ""),
                "fixed_by": fixes,
                "unfixed_in_after": entry.get("regression", False) and has and not any(f["after_has"] for f in fixes),
                "sources": entry.get("sources", []),
            }
        )
    approx = [v["raw"] for v in (before, after) if v.get("approximate")]
    host = after.get("host") or before.get("host")
    label = f"{before['upstream']} → {after['upstream']}" + (f" on {host}" if host else "")
    unfixed = [r for r in rows if r["unfixed_in_after"]]
    if rows:
        listed = "; ".join(
            f'{r["id"]} "{r["title"]}" ({r["direction"]}, first in {r["first_release"]}'
            + (f", backported to {', '.join(r['stable_backports'])}" if r["stable_backports"] else "")
            + ")"
            for r in rows
        )
        explanation = f"Between {label}, the knowledge base has these network changes: {listed}."
        for r in unfixed:
            pending = ", ".join(f["id"] for f in r["fixed_by"])
            explanation += (
                f" {after['raw']} has {r['id']} but not its fix{'es' if len(r['fixed_by']) > 1 else ''} ({pending})."
            )
    else:
        explanation = f"No change in the knowledge base lies between {label}."
    if approx:
        explanation += f" The patch level of {', '.join(approx)} is not known exactly (distro ABI number), so stable backports may be misjudged."  # noqa: E501
    return Finding(
        kind="kernel.known_change_in_range",
        layer="kernel",
        severity="high" if unfixed else "medium" if rows else "info",
        title=f"{len(rows)} known network change{'s' if len(rows) != 1 else ''} between {label}"
        + (f": {rows[0]['title']}" if rows else ""),
        explanation=explanation,
        refs=(_ref(before), _ref(after)),
        key=f"{before['raw']}..{after['raw']}" + (f"@{host}" if host else ""),
        data={"before": before, "after": after, "changes": rows, "approximate": approx},
    )


def _entry(change_id: str) -> dict[str, Any]:
    return next(e for e in changes() if e["id"] == change_id)


def _rcvbuf(evidence: Sequence[EvidenceResult]) -> tuple[int, str, Ref] | None:
    for i, ev in enumerate(evidence):
        if ev.kind != "strace":
            continue
        found = [(s["options"]["SO_RCVBUF"], s["option_lines"].get("SO_RCVBUF")) for s in ev.summary.get("sockets", [])
                 if isinstance(s.get("options", {}).get("SO_RCVBUF"), int)]  # fmt: skip
        if found:
            value, _n = Counter(v for v, _ in found).most_common(1)[0]
            line = next(ln for v, ln in found if v == value)
            ref = Ref(evidence=i, label="SO_RCVBUF", lines=(line, line))
            return value, f"strace ({evidence[i].name}, line {line})", ref
    for i, ev in enumerate(evidence):
        if ev.kind == "app_config":
            raw = ev.summary.get("properties", {}).get("receive.buffer.bytes")
            if raw is not None and raw.strip().lstrip("-").isdigit() and int(raw) != -1:
                line = ev.summary.get("property_lines", {}).get("receive.buffer.bytes")
                return (
                    int(raw),
                    f"Kafka receive.buffer.bytes ({evidence[i].name})",
                    Ref(evidence=i, label="receive.buffer.bytes", lines=(line, line) if line else None),
                )
    return None


def _config(evidence: Sequence[EvidenceResult], sysctl_key: str, prop_key: str) -> tuple[float, str] | None:
    for i, ev in enumerate(evidence):
        if ev.kind == "sysctl":
            v = get_int(ev.summary.get("values", {}), sysctl_key)
            if v is not None:
                return float(v), f"{sysctl_key} ({evidence[i].name})"
        if ev.kind == "app_config":
            raw = ev.summary.get("properties", {}).get(prop_key)
            if raw is not None:
                try:
                    return float(raw), f"{prop_key} ({evidence[i].name})"
                except ValueError:
                    continue
    return None


def _capture_rtt(evidence: Sequence[EvidenceResult]) -> tuple[float, str] | None:
    for i, ev in enumerate(evidence):
        if ev.kind != "capture":
            continue
        s = ev.summary
        for key, scale in (("rtt_ms", 1e-3), ("median_rtt_ms", 1e-3), ("rtt_s", 1.0)):
            if isinstance(s.get(key), (int, float)) and s[key] > 0:
                return float(s[key]) * scale, f"capture ({evidence[i].name}) {key}"
        rtts = []
        for c in s.get("connections", []) or []:
            if isinstance(c, dict):
                for key, scale in (("rtt_ms", 1e-3), ("initial_rtt_ms", 1e-3), ("initial_rtt", 1.0)):
                    if isinstance(c.get(key), (int, float)) and c[key] > 0:
                        rtts.append(float(c[key]) * scale)
                        break
        if rtts:
            return statistics.median(rtts), f"capture ({evidence[i].name}), median of {len(rtts)} connections"
    return None


def _timeout(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> tuple[float, str]:
    best: tuple[float, str] | None = None
    for f in findings:
        if f.kind == "app.timeout":
            ms = f.data.get("timeout_ms")
            if isinstance(ms, (int, float)) and ms >= 1000 and (f.data.get("closes_after") or "close_age_s" in f.data):  # noqa: SIM102
                if best is None or ms > best[0]:
                    best = (float(ms), f"strace app.timeout ({f.title})")
    if best is not None:
        return best
    for i, ev in enumerate(evidence):
        if ev.kind == "app_config":
            raw = ev.summary.get("properties", {}).get("request.timeout.ms")
            if raw is not None and raw.isdigit():
                return float(raw), f"Kafka request.timeout.ms ({evidence[i].name})"
    given = _config(evidence, "whodunnet.timeout_ms", "whodunnet.timeout.ms")
    if given is not None:
        return given
    return REFERENCE_TIMEOUT_MS, "a default 30 s application timeout (none in the evidence)"


def window_model(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> Finding | None:
    rcv = _rcvbuf(evidence)
    versions = all_versions(evidence)
    if rcv is None or not versions:
        return None
    so_rcvbuf, rcv_source, rcv_ref = rcv
    pairs = kernel_pairs(evidence)
    kernels = list(pairs[0]) if pairs else versions[:4]
    sysvals = values_of(evidence)
    scale = get_int(sysvals, "net.ipv4.tcp_adv_win_scale")
    rmem_max = get_int(sysvals, "net.core.rmem_max")
    rtt_info = _capture_rtt(evidence) or _config(evidence, "whodunnet.rtt_ms", "whodunnet.rtt.ms")
    if rtt_info is not None and "capture" not in rtt_info[1]:
        rtt_info = (rtt_info[0] / 1000, rtt_info[1])
    rtt_s, rtt_source = rtt_info or (
        REFERENCE_RTT_S,
        "a default: the RTT at which 10 MiB take 22 s through a 65,536-byte window (none in the evidence)",
    )
    size_info = _config(evidence, "whodunnet.transfer_bytes", "whodunnet.transfer.bytes")
    nbytes, size_source = (
        (int(size_info[0]), size_info[1])
        if size_info
        else (REFERENCE_TRANSFER_BYTES, "a default 10 MiB transfer (none in the evidence)")
    )
    timeout_ms, timeout_source = _timeout(evidence, findings)
    rows = []
    for v in kernels:
        est = window_for_rcvbuf(
            so_rcvbuf, version_tuple(v["upstream"]), adv_win_scale=scale if scale is not None else 1, rmem_max=rmem_max
        )
        seconds = transfer_seconds(nbytes, est.window, rtt_s)
        rows.append(
            {
                "role": v.get("role"),
                "kernel": v["raw"],
                "upstream": v["upstream"],
                **est.to_json(),
                "throughput_bps": est.window * 8 / rtt_s,
                "transfer_s": round(seconds, 2),
                "fits_timeout": seconds * 1000 <= timeout_ms,
            }
        )
    table = "; ".join(
        f"{r['kernel']}: window {r['window']:,} B ({r['formula']}), {r['throughput_bps'] / 1e6:.2f} Mbit/s, "
        f"{nbytes / 1e6:.1f} MB in {r['transfer_s']:.1f} s ({'fits' if r['fits_timeout'] else 'exceeds'} "
        f"{timeout_ms / 1000:g} s)"
        for r in rows
    )
    broke = len(rows) >= 2 and rows[0]["fits_timeout"] and not rows[-1]["fits_timeout"]
    assumptions = sorted({r["assumption"] for r in rows if r["assumption"]})
    refs = [rcv_ref, *(_ref(v) for v in kernels)]
    return Finding(
        kind="kernel.receive_window_model",
        layer="kernel",
        severity="high" if broke else "medium" if any(not r["fits_timeout"] for r in rows) else "info",
        title=" → ".join(f"{r['window']:,} B on {r['kernel']} ({r['transfer_s']:.0f} s)" for r in rows)
        + f" for SO_RCVBUF={so_rcvbuf:,}"
        + (f": the transfer no longer fits the {timeout_ms / 1000:g} s timeout" if broke else ""),
        explanation=(
            f"With SO_RCVBUF={so_rcvbuf:,} ({rcv_source}) the kernel keeps a {2 * so_rcvbuf:,}-byte buffer and "
            f"advertises at most: {table}. RTT {rtt_s * 1000:.1f} ms from {rtt_source}; transfer size from "
            f"{size_source}; timeout from {timeout_source}. The window is assumed to be the only limit "
            "(throughput = window / RTT)." + (" " + " ".join(assumptions) + "." if assumptions else "")
        ),
        refs=tuple(refs),
        key="window-model",
        data={
            "so_rcvbuf": so_rcvbuf,
            "so_rcvbuf_source": rcv_source,
            "tcp_adv_win_scale": scale if scale is not None else 1,
            "tcp_adv_win_scale_source": "sysctl" if scale is not None else "default",
            "rmem_max": rmem_max,
            "tcp_rmem": sysvals.get("net.ipv4.tcp_rmem"),
            "rtt_ms": rtt_s * 1000,
            "rtt_source": rtt_source,
            "transfer_bytes": nbytes,
            "transfer_source": size_source,
            "timeout_ms": timeout_ms,
            "timeout_source": timeout_source,
            "kernels": rows,
            "regressed": broke,
        },
    )
