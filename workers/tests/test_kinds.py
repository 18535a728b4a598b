"""Every registered evidence kind has every part, and declares every finding it can emit.

A kind is one folder (``whodunnet/kinds/<name>/``) listed in ``whodunnet.registry``; these tests
fail when one lacks a sniffer, an analyzer, a working settings schema, the labels and units of
any finding it can emit, fuzz seeds, or its entry in ``docs/analyzers.md``.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from capture_testdata import CAPTURES

from whodunnet import registry
from whodunnet.detect import sniff
from whodunnet.engine import analyze
from whodunnet.kinds.spec import UNITS, FindingSpec, Kind
from whodunnet.model import Finding

ROOT = Path(__file__).resolve().parents[2]
HOST_DATA = Path(__file__).parent / "host" / "data"
ENGINE = ROOT / "workers" / "whodunnet"
ANALYZERS_DOC = ROOT / "docs" / "analyzers.md"
#: Where a kind's findings are made when its folder delegates to an engine package.
DELEGATED = {"capture": [ENGINE / "capture", ENGINE / "capture_pairs.py"]}
KIND_IDS = [k.name for k in registry.KINDS]


def spec_of(finding_kind: str) -> tuple[FindingSpec, Kind | None]:
    for kind in registry.KINDS:
        for spec in kind.findings:
            if spec.kind == finding_kind:
                return spec, kind
    for spec in registry.ENGINE_FINDINGS:
        if spec.kind == finding_kind:
            return spec, None
    raise AssertionError(f"{finding_kind} is declared by no kind")


def fields_of(kind: Kind | None) -> dict[str, object]:
    return dict(kind.fields) if kind is not None else dict(registry.ENGINE_FIELDS)


@pytest.mark.parametrize("kind", registry.KINDS, ids=KIND_IDS)
def test_it_can_recognise_and_read_the_kind(kind: Kind) -> None:
    assert kind.sniff_text is not None or kind.sniff_bytes is not None, "no sniffer"
    assert callable(kind.analyze), "no analyzer"
    assert kind.label and kind.name.isidentifier()


@pytest.mark.parametrize("kind", registry.KINDS, ids=KIND_IDS)
def test_its_settings_schema_gives_cli_flags_api_and_form(kind: Kind) -> None:
    for group in kind.settings:
        described = group.describe()
        assert described["name"] == group.name == group.argument and described["title"] and described["help"]
        assert (described["numbers"] is None) != (described["rates"] is None)
        assert group.parse(group.to_json(group.default())) == group.default()
        parser = argparse.ArgumentParser()
        group.add_cli(parser)
        assert group.parse(group.from_cli(parser.parse_args([]))) == group.default()
    names = [g.name for k in registry.KINDS for g in k.settings]
    assert len(names) == len(set(names)), "settings group names must be unique across kinds"


@pytest.mark.parametrize("kind", registry.KINDS, ids=KIND_IDS)
def test_every_finding_it_declares_says_how_its_numbers_are_shown(kind: Kind) -> None:
    for spec in kind.findings:
        for key in spec.facts:
            assert key in kind.fields, f"{spec.kind}: no label/unit for {key!r}"
        for table in spec.tables:
            for column in table.columns:
                assert column in kind.fields, f"{spec.kind}: no label/unit for column {column!r}"
    assert all(f.unit in UNITS for f in kind.fields.values())


def emitted_in_source(paths: list[Path]) -> set[str]:
    """Finding kinds named in ``Finding(kind="...")`` / ``_finding("...", ...)`` calls under ``paths``."""
    found: set[str] = set()
    files = [p for path in paths for p in ([path] if path.is_file() else sorted(path.rglob("*.py")))]
    for file in files:
        for node in ast.walk(ast.parse(file.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name not in ("Finding", "_finding"):
                continue
            args = [kw.value for kw in node.keywords if kw.arg == "kind"] + node.args[:1]
            found.update(a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return found


@pytest.mark.parametrize("kind", registry.KINDS, ids=KIND_IDS)
def test_it_declares_every_finding_its_code_can_emit(kind: Kind) -> None:
    emitted = emitted_in_source([ENGINE / "kinds" / kind.name, *DELEGATED.get(kind.name, [])])
    declared = {spec.kind for spec in kind.findings}
    assert emitted <= declared, f"emitted but not declared: {sorted(emitted - declared)}"
    assert declared <= emitted, f"declared but never emitted: {sorted(declared - emitted)}"


def test_the_engine_declares_its_own_findings() -> None:
    assert emitted_in_source([ENGINE / "engine.py"]) == {s.kind for s in registry.ENGINE_FINDINGS}


@pytest.mark.parametrize("kind", registry.KINDS, ids=KIND_IDS)
def test_it_has_fuzz_seeds_of_its_own_kind(kind: Kind) -> None:
    seeds = [p for p in kind.fuzz_seeds.glob("*") if p.name != "README.md"]
    assert seeds, f"no fuzz seeds in {kind.fuzz_seeds}"
    assert (kind.fuzz_seeds / "README.md").is_file(), "say where the seeds come from"
    recognised = {sniff(p.read_bytes()[:65536]) for p in seeds}
    assert kind.name in recognised or set(kind.formats) & recognised


@pytest.mark.parametrize("kind", registry.KINDS, ids=KIND_IDS)
def test_it_is_documented(kind: Kind) -> None:
    docs = ANALYZERS_DOC.read_text()
    assert f"`{kind.name}`" in docs, f"docs/analyzers.md does not name the kind `{kind.name}`"
    for spec in kind.findings:
        assert f"`{spec.kind}`" in docs, f"docs/analyzers.md does not describe `{spec.kind}`"


def corpus_findings(tmp: Path) -> Iterator[Finding]:
    """The findings of the test data and every kind's seeds, analysed together (so the combiners run too)."""
    texts = [p for p in sorted(HOST_DATA.rglob("*")) if p.is_file() and p.suffix not in (".json", ".md")]
    seeds = [p for k in registry.KINDS for p in sorted(k.fuzz_seeds.glob("*")) if p.name != "README.md"]
    yield from analyze([*texts, *seeds]).findings
    small = [p for p in sorted(CAPTURES.glob("*.pcap*")) if p.stat().st_size < 100_000]
    yield from analyze(small, combine_evidence=False).findings
    pair = CAPTURES / "loopback-scenarios.pcap"
    cut = tmp / "cut.pcap"
    cut.write_bytes(pair.read_bytes()[: pair.stat().st_size * 2 // 3])
    yield from analyze([pair, pair, cut]).findings


def test_every_finding_of_the_corpus_is_declared_with_every_data_key(tmp_path: Path) -> None:
    seen: set[str] = set()
    for finding in corpus_findings(tmp_path):
        seen.add(finding.kind)
        spec, kind = spec_of(finding.kind)
        fields = fields_of(kind)
        undeclared = set(finding.data) - set(spec.keys)
        assert not undeclared, f"{finding.kind}: data keys with no place in its spec: {sorted(undeclared)}"
        for table in spec.tables:
            rows = finding.data.get(table.key)
            if table.columns or not isinstance(rows, list):
                continue
            missing = {c for row in rows if isinstance(row, dict) for c in row} - set(fields)
            assert not missing, f"{finding.kind}.{table.key}: no label/unit for {sorted(missing)}"
    assert {"capture.summary", "tcp.syn_retransmit", "host.retransmits", "kernel.known_change_in_range",
            "kernel.receive_window_model", "sockets.summary", "latency.timer_signature", "app.kafka_settings",
            "path.no_loss_between_captures"} <= seen  # fmt: skip
