"""``sockets.bbr_candidates``: the remote prefixes consistently slower than the others, over snapshots.

The BBR-candidate method (as a CDN operator published it) picks the prefixes that spend most of
their time in the bottom 20 % of delivery rate (duty cycle) without moving in and out of it
often (flap rate). Ranking the prefixes in each snapshot and cutting the bottom 20 % fails with
few prefixes: with five, the bottom 20 % is exactly one prefix per interval, so a prefix that is
always slowest but ties with another now and then loses its place by measurement noise, is
counted as flapping and rejected.

So the decision is taken from the delivery rates over time, comparing prefixes pairwise within
each snapshot (the same moment, so a change that hits every prefix cancels out):

* in each snapshot (an interval), a prefix's delivery rate is the median over its flows that
  moved at least ``min_bytes`` (BBR does not help small responses) and whose last rate sample was
  not application-limited (then the rate is the application's, not the path's);
* it is *slower* than another prefix when its rate is lower by more than ``TIE`` (10 %);
  closer than that the two are tied, which counts half;
* its *slowness* is the share of those comparisons, over every snapshot, in which it was slower:
  1.0 is slower than every other prefix every time. It is in the bottom group (bottom share 20 %)
  when its slowness is at least 1 − 0.2 = 80 %: with ten prefixes that is the bottom two, with
  five the slowest (or the two tied for slowest);
* duty cycle and flap rate are that method's, from the same test applied snapshot by snapshot;
* a prefix is a candidate when its slowness over time puts it in the bottom group, its duty
  cycle and flap rate pass, and it was slower than most other prefixes in enough snapshots that
  chance is unlikely (a one-sided sign test, p ≤ 0.05: at least five snapshots).

The finding says what the data given lets it conclude: how many prefixes there are (few make the
bottom group coarse), how many snapshots and how far apart, how many flows were seen and how many
only once (flows shorter than the interval mostly fall between two snapshots), and how much of
the candidates' time was limited by the client's receive window (which BBR does not change).
"""

from __future__ import annotations

import ipaddress
import itertools
import math
from collections import Counter, defaultdict
from dataclasses import asdict
from typing import Any

from whodunnet.kinds.sockets.parser import Sample
from whodunnet.kinds.sockets.settings import DEFAULT_BBR, BbrParams
from whodunnet.model import Finding, Ref
from whodunnet.stats import percentile

#: Delivery rates closer than this (relative) are a tie: one rate sample per flow is noisy.
TIE = 0.10
#: The sign test's significance: a candidate was slower than most others in enough snapshots.
SIGNIFICANCE = 0.05
#: Flows whose snapshot count is kept (for "seen in only one snapshot"); past it, counted but not tracked.
MAX_FLOWS_TRACKED = 200_000
#: The delivery-rate chart's bounds: the slowest prefixes (candidates first) and snapshots kept (evenly spaced).
CHART_PREFIXES = 12
CHART_SNAPSHOTS = 400


def prefix_of(peer: str, params: BbrParams = DEFAULT_BBR) -> str:
    """``203.0.113.7:443`` → ``203.0.113.0/24``; ``[2001:db8::1]:443`` → ``2001:db8::/56``."""
    host = peer.rsplit(":", 1)[0] if peer.count(":") == 1 or peer.startswith("[") else peer
    host = host.strip("[]").split("%")[0]
    if host.startswith("::ffff:") and "." in host:
        host = host[7:]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host or "?"
    bits = params.v4_prefix if ip.version == 4 else params.v6_prefix
    return str(ipaddress.ip_network(f"{ip}/{bits}", strict=False))


def sign_test(wins: int, n: int) -> float:
    """One-sided p-value of ``wins`` or more successes in ``n`` fair coin flips."""
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n if n else 1.0


def compare(a: float, b: float) -> float:
    """1 when ``a`` is slower than ``b`` by more than ``TIE``, 0 when faster, 0.5 for a tie."""
    if a < b * (1 - TIE):
        return 1.0
    if b < a * (1 - TIE):
        return 0.0
    return 0.5


class BbrTally:
    """Per snapshot and prefix, the delivery rates of the flows that count; what was left out and why."""

    def __init__(self, params: BbrParams) -> None:
        self.params = params
        self.per_snap: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.times: dict[int, float] = {}
        self.small = 0
        self.app_limited = 0
        #: Snapshots each counted flow was seen in, and the prefix it belongs to.
        self.flows: Counter[str] = Counter()
        self.flow_prefix: dict[str, str] = {}
        self.rwnd: dict[str, list[float]] = defaultdict(list)

    def add(self, s: Sample) -> None:
        rate = s.fields.get("delivery_rate_bps")
        if not isinstance(rate, (int, float)):
            return
        if s.time is not None:
            self.times.setdefault(s.snapshot, s.time)
        moved = max(float(s.fields.get("bytes_acked") or 0), float(s.fields.get("bytes_received") or 0))
        if moved < self.params.min_bytes:
            self.small += 1
            return
        if s.fields.get("app_limited"):
            self.app_limited += 1
            return
        prefix = prefix_of(s.peer, self.params)
        self.per_snap[s.snapshot][prefix].append(float(rate))
        if s.key in self.flows or len(self.flows) < MAX_FLOWS_TRACKED:
            self.flows[s.key] += 1
            self.flow_prefix.setdefault(s.key, prefix)
        if isinstance(s.fields.get("rwnd_limited_pct"), (int, float)):
            self.rwnd[prefix].append(float(s.fields["rwnd_limited_pct"]) / 100)

    def result(self) -> dict[str, Any]:
        """Per prefix: its slowness over time, duty cycle, flap rate, sign test and verdict; and the data's limits."""
        params = self.params
        cut = 1 - params.bottom_share
        intervals = sorted(self.per_snap)
        slower: dict[str, list[float]] = defaultdict(list)  # per prefix, per snapshot: its share of comparisons lost
        medians_over_time: dict[str, list[float]] = defaultdict(list)
        for snap in intervals:
            medians = {p: percentile(v, 50) or 0.0 for p, v in self.per_snap[snap].items()}
            for p, m in medians.items():
                medians_over_time[p].append(m)
                others = [compare(m, o) for q, o in medians.items() if q != p]
                if others:
                    slower[p].append(sum(others) / len(others))
        flows_of: Counter[str] = Counter(self.flow_prefix[f] for f in self.flows)
        once_of: Counter[str] = Counter(self.flow_prefix[f] for f, n in self.flows.items() if n == 1)
        prefixes: list[dict[str, Any]] = []
        for p, shares in slower.items():
            states = [s >= cut for s in shares]
            duty = sum(states) / len(states)
            flaps = sum(1 for a, b in itertools.pairwise(states) if a != b)
            flap_rate = flaps / (len(states) - 1) if len(states) > 1 else 0.0
            slowness = sum(shares) / len(shares)
            most = sum(1 for s in shares if s > 0.5)  # slower than most of the other prefixes that time
            p_value = sign_test(most, len(shares))
            reasons = []
            if slowness < cut:
                reasons.append(f"slower than {slowness:.0%} of the others over time (the bottom group needs {cut:.0%})")
            if duty < params.min_duty:
                reasons.append(f"duty cycle {duty:.0%} < {params.min_duty:.0%}")
            if flap_rate > params.max_flap:
                reasons.append(f"flap rate {flap_rate:.0%} > {params.max_flap:.0%}")
            if not reasons and p_value > SIGNIFICANCE:
                reasons.append(
                    f"slower than most others in {most} of {len(shares)} snapshots: too few to rule out chance "
                    f"(p = {p_value:.2f})"
                )
            rwnd = percentile(self.rwnd.get(p, []), 50)
            prefixes.append(
                {
                    "prefix": p,
                    "intervals": len(shares),
                    "median_rate_bps": percentile(medians_over_time[p], 50),
                    "slowness": round(slowness, 4),
                    "bottom_intervals": sum(states),
                    "duty_cycle": round(duty, 4),
                    "flaps": flaps,
                    "flap_rate": round(flap_rate, 4),
                    "p_value": round(p_value, 4),
                    "flows": flows_of.get(p, 0),
                    "flows_seen_once": once_of.get(p, 0),
                    "rwnd_limited_share": round(rwnd, 4) if rwnd is not None else None,
                    "candidate": not reasons,
                    "why_not": "; ".join(reasons),
                }
            )
        prefixes.sort(key=lambda r: (-r["slowness"], r["flap_rate"]))
        return {
            "over_time": self._over_time(intervals, [r["prefix"] for r in prefixes]),
            "intervals": len(intervals),
            "interval_s": self._interval(intervals),
            "params": asdict(params),
            "tie": TIE,
            "flows": len(self.flows),
            "flows_seen_once": sum(1 for n in self.flows.values() if n == 1),
            "left_out_small": self.small,
            "left_out_app_limited": self.app_limited,
            "prefixes": prefixes,
        }

    def _over_time(self, intervals: list[int], ranked: list[str]) -> dict[str, Any]:
        """Each prefix's delivery-rate percentiles (p10, p50, p90 over its flows that count) in each snapshot, for
        the chart: the ``CHART_PREFIXES`` slowest over time, every prefix's median for comparison, at most
        ``CHART_SNAPSHOTS`` snapshots evenly spaced; None where a prefix had no flow that counted."""
        step = max(1, math.ceil(len(intervals) / CHART_SNAPSHOTS))
        kept = intervals[::step]
        shown = ranked[:CHART_PREFIXES]

        def pct(values: list[float] | None, q: float) -> float | None:
            return percentile(values, q) if values else None

        return {
            "snapshots": kept,
            "times": [self.times.get(i) for i in kept],
            "all_p50": [pct([r for rates in self.per_snap[i].values() for r in rates], 50) for i in kept],
            "prefixes": [
                {
                    "prefix": p,
                    **{f"p{q}": [pct(self.per_snap[i].get(p), q) for i in kept] for q in (10, 50, 90)},
                }
                for p in shown
            ],
            "prefixes_left_out": max(0, len(ranked) - len(shown)),
        }

    def _interval(self, intervals: list[int]) -> float | None:
        times = [self.times[i] for i in intervals if i in self.times]
        gaps = [b - a for a, b in itertools.pairwise(times) if b > a]
        return percentile(gaps, 50)


def limits(result: dict[str, Any], params: BbrParams) -> list[str]:
    """What the method can and cannot conclude from these snapshots, in sentences."""
    n, k = result["intervals"], len(result["prefixes"])
    out = []
    if k < 2:
        out.append("With fewer than two prefixes there is nothing to compare: no prefix can be called slow.")
    elif k * params.bottom_share < 1.5:
        out.append(
            f"With {k} prefixes the bottom {params.bottom_share:.0%} is the slowest prefix (or those tied with it)."
        )
    if k >= 2:
        out.append(
            "The method ranks these prefixes against each other: it says which are slower than the rest here, "
            "not that any is slow in itself, nor why (round-trip time, loss or the client)."
        )
    smallest = math.ceil(math.log2(1 / SIGNIFICANCE))
    if n < smallest:
        out.append(
            f"{n} snapshot{'s' if n != 1 else ''}: at least {smallest} are needed before a prefix slower every time "
            "can be told from chance, so no prefix is a candidate yet."
        )
    every = f"every {result['interval_s']:.3g} s" if result["interval_s"] else "at unknown times (no === <time> lines)"
    out.append(f"{n} snapshots taken {every}: duty cycle and flap rate move in steps of 1/{max(n, 1)}.")
    flows, once = result["flows"], result["flows_seen_once"]
    if flows:
        out.append(
            f"{flows:,} flow{'s' if flows != 1 else ''} of at least {params.min_bytes:,} bytes seen; {once:,} of them "
            "in only one snapshot. Flows shorter than the interval mostly start and end between two snapshots and are "
            "not seen at all, so prefixes whose responses are short are under-represented and one that changes "
            "faster than the interval can look steady."
        )
    left = []
    if result["left_out_small"]:
        left.append(f"{result['left_out_small']:,} under {params.min_bytes:,} bytes")
    if result["left_out_app_limited"]:
        left.append(f"{result['left_out_app_limited']:,} application-limited (their rate is the application's)")
    if left:
        out.append("Samples left out: " + ", ".join(left) + ".")
    return out


def bbr_finding(index: int, tally: BbrTally) -> Finding:
    """The candidates, every prefix's numbers and the reasons the others are not, with the data's limits."""
    params = tally.params
    result = tally.result()
    cands = [p for p in result["prefixes"] if p["candidate"]]
    names = ", ".join(p["prefix"] for p in cands[:10])
    said = limits(result, params)
    rwnd = [p for p in cands if (p["rwnd_limited_share"] or 0) >= 0.5]
    if rwnd:
        said.append(
            f"{', '.join(p['prefix'] for p in rwnd)}: the client's receive window limited these flows for most of "
            "their busy time (rwnd_limited); a congestion control change does not lift that limit."
        )
    return Finding(
        kind="sockets.bbr_candidates",
        layer="network",
        severity="low" if cands else "info",
        title=f"{len(cands)} prefix{'es' if len(cands) != 1 else ''} consistently in the bottom "
        f"{params.bottom_share:.0%} by delivery rate over {result['intervals']} snapshots"
        + (f": {names}" if cands else ""),
        explanation=(
            f"Within each snapshot every prefix's median delivery rate (flows ≥ {params.min_bytes:,} bytes) was "
            f"compared with every other prefix's (closer than {TIE:.0%} is a tie); a prefix is in the bottom "
            f"{params.bottom_share:.0%} when it is slower than at least {1 - params.bottom_share:.0%} of the others. "
            f"A BBR candidate is there over all the snapshots together, in ≥ {params.min_duty:.0%} of them "
            f"(duty cycle), changing state in ≤ {params.max_flap:.0%} of them (flap rate), and slower than most "
            f"others in enough snapshots to rule out chance (sign test, p ≤ {SIGNIFICANCE}). " + " ".join(said)
        ),
        refs=(Ref(evidence=index, label="all snapshots"),),
        key=f"evidence-{index}",
        data={**result, "candidates": [p["prefix"] for p in cands], "limits": said},
    )
