"""Latency samples → values in milliseconds, or a histogram when that is all there is.

* CSV (``,``, ``;`` or tab) with a header: the first column whose name says latency
  (``latency``, ``elapsed``, ``duration``, ``response_time``, ``rtt``, ``time_ms`` ...);
  the unit comes from the name (``_us``/``(us)``, ``_s``/``(s)``, default ms).
* Tables like seed 002 (``message time | elapsed time (ms) |``): pipe-separated, same rule.
* A bare column of numbers (ms).
* netperf TCP_RR / TCP_CRR (and omni ``-d rr``): the transaction rate (mean latency =
  1 / rate per outstanding transaction), ``-k``/``-o`` ``KEY=value`` latency fields,
  and the ``-v 2`` histogram (UNIT_USEC … TEN_SEC rows of ten buckets, ``>100_SECS``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from whodunnet.textkinds import LineLog

_LATENCY_NAME = re.compile(r"latenc|elapsed|duration|response.?time|resp.?time|rtt|time.?ms|took|ms\b|\(ms\)", re.I)
_NUM = re.compile(r"^-?\d+(?:\.\d+)?$")
_HIST_ROW = re.compile(
    r"^(?P<unit>UNIT_USEC|TEN_USEC|HUNDRED_USEC|UNIT_MSEC|TEN_MSEC|HUNDRED_MSEC|UNIT_SEC|TEN_SEC)\s*:(?P<body>[\d:\s]+)$"
)
_HIST_OVER = re.compile(r"^>100_SECS:\s*(?P<v>\d+)")
_KEYVAL = re.compile(r"^(?P<k>[A-Z][A-Z0-9_]+)=(?P<v>.*)$")
_TEST = re.compile(
    r"(?P<name>TCP REQUEST/RESPONSE|TCP Connect/Request/Response|TCP_CRR|TCP_RR|OMNI|UDP REQUEST/RESPONSE)", re.I
)
HIST_WIDTH_MS = {"UNIT_USEC": 0.001, "TEN_USEC": 0.01, "HUNDRED_USEC": 0.1, "UNIT_MSEC": 1.0, "TEN_MSEC": 10.0,
                 "HUNDRED_MSEC": 100.0, "UNIT_SEC": 1000.0, "TEN_SEC": 10000.0}  # fmt: skip
LATENCY_KEYS = {
    "MEAN_LATENCY": "mean",
    "MIN_LATENCY": "min",
    "MAX_LATENCY": "max",
    "P50_LATENCY": "p50",
    "P90_LATENCY": "p90",
    "P99_LATENCY": "p99",
    "STDDEV_LATENCY": "stddev",
    "RT_LATENCY": "mean",
}


@dataclass
class Latency:
    """Samples (ms) with their lines, or histogram bins; plus netperf's numbers when present."""

    format: str = ""
    column: str | None = None
    unit: str = "ms"
    values: list[float] = field(default_factory=list)
    value_lines: list[int] = field(default_factory=list)
    bins: list[dict[str, float]] = field(default_factory=list)
    netperf: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "column": self.column,
            "unit": self.unit,
            "samples": len(self.values),
            "histogram_total": int(sum(b["count"] for b in self.bins)),
            "netperf": self.netperf,
        }


def unit_scale(name: str) -> tuple[str, float]:
    low = name.lower()
    if re.search(r"(_|\(|\b)(us|usec|µs|micros)", low):
        return "us", 1e-3
    if re.search(r"(_|\(|\b)(ns|nanos)", low):
        return "ns", 1e-6
    if re.search(r"(_|\(|\b)(ms|msec|millis)", low):
        return "ms", 1.0
    if re.search(r"(_|\(|\b)(s|sec|secs|seconds)\b", low):
        return "s", 1000.0
    return "ms", 1.0


def parse(lines: list[tuple[int, str]], log: LineLog) -> Latency:
    text_lines = [(n, t) for n, t in lines if t.strip()]
    out = Latency()
    if not text_lines:
        return out
    joined = "\n".join(t for _, t in text_lines[:40])
    if (
        "netperf" in joined.lower()
        or _TEST.search(joined)
        or any(_HIST_ROW.match(t.strip()) for _, t in text_lines[:60])
    ):
        _netperf(text_lines, out, log)
        return out
    _table(text_lines, out, log)
    return out


def _split(line: str) -> list[str]:
    if "|" in line:
        return [c.strip() for c in line.strip().strip("|").split("|")]
    for sep in (",", ";", "\t"):
        if sep in line:
            return [c.strip().strip('"') for c in line.split(sep)]
    return [line.strip()]


def _table(lines: list[tuple[int, str]], out: Latency, log: LineLog) -> None:
    first_n, first = lines[0]
    header = _split(first)
    col = 0
    body = lines
    if not all(_NUM.match(c) for c in header):
        out.format = "table" if "|" in first else "csv"
        idx = next((i for i, h in enumerate(header) if _LATENCY_NAME.search(h)), None)
        if idx is None:
            log.bad(first_n, "no latency column in the header (latency, elapsed, duration, ...)", first)
            return
        col = idx
        out.column = header[idx]
        out.unit, scale = unit_scale(header[idx])
        body = lines[1:]
    else:
        out.format = "numbers"
        scale = 1.0
    for n, t in body:
        cells = _split(t)
        if set(t.strip()) <= set("-|+: "):
            continue  # a markdown separator row
        if col >= len(cells) or not _NUM.match(cells[col].replace(",", "")):
            log.bad(n, f"no number in column {col + 1}", t)
            continue
        out.values.append(float(cells[col].replace(",", "")) * scale)
        out.value_lines.append(n)


def _netperf(lines: list[tuple[int, str]], out: Latency, log: LineLog) -> None:
    out.format = "netperf"
    np: dict[str, Any] = {}
    for i, (n, t) in enumerate(lines):
        s = t.strip()
        if (m := _TEST.search(s)) is not None and "test" not in np:
            name = m.group("name").upper()
            np["test"] = "TCP_CRR" if "CONNECT" in name or "CRR" in name else "TCP_RR" if "TCP" in name else name
            if "omni" in s.lower() or name == "OMNI":
                np["test"] = "OMNI"
            np["test_line"] = n
        if s.startswith("netperf ") or s.startswith("$ netperf"):
            np["command"] = s.lstrip("$ ")
            cm = re.search(r"-t\s+(\S+)", s)
            if cm:
                np["test"] = cm.group(1).upper()
        if (m := _HIST_ROW.match(s)) is not None:
            width = HIST_WIDTH_MS[m.group("unit")]
            counts = [c.strip() for c in m.group("body").split(":") if c.strip()]
            if not all(c.isdigit() for c in counts):
                log.bad(n, "a histogram row whose buckets are not single numbers", t)
                continue
            for j, c in enumerate(counts[:10]):
                if int(c):
                    out.bins.append({"lower_ms": j * width, "upper_ms": (j + 1) * width, "count": float(int(c))})
            continue
        if (m := _HIST_OVER.match(s)) is not None:
            if int(m.group("v")):
                out.bins.append({"lower_ms": 100_000.0, "upper_ms": float("inf"), "count": float(m.group("v"))})
            continue
        if s.startswith("HIST_TOTAL:"):
            total = s.split(":", 1)[1].strip()
            if total.isdigit():
                np["hist_total"] = int(total)
            else:
                log.bad(n, "HIST_TOTAL is not a number", t)
            continue
        if (m := _KEYVAL.match(s)) is not None:
            key, val = m.group("k"), m.group("v").strip()
            np.setdefault("values", {})[key] = val
            if key in LATENCY_KEYS and _NUM.match(val):
                np[LATENCY_KEYS[key] + "_latency_us"] = float(val)
            if key == "THROUGHPUT" and _NUM.match(val):
                np["rate"] = float(val)
            continue
        cells = s.split()
        # The result row: send recv req resp elapsed rate (and optional CPU columns)
        if "rate" not in np and len(cells) >= 6 and all(_NUM.match(c) for c in cells[:6]) and _is_result(lines, i):
            np["elapsed_s"] = float(cells[4])
            np["rate"] = float(cells[5])
            np["result_line"] = n
            np["request_size"], np["response_size"] = int(float(cells[2])), int(float(cells[3]))
        if len(cells) >= 6 and "round_trip_latency_us" not in np and _is_burst_row(lines, i):
            np["round_trip_latency_us"] = float(cells[4])
            np["transaction_rate"] = float(cells[5])
    if "rate" in np and np["rate"] > 0 and "mean_latency_us" not in np:
        np["mean_latency_us"] = np.get("round_trip_latency_us", 1e6 / np["rate"])
    out.netperf = np


def _is_result(lines: list[tuple[int, str]], i: int) -> bool:
    window = " ".join(t for _, t in lines[max(0, i - 6) : i])
    return "per sec" in window or "Rate" in window or "Throughput" in window or "secs." in window


def _is_burst_row(lines: list[tuple[int, str]], i: int) -> bool:
    window = " ".join(t for _, t in lines[max(0, i - 4) : i])
    return "usec/Tran" in window and all(_NUM.match(c) for c in lines[i][1].split()[:6])
