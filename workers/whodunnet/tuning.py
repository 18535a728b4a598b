"""Settings a person can change per evidence file: seed 003's BBR-candidate method, and the
interface limits ``neighbours.link_usage`` compares throughput with.

They are validated here, in one place, for the CLI and the API alike: ``Tuning.from_json``
raises ``ValueError`` with a message that names the setting and its allowed range.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class BbrParams:
    """Seed 003's knobs: bottom 20 % by delivery rate, flows ≥ 100 KB, /24 and /56 prefixes."""

    bottom_share: float = 0.2
    min_bytes: int = 100_000
    min_duty: float = 0.5
    max_flap: float = 0.5
    v4_prefix: int = 24
    v6_prefix: int = 56


DEFAULT_BBR = BbrParams()

#: setting → (lowest, highest, whole number?)
BBR_RANGES: dict[str, tuple[float, float, bool]] = {
    "bottom_share": (0.01, 1.0, False),
    "min_bytes": (0, 10**12, True),
    "min_duty": (0.0, 1.0, False),
    "max_flap": (0.0, 1.0, False),
    "v4_prefix": (8, 32, True),
    "v6_prefix": (16, 128, True),
}
#: What each setting means, for the CLI's help and the API schema.
BBR_HELP: dict[str, str] = {
    "bottom_share": "share of prefixes counted as bad in each interval (0.2 = 20 %)",
    "min_bytes": "flows that moved fewer bytes are ignored",
    "min_duty": "a candidate is in the bad group in at least this share of its intervals",
    "max_flap": "and changes in or out in at most this share of them",
    "v4_prefix": "IPv4 prefix length peers are grouped by",
    "v6_prefix": "IPv6 prefix length peers are grouped by",
}


#: Interface names as the kernel allows them (IFNAMSIZ 16), plus '@' and ':' for veth/alias forms.
IFACE_NAME = re.compile(r"^[A-Za-z0-9_.@:-]{1,32}$")
#: The largest interface limit accepted (100 Tbit/s).
MAX_LINK_BPS = 1e14
_RATE = re.compile(r"^(?P<v>\d+(?:\.\d+)?)\s*(?P<u>[kmgt]?)(?:bit/s|bit|bps|b/s|b)?$", re.I)


def parse_rate(text: str) -> float:
    """``10G``, ``10Gbit``, ``2.5 Gbit/s``, ``800M``, ``1000000`` → bits per second."""
    m = _RATE.match(text.strip())
    if m is None:
        raise ValueError(f"not a rate: {text!r} (say e.g. 10G, 2.5Gbit or 800M)")
    return float(m.group("v")) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group("u").lower()]


def check_link_limits(limits: dict[str, Any]) -> dict[str, float]:
    """Validate ``{"eth0": 10e9}``; raises ValueError naming the interface that is wrong."""
    out: dict[str, float] = {}
    for name, bps in limits.items():
        if not isinstance(name, str) or IFACE_NAME.match(name) is None:
            raise ValueError(f"not an interface name: {name!r}")
        if isinstance(bps, bool) or not isinstance(bps, (int, float)) or not 0 < bps <= MAX_LINK_BPS:
            raise ValueError(f"the limit of {name} must be a number of bits per second above 0 and at most 100 T")
        out[name] = float(bps)
    return out


@dataclass(frozen=True)
class Tuning:
    bbr: BbrParams = DEFAULT_BBR
    #: Interface → limit in bit/s; over the ``# limit`` lines of a counters file.
    link_limits_bps: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Tuning:
        """``{"bbr": {"bottom_share": 0.1, ...}}`` → Tuning; missing settings keep their defaults."""
        if not data:
            return DEFAULT_TUNING
        unknown = set(data) - {"bbr", "link_limits_bps"}
        if unknown:
            raise ValueError(f"unknown setting group(s): {', '.join(sorted(unknown))}")
        bbr = data.get("bbr") or {}
        if not isinstance(bbr, dict):
            raise ValueError("bbr must be an object of settings")
        names = {f.name for f in fields(BbrParams)}
        unknown = set(bbr) - names
        if unknown:
            raise ValueError(f"unknown bbr setting(s): {', '.join(sorted(unknown))}")
        values: dict[str, Any] = {}
        for name, raw in bbr.items():
            low, high, whole = BBR_RANGES[name]
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):
                raise ValueError(f"bbr.{name} must be a number")
            if whole and raw != int(raw):
                raise ValueError(f"bbr.{name} must be a whole number")
            if not low <= raw <= high:
                raise ValueError(f"bbr.{name} must be between {low:g} and {high:g}")
            values[name] = int(raw) if whole else float(raw)
        links = data.get("link_limits_bps") or {}
        if not isinstance(links, dict):
            raise ValueError("link_limits_bps must be an object of interface → bit/s")
        return cls(bbr=BbrParams(**values), link_limits_bps=check_link_limits(links))

    def to_json(self) -> dict[str, Any]:
        return {"bbr": asdict(self.bbr), "link_limits_bps": dict(self.link_limits_bps)}


DEFAULT_TUNING = Tuning()
