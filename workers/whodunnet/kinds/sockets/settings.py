"""The sockets kind's settings: the BBR-candidate method's parameters (``sockets.bbr_candidates``).

Each field of ``BbrParams`` is one setting, declared once here with its default, range and words;
the CLI flags (``--bbr-min-bytes``), the API's ``{"bbr": {...}}`` body and the evidence card's form
are derived from it (``whodunnet.kinds.settings``).
"""

from __future__ import annotations

from dataclasses import dataclass

from whodunnet.kinds.settings import PERCENT, NumberGroup, number


@dataclass(frozen=True)
class BbrParams:
    """Bottom 20 % by delivery rate, flows ≥ 100 KB, in the bad group ≥ 50 % of the time, flapping ≤ 50 %."""

    bottom_share: float = number(
        0.2, 0.01, 1.0, label="Bad group (% of prefixes)",
        help="share of prefixes counted as bad in each interval (0.2 = 20 %)", display=PERCENT,
    )  # fmt: skip
    min_bytes: int = number(
        100_000, 0, 10**12, label="Ignore flows under (bytes)", help="flows that moved fewer bytes are ignored"
    )
    min_duty: float = number(
        0.5, 0.0, 1.0, label="Duty cycle at least (%)",
        help="a candidate is in the bad group in at least this share of its intervals", display=PERCENT,
    )  # fmt: skip
    max_flap: float = number(
        0.5, 0.0, 1.0, label="Flap rate at most (%)", help="and changes in or out in at most this share of them",
        display=PERCENT,
    )  # fmt: skip
    v4_prefix: int = number(24, 8, 32, label="IPv4 prefix (bits)", help="IPv4 prefix length peers are grouped by")
    v6_prefix: int = number(56, 16, 128, label="IPv6 prefix (bits)", help="IPv6 prefix length peers are grouped by")


DEFAULT_BBR = BbrParams()

BBR = NumberGroup(
    name="bbr",
    model=BbrParams,
    title="BBR-candidate settings",
    help="how sockets.bbr_candidates ranks prefixes over ss snapshots",
    cli_title="BBR candidates",
)
