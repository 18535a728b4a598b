"""The settings a person changed for one evidence file, checked against the kinds' settings schemas.

``Tuning`` maps a settings group's name (``bbr``, ``link_limits_bps``) to its value; a group
not given keeps its defaults. ``Tuning.from_json`` validates every group with its schema
(``whodunnet.kinds.settings``), for the CLI and the API alike, and raises ``ValueError`` with
a message that names the setting and its allowed range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from whodunnet import registry
from whodunnet.kinds.settings import SettingsGroup
from whodunnet.kinds.spec import Kind


@dataclass(frozen=True)
class Tuning:
    """Settings group name → its value (a ``NumberGroup``'s dataclass, a ``RateMap``'s dict)."""

    values: Mapping[str, Any] = field(default_factory=dict)

    def get(self, group: SettingsGroup) -> Any:
        return self.values[group.name] if group.name in self.values else group.default()

    def arguments(self, kind: Kind) -> dict[str, Any]:
        """The keyword arguments ``kind``'s analyzer takes from these settings."""
        return {g.argument: self.get(g) for g in kind.settings}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Tuning:
        """``{"bbr": {"bottom_share": 0.1, ...}}`` → Tuning; missing settings keep their defaults."""
        if not data:
            return DEFAULT_TUNING
        groups = registry.settings_groups()
        unknown = set(data) - set(groups)
        if unknown:
            raise ValueError(f"unknown setting group(s): {', '.join(sorted(unknown))}")
        return cls({name: groups[name].parse(raw) for name, raw in data.items()})

    def to_json(self) -> dict[str, Any]:
        """Every group's value, defaults included (what the backend stores)."""
        return {name: g.to_json(self.get(g)) for name, g in registry.settings_groups().items()}


DEFAULT_TUNING = Tuning()
