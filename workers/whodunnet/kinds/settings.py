"""Settings schemas: one declaration per group of settings, from which everything else is derived.

A kind lists its groups in ``Kind.settings``. Each group is validated here, in one place
(``parse`` raises ``ValueError`` naming the setting and what is allowed), and describes itself
for the three places a person changes it: ``add_cli``/``from_cli`` make the ``whodunnet analyze``
flags, ``describe`` is what the API serves (the backend builds the PATCH body's validation and
the OpenAPI schema from it, and the UI renders a form from it), ``said`` is the timeline's words.

Two shapes exist: ``NumberGroup`` (a fixed set of numbers, declared as the fields of a frozen
dataclass with ``number(...)``) and ``RateMap`` (a rate per name, e.g. an interface's limit).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class Display:
    """How the UI shows a value: in ``unit``, where value = shown × ``factor`` (0.2 → 20 % with 0.01)."""

    unit: str
    factor: float


PERCENT = Display("%", 0.01)
GBIT = Display("Gbit/s", 1e9)


@dataclass(frozen=True)
class NumberSetting:
    """One number of a ``NumberGroup``: its range, whether it is whole, and its words."""

    name: str
    label: str
    help: str
    default: float
    minimum: float
    maximum: float
    whole: bool
    display: Display | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "help": self.help,
            "default": self.default,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "whole": self.whole,
            "display": asdict(self.display) if self.display else None,
        }


def number(
    default: float, minimum: float, maximum: float, *, label: str, help: str, display: Display | None = None
) -> Any:
    """Declare a setting as a field of a ``NumberGroup``'s dataclass (whole when ``default`` is an int)."""
    spec = {"minimum": minimum, "maximum": maximum, "label": label, "help": help, "display": display}
    return field(default=default, metadata={"setting": spec})


class SettingsGroup:
    """What every settings group offers (see the module docstring)."""

    name: str
    title: str
    help: str
    submit_label: str
    #: The keyword argument the kind's analyzer takes the value as.
    argument: str

    def default(self) -> Any:
        raise NotImplementedError

    def parse(self, raw: Any) -> Any:
        raise NotImplementedError

    def to_json(self, value: Any) -> Any:
        raise NotImplementedError

    def merge(self, current: Any, change: Any) -> Any:
        """The stored JSON after a person's change (``current`` is the stored JSON, or None)."""
        raise NotImplementedError

    def said(self, current: Any, change: Any) -> str:
        raise NotImplementedError

    def add_cli(self, parser: argparse.ArgumentParser) -> None:
        raise NotImplementedError

    def from_cli(self, args: argparse.Namespace) -> Any:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """What the API serves about this group: its words and its shape (``numbers`` or ``rates``)."""
        return {"name": self.name, "title": self.title, "help": self.help, "submit_label": self.submit_label}


class NumberGroup(SettingsGroup):
    """A fixed set of numbers, each with a default and a range: the fields of ``model``."""

    def __init__(
        self, *, name: str, model: type, title: str, help: str, cli_title: str, submit_label: str = "Analyse again"
    ) -> None:
        self.name, self.model, self.title, self.help = name, model, title, help
        self.cli_title, self.submit_label, self.argument = cli_title, submit_label, name
        self.settings = tuple(_number_setting(f) for f in fields(model))

    def default(self) -> Any:
        return self.model()

    def parse(self, raw: Any) -> Any:
        if not raw:
            return self.default()
        if not isinstance(raw, Mapping):
            raise ValueError(f"{self.name} must be an object of settings")
        known = {s.name: s for s in self.settings}
        unknown = set(raw) - set(known)
        if unknown:
            raise ValueError(f"unknown {self.name} setting(s): {', '.join(sorted(map(str, unknown)))}")
        values: dict[str, Any] = {}
        for key, value in raw.items():
            s = known[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{self.name}.{key} must be a number")
            if s.whole and value != int(value):
                raise ValueError(f"{self.name}.{key} must be a whole number")
            if not s.minimum <= value <= s.maximum:
                raise ValueError(f"{self.name}.{key} must be between {s.minimum:g} and {s.maximum:g}")
            values[key] = int(value) if s.whole else float(value)
        return self.model(**values)

    def to_json(self, value: Any) -> dict[str, Any]:
        return asdict(value)

    def merge(self, current: Any, change: Any) -> Any:
        return {**(current or {}), **change}

    def said(self, current: Any, change: Any) -> str:
        before = self.to_json(self.parse(current))
        changed = ", ".join(f"{k} {v:g}" for k, v in sorted(change.items()) if before.get(k) != v)
        return f"{self.title} {changed or 'unchanged'}"

    def add_cli(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group(self.cli_title, self.help)
        for s in self.settings:
            group.add_argument(
                f"--{self.name}-{s.name.replace('_', '-')}",
                dest=f"{self.name}_{s.name}",
                type=int if s.whole else float,
                default=s.default,
                metavar="N" if s.whole else "F",
                help=f"{s.help}; default {s.default}".replace("%", "%%"),  # argparse formats help with %
            )

    def from_cli(self, args: argparse.Namespace) -> Any:
        return {s.name: getattr(args, f"{self.name}_{s.name}") for s in self.settings}

    def describe(self) -> dict[str, Any]:
        numbers = [s.describe() for s in self.settings]
        return {**super().describe(), "shape": "numbers", "numbers": numbers, "rates": None}


def _number_setting(f: Any) -> NumberSetting:
    spec = f.metadata.get("setting")
    if spec is None or f.default is MISSING:
        raise TypeError(f"{f.name}: declare each setting with number(...)")
    return NumberSetting(
        name=f.name,
        label=spec["label"],
        help=spec["help"],
        default=f.default,
        minimum=spec["minimum"],
        maximum=spec["maximum"],
        whole=isinstance(f.default, int),
        display=spec["display"],
    )


class RateMap(SettingsGroup):
    """A rate in bit/s per name (``{"eth0": 1e10}``); the names the UI offers come from the summary.

    ``keys_from`` names the summary key whose keys are offered (a counters snapshot's
    ``interfaces``); ``key_noun`` is how a refused name is described ("an interface").
    """

    def __init__(
        self,
        *,
        name: str,
        title: str,
        help: str,
        noun: str,
        key_label: str,
        key_noun: str,
        key_pattern: re.Pattern[str],
        keys_from: str,
        maximum: float,
        display: Display,
        cli_flag: str,
        cli_help: str,
        submit_label: str,
    ) -> None:
        self.name, self.title, self.help, self.noun = name, title, help, noun
        self.key_label, self.key_noun, self.key_pattern, self.keys_from = key_label, key_noun, key_pattern, keys_from
        self.maximum, self.display, self.cli_flag, self.cli_help = maximum, display, cli_flag, cli_help
        self.submit_label, self.argument = submit_label, name

    def default(self) -> dict[str, float]:
        return {}

    def parse(self, raw: Any) -> dict[str, float]:
        if not raw:
            return {}
        if not isinstance(raw, Mapping):
            raise ValueError(f"{self.name} must be an object of {self.key_label} → bit/s")
        out: dict[str, float] = {}
        for key, bps in raw.items():
            if not isinstance(key, str) or self.key_pattern.match(key) is None:
                raise ValueError(f"not {self.key_noun} name: {key!r}")
            if isinstance(bps, bool) or not isinstance(bps, (int, float)) or not 0 < bps <= self.maximum:
                raise ValueError(
                    f"the limit of {key} must be a number of bits per second above 0 and at most {rate_words(self.maximum)}"  # noqa: E501
                )
            out[key] = float(bps)
        return out

    def to_json(self, value: Any) -> dict[str, float]:
        return dict(value)

    def merge(self, current: Any, change: Any) -> Any:
        return change

    def said(self, current: Any, change: Any) -> str:
        listed = ", ".join(f"{k} {rate_words(v)}/s" for k, v in sorted(change.items()))
        return f"{self.noun} {listed or 'none'}"

    def add_cli(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            f"--{self.cli_flag}", dest=self.name, action="append", default=[], metavar="NAME=RATE", help=self.cli_help
        )

    def from_cli(self, args: argparse.Namespace) -> Any:
        out = {}
        for item in getattr(args, self.name):
            key, sep, rate = item.partition("=")
            if not sep:
                raise ValueError(f"--{self.cli_flag} wants NAME=RATE, not {item!r}")
            out[key] = parse_rate(rate)
        return out

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "shape": "rates",
            "numbers": None,
            "rates": {
                "keys_from": self.keys_from,
                "key_label": self.key_label,
                "minimum": 1,
                "maximum": self.maximum,
                "display": asdict(self.display),
            },
        }


_RATE = re.compile(r"^(?P<v>\d+(?:\.\d+)?)\s*(?P<u>[kmgt]?)(?:bit/s|bit|bps|b/s|b)?$", re.I)


def parse_rate(text: str) -> float:
    """``10G``, ``10Gbit``, ``2.5 Gbit/s``, ``800M``, ``1000000`` → bits per second."""
    m = _RATE.match(text.strip())
    if m is None:
        raise ValueError(f"not a rate: {text!r} (say e.g. 10G, 2.5Gbit or 800M)")
    return float(m.group("v")) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group("u").lower()]


def rate_words(bps: float) -> str:
    """300000 → "300 kbit", 1e10 → "10 Gbit", 1e14 → "100 Tbit"."""
    for scale, unit in ((1e12, "Tbit"), (1e9, "Gbit"), (1e6, "Mbit"), (1e3, "kbit")):
        if bps >= scale:
            return f"{bps / scale:g} {unit}"
    return f"{bps:g} bit"
