"""Every evidence kind, one line each, in the order their sniffers are tried (the first match wins).

Everything that differs per kind is derived from this list: content detection (``detect``),
the analyzer run and the settings it takes (``engine``, ``tuning``), the CLI's flags
(``analyze_cli``), the findings drawn across evidence, the catalogue the API serves to the UI
(settings forms, the labels and units of findings' numbers) and the fuzz target.
A kind whose files could pass for another's goes before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whodunnet.kinds import (
    app_config,
    capture,
    counters,
    firewall,
    kernel_versions,
    latency,
    sockets,
    softnet,
    strace,
    sysctl,
)
from whodunnet.kinds.settings import SettingsGroup
from whodunnet.kinds.spec import Combiner, Field, FindingSpec, Kind, field_json

KINDS: tuple[Kind, ...] = (
    capture.KIND,
    strace.KIND,
    kernel_versions.KIND,
    counters.KIND,
    softnet.KIND,
    firewall.KIND,
    sockets.KIND,
    latency.KIND,
    sysctl.KIND,
    app_config.KIND,
)

#: Findings the engine itself makes (not a kind's): a combiner that failed says so.
ENGINE_FINDINGS = (FindingSpec("engine.combiner_failed", facts=("combiner", "error")),)
ENGINE_FIELDS = {"combiner": Field("text"), "error": Field("text")}


def kind(name: str) -> Kind | None:
    """The kind called ``name``, or None."""
    return next((k for k in KINDS if k.name == name), None)


def kind_of_format(fmt: str) -> Kind | None:
    """The kind that reads the binary format ``fmt`` (``pcap`` → capture), or None."""
    return next((k for k in KINDS if fmt in k.formats), None)


def names() -> tuple[str, ...]:
    return tuple(k.name for k in KINDS)


def settings_groups() -> dict[str, SettingsGroup]:
    """Every settings group by name (names are unique across kinds)."""
    return {g.name: g for k in KINDS for g in k.settings}


def combiners() -> list[Combiner]:
    return [c for k in KINDS for c in k.combiners]


def snapshot_kinds() -> tuple[str, ...]:
    return tuple(k.name for k in KINDS if k.snapshot)


def catalogue() -> dict[str, Any]:
    """What the UI needs to know about each kind, as JSON: served by the API (``GET /api/evidence-kinds/``).

    ``kinds``: name, label, whether it is a snapshot or has a connection table, its settings
    groups (``SettingsGroup.describe``), the finding kinds it emits and the label and unit of every
    data key of those findings (``keys``). ``findings``: for each finding kind, the evidence kind
    that emits it and the facts and tables the UI shows; the engine's own findings, which no
    evidence kind emits, carry their keys themselves.
    """
    findings = [_finding_json(spec, k.name, {}) for k in KINDS for spec in k.findings]
    findings += [_finding_json(spec, "", ENGINE_FIELDS) for spec in ENGINE_FINDINGS]
    return {
        "kinds": [
            {
                "name": k.name,
                "label": k.label,
                "snapshot": k.snapshot,
                "connections": k.connections,
                "settings": [g.describe() for g in k.settings],
                "findings": [f.kind for f in k.findings],
                "keys": [field_json(key, f) for key, f in k.fields.items()],
            }
            for k in KINDS
        ],
        "findings": findings,
    }


def _finding_json(spec: FindingSpec, evidence_kind: str, fields: Mapping[str, Field]) -> dict[str, Any]:
    return {
        "kind": spec.kind,
        "evidence_kind": evidence_kind,
        "view": spec.view,
        "facts": list(spec.facts),
        "tables": [{"key": t.key, "label": t.label, "columns": list(t.columns), "by": t.by} for t in spec.tables],
        "keys": [field_json(key, f) for key, f in fields.items()],
    }
