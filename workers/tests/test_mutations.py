"""The engine over a few hundred ``editcap -E``-style mutations of real captures.

Every mutant must give a result (with or without a structured error), never an
exception and never an "internal error", within a time bound.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from capture_testdata import CAPTURES

from whodunnet.engine import analyze

SOURCES = [
    "ipv6.pcap",
    "pptp.pcap",
    "tcp-handshake-nano.pcap",
    "gap-data-missing.pcapng",
    "pppoe-over-qinq.pcap",
    "mixed-vlan-mpls.pcap",
    "connect-with-header.pcap",
    "retransmit-timeout.pcapng",
    "iso-download.pcap.gz",
]
MUTANTS_PER_SOURCE = 40
SECONDS_PER_MUTANT = 2.0


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One of: flip a few bytes, cut the file, insert bytes, or plant a huge length field."""
    out = bytearray(data)
    how = rng.randrange(4)
    if how == 0:
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(out))
            out[i] = rng.randrange(256)
    elif how == 1:
        del out[rng.randrange(len(out)) :]
    elif how == 2:
        i = rng.randrange(len(out) + 1)
        out[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    else:
        i = rng.randrange(max(1, len(out) - 4)) & ~3
        out[i : i + 4] = b"\xff\xff\xff\xff"
    return bytes(out)


def test_it_gives_a_result_or_a_structured_error_for_every_mutant(tmp_path: Path) -> None:
    rng = random.Random(20261121)
    outcomes = {"ok": 0, "error": 0}
    for name in SOURCES:
        original = (CAPTURES / name).read_bytes()
        for n in range(MUTANTS_PER_SOURCE):
            path = tmp_path / f"{n}-{name}"
            path.write_bytes(mutate(original, rng))
            started = time.monotonic()
            result = analyze([path])
            took = time.monotonic() - started
            (ev,) = result.evidence
            assert took < SECONDS_PER_MUTANT, f"{path.name} took {took:.2f} s"
            assert ev.kind in ("capture", "unknown")
            if ev.error is not None:
                assert ev.error.message, path.name
                assert "internal error" not in ev.error.message, (path.name, ev.error.message)
                outcomes["error"] += 1
            else:
                outcomes["ok"] += 1
            path.unlink()
    assert sum(outcomes.values()) == len(SOURCES) * MUTANTS_PER_SOURCE
    assert outcomes["ok"] and outcomes["error"]
