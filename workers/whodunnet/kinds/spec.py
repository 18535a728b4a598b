"""What an evidence kind is to the rest of Whodunnet: one ``Kind`` value per folder.

A kind folder (``whodunnet/kinds/<name>/``) builds one ``Kind`` in its ``__init__.py`` and
``whodunnet.registry`` lists it. Everything else is derived from that value: content sniffing
(``whodunnet.detect``), the analyzer the engine runs, the settings a person can change (CLI
flags, the API's PATCH body and the UI's form), the labels and units the UI shows a finding's
numbers with, the findings drawn across evidence, and the fuzz target's seeds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from whodunnet.model import EvidenceResult, Finding, Layer

if TYPE_CHECKING:
    from whodunnet.kinds.settings import SettingsGroup

#: ``(index, path, *, limits, progress, **settings) -> (evidence, findings)``; never raises for bad input.
Analyzer = Callable[..., tuple[EvidenceResult, list[Finding]]]
#: ``(summary, earlier) -> line``: what one file shows, in one line for its card ("kernel 6.5.13 → 6.6.10",
#: "nstat: +84 retransmitted segments of 1,596 sent"); ``earlier`` is the summary of the snapshot a snapshot is
#: diffed with. None when the summary says nothing worth a line.
Describe = Callable[[Mapping[str, Any], Mapping[str, Any] | None], str | None]
#: ``(evidence, findings) -> findings`` drawn from several results at once (no file is read).
CombineFn = Callable[[Sequence[EvidenceResult], Sequence[Finding]], list[Finding]]

#: How a number in a finding's data is shown. Lists take their items' unit; maps their values'.
Unit = Literal[
    "count",  # a whole number: 1,200
    "number",  # a measurement without a unit: 0.66
    "bytes",  # a size: 9.00 MiB (9,437,184 B)
    "bytes_exact",  # a window or buffer, where the exact value matters: 65,536 B
    "seconds",  # a duration: 1.03 s, 2 min 5 s
    "ms",  # milliseconds: 137 ms
    "bit/s",  # a bit rate: 3.84 Mbit/s
    "bytes/s",  # a byte rate: 12.5 MB/s
    "share",  # a share of one: 0.015 → 1.5 %
    "ratio",  # how many times another: 389.754 → 390×
    "timestamp",  # seconds since the epoch: a date and time
    "connection",  # a capture's connection id: a link to that connection
    "text",  # shown as it is (strings, flags, names)
]
UNITS: tuple[str, ...] = get_args(Unit)


@dataclass(frozen=True)
class Field:
    """How one key of a finding's data is labelled and shown; the label defaults to the key in words."""

    unit: Unit = "count"
    label: str = ""


@dataclass(frozen=True)
class Table:
    """A list of rows in a finding's data (``rows``: one per connection), shown as a table.

    ``columns`` picks and orders the columns (all the rows' keys when empty). ``by`` makes a
    table of a map of rows instead (``{"client": {...}, "server": {...}}``), the map's key
    becoming the first column, named ``by``.
    """

    key: str
    label: str
    columns: tuple[str, ...] = ()
    by: str = ""


@dataclass(frozen=True)
class FindingSpec:
    """One finding kind a kind can emit: which of its data keys the UI shows, and how.

    ``facts`` are shown in this order as label/value pairs; ``tables`` as tables; ``hidden``
    are kept in the data for the API and other findings but not shown. ``view`` names a
    dedicated rendering in the UI for data that is more than facts and tables.
    """

    kind: str
    facts: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    hidden: tuple[str, ...] = ()
    view: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        """Every top-level data key this finding may carry."""
        return (*self.facts, *(t.key for t in self.tables), *self.hidden)


@dataclass(frozen=True)
class Combiner:
    """Findings drawn from the results of several files (counter diffs, kernel before/after).

    ``name`` is said (in words) when it fails; ``layer`` is where that failure is reported.
    """

    name: str
    layer: Layer
    run: CombineFn


@dataclass(frozen=True)
class Kind:
    """One evidence kind: how it is recognised, read, analysed, tuned, shown and fuzzed.

    ``sniff_text`` sees the first 64 KiB of a text file, decoded; the first registered kind that
    says yes wins, so a kind whose files could pass for another's goes before it. ``sniff_bytes``
    recognises binary formats by magic number and returns the format's name (``pcap``), which
    ``formats`` lists. ``snapshot`` kinds are point-in-time counters: two snapshots of the same
    kind and formats are diffed, ordered by the time each was taken (``whodunnet.snapshots``).
    ``fuzz`` feeds arbitrary bytes to the kind's reader (the default writes them to a file and
    runs ``analyze``); ``fuzz_seeds`` is a folder of small real inputs it starts from.
    ``streams``: ``analyze`` also takes an open binary stream in place of the path (a file read
    from an object store is then never copied to disk; ``engine.Source``). ``describe`` says in one line
    what a file of the kind shows (its evidence card's first line).
    """

    name: str
    label: str
    analyze: Analyzer
    findings: tuple[FindingSpec, ...]
    fields: Mapping[str, Field]
    fuzz_seeds: Path
    describe: Describe
    sniff_text: Callable[[str], bool] | None = None
    sniff_bytes: Callable[[bytes], str | None] | None = None
    formats: tuple[str, ...] = ()
    settings: tuple[SettingsGroup, ...] = ()
    combiners: tuple[Combiner, ...] = ()
    snapshot: bool = False
    connections: bool = False
    fuzz: Callable[[bytes], None] | None = None
    streams: bool = False


_ACRONYMS = {"tcp": "TCP", "rtt": "RTT", "rto": "RTO", "ecn": "ECN", "syn": "SYN", "syns": "SYNs", "fin": "FIN",
             "rst": "RST", "ms": "(ms)", "cpu": "CPU", "ip": "IP"}  # fmt: skip


def label_of(key: str) -> str:
    """A data key in words: ``median_delay`` → ``Median delay``, ``rtt_ms`` → ``RTT (ms)``."""
    words = [_ACRONYMS.get(w, w) for w in re.sub(r"_(s|seconds|bps)$", "", key).split("_")]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def field_json(key: str, spec: Field) -> dict[str, str]:
    return {"key": key, "label": spec.label or label_of(key), "unit": spec.unit}
