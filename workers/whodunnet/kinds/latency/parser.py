"""Latency samples → values in milliseconds, or a histogram when that is all there is.

* CSV (``,``, ``;`` or tab) with a header: the first column whose name says latency
  (``latency``, ``elapsed``, ``duration``, ``response_time``, ``rtt``, ``time_ms`` ...);
  the unit comes from the name (``_us``/``(us)``, ``_s``/``(s)``, default ms). A request failed
  when an ``error`` column says so (not empty, ``0``, ``none``, ``false``), a ``success``/``ok``
  column is false, a ``status``/``http_code`` column is 0 or ≥ 500 (curl's ``000``: no answer), or
  its latency cell is a word (``timeout``); failed requests go to ``fail`` with their latency when
  the row has one, never into the distribution.
* Tables pasted from a report or a wiki (``message time | elapsed time (ms) |``): pipe-separated, same rule.
* A bare column of numbers (ms).
* netperf TCP_RR / TCP_CRR (and omni ``-d rr``): the transaction rate (mean latency =
  1 / rate per outstanding transaction), ``-k``/``-o`` ``KEY=value`` latency fields,
  and the ``-v 2`` histogram (UNIT_USEC … TEN_SEC rows of ten buckets, ``>100_SECS``).

``LatencyReader`` is fed one line at a time: it decides between netperf and a table from the
first 60 non-blank lines, then streams. Sample values go to the analyzer's tally (``emit``) as
they are read; the parser keeps none of them.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from whodunnet.kinds.text import HeadFirst, LineLog, LineReader

#: ``(value in ms, line)`` for each sample read.
Emit = Callable[[float, int], None]
#: ``(value in ms or None, line, reason)`` for each failed request.
Fail = Callable[[float | None, int, str], None]
_ERROR_NAME = re.compile(r"^(errors?|err|err_?msg|error_?message|failure|failed|exception)$", re.I)
_SUCCESS_NAME = re.compile(r"^(success|succeeded|ok)$", re.I)
_STATUS_NAME = re.compile(r"^(status|status_?code|http_?code|response_?code|code)$", re.I)
#: What an error cell says when there was no error.
NO_ERROR = frozenset({"", "0", "none", "null", "false", "-", "nan", "ok", "no"})
FALSE = frozenset({"false", "0", "no", "f", "n"})
#: Non-blank lines looked at to tell netperf output from a table.
HEAD_LINES = 60
#: Histogram bins kept from a netperf report (one ``-v 2`` histogram has at most 81).
MAX_BINS = 10_000

_LATENCY_NAME = re.compile(
    r"latenc|elapsed|duration|response.?time|resp.?time|rtt|time.?ms|took|ms\b|\(ms\)|time.?total|total.?time", re.I
)
#: curl's -w timings (``%{time_total}``, ``%{time_connect}`` ...) are in seconds whatever their name says.
_CURL_TIME = re.compile(r"^time_(total|connect|starttransfer|namelookup|appconnect|pretransfer|redirect)$", re.I)
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
    """What the file says apart from the samples: its format, the column read, histogram bins, netperf's numbers."""

    format: str = ""
    column: str | None = None
    unit: str = "ms"
    samples: int = 0
    outcome_columns: list[str] = field(default_factory=list)
    bins: list[dict[str, float]] = field(default_factory=list)
    netperf: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "column": self.column,
            "unit": self.unit,
            "samples": self.samples,
            "outcome_columns": self.outcome_columns,
            "histogram_total": int(sum(b["count"] for b in self.bins)),
            "netperf": self.netperf,
        }


def unit_scale(name: str) -> tuple[str, float]:
    low = name.lower()
    if _CURL_TIME.match(low.strip()):
        return "s", 1000.0
    if re.search(r"(_|\(|\b)(us|usec|µs|micros)", low):
        return "us", 1e-3
    if re.search(r"(_|\(|\b)(ns|nanos)", low):
        return "ns", 1e-6
    if re.search(r"(_|\(|\b)(ms|msec|millis)", low):
        return "ms", 1.0
    if re.search(r"(_|\(|\b)(s|sec|secs|seconds)\b", low):
        return "s", 1000.0
    return "ms", 1.0


class LatencyReader:
    """Latency samples or a netperf report, one line at a time (see the module docstring)."""

    def __init__(self, log: LineLog, emit: Emit, fail: Fail | None = None) -> None:
        self.log = log
        self.emit = emit
        self.fail: Fail = fail if fail is not None else (lambda value, line, reason: None)
        self.out = Latency()
        self._head = HeadFirst(HEAD_LINES, self._choose)

    def feed(self, number: int, text: str) -> None:
        self._head.feed(number, text)

    def finish(self) -> None:
        self._head.finish()

    def _choose(self, head: list[tuple[int, str]]) -> LineReader:
        joined = "\n".join(t for _, t in head[:40])
        if "netperf" in joined.lower() or _TEST.search(joined) or any(_HIST_ROW.match(t.strip()) for _, t in head):
            return NetperfReader(self.out, self.log)
        return TableReader(self.out, self.log, self._value, self.fail)

    def _value(self, value: float, line: int) -> None:
        self.out.samples += 1
        self.emit(value, line)


def _split(line: str) -> list[str]:
    if "|" in line:
        return [c.strip() for c in line.strip().strip("|").split("|")]
    for sep in (",", ";", "\t"):
        if sep in line:
            return [c.strip().strip('"') for c in line.split(sep)]
    return [line.strip()]


class TableReader:
    """A header naming the latency column (or none: a bare column of numbers), then one sample per row."""

    def __init__(self, out: Latency, log: LineLog, emit: Emit, fail: Fail) -> None:
        self.out = out
        self.log = log
        self.emit = emit
        self.fail = fail
        self.col: int | None = None
        self.scale = 1.0
        self._started = False
        self._dead = False
        #: The columns that say a request failed: (index, kind), kind one of error/success/status.
        self._outcome: list[tuple[int, str]] = []

    def feed(self, n: int, t: str) -> None:
        if not t.strip() or self._dead:
            return
        if not self._started:
            self._started = True
            header = _split(t)
            if all(_NUM.match(c) for c in header):
                self.out.format = "numbers"
                self.col = 0
            else:
                self.out.format = "table" if "|" in t else "csv"
                found = [i for i, h in enumerate(header) if _LATENCY_NAME.search(h)]
                # several timings (curl's connect, first byte, total): the total is the request's latency
                idx = next((i for i in found if "total" in header[i].lower()), found[0] if found else None)
                if idx is None:
                    self.log.bad(n, "no latency column in the header (latency, elapsed, duration, ...)", t)
                    self._dead = True
                    return
                self.col = idx
                self.out.column = header[idx]
                self.out.unit, self.scale = unit_scale(header[idx])
                for i, h in enumerate(header):
                    for kind, pattern in (("error", _ERROR_NAME), ("success", _SUCCESS_NAME), ("status", _STATUS_NAME)):
                        if i != idx and pattern.match(h.strip()):
                            self._outcome.append((i, kind))
                self.out.outcome_columns = [header[i] for i, _ in self._outcome]
                return
        col = self.col if self.col is not None else 0
        cells = _split(t)
        if set(t.strip()) <= set("-|+: "):
            return  # a markdown separator row
        cell = cells[col].replace(",", "") if col < len(cells) else ""
        value = float(cell) * self.scale if _NUM.match(cell) else None
        reason = self._failure(cells)
        if reason is None and value is None and re.fullmatch(r"[A-Za-z][A-Za-z _-]*", cell):
            reason = cell  # "timeout" where the latency would be
        if reason is not None:
            self.fail(value, n, reason)
        elif value is None:
            self.log.bad(n, f"no number in column {col + 1}", t)
        else:
            self.emit(value, n)

    def _failure(self, cells: list[str]) -> str | None:
        """Why this row's request failed, or None."""
        for i, kind in self._outcome:
            cell = cells[i].strip() if i < len(cells) else ""
            if kind == "error" and cell.lower() not in NO_ERROR:
                return cell[:80]
            if kind == "success" and cell.lower() in FALSE:
                return f"{self.out.outcome_columns[self._outcome.index((i, kind))]} {cell}"
            if kind == "status" and cell.isdigit() and (int(cell) == 0 or int(cell) >= 500):
                return f"status {cell}"
        return None


class NetperfReader:
    """netperf output: the test, the result row, ``KEY=value`` fields and the ``-v 2`` histogram."""

    def __init__(self, out: Latency, log: LineLog) -> None:
        self.out = out
        self.log = log
        out.format = "netperf"
        self.np: dict[str, Any] = {}
        out.netperf = self.np
        #: The non-blank lines just before the current one (the result row is known by what precedes it).
        self.before: deque[str] = deque(maxlen=6)

    def feed(self, n: int, t: str) -> None:
        if t.strip():
            self._line(n, t)
            self.before.append(t)

    def _line(self, n: int, t: str) -> None:
        np, out = self.np, self.out
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
                self.log.bad(n, "a histogram row whose buckets are not single numbers", t)
                return
            for j, c in enumerate(counts[:10]):
                if int(c) and len(out.bins) < MAX_BINS:
                    out.bins.append({"lower_ms": j * width, "upper_ms": (j + 1) * width, "count": float(int(c))})
            return
        if (m := _HIST_OVER.match(s)) is not None:
            if int(m.group("v")) and len(out.bins) < MAX_BINS:
                out.bins.append({"lower_ms": 100_000.0, "upper_ms": float("inf"), "count": float(m.group("v"))})
            return
        if s.startswith("HIST_TOTAL:"):
            total = s.split(":", 1)[1].strip()
            if total.isdigit():
                np["hist_total"] = int(total)
            else:
                self.log.bad(n, "HIST_TOTAL is not a number", t)
            return
        if (m := _KEYVAL.match(s)) is not None:
            key, val = m.group("k"), m.group("v").strip()
            np.setdefault("values", {})[key] = val
            if key in LATENCY_KEYS and _NUM.match(val):
                np[LATENCY_KEYS[key] + "_latency_us"] = float(val)
            if key == "THROUGHPUT" and _NUM.match(val):
                np["rate"] = float(val)
            return
        cells = s.split()
        # The result row: send recv req resp elapsed rate (and optional CPU columns)
        if "rate" not in np and len(cells) >= 6 and all(_NUM.match(c) for c in cells[:6]) and self._is_result():
            np["elapsed_s"] = float(cells[4])
            np["rate"] = float(cells[5])
            np["result_line"] = n
            np["request_size"], np["response_size"] = int(float(cells[2])), int(float(cells[3]))
        if len(cells) >= 6 and "round_trip_latency_us" not in np and self._is_burst_row(t):
            np["round_trip_latency_us"] = float(cells[4])
            np["transaction_rate"] = float(cells[5])

    def finish(self) -> None:
        np = self.np
        if "rate" in np and np["rate"] > 0 and "mean_latency_us" not in np:
            np["mean_latency_us"] = np.get("round_trip_latency_us", 1e6 / np["rate"])

    def _is_result(self) -> bool:
        window = " ".join(self.before)
        return "per sec" in window or "Rate" in window or "Throughput" in window or "secs." in window

    def _is_burst_row(self, t: str) -> bool:
        window = " ".join(list(self.before)[-4:])
        return "usec/Tran" in window and all(_NUM.match(c) for c in t.split()[:6])
