"""sockets.bbr_candidates over many prefixes: the duty cycle and flap rate, worked by hand.

Ten prefixes with flows of at least 100 KB, so the bottom 20 % is two prefixes per interval:
- 198.51.100.0/24 is always the slowest: duty 1.0, flap 0.0 → the one candidate;
- 203.0.113.0/24 is in the bottom group in even intervals, 192.0.2.0/24 in odd ones:
  duty 0.5 but flap 1.0 → flappers, not candidates;
- two IPv6 peers in one /56 (different /64s) are one prefix;
- 100.64.9.0/24 is slower than everyone but only moves 50 KB per flow: ignored (BBR does
  not help small responses) unless the minimum is lowered.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from whodunnet.engine import analyze
from whodunnet.kinds.sockets.settings import BbrParams
from whodunnet.model import Finding
from whodunnet.tuning import DEFAULT_TUNING, Tuning

INTERVALS = 10
FAST = ["10.1.0.9", "10.2.0.9", "10.3.0.9", "10.4.0.9", "10.5.0.9", "10.6.0.9"]


def sock(peer: str, rate_bps: int, acked: int, port: int) -> str:
    local = "[2001:db8:ffff::1]:443" if peer.startswith("[") else "10.0.0.1:443"
    return (
        f"ESTAB 0      0      {local}    {peer}:{port}\n"
        f"\t cubic wscale:7,7 rto:204 rtt:3.5/1.2 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:10 "
        f"bytes_sent:{acked} bytes_acked:{acked} bytes_received:300 segs_out:90 segs_in:40 "
        f"send 33097143bps pacing_rate 66194280bps delivery_rate {rate_bps}bps delivered:80 "
        f"rcv_space:14480 rcv_ssthresh:64088 minrtt:1.1\n"
    )


def ten_prefixes_file(tmp_path: Path) -> Path:
    out = []
    for i in range(INTERVALS):
        out.append(f"=== {1700000000 + 10 * i}.000000\n")
        out.append("State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n")
        out.append(sock("198.51.100.7", 1_000_000, 2_000_000, 40000 + i))
        out.append(sock("198.51.100.8", 1_200_000, 5_000_000, 41000 + i))
        out.append(sock("203.0.113.5", 2_000_000 if i % 2 == 0 else 90_000_000, 900_000, 42000 + i))
        out.append(sock("192.0.2.44", 90_000_000 if i % 2 == 0 else 2_000_000, 900_000, 43000 + i))
        out.append(sock("100.64.9.1", 10_000, 50_000, 44000 + i))
        for n, peer in enumerate(FAST):
            out.append(sock(peer, 50_000_000 + n * 1_000_000, 3_000_000, 45000 + i))
        out.append(sock("[2001:db8:aa00:1::5]", 70_000_000, 4_000_000, 46000 + i))
        out.append(sock("[2001:db8:aa00:2::6]", 72_000_000, 4_000_000, 47000 + i))
    path = tmp_path / "ss-every-10s.txt"
    path.write_text("".join(out))
    return path


def bbr(path: Path, tuning: Tuning = DEFAULT_TUNING) -> Finding:
    (finding,) = [f for f in analyze([path], tuning=tuning).findings if f.kind == "sockets.bbr_candidates"]
    return finding


def test_it_picks_the_prefix_that_is_always_slow_and_not_the_flappers(tmp_path: Path) -> None:
    f = bbr(ten_prefixes_file(tmp_path))
    rows = {r["prefix"]: r for r in f.data["prefixes"]}
    assert f.data["intervals"] == INTERVALS and len(rows) == 10
    assert f.data["candidates"] == ["198.51.100.0/24"]
    slow = rows["198.51.100.0/24"]
    assert (slow["bottom_intervals"], slow["duty_cycle"], slow["flaps"], slow["flap_rate"]) == (10, 1.0, 0, 0.0)
    for flapper in ("203.0.113.0/24", "192.0.2.0/24"):
        r = rows[flapper]
        assert (r["bottom_intervals"], r["duty_cycle"], r["flaps"], r["flap_rate"]) == (5, 0.5, 9, 1.0)
        assert not r["candidate"]
    assert rows["2001:db8:aa00::/56"]["duty_cycle"] == 0.0  # both /64s, one /56
    assert "100.64.9.0/24" not in rows  # 50 KB flows are ignored
    assert f.title.endswith(": 198.51.100.0/24") and f.severity == "low"


def test_it_gives_each_prefixs_delivery_rate_percentiles_over_time(tmp_path: Path) -> None:
    over = bbr(ten_prefixes_file(tmp_path)).data["over_time"]
    assert over["times"] == [1700000000.0 + 10 * i for i in range(INTERVALS)]
    lines = {p["prefix"]: p for p in over["prefixes"]}
    slow = lines["198.51.100.0/24"]
    assert over["prefixes"][0]["prefix"] == "198.51.100.0/24"  # the slowest first
    # Two flows every snapshot: 1.0 and 1.2 Mbit/s, so p10 1.02, p50 1.1 and p90 1.18 Mbit/s throughout.
    assert slow["p10"] == pytest.approx([1_020_000] * INTERVALS)
    assert slow["p50"] == pytest.approx([1_100_000] * INTERVALS)
    assert slow["p90"] == pytest.approx([1_180_000] * INTERVALS)
    flapper = lines["203.0.113.0/24"]["p50"]
    assert flapper[:2] == [2_000_000, 90_000_000]  # slow, fast, slow, ...
    assert len(over["all_p50"]) == INTERVALS and over["prefixes_left_out"] == 0


def test_its_parameters_change_the_answer(tmp_path: Path) -> None:
    path = ten_prefixes_file(tmp_path)
    small = bbr(path, Tuning({"bbr": BbrParams(min_bytes=10_000)}))
    assert small.data["params"]["min_bytes"] == 10_000
    assert small.data["candidates"][0] == "100.64.9.0/24"  # now counted, and slowest of all
    # Allowed to flap, the flappers are still no candidates: over time they are slower than under half the others.
    tolerant = bbr(path, Tuning({"bbr": BbrParams(max_flap=1.0)}))
    assert tolerant.data["candidates"] == ["198.51.100.0/24"]
    rows = {r["prefix"]: r for r in tolerant.data["prefixes"]}
    assert rows["203.0.113.0/24"]["slowness"] == 0.4444
    assert rows["203.0.113.0/24"]["why_not"].startswith("slower than 44% of the others over time")
    # With a bad group wide enough to hold them, chance is what is left: slower than most in 5 of 10 snapshots.
    wider = bbr(path, Tuning({"bbr": BbrParams(max_flap=1.0, bottom_share=0.6)}))
    assert wider.data["candidates"] == ["198.51.100.0/24"]
    assert (
        "slower than most others in 5 of 10 snapshots: too few to rule out chance (p = 0.62)"
        in ({r["prefix"]: r for r in wider.data["prefixes"]}["192.0.2.0/24"]["why_not"])
    )
    wide = bbr(path, Tuning({"bbr": BbrParams(v4_prefix=8)}))
    assert "10.0.0.0/8" in {r["prefix"] for r in wide.data["prefixes"]}


def test_the_cli_takes_the_parameters_and_refuses_nonsense(tmp_path: Path) -> None:
    path = ten_prefixes_file(tmp_path)
    cmd = [sys.executable, "-m", "whodunnet.cli", "analyze", str(path)]
    ok = subprocess.run([*cmd, "--bbr-max-flap", "1"], capture_output=True, text=True, check=True)
    assert "1 prefix consistently in the bottom 20% by delivery rate over 10 snapshots: 198.51.100.0/24" in ok.stdout
    helped = subprocess.run([*cmd, "--help"], capture_output=True, text=True, check=True)
    assert "share of prefixes counted as bad in each interval (0.2 = 20 %); default 0.2" in " ".join(
        helped.stdout.split()
    )
    bad = subprocess.run([*cmd, "--bbr-bottom-share", "1.5"], capture_output=True, text=True)
    assert bad.returncode == 2 and "bbr.bottom_share must be between 0.01 and 1" in bad.stderr


def test_a_prefix_slower_every_time_is_no_candidate_until_there_are_enough_snapshots(tmp_path: Path) -> None:
    text = ten_prefixes_file(tmp_path).read_text()
    short = tmp_path / "three.txt"
    short.write_text("=== ".join(text.split("=== ")[:4]))  # the first three snapshots
    f = bbr(short)
    assert f.data["intervals"] == 3 and f.data["candidates"] == [] and f.severity == "info"
    slow = {r["prefix"]: r for r in f.data["prefixes"]}["198.51.100.0/24"]
    assert (slow["slowness"], slow["duty_cycle"], slow["p_value"]) == (1.0, 1.0, 0.125)
    assert "3 snapshots: at least 5 are needed" in f.explanation


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"bbr": {"min_duty": -0.1}}, "bbr.min_duty must be between 0 and 1"),
        ({"bbr": {"v4_prefix": 24.5}}, "bbr.v4_prefix must be a whole number"),
        ({"bbr": {"colour": 1}}, "unknown bbr setting(s): colour"),
        ({"bbr": {"min_bytes": "lots"}}, "bbr.min_bytes must be a number"),
    ],
)
def test_tuning_says_what_is_wrong(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Tuning.from_json(data)
