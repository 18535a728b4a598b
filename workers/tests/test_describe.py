"""Each kind says in one line what a file shows (its evidence card's first line), in plain words with units."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from whodunnet import registry
from whodunnet.engine import analyze
from whodunnet.kinds.spec import Kind

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo"
KIND_IDS = [k.name for k in registry.KINDS]


def line(*paths: Path) -> str | None:
    """The line the last file's card shows; with two files, the second diffed with the first."""
    results = [analyze([p]).evidence[0] for p in paths]
    kind = registry.kind(results[-1].kind)
    assert kind is not None
    return kind.describe(results[-1].summary or {}, results[0].summary if len(paths) == 2 else None)


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (("receive-window/client.pcap",), "4,904 packets, 4.87 MiB over 10.3 s, 1 TCP connection"),
        (("receive-window/kernel-versions.txt",), "kernel 6.5.13 → 6.6.10"),
        (
            ("receive-window/client.strace",),
            "2 processes over 10.3 s: 1 socket to 10.91.3.2:7010 (SO_RCVBUF 65,536); 1 timeout",
        ),
        (
            ("receive-window/client-nstat-before.txt", "receive-window/client-nstat-after.txt"),
            "nstat: +0 retransmitted segments of 1,596 sent",
        ),
        (("receive-window/client-nstat-after.txt",), "nstat: 0 retransmitted segments of 1,596 sent since boot"),
        (
            ("receive-window/client-ip-s-link-before.txt", "receive-window/client-ip-s-link-after.txt"),
            "ip -s link: wf867ac received 4.78 MiB, sent 103 KiB, no drops",
        ),
        (("conntrack-full/nat-sysctl.txt",), "nf_conntrack: conntrack table 64 of 256 entries"),
        (
            ("conntrack-full/nat-conntrack-S-before.txt", "conntrack-full/nat-conntrack-S-after.txt"),
            "conntrack -S: +32 conntrack drops",
        ),
        (
            ("receiver-drops/server-nft-before.txt", "receiver-drops/server-nft-after.txt"),
            "nft list ruleset: 1 rule, 1 dropping, +15 packets dropped",
        ),
        (("receiver-drops/client-latency.csv",), "1,500 latency samples (column latency_ms, in ms)"),
        (("receive-window/client-sysctl.txt",), "3 settings: net.ipv4.tcp_rmem = 4096 131072 33554432, "),
    ],
)
def test_it_says_what_a_demo_file_shows_in_one_line(files: tuple[str, ...], said: str) -> None:
    text = line(*(DEMO / f for f in files))
    assert text is not None and text.startswith(said), text


def test_it_says_a_snapshot_pair_changed_not_its_totals() -> None:
    before, after = DEMO / "receiver-drops/server-nstat-before.txt", DEMO / "receiver-drops/server-nstat-after.txt"
    assert line(before, after) == "nstat: +15 retransmitted segments of 1,503 sent"


@pytest.mark.parametrize("kind", registry.KINDS, ids=KIND_IDS)
def test_every_kind_says_its_seeds_in_plain_words(kind: Kind) -> None:
    """Every seed file gets a line or none, never an error, and no raw key (``tcp_connections``) or Python value."""
    said = 0
    for seed in sorted(p for p in kind.fuzz_seeds.iterdir() if p.name != "README.md"):
        result = analyze([seed]).evidence[0]
        if result.kind != kind.name:
            continue
        text = kind.describe(result.summary or {}, None)
        if text is None:
            continue
        said += 1
        assert "\n" not in text and len(text) <= 200, text
        assert not re.search(r"\b(None|True|False|nan)\b|\{|\[", text), text
        assert not re.search(r"\b[a-z]+_[a-z]+(_[a-z]+)*\b", text.replace("latency_ms", "")) or kind.name in (
            "sysctl",
            "counters",
            "app_config",
            "latency",
        ), text  # settings, formats and column names are the file's own words
    assert said, f"{kind.name}: no seed got a line"
