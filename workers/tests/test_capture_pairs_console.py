"""The console's way into the two-capture matching: results without connection tables, files on disk."""

from __future__ import annotations

import io
import shutil
import struct
from dataclasses import replace
from pathlib import Path
from typing import Any

from whodunnet import capture_pairs
from whodunnet.engine import analyze, combine

CAPTURES = Path(__file__).parent / "data" / "captures"


def test_combine_matches_stored_results_and_notices_a_changed_file(tmp_path: Path) -> None:
    a, b = tmp_path / "client.pcap", tmp_path / "server.pcap"
    shutil.copy(CAPTURES / "loopback-scenarios.pcap", a)
    shutil.copy(CAPTURES / "loopback-scenarios.pcap", b)
    read = analyze([a, b], combine_evidence=False)
    stored = [replace(ev, connections=()) for ev in read.evidence]  # as the backend keeps them
    first = [f for f in combine(stored, read.findings) if f.kind.startswith("path.")]
    again = [f for f in combine(stored, read.findings) if f.kind.startswith("path.")]
    (cli,) = [f for f in analyze([a, b]).findings if f.kind.startswith("path.")]
    assert first == again == [cli] and cli.kind == "path.no_loss_between_captures"
    # The same names with other content are read again, not answered from the cache.
    cut = (CAPTURES / "loopback-scenarios.pcap").read_bytes()
    b.write_bytes(cut[: len(cut) * 2 // 3])
    changed = [f for f in combine(stored, read.findings) if f.kind.startswith("path.")]
    assert changed != first
    assert len(capture_pairs._CACHE) <= capture_pairs.CACHE_SIZE


class _Stored:
    """A ``Source`` as an S3 store gives one: a name (not a path), a size and a stream; asking for a copy fails."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self.size = len(data)
        self._data = data
        self.opened = 0

    def open(self) -> io.BytesIO:
        self.opened += 1
        return io.BytesIO(self._data)

    def local_copy(self) -> Any:
        raise AssertionError("the matching asked for a copy of a stored capture")


def _without_record(data: bytes, index: int) -> bytes:
    """A pcap with its ``index``-th packet record taken out, as a capture point that never saw that packet."""
    offset = 24
    for _ in range(index):
        offset += 16 + struct.unpack_from("<I", data, offset + 8)[0]
    end = offset + 16 + struct.unpack_from("<I", data, offset + 8)[0]
    return data[:offset] + data[end:]


def test_captures_with_no_path_are_matched_from_their_streams_as_files_are(tmp_path: Path) -> None:
    """An S3 store's captures reach the matching as streams: the same findings as the same bytes on disk."""
    client = (CAPTURES / "loopback-scenarios.pcap").read_bytes()
    server = _without_record(client, 40)  # one segment the server's capture point never saw
    a, b = tmp_path / "client.pcap", tmp_path / "server.pcap"
    a.write_bytes(client)
    b.write_bytes(server)
    read = analyze([a, b], combine_evidence=False)
    (on_disk,) = [f for f in combine(read.evidence, read.findings) if f.kind.startswith("path.")]
    assert on_disk.kind == "path.loss_between_captures"
    assert on_disk.title.startswith("1 segment (") and on_disk.data["only_in_a"] == 1

    # As the console holds them: no file at the results' paths and no connection table (it is stored apart).
    stored = [replace(ev, path=str(tmp_path / "gone" / Path(ev.path).name), connections=()) for ev in read.evidence]
    sources = {0: _Stored("client-object", client), 1: _Stored("server-object", server)}
    (streamed,) = [f for f in combine(stored, read.findings, sources=sources) if f.kind.startswith("path.")]
    assert (streamed.kind, streamed.title, streamed.data) == (on_disk.kind, on_disk.title, on_disk.data)
    assert all(source.opened for source in sources.values())
    # Without its stream, a capture with no file takes no part.
    assert not [f for f in combine(stored, read.findings, sources={0: sources[0]}) if f.kind.startswith("path.")]


def test_the_cli_matches_sources_it_is_given(tmp_path: Path) -> None:
    """``analyze`` over sources (the worker's way of reading an S3 store) matches them as it matches paths."""
    client = (CAPTURES / "loopback-scenarios.pcap").read_bytes()
    sources = [_Stored("client.pcap", client), _Stored("server.pcap", _without_record(client, 60))]
    (found,) = [f for f in analyze(sources).findings if f.kind.startswith("path.")]
    assert found.kind == "path.loss_between_captures" and found.data["only_in_a"] == 1
