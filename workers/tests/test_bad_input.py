"""Bad input: a clear error naming where it broke, the partial result, never a crash."""

from __future__ import annotations

import gzip
import io
import os
import random
import struct
import threading
import tracemalloc
from pathlib import Path

import pytest
from capture_builders import (
    ethernet,
    ipv4,
    pcap,
    pcapng_epb,
    pcapng_idb,
    pcapng_shb,
    tcp_segment,
)
from capture_testdata import CAPTURES

from whodunnet.capture import CaptureAnalysis
from whodunnet.capture import source as source_module
from whodunnet.capture.scanner import CHUNK
from whodunnet.capture.source import MAX_INFLATE, GzipSource
from whodunnet.engine import analyze
from whodunnet.errors import InputRefused, InputTooLarge, MalformedInput
from whodunnet.kinds.capture.fuzz import Unseekable
from whodunnet.kinds.text import iter_lines
from whodunnet.limits import Limits


def frames(n: int) -> list[bytes]:
    return [ethernet(ipv4("10.0.0.1", "10.0.0.2", tcp_segment(1000 + i, 80, payload=b"d" * 100))) for i in range(n)]


def test_it_reports_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pcap"
    path.write_bytes(b"")
    (ev,) = analyze([path]).evidence
    assert ev.kind == "unknown"
    assert ev.error is not None and ev.error.message == "the file is empty"


def test_it_says_what_random_bytes_named_pcap_look_like(tmp_path: Path) -> None:
    path = tmp_path / "random.pcap"
    path.write_bytes(bytes(range(256)) * 40)
    result = analyze([path])
    (ev,) = result.evidence
    assert ev.kind == "unknown"
    assert ev.error is not None and "binary data" in ev.error.message
    assert result.findings == ()


def test_it_keeps_the_partial_result_of_a_pcap_cut_mid_packet(tmp_path: Path) -> None:
    data = pcap(frames(10))
    record = 16 + len(frames(1)[0])
    cut_record = 24 + 6 * record  # the 7th record starts here
    path = tmp_path / "cut.pcap"
    path.write_bytes(data[: cut_record + 30])
    result = analyze([path])
    (ev,) = result.evidence
    assert ev.kind == "capture"
    assert ev.error is not None
    assert ev.error.offset == cut_record
    assert "middle of a packet" in ev.error.message
    assert ev.summary["packets"] == 6
    assert ev.summary["tcp_connections"] == 6
    (finding,) = result.findings
    assert f"byte {cut_record:,}" in finding.explanation


def test_it_rejects_a_capture_with_an_impossible_caplen_without_allocating_it(tmp_path: Path) -> None:
    data = bytearray(pcap(frames(3)))
    record = 16 + len(frames(1)[0])
    bad = 24 + 2 * record
    struct.pack_into("<I", data, bad + 8, 0xFFFFFFFF)
    path = tmp_path / "huge-caplen.pcap"
    path.write_bytes(bytes(data))
    warm = tmp_path / "fine.pcap"  # load the compiled kernel first: its loading is not what is measured
    warm.write_bytes(pcap(frames(3)))
    analyze([warm])
    tracemalloc.start()
    try:
        (ev,) = analyze([path]).evidence
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024
    assert ev.error is not None and ev.error.offset == bad
    assert "caplen 4,294,967,295" in ev.error.message
    assert ev.summary["packets"] == 2


def test_it_rejects_a_pcapng_packet_larger_than_the_limit(tmp_path: Path) -> None:
    frame = frames(1)[0]
    good = pcapng_shb() + pcapng_idb(1) + pcapng_epb(0, 10**15, frame)
    bad = bytearray(pcapng_epb(0, 10**15, frame))
    struct.pack_into("<I", bad, 20, 0x7FFFFFFF)
    path = tmp_path / "huge.pcapng"
    path.write_bytes(good + bytes(bad))
    (ev,) = analyze([path]).evidence
    assert ev.error is not None and ev.error.offset == len(good)
    assert ev.summary["packets"] == 1


def test_it_rejects_a_caplen_past_the_end_of_the_file(tmp_path: Path) -> None:
    data = bytearray(pcap(frames(2)))
    struct.pack_into("<I", data, 24 + 8, 200_000)  # under max_caplen, past the end
    path = tmp_path / "past-end.pcap"
    path.write_bytes(bytes(data))
    (ev,) = analyze([path]).evidence
    assert ev.error is not None and ev.error.offset == 24
    assert ev.summary["packets"] == 0


def zero_packet_gzip(path: Path, inflated: int) -> None:
    """A gzip of a pcap whose records are empty: tiny on disk, ``inflated`` bytes inside."""
    header = pcap([])
    record = struct.pack("<IIII", 1_700_000_000, 0, 0, 0)
    block = record * (1 << 16)
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(header)
        written = len(header)
        while written < inflated:
            f.write(block)
            written += len(block)


def test_it_stops_a_gzip_that_inflates_past_the_limit_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "bomb.pcap.gz"
    zero_packet_gzip(path, 64 * 1024 * 1024)
    assert os.path.getsize(path) < 1024 * 1024
    limit = 3 * 1024 * 1024 + 5
    analysis = CaptureAnalysis(limits=Limits(max_input_bytes=limit))
    with pytest.raises(InputTooLarge) as caught:
        analysis.run(path)
    assert analysis.decompressed_bytes <= limit + CHUNK
    assert analysis.decompressed_bytes <= limit + 1
    assert caught.value.offset == limit
    partial = caught.value.partial
    assert partial["packets"] * 16 + 24 <= limit
    assert partial["packets"] >= (limit - 24) // 16 - 1

    (ev,) = analyze([path], limits=Limits(max_input_bytes=limit)).evidence
    assert ev.error is not None and "larger than the limit" in ev.error.message
    assert ev.summary["compressed"] is True


def gzip_of_runs(path: Path, head: bytes, run: bytes, inflated: int) -> None:
    """``head`` then ``run`` repeated up to ``inflated`` bytes, gzip -9: about 1000:1 for a run of zeros."""
    block = (run * (1024 * 1024 // len(run) + 1))[: 1024 * 1024]
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(head)
        for _ in range(inflated // len(block)):
            f.write(block)


def test_it_refuses_a_gzip_bomb_by_its_expansion_ratio_within_the_first_megabytes(tmp_path: Path) -> None:
    path = tmp_path / "bomb.pcap.gz"
    gzip_of_runs(path, pcap([]), b"\0", 256 * 1024 * 1024)
    analysis = CaptureAnalysis()
    with pytest.raises(InputRefused) as caught:
        analysis.run(path)
    assert analysis.decompressed_bytes <= Limits().gzip_ratio_after + 2 * 1024 * 1024
    # Where reading stopped in the gzip file: the compressed bytes inflated, and the few the reader has read ahead
    # (``source.FAST_RAW_BUFFER``): within the first quarter of this 261 KB file.
    assert caught.value.offset is not None and caught.value.offset < os.path.getsize(path) // 4

    (ev,) = analyze([path]).evidence
    assert ev.kind == "capture" and ev.summary == {}  # no partial result: the backend marks the run failed
    assert ev.error is not None and ev.error.message.startswith("refused as a gzip bomb")
    assert "(offset counted in the gzip file)" in ev.error.message


def test_it_refuses_a_gzip_past_the_absolute_inflated_size_whatever_its_ratio(tmp_path: Path) -> None:
    path = tmp_path / "big.pcap.gz"
    path.write_bytes(gzip.compress(pcap(frames(30_000))))  # 4.5 MB of packets at an ordinary ratio
    limits = Limits(max_inflated_bytes=2 * 1024 * 1024)
    (ev,) = analyze([path], limits=limits).evidence
    assert ev.error is not None and "inflates past 2,097,152 bytes" in ev.error.message and ev.summary == {}


def test_it_refuses_a_gzip_bomb_of_text_lines_early(tmp_path: Path) -> None:
    path = tmp_path / "bomb.sysctl.gz"
    gzip_of_runs(path, b"", b"net.core.somaxconn = 4096\n", 256 * 1024 * 1024)
    read = 0
    with pytest.raises(InputRefused) as caught:
        for _number, text in iter_lines(path):
            read += len(text) + 1
    assert read <= Limits().gzip_ratio_after + 2 * 1024 * 1024
    assert "gzip bomb" in str(caught.value)
    (ev,) = analyze([path]).evidence
    assert ev.summary == {} and ev.error is not None and "gzip bomb" in ev.error.message


def test_it_keeps_reading_a_highly_compressible_gzip_below_the_ratio(tmp_path: Path) -> None:
    data = pcap(frames(2000))
    path = tmp_path / "ok.pcap.gz"
    path.write_bytes(gzip.compress(data))
    (ev,) = analyze([path], limits=Limits(gzip_ratio_after=1024)).evidence
    assert ev.error is None and ev.summary["packets"] == 2000


def test_it_reads_a_gzip_exactly_at_the_limit(tmp_path: Path) -> None:
    data = pcap(frames(5))
    path = tmp_path / "exact.pcap.gz"
    path.write_bytes(gzip.compress(data))
    (ev,) = analyze([path], limits=Limits(max_input_bytes=len(data))).evidence
    assert ev.error is None and ev.summary["packets"] == 5


def test_it_applies_the_limit_to_uncompressed_files_too(tmp_path: Path) -> None:
    path = tmp_path / "big.pcap"
    path.write_bytes(pcap(frames(50)))
    (ev,) = analyze([path], limits=Limits(max_input_bytes=2000)).evidence
    assert ev.error is not None and ev.error.offset == 2000
    assert 0 < ev.summary["packets"] < 50


def test_it_reports_a_truncated_gzip_with_the_partial_result(tmp_path: Path) -> None:
    data = (CAPTURES / "iso-download.pcap.gz").read_bytes()
    path = tmp_path / "cut.pcap.gz"
    path.write_bytes(data[: len(data) // 2])
    (ev,) = analyze([path]).evidence
    assert ev.kind == "capture"
    assert ev.error is not None
    assert 0 < ev.summary["packets"] < 289
    assert ev.error.offset == len(data) // 2 and ev.error.message.endswith("(offset counted in the gzip file)")


def test_a_captures_read_ahead_thread_ends_with_its_analysis_however_it_ends(tmp_path: Path) -> None:
    # A capture is read (a gzip one inflated) by a thread ahead of the reader; a worker analyses file after file,
    # so the thread must end when the analysis does: read to the end, cut short, corrupt, or stopped at the limit.
    data = (CAPTURES / "iso-download.pcap.gz").read_bytes()
    plain = gzip.decompress(data)
    (tmp_path / "whole.pcap.gz").write_bytes(data)
    (tmp_path / "cut.pcap.gz").write_bytes(data[: len(data) // 2])
    (tmp_path / "corrupt.pcap.gz").write_bytes(data[:4000] + bytes(200) + data[4200:])
    zero_packet_gzip(tmp_path / "bomb.pcap.gz", 16 * 1024 * 1024)
    (tmp_path / "whole.pcap").write_bytes(plain)
    (tmp_path / "cut.pcap").write_bytes(plain[: len(plain) // 2])
    # Broken near its start, with more blocks behind than the thread keeps ready: the thread is waiting to hand
    # them on when the analysis stops.
    (tmp_path / "broken.pcap").write_bytes(plain[:24] + bytes(8) + b"\xff" * 8 + bytes(7 * 1024 * 1024))
    (tmp_path / "large.pcap").write_bytes(plain + plain[24:] * (8 * 1024 * 1024 // len(plain) + 1))
    results = analyze(sorted(tmp_path.iterdir()), limits=Limits(max_input_bytes=8 * 1024 * 1024)).evidence
    errors = {Path(ev.path).name: ev.error.message if ev.error else None for ev in results}
    packets = {Path(ev.path).name: ev.summary.get("packets") for ev in results}
    assert errors["whole.pcap.gz"] is None and errors["whole.pcap"] is None
    assert packets["whole.pcap"] == packets["whole.pcap.gz"] == 289
    assert "the gzip data" in str(errors["cut.pcap.gz"]) and "the gzip data" in str(errors["corrupt.pcap.gz"])
    assert "middle of a packet" in str(errors["cut.pcap"]) and 0 < packets["cut.pcap"] < 289
    assert errors["broken.pcap"] is not None and packets["broken.pcap"] == 0
    assert "larger than the limit" in str(errors["bomb.pcap.gz"])
    assert "larger than the limit" in str(errors["large.pcap"])
    assert packets["large.pcap"] > 289  # the packets before the limit were read
    assert [t.name for t in threading.enumerate() if t.name == "capture read-ahead"] == []


def test_it_says_which_bytes_an_offset_in_a_gzip_counts(tmp_path: Path) -> None:
    data = pcap(frames(10))
    record = 16 + len(frames(1)[0])
    cut = 24 + 6 * record  # the 7th record starts here
    path = tmp_path / "cut.pcap.gz"
    path.write_bytes(gzip.compress(data[: cut + 30]))
    (ev,) = analyze([path]).evidence
    assert ev.error is not None and ev.error.offset == cut
    assert "middle of a packet" in ev.error.message
    assert "(offset counted in the decompressed data, reached within the first" in ev.error.message
    assert ev.summary["packets"] == 6


def test_it_reports_gzip_of_text_as_not_a_capture(tmp_path: Path) -> None:
    path = tmp_path / "notes.gz"
    path.write_bytes(gzip.compress(b"just some notes\nabout the incident\n"))
    (ev,) = analyze([path]).evidence
    assert ev.kind == "unknown"
    assert ev.error is not None and "gzip-compressed text" in ev.error.message


def test_it_reports_a_pcap_header_cut_short() -> None:
    with pytest.raises(MalformedInput) as caught:
        CaptureAnalysis().run(io.BytesIO(pcap([])[:10]))
    assert caught.value.offset == 0


def test_it_keeps_other_files_when_one_is_bad(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pcap"
    bad.write_bytes(b"\xd4\xc3\xb2\xa1" + b"\xff" * 100)
    result = analyze([bad, CAPTURES / "pptp.pcap"])
    assert [e.kind for e in result.evidence] == ["capture", "capture"]
    assert result.evidence[0].error is not None
    assert result.evidence[1].error is None and result.evidence[1].summary["packets"] == 23


def test_a_gzip_with_more_members_or_trailing_garbage_is_read_to_its_last_packet(tmp_path: Path) -> None:
    data = pcap(frames(3000))
    half = 24 + 1500 * (len(data) - 24) // 3000
    members = gzip.compress(data[:half]) + gzip.compress(data[half:])
    for name, content in [("members", members), ("garbage", gzip.compress(data) + b"garbage, not a member")]:
        path = tmp_path / f"{name}.pcap.gz"
        path.write_bytes(content)
        (ev,) = analyze([path]).evidence
        assert ev.error is None and ev.summary["packets"] == 3000, name  # gzip(1) ignores trailing garbage too


def test_a_gzip_cut_short_keeps_every_packet_before_the_cut_whether_or_not_the_stream_can_seek(tmp_path: Path) -> None:
    data = (CAPTURES / "iso-download.pcap.gz").read_bytes()
    cut = data[: len(data) // 2]
    path = tmp_path / "cut.pcap.gz"
    path.write_bytes(cut)
    from_file, from_pipe = CaptureAnalysis(), CaptureAnalysis()
    with pytest.raises(MalformedInput) as file_error:
        from_file.run(path)
    with pytest.raises(MalformedInput) as pipe_error:
        from_pipe.run(Unseekable(io.BytesIO(cut)))
    # Every byte zlib inflates from the first half (the stream read again from its start where it can seek back;
    # what isal's reader had inflated where it cannot): the same packets either way.
    packets = file_error.value.partial["packets"]
    assert 0 < packets < 289
    assert pipe_error.value.partial["packets"] == packets
    assert "cut short" in str(file_error.value) and "cut short" in str(pipe_error.value)
    assert file_error.value.offset == pipe_error.value.offset == len(cut)


def _inflated(blob: bytes) -> tuple[bytes, tuple[str, str, int | None] | None]:
    """Every byte a ``GzipSource`` hands out of ``blob``, and the error it ends with."""
    source, out = GzipSource(io.BytesIO(blob)), bytearray()
    block = memoryview(bytearray(MAX_INFLATE))  # as the read-ahead reads it
    try:
        while n := source.readinto(block):
            out += block[:n]
    except MalformedInput as exc:
        return bytes(out), (type(exc).__name__, str(exc), exc.offset)
    return bytes(out), None


def test_a_broken_gzip_gives_the_same_bytes_and_error_as_inflating_it_member_by_member(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # isal's gzip reader raises where the data breaks; the stream is then read again by a decompressobj, so that what
    # the user sees is what the decompressobj alone gives: every byte before the break, its message and its offset,
    # and trailing garbage ignored (decision 0026).
    plain = gzip.decompress((CAPTURES / "iso-download.pcap.gz").read_bytes())
    plain += plain[24:] * 9  # 3.8 MB: many breaks come after whole blocks were handed out
    rng = random.Random(9)
    cases = []
    for i in range(80):
        body = plain[: rng.randrange(len(plain) // 3, len(plain))]
        blob = gzip.compress(body, compresslevel=rng.choice([1, 6, 9]), mtime=0)
        if i % 3 == 0:
            blob += gzip.compress(body[:5000], mtime=0)  # a second member
        at = rng.randrange(11, len(blob))
        blob = [blob[:at], blob[:at] + rng.randbytes(8) + blob[at + 8 :], blob + rng.randbytes(20), blob][i % 4]
        cases.append(blob)
    fast = [_inflated(blob) for blob in cases]
    monkeypatch.setattr(source_module, "_GzipReader", None)
    slow = [_inflated(blob) for blob in cases]
    assert fast == slow
    assert sum(error is not None for _, error in fast) >= 30  # most cut and corrupt ones did break
    assert sum(len(data) > MAX_INFLATE and error is not None for data, error in fast) >= 15
