"""``kernel.known_change_in_range`` and ``kernel.receive_window_model`` from all the evidence.

Where the model's inputs come from (each finding says which was used, in ``data[*_source]``);
nothing is taken from a constant: an input the evidence lacks is named with what would supply it,
and what needs it is not computed.

* SO_RCVBUF: the most common SO_RCVBUF set in an strace; else Kafka
  ``receive.buffer.bytes`` from app config (anything but -1).
* kernels: kernel-versions files (``before:``/``after:``; two single-version files are
  before and after in the order given).
* tcp_adv_win_scale, net.core.rmem_max: sysctl evidence, else the kernel's defaults (1, none).
* RTT: a capture's handshake RTT (median over its connections with a captured handshake), else
  its smallest data RTT; else ``whodunnet.rtt_ms = N`` a person set (sysctl file or app config).
* transfer size: ``whodunnet.transfer_bytes`` a person set; else the largest transfer a capture
  saw (one side of one connection), else the most an strace shows read from one socket; cut off
  by the application's close, it is a lower bound (the transfer can then exceed, never fit).
* deadline: the deadline an strace poll loop counts down; else an strace fixed close age; else a
  capture's connect-to-close age at a round value while the peer was still sending; else Kafka
  ``request.timeout.ms``; else ``whodunnet.timeout_ms`` a person set.
* measured window: the window that capped throughput in a capture (``tcp.receive_window_limited``,
  kept in the capture's summary); each kernel's predicted window is compared with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from whodunnet.kernel.kb import changes, has_change
from whodunnet.kernel.versions import version_tuple
from whodunnet.kernel.window import transfer_seconds, window_for_rcvbuf
from whodunnet.kinds.sysctl.parser import get_int, values_of
from whodunnet.model import EvidenceResult, Finding, Ref
from whodunnet.provenance import order_hint

#: A predicted window "agrees" with the measured one within this share (window-scale rounding,
#: the receive buffer's own rounding; a different regime differs by 2x or more).
AGREEMENT = 0.15
#: Said of a transfer size read from a connection the application closed while data still came.
CUT_OFF = " before the close cut it off ("


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
        # Files that each name one kernel: before/after by the file names' words, else when each
        # was taken, else the order given.
        def when(entry: dict[str, Any]) -> tuple[int, float]:
            ev = evidence[entry["evidence"]]
            hint = order_hint(ev.path)
            return (hint if hint is not None else 2, ev.provenance.taken_at or 0.0)

        ordered = sorted(loose, key=when)
        pairs.append(({**ordered[0], "role": "before"}, {**ordered[-1], "role": "after"}))
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
    label = f"{before['upstream']} and {after['upstream']}" + (f" on {host}" if host else "")
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
            raw_value = (ev.summary.get("values") or {}).get(sysctl_key)
            try:
                return float(str(raw_value).strip()), f"{sysctl_key} ({evidence[i].name})"
            except ValueError:
                continue
        if ev.kind == "app_config":
            raw = ev.summary.get("properties", {}).get(prop_key)
            if raw is not None:
                try:
                    return float(raw), f"{prop_key} ({evidence[i].name})"
                except ValueError:
                    continue
    return None


def _captures(evidence: Sequence[EvidenceResult]) -> list[tuple[int, EvidenceResult]]:
    """The captures, the client's first, then by name: the same choice whatever order the files came in."""
    caps = [(i, ev) for i, ev in enumerate(evidence) if ev.kind == "capture"]
    return sorted(caps, key=lambda c: (c[1].provenance.role != "client", c[1].name, c[0]))


def _capture_rtt(evidence: Sequence[EvidenceResult]) -> tuple[float, str] | None:
    """The handshake RTT of a capture (median over connections), else its smallest data RTT."""
    for how in ("handshake", "min"):
        for _, ev in _captures(evidence):
            rtt = ev.summary.get("rtt") or {}
            value = rtt.get(f"{how}_s")
            if isinstance(value, int | float) and value > 0:
                n = rtt.get(f"{how}_connections", 0)
                what = (
                    f"handshake, median of {n} connection{'s' if n != 1 else ''}"
                    if how == "handshake"
                    else f"smallest data RTT over {n} connection{'s' if n != 1 else ''}"
                )
                return float(value), f"capture {ev.name}, {what}"
    return None


def _transfer(evidence: Sequence[EvidenceResult]) -> tuple[int, str] | None:
    given = _config(evidence, "whodunnet.transfer_bytes", "whodunnet.transfer.bytes")
    if given is not None:
        return int(given[0]), f"given: {given[1]}"
    best: tuple[int, str] | None = None
    for _, ev in _captures(evidence):
        t = ev.summary.get("largest_transfer") or {}
        n = t.get("bytes")
        if isinstance(n, int) and n > 0 and (best is None or n > best[0]):
            cut = any(c.get("connection") == t.get("connection") for c in ev.summary.get("deadline_closes") or ())
            best = (
                n,
                f"capture {ev.name}, connection {t.get('connection')}: what the {t.get('sender')} sent"
                + (f"{CUT_OFF}the transfer needed at least this)" if cut else ""),
            )
    if best is not None:
        return best
    for ev in evidence:  # no capture: what the application read from one socket
        if ev.kind != "strace":
            continue
        for sock in ev.summary.get("sockets") or ():
            n = sock.get("bytes_received")
            if isinstance(n, int) and n > 0 and (best is None or n > best[0]):
                cut = bool(sock.get("timeout_lines"))
                best = (
                    n,
                    f"strace {ev.name}: what fd {sock.get('fd')} read"
                    + (f"{CUT_OFF}the transfer needed at least this)" if cut else ""),
                )
    return best


def _timeout(evidence: Sequence[EvidenceResult], findings: Sequence[Finding]) -> tuple[float, str] | None:
    """The application's deadline in ms, and where it was read; None when no evidence says."""
    countdown = [f for f in findings if f.kind == "app.timeout" and f.data.get("deadline_ms")]
    if countdown:
        f = max(countdown, key=lambda f: float(f.data["deadline_ms"]))
        ms = float(f.data["deadline_ms"])
        return (
            ms,
            f"strace{_named(evidence, f)}: a {f.data.get('syscall', 'poll')} loop counting down {ms / 1000:.1f} s",
        )
    aged = [f for f in findings if f.kind == "app.timeout" and f.data.get("close_age_s")]
    if aged:
        f = max(aged, key=lambda f: float(f.data["close_age_s"]))
        age = float(f.data["close_age_s"])
        return age * 1000, f"strace{_named(evidence, f)}: sockets closed at {age:.1f} s"
    for _, ev in _captures(evidence):
        closes = [c for c in ev.summary.get("deadline_closes") or () if c.get("round_s")]
        if closes:
            c = max(closes, key=lambda c: float(c["round_s"]))
            return float(c["age_s"]) * 1000, (
                f"capture {ev.name}: connection {c['connection']} closed by the {c['closer']} "
                f"{float(c['age_s']):.2f} s after connecting while the peer was still sending"
            )
    for i, ev in enumerate(evidence):
        if ev.kind == "app_config":
            raw = ev.summary.get("properties", {}).get("request.timeout.ms")
            if raw is not None and raw.strip().isdigit():
                return float(raw), f"Kafka request.timeout.ms ({evidence[i].name})"
    given = _config(evidence, "whodunnet.timeout_ms", "whodunnet.timeout.ms")
    if given is not None:
        return given[0], f"given: {given[1]}"
    return None


def _named(evidence: Sequence[EvidenceResult], f: Finding) -> str:
    idx = next((r.evidence for r in f.refs), None)
    return f" {evidence[idx].name}" if idx is not None and 0 <= idx < len(evidence) else ""


def _measured_window(evidence: Sequence[EvidenceResult]) -> tuple[dict[str, Any], str] | None:
    for _, ev in _captures(evidence):
        w = ev.summary.get("receive_window")
        if isinstance(w, dict) and w.get("window"):
            return w, (
                f"capture {ev.name}: the {w.get('receiver')}'s window capped {w.get('transfers')} "
                f"transfer{'s' if w.get('transfers') != 1 else ''}"
            )
    return None


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
    missing: list[str] = []
    rtt_info = _capture_rtt(evidence)
    if rtt_info is None and (given := _config(evidence, "whodunnet.rtt_ms", "whodunnet.rtt.ms")) is not None:
        rtt_info = (given[0] / 1000, f"given: {given[1]}")
    if rtt_info is None:
        missing.append("no RTT: upload a capture of the connection (either end; its handshake gives the RTT)")
    size_info = _transfer(evidence)
    if size_info is None:
        missing.append("no transfer size: upload a capture of the transfer, or set whodunnet.transfer_bytes")
    timeout_info = _timeout(evidence, findings)
    if timeout_info is None:
        missing.append(
            "no application deadline: upload an strace of the client (poll timeouts), a capture of a connection "
            "it closed, or its settings (request.timeout.ms)"
        )
    measured = _measured_window(evidence)
    measured_window = int(measured[0]["window"]) if measured else None
    rtt_s = rtt_info[0] if rtt_info else None
    nbytes = size_info[0] if size_info else None
    timeout_ms = timeout_info[0] if timeout_info else None
    lower_bound = bool(size_info and CUT_OFF in size_info[1])
    rows = []
    for v in kernels:
        est = window_for_rcvbuf(
            so_rcvbuf, version_tuple(v["upstream"]), adv_win_scale=scale if scale is not None else 1, rmem_max=rmem_max
        )
        window: int | None = est.window
        note = ""
        if est.regime == "clamp_follows_measured_ratio":
            # The clamp follows skb->len / skb->truesize, which only a measurement says.
            if measured_window is not None and 0.25 * est.sk_rcvbuf <= measured_window <= est.sk_rcvbuf:
                window, note = measured_window, "the measured window (this kernel's clamp follows the traffic)"
            else:
                window, note = None, "depends on the driver's skb->len/truesize: only a capture can say"
        seconds = transfer_seconds(nbytes, window, rtt_s) if nbytes and window and rtt_s else None
        fits = seconds * 1000 <= timeout_ms if seconds is not None and timeout_ms else None
        if fits and lower_bound:
            fits = None  # at least this many bytes fit: whether the whole transfer does is unknown
        agrees = (
            abs(measured_window - window) <= AGREEMENT * window
            if measured_window is not None and window and not note
            else None
        )
        row = {k: val for k, val in est.to_json().items() if k not in ("window", "assumption")}
        rows.append(
            {
                "role": v.get("role"),
                "kernel": v["raw"],
                "upstream": v["upstream"],
                **row,
                "window": window,
                "window_note": note,
                "throughput_bps": window * 8 / rtt_s if window and rtt_s else None,
                "transfer_s": round(seconds, 2) if seconds is not None else None,
                "fits_timeout": fits,
                "agrees_with_measured": agrees,
            }
        )

    def row_text(r: dict[str, Any]) -> str:
        if r["window"] is None:
            return f"{r['kernel']}: window unknown ({r['window_note']})"
        text = f"{r['kernel']}: window {r['window']:,} B ({r['formula']})"
        if r["throughput_bps"] is not None:
            text += f", {r['throughput_bps'] / 1e6:.2f} Mbit/s"
        if r["transfer_s"] is not None:
            at_least = "at least " if lower_bound else ""
            text += f", {at_least}{nbytes:,} bytes in {at_least}{r['transfer_s']:.1f} s"
            if r["fits_timeout"] is not None and timeout_ms is not None:
                text += f" ({'fits' if r['fits_timeout'] else 'exceeds'} the {timeout_ms / 1000:.1f} s deadline)"
        return text

    table = "; ".join(row_text(r) for r in rows)
    broke = len(rows) >= 2 and rows[0]["fits_timeout"] is True and rows[-1]["fits_timeout"] is False
    matching = [r["kernel"] for r in rows if r["agrees_with_measured"]]
    if measured is not None:
        agreement = (
            f" The capture measured a {measured_window:,}-byte window ({measured[1]}): "
            + (
                f"it agrees with the prediction for {', '.join(matching)}"
                if matching
                else "no kernel's prediction agrees with it (within 15 %), so something else sets the window"
            )
            + "."
        )
    else:
        agreement = " No capture measured the window, so the prediction is not checked against one."
    sources = []
    if rtt_info:
        sources.append(f"RTT {rtt_info[0] * 1000:.1f} ms from {rtt_info[1]}")
    if size_info:
        sources.append(f"transfer size {size_info[0]:,} bytes from {size_info[1]}")
    if timeout_info:
        sources.append(f"deadline {timeout_info[0] / 1000:.1f} s from {timeout_info[1]}")
    refs = [rcv_ref, *(_ref(v) for v in kernels)]
    refs += [Ref(evidence=i, label="capture: RTT, transfer and window") for i, _ in _captures(evidence)[:2]]
    title = (
        " → ".join(
            (f"{r['window']:,} B" if r["window"] is not None else "window unknown")
            + f" on {r['kernel']}"
            + (
                f" (transfer {'at least ' if lower_bound else ''}{r['transfer_s']:.0f} s)"
                if r["transfer_s"] is not None
                else ""
            )
            for r in rows
        )
        + f" with SO_RCVBUF {so_rcvbuf:,} B"
    )
    if broke and timeout_ms is not None:
        title += f": the transfer no longer fits the {timeout_ms / 1000:.1f} s deadline"
    elif matching and measured_window is not None:
        title += f"; the capture measured {measured_window:,} B"
    return Finding(
        kind="kernel.receive_window_model",
        layer="kernel",
        severity="high" if broke else "medium" if any(r["fits_timeout"] is False for r in rows) else "info",
        title=title,
        explanation=(
            f"With SO_RCVBUF {so_rcvbuf:,} B ({rcv_source}) the kernel keeps a {2 * so_rcvbuf:,}-byte buffer and "
            f"advertises at most: {table}.{agreement} "
            + ("; ".join(sources) + ". " if sources else "")
            + ("Not computed — " + "; ".join(missing) + ". " if missing else "")
            + "The window is assumed to be the only limit (throughput = window / RTT)."
        ),
        refs=tuple(refs),
        key="window-model",
        data={
            "so_rcvbuf": so_rcvbuf,
            "so_rcvbuf_source": rcv_source,
            "tcp_adv_win_scale": scale if scale is not None else 1,
            "tcp_adv_win_scale_source": "sysctl" if scale is not None else "the kernel's default",
            "rmem_max": rmem_max,
            "tcp_rmem": sysvals.get("net.ipv4.tcp_rmem"),
            "rtt_ms": rtt_s * 1000 if rtt_s is not None else None,
            "rtt_source": rtt_info[1] if rtt_info else None,
            "transfer_bytes": nbytes,
            "transfer_source": size_info[1] if size_info else None,
            "timeout_ms": timeout_ms,
            "timeout_source": timeout_info[1] if timeout_info else None,
            "measured_window": measured_window,
            "measured_window_source": measured[1] if measured else None,
            "agrees_with": matching,
            "missing": missing,
            "kernels": rows,
            "regressed": broke,
        },
    )
