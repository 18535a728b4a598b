"""Content sniffing: kinds from bytes, never from names."""

from __future__ import annotations

import gzip
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from capture_testdata import CAPTURES

from whodunnet import registry
from whodunnet.detect import sniff, sniff_gzip_inner
from whodunnet.errors import MalformedInput
from whodunnet.kinds.spec import Kind


@pytest.mark.parametrize(
    ("magic", "kind"),
    [
        ("a1b2c3d4", "pcap"),
        ("d4c3b2a1", "pcap"),
        ("a1b23c4d", "pcap"),
        ("4d3cb2a1", "pcap"),
        ("0a0d0d0a", "pcapng"),
        ("1f8b0800", "gzip"),
    ],
)
def test_it_recognises_capture_magics(magic: str, kind: str) -> None:
    assert sniff(bytes.fromhex(magic) + bytes(60)) == kind


def test_it_tells_empty_text_and_binary_apart() -> None:
    assert sniff(b"") == "empty"
    assert sniff(b"notes from the bridge call\n") == "text"
    assert sniff("héllo wörld\n".encode()[:-2] + b"\xc3") == "text"  # cut inside a character
    assert sniff(bytes(range(256))) == "binary"


def _says_nothing(summary: Mapping[str, Any], settings: Mapping[str, Any] | None) -> None:
    return None


def test_it_lets_a_text_kind_be_added_with_one_registry_entry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def _vmstat(text: str) -> bool:
        return text.startswith("procs -----")

    vmstat = Kind(
        name="vmstat",
        label="vmstat",
        analyze=print,
        sniff_text=_vmstat,
        findings=(),
        fields={},
        fuzz_seeds=tmp_path,
        describe=_says_nothing,
    )
    monkeypatch.setattr(registry, "KINDS", (*registry.KINDS, vmstat))
    assert sniff(b"procs -----------memory---------- ---swap-- -----io----\n") == "vmstat"
    assert sniff(b"something else\n") == "text"


def test_it_tries_the_kinds_in_the_registry_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def greedy(text: str) -> bool:
        return True

    first = Kind(
        name="first",
        label="",
        analyze=print,
        sniff_text=greedy,
        findings=(),
        fields={},
        fuzz_seeds=tmp_path,
        describe=_says_nothing,
    )
    monkeypatch.setattr(registry, "KINDS", (first, *registry.KINDS))
    assert sniff(b"1234 10:00:00.000001 close(3) = 0\n") == "first"
    assert sniff(bytes.fromhex("d4c3b2a1") + bytes(60)) == "pcap"  # binary formats by magic before any text


def test_it_sniffs_what_is_inside_a_gzip() -> None:
    assert sniff_gzip_inner(CAPTURES / "iso-download.pcap.gz") == "pcap"
    assert sniff_gzip_inner(CAPTURES / "telnet-long-line-no-eol.pcapng.gz") == "pcapng"
    assert sniff_gzip_inner(io.BytesIO(gzip.compress(b""))) == "empty"
    assert sniff_gzip_inner(io.BytesIO(gzip.compress(b"hello\n"))) == "text"


def test_it_inflates_only_the_head_of_a_gzip(tmp_path: Path) -> None:
    path = tmp_path / "big.gz"
    path.write_bytes(gzip.compress(bytes(50_000_000)))
    assert sniff_gzip_inner(path) == "binary"


def test_it_refuses_a_corrupt_gzip() -> None:
    with pytest.raises(MalformedInput):
        sniff_gzip_inner(io.BytesIO(b"\x1f\x8b\x08\x00" + b"\xff" * 64))
