"""Settings a person can change per evidence file (today: seed 003's BBR-candidate method).

They are validated here, in one place, for the CLI and the API alike: ``Tuning.from_json``
raises ``ValueError`` with a message that names the setting and its allowed range.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
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


@dataclass(frozen=True)
class Tuning:
    bbr: BbrParams = DEFAULT_BBR

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Tuning:
        """``{"bbr": {"bottom_share": 0.1, ...}}`` → Tuning; missing settings keep their defaults."""
        if not data:
            return DEFAULT_TUNING
        unknown = set(data) - {"bbr"}
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
        return cls(bbr=BbrParams(**values))

    def to_json(self) -> dict[str, Any]:
        return {"bbr": asdict(self.bbr)}


DEFAULT_TUNING = Tuning()
