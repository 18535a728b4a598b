"""Ageing: connections retired from the kernel's rows change nothing in the output.

The analysis retires a connection silent for ``Ageing.closed_after`` after its close (both FINs,
or a RST) or ``Ageing.idle_after`` otherwise, when the connection rows are full; a later packet
of its 4-tuple brings it back from the spill exactly as it was, unless it is a SYN with another
initial sequence number (port reuse: a new connection). Here the thresholds and the rows are
made tiny, so connections retire and come back all the time, and the whole output must still
be the golden one (recorded without ageing).
"""

from __future__ import annotations

import gzip
import io
import math
import os
import struct
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from capture_builders import ethernet, ipv4, pcap, tcp_segment
from test_capture_golden import captures, golden_path, output

from whodunnet.capture import scanner
from whodunnet.capture.analyzer import CaptureAnalysis
from whodunnet.capture.constants import EXACT_KEYS, Ageing
from whodunnet.capture.fields import (
    FINISHED_CONN,
    FINISHED_SIDE,
    WORKING_CONN,
    WORKING_SIDE,
    Event,
    FinishedStore,
    MappedRows,
)
from whodunnet.capture.kernel.sketch import add, quantize
from whodunnet.capture.kernel.zeros import bitmap_words, drop_zeros, restore_zeros
from whodunnet.capture.scanner import BEHIND, QUANTILES, CaptureState, InTurn, Spill, both_sides

#: Sweeps whenever 8 rows are full; retires 50 ms after a close, 0.5 s of silence otherwise.
OFTEN = Ageing(closed_after=0.05, idle_after=0.5, rows=8)
#: Sweeps whenever 4 rows are full and retires every connection not in the latest packet's
#: instant: nearly every packet brings its connection back.
ALWAYS = Ageing(closed_after=0.0, idle_after=0.0, rows=4)
#: ALWAYS costs a revival per packet: the captures with tens of thousands of packets run OFTEN only.
HEAVY = {"bulk-slice.pcap.gz", "mixed-slice.pcap.gz", "mixed-slice.pcapng.gz", "206_example_b.pcap"}
HEAVY |= {"echo-connections.pcap.gz", "iso-download.pcap.gz"}


@pytest.mark.parametrize("path", captures(), ids=lambda p: p.name)
def test_it_gives_the_golden_output_when_connections_retire_often(path: Path) -> None:
    assert output(path, ageing=OFTEN) == gzip.decompress(golden_path(path).read_bytes())


@pytest.mark.parametrize("path", [p for p in captures() if p.name not in HEAVY], ids=lambda p: p.name)
def test_it_gives_the_golden_output_when_connections_retire_after_every_packet(path: Path) -> None:
    assert output(path, ageing=ALWAYS) == gzip.decompress(golden_path(path).read_bytes())


def counts(path: Path, ageing: Ageing | None) -> tuple[int, int, int]:
    """(connections, retirements, revivals) of one analysis."""
    analysis = CaptureAnalysis(ageing=ageing)
    analysis.run(path)
    assert analysis.state is not None
    return len(analysis.connections()), analysis.state.retired, analysis.state.revived


def test_many_connections_retire_and_come_back_in_a_lab_capture() -> None:
    path = Path(__file__).parent / "data" / "lab" / "many-slice.pcap.gz"
    assert counts(path, None) == (4000, 0, 0)
    n, retired, revived = counts(path, OFTEN)
    assert n == 4000
    assert retired > n // 2  # most of them (2,768: the rows grow when a sweep frees less than half of them)
    assert revived > 0  # late ACKs and FINs of connections retired 50 ms after their close
    assert counts(path, Ageing()) == (4000, 0, 0)  # the defaults: 4,000 connections never fill the rows


C, S = "10.0.0.1", "10.0.0.2"
SYN, SYNACK, ACK, PSH, FIN = 0x02, 0x12, 0x10, 0x18, 0x11


def seg(sport: int, *, seq: int, flags: int, payload: bytes = b"", to_server: bool = True) -> bytes:
    if to_server:
        return ethernet(ipv4(C, S, tcp_segment(sport, 80, seq=seq, flags=flags, payload=payload)))
    return ethernet(ipv4(S, C, tcp_segment(80, sport, seq=seq, flags=flags, payload=payload)))


def opened(sport: int) -> list[bytes]:
    """A handshake and a request from client port ``sport``."""
    return [
        seg(sport, seq=100, flags=SYN),
        seg(sport, seq=500, flags=SYNACK, to_server=False),
        seg(sport, seq=101, flags=ACK),
        seg(sport, seq=101, flags=PSH, payload=b"q" * 10),
    ]


def closed(sport: int) -> list[bytes]:
    """The answer and both FINs of ``opened(sport)``'s connection."""
    return [
        seg(sport, seq=501, flags=PSH, payload=b"r" * 20, to_server=False),
        seg(sport, seq=111, flags=FIN),
        seg(sport, seq=521, flags=FIN, to_server=False),
        seg(sport, seq=112, flags=ACK),
    ]


def both(tmp_path: Path, frames: list[bytes]) -> tuple[int, int, int]:
    """The counts with ALWAYS, after checking the whole output against the analysis without ageing."""
    path = tmp_path / "built.pcap"
    path.write_bytes(pcap(frames))
    assert output(path, ageing=ALWAYS) == output(path, ageing=None)
    return counts(path, ALWAYS)


def test_a_retired_connection_comes_back_with_its_id_and_state(tmp_path: Path) -> None:
    # Connection 0 opens, three others fill the rows (the sweep retires 0), then 0 goes on.
    frames = opened(40000) + opened(40001) + opened(40002) + opened(40003) + closed(40000)
    n, retired, revived = both(tmp_path, frames)
    assert n == 4
    assert retired and revived


def test_a_syn_with_another_isn_on_a_retired_4_tuple_is_a_new_connection(tmp_path: Path) -> None:
    reused = [seg(40000, seq=9000, flags=SYN), seg(40000, seq=7000, flags=SYNACK, to_server=False)]
    frames = opened(40000) + closed(40000) + opened(40001) + opened(40002) + opened(40003) + reused
    n, retired, _ = both(tmp_path, frames)
    assert n == 5  # port reuse: not brought back
    assert retired


def test_a_syn_again_with_the_same_isn_on_a_retired_4_tuple_is_the_same_connection(tmp_path: Path) -> None:
    again = [seg(40000, seq=100, flags=SYN)]  # a late copy of connection 0's SYN
    frames = opened(40000) + closed(40000) + opened(40001) + opened(40002) + opened(40003) + again
    n, retired, revived = both(tmp_path, frames)
    assert n == 4
    assert retired and revived


def test_finished_rows_are_stored_in_the_narrowest_type_that_keeps_every_value() -> None:
    """Retired connections' rows are kept narrow; a value at a type's limit, an unsigned one above 2**63 and a
    negative one must each come back exactly, and columns of small values must shrink."""
    conns = np.zeros(4, FINISHED_CONN)
    conns["a_ip_lo"] = [0, 2**63, 5, 2**64 - 1]
    conns["a_port"] = [0, 1, 65535, 80]
    conns["first_pkt"] = [1, 2, 3, 4]  # after a one-byte field: not on an 8-byte boundary
    conns["scale"] = [[0, 7], [14, 0], [0, 0], [2, 2]]
    conns["client"] = [-1, 0, 1, 1]
    sides = np.zeros(4, FINISHED_SIDE)
    sides["pkts"] = [0, 1, 2, 255]
    sides["q"] = -1
    sides["q"][2, 1, 0] = 2**31 - 1
    sides["fin_ts"] = [-1.0, 0.5, 1e9, -1.0]
    narrow = {}
    for rows in (conns, sides):
        store = FinishedStore(rows.dtype)
        store.put(np.array([3, 0]), rows[2:])  # a later write of an id wins
        store.put(np.arange(4), rows)
        kept = store.table(4)
        for name in rows.dtype.names:
            assert np.array_equal(kept.column(name), rows[name]), name
            narrow[name] = kept.columns[name].dtype
    assert narrow["a_ip_lo"] == np.uint64
    assert narrow["a_ip_hi"] == np.uint8
    assert narrow["a_port"] == np.int32
    assert narrow["first_pkt"] == narrow["scale"] == narrow["client"] == np.int8
    assert narrow["pkts"] == np.int16
    assert narrow["q"] == np.int32
    assert narrow["fin_ts"] == np.float64


def test_a_finished_column_is_widened_when_a_later_batch_needs_more() -> None:
    """Rows stored narrow in an early sweep keep their values when a later sweep's rows need a wider type."""
    store = FinishedStore(FINISHED_SIDE)
    early, late = np.zeros(3, FINISHED_SIDE), np.zeros(2, FINISHED_SIDE)
    early["pkts"] = [1, 2, 3]
    late["pkts"] = [70_000, -5]
    store.put(np.array([0, 1, 2]), early)
    assert store.table(3).columns["pkts"].dtype == np.int8
    store.put(np.array([5, 3]), late)
    kept = store.table(6)
    assert kept.column("pkts").tolist() == [1, 2, 3, -5, 0, 70_000]
    assert kept.columns["pkts"].dtype == np.int32


def test_finished_columns_keep_every_row_as_they_grow_in_place_or_by_copy() -> None:
    """The store grows a column by moving its mapping; where that cannot be (a table handed out still reads the
    column), by copying. Either way every id keeps the row last written to it."""
    store = FinishedStore(FINISHED_SIDE)
    want = np.zeros(0, np.int64)
    held = None
    for first, count in ((0, 3), (3, 60), (63, 1_000), (1_063, 40_000), (41_063, 300_000)):
        ids = np.arange(first, first + count)
        rows = np.zeros(count, FINISHED_SIDE)
        rows["pkts"] = ids % 120
        rows["first_data_ts"] = ids * 0.5
        store.put(ids, rows)
        want = np.concatenate((want, ids % 120))
        if held is None and first >= 63:
            held = store.table(len(want))  # alive over the next puts: those columns are copied, not moved
    kept = store.table(len(want))
    assert kept.column("pkts").tolist() == want.tolist()
    assert np.array_equal(kept.column("first_data_ts"), np.arange(len(want)) * 0.5)
    assert held is not None and held.column("pkts").tolist() == want[: len(held)].tolist()


def test_the_kernels_event_rows_keep_what_they_held_as_they_grow_in_place_or_by_copy() -> None:
    """The kernel's rows (connections, sides, 4-tuples, the event pool) grow by moving their mapping; where something
    still reads the old rows, by copying them. Either way the rows in use are kept, the new ones are zero, and old
    readers still read theirs."""
    pool = MappedRows(Event, 4)
    rows = pool.rows(4)
    rows.frame[:3] = [1, 2, 3]
    del rows
    grown = pool.grow(1 << 20, 3)
    assert grown.frame[:3].tolist() == [1, 2, 3] and not grown.frame[3:].any()
    grown.time[-1] = 7.5
    held = grown[:3]
    del grown
    again = pool.grow(1 << 21, 1 << 20)  # ``held`` keeps the old mapping: copied
    assert again.frame[:3].tolist() == [1, 2, 3] and again.time[(1 << 20) - 1] == 7.5
    assert not again.time[1 << 20 :].any()
    again.frame[0] = 9
    assert held.frame.tolist() == [1, 2, 3]


def _nearest_rank(values: list[int], q: float) -> int:
    """The nearest-rank quantile of ``values``, the plain way: -1 for none."""
    if not values:
        return -1
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered) - 1e-9)) - 1]


def test_a_batchs_quantiles_are_those_of_every_value_its_sketches_were_fed() -> None:
    """The keeper's quantiles of a batch of connections (``CaptureState._quantiles``: the map's entries and each
    side's pending run, in one compiled pass) are the nearest-rank quantiles of all the values each sketch was fed,
    quantized once a sketch has seen more than EXACT_KEYS distinct values, whatever their order: the sketch of a
    few values, of exactly EXACT_KEYS, of one more that is still the pending run (it folds the sketch), of one
    more that repeats a value of the map (it does not), and of many (folded long ago)."""
    rng = np.random.default_rng(11)
    fed: dict[tuple[int, int], list[int]] = {}  # (side row, which): values
    exact = list(range(1_000, 1_000 + 37 * EXACT_KEYS, 37))
    fed[(0, 0)] = [5, 5, 9, 1, 5]
    fed[(0, 1)] = [rng.integers(0, 1 << 30) for _ in range(40)]
    fed[(1, 0)] = exact[:]  # exactly EXACT_KEYS distinct values: exact
    fed[(2, 0)] = [*exact, 7_777_777]  # one more, still the side's pending run: the sketch folds
    fed[(3, 1)] = [*exact, 7_777_777, exact[5]]  # folded by a value put in the map before the run
    fed[(4, 0)] = [*exact[:-1], exact[3]]  # the run repeats a value of the map: EXACT_KEYS - 1 distinct, exact
    fed[(5, 1)] = [int(v) for v in rng.integers(0, 1 << 40, 5_000)]  # folded long ago
    fed[(6, 0)] = [*exact, exact[0]]  # EXACT_KEYS distinct, the run repeats one: exact
    st = CaptureState()
    n = 8
    st.g.conns = st.g.slots = n
    st.conns.cid[:n] = np.arange(n)
    for (side_row, which), values in fed.items():
        for v in values:
            if (st.g.sketch_used + 2) * 2 > len(st.sketches):
                st.grow_sketches()
            add(st.sketches, st.g, st.sides[side_row], side_row, which, int(v))
    rows = np.arange(n)
    got = st.finish(rows, *st.entries_of(st.conns.cid[rows])[:2]).quantiles()
    assert got.shape == (2 * n, 2, len(QUANTILES))
    for side_row in range(2 * n):
        for which in range(2):
            values = [int(v) for v in fed.get((side_row, which), [])]
            if len(set(values)) > EXACT_KEYS:
                values = [int(quantize(v)) for v in values]
            want = [_nearest_rank(values, q) for q in QUANTILES]
            assert got[side_row, which].tolist() == want, (side_row, which)
    # The premise of the fold by a pending run: the kernel has not folded the sketch, the run is the new value, and
    # its quantiles quantized differ from the exact ones.
    pending = st.sides[2]
    assert not pending.folded[0] and pending.run_count[0] == 1 and pending.run_value[0] == 7_777_777
    assert got[2, 0].tolist() != [_nearest_rank(fed[(2, 0)], q) for q in QUANTILES]


def test_a_sweep_retires_the_connections_silent_longer_than_their_state_allows() -> None:
    """A sweep picks the open connections silent for longer than ``closed_after`` since a close (a FIN each way, or
    a RST from either side), or ``idle_after`` otherwise, at the capture's last time; never a free row, never one
    silent for exactly the time allowed."""
    st = CaptureState(conns=16)
    #          free   open   open   closed closed one FIN RST    closed
    last_ts = [0.0, 50.0, 30.0, 99.0, 97.0, 97.0, 97.5, 98.0]
    fins = [(-1, -1), (-1, -1), (-1, -1), (1, 2), (1, 2), (1, -1), (-1, -1), (3, 4)]
    rsts = [(-1, -1)] * 6 + [(-1, 5), (-1, -1)]
    n = len(last_ts)
    st.g.slots = n
    st.g.tmax = 100.0
    st.conns.cid[:n] = [-1, *range(1, n)]
    st.conns.last_ts[:n] = last_ts
    st.sides.fin_ts[: 2 * n] = np.array(fins, float).reshape(-1)
    st.sides.rst_ts[: 2 * n] = np.array(rsts, float).reshape(-1)
    assert st.silent_rows(2.0, 60.0).tolist() == [2, 4, 6]
    assert st.silent_rows(2.0, 40.0).tolist() == [1, 2, 4, 6]
    assert st.silent_rows(-1.0, -1.0).tolist() == list(range(1, n))  # as the warm-up retires every open row


def test_a_sweeps_columns_stay_as_they_were_while_the_next_sweep_makes_its_own() -> None:
    """A sweep's columns of the retiring rows are read by the spill's writer and the keeper on threads of their own
    while the kernel scans on, until the next sweep waits for them (``CaptureState._turns``): the next sweep's
    columns must not be made over them."""
    analysis = CaptureAnalysis(ageing=None)
    analysis.run(Path(__file__).parent / "data" / "lab" / "many-slice.pcap.gz")
    state = analysis.state
    assert state is not None
    rows = state.open_rows()
    first, second = rows[:1000], rows[1000:2000]
    retiring = state.finish(first, *state.entries_of(state.conns.cid[first])[:2])
    parts = (retiring.conns, retiring.sides, retiring.working_conns, retiring.working_sides)
    kept = [part.data.copy() for part in parts]
    assert np.array_equal(retiring.working_conns.columns["cid"], state.conns.cid[first])
    assert np.array_equal(retiring.sides.columns["pkts"], state.sides.pkts[both_sides(first)])
    then = state.finish(second, *state.entries_of(state.conns.cid[second])[:2])
    assert np.array_equal(then.working_conns.columns["cid"], state.conns.cid[second])
    assert all(np.array_equal(part.data, was) for part, was in zip(parts, kept, strict=True))


def _echo_connections_open() -> tuple[CaptureState, Any]:
    """echo-connections' state at its end (500 connections, none retired), and the rows of its connections."""
    analysis = CaptureAnalysis(ageing=None)
    analysis.run(Path(__file__).parent / "data" / "captures" / "echo-connections.pcap.gz")
    assert analysis.state is not None
    return analysis.state, analysis.state.open_rows()


def _put(spill: Spill, state: CaptureState, rows: Any) -> int:
    """Rows ``rows`` of ``state`` into ``spill`` as a sweep puts them (their copies and sketch entries); the batch."""
    entries, starts = state.entries_of(state.conns.cid[rows])[:2]
    retiring = state.finish(rows, entries, starts)
    return spill.put(retiring.working_conns, retiring.working_sides, entries, starts)


@pytest.mark.parametrize("direct", ["as-the-temp-dir-gives", "refused", "refused-on-write"])
def test_spilled_connections_come_back_as_they_went_in(monkeypatch: pytest.MonkeyPatch, direct: str) -> None:
    """Two batches of a capture's connections (echo-connections: 500, with 39,627 sketch entries) into a spill file
    and back: every connection's working state and sketch entries come back as they went in."""
    if direct == "refused":  # the file system takes no direct I/O (tmpfs)
        monkeypatch.setattr(scanner, "_direct", lambda fd: -1)
    elif direct == "refused-on-write":  # it opened for direct I/O, then refused the write: the page cache's way
        monkeypatch.setattr(scanner, "_direct", lambda fd: os.open(os.devnull, os.O_RDONLY))
    state, rows = _echo_connections_open()
    spill = Spill()
    try:
        batches = []
        for part in (rows[:200], rows[200:]):
            entries, starts = state.entries_of(state.conns.cid[part])[:2]
            retiring = state.finish(part, entries, starts)
            # The rows as they went in (fancy indexing copies them).
            kept = state.conns[part], state.sides[both_sides(part)], entries.copy(), np.asarray(starts).copy()
            batches.append((spill.put(retiring.working_conns, retiring.working_sides, entries, starts), kept))
        assert any(len(kept[2]) for _, kept in batches), "no sketch entries: the test would not see them"
        if direct != "as-the-temp-dir-gives":
            assert spill._direct == -1  # written through the page cache
        for batch, (conns, sides, entries, starts) in batches:
            for i in range(0, len(conns), 37):
                conn, two, mine = spill.get(batch, i)
                assert all(np.array_equal(conn[name], conns[name][i]) for name in WORKING_CONN.names or ())
                for d in range(2):
                    side = sides[2 * i + d]
                    assert all(np.array_equal(two[d][name], side[name]) for name in WORKING_SIDE.names or ())
                assert np.array_equal(mine, entries[starts[i] : starts[i + 1]])
    finally:
        spill.close()


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000])
def test_packed_words_come_back_as_they_were(n: int) -> None:
    """The spill's packing (``kernel.zeros``) on runs of words with zeros here and there, none, or only zeros, of
    lengths on and off the bitmap's 64: every word comes back, and the packed words are the ones not zero."""
    rng = np.random.default_rng(n)
    for words in (
        np.where(rng.random(n) < 0.6, 0, rng.integers(1, 1 << 63, n)).astype(np.uint64),
        np.zeros(n, np.uint64),
        np.full(n, np.uint64(1 << 63)),
    ):
        bits, out = np.zeros(bitmap_words(n), np.uint64), np.zeros(n, np.uint64)
        kept = drop_zeros(words, bits, out)
        assert kept == np.count_nonzero(words)
        assert np.array_equal(out[:kept], words[words != 0])
        back = np.full(n, np.uint64(7))
        assert restore_zeros(bits, out[:kept].copy(), back) == kept
        assert np.array_equal(back, words)
        if kept:  # one packed word short: told, not read past
            assert restore_zeros(bits, out[: kept - 1].copy(), back) == -1


def test_a_spill_file_cut_short_is_an_error_not_a_wrong_connection() -> None:
    """A batch read back shorter or longer than it was written (a spill file cut short) raises ``OSError``: it
    never gives a connection made of the words that are left."""
    state, rows = _echo_connections_open()
    spill = Spill()
    try:
        batch = _put(spill, state, rows)
        spill._writer.wait()
        at, n = spill._at[batch]
        spill._at[batch] = (at, n - 8)  # the last word missing
        with pytest.raises(OSError, match="ends before its words do"):
            spill.get(batch, 0)
        spill._at[batch] = (at, n + 8)  # a word more than the bitmaps give (the padding's zero)
        with pytest.raises(OSError, match="not the"):
            spill.get(batch, 0)
        os.ftruncate(spill._fd, at + 8)
        spill._at[batch] = (at, n)
        with pytest.raises(OSError, match="short of a batch"):
            spill.get(batch, 0)
    finally:
        spill.close()


def _spill_folder(spill: Spill) -> str:
    """The folder the spill's (unnamed) file is in, as the system names it."""
    return os.path.dirname(os.readlink(f"/proc/self/fd/{spill._fd}"))


@pytest.mark.parametrize(
    ("tmp", "tmpdir", "expected"),
    [
        ("ext4", None, "tmp"),  # /tmp on disk: there
        ("tmpfs", None, "/var/tmp"),  # /tmp in memory: /var/tmp, on disk
        ("tmpfs", "mine", "mine"),  # the user's TMPDIR wins
    ],
    ids=["tmp-on-disk", "tmp-in-memory", "tmpdir-set"],
)
def test_the_spill_file_goes_to_a_disk_not_to_memory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tmp: str, tmpdir: str | None, expected: str
) -> None:
    """The spill file keeps retired connections off the memory: where the temporary folder is a tmpfs (Debian 13's
    and Fedora's /tmp) it goes to /var/tmp, unless the user's TMPDIR says where."""
    (tmp_path / "tmp").mkdir()
    (tmp_path / "mine").mkdir()
    monkeypatch.setattr(scanner.tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.delenv("TMPDIR", raising=False)
    if tmpdir is not None:
        monkeypatch.setenv("TMPDIR", str(tmp_path / tmpdir))
        monkeypatch.setattr(scanner.tempfile, "tempdir", str(tmp_path / tmpdir))
    monkeypatch.setattr(scanner, "_file_system", lambda path: tmp if path.startswith(str(tmp_path)) else "ext4")
    spill = Spill()
    try:
        assert _spill_folder(spill) == (expected if expected.startswith("/") else str(tmp_path / expected))
    finally:
        spill.close()


def test_the_file_system_of_a_folder_is_read_from_the_mount_table() -> None:
    """``_file_system`` names the file system of the mount that holds a path (the deepest one)."""
    assert scanner._file_system("/proc/self") == "proc"
    assert scanner._file_system("/") not in ("", "proc")
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        shm = [line.split()[2] for line in mounts if line.split()[1] == "/dev/shm"]
    if shm:
        assert scanner._file_system("/dev/shm/x/y") == shm[-1]


def test_the_threads_that_keep_retired_connections_run_behind_the_scanning_thread() -> None:
    """The spill's writer and the keeper share the cores with the scan, the longest path: they run nicer than it
    (``scanner._behind_the_scan``), and the scanning thread's own priority is left as it was."""
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: list[int] = []
    worker = InTurn("whodunnet-test")
    try:
        worker.submit(lambda: seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
        worker.wait()
    finally:
        worker.close()
    assert seen == [min(19, before + BEHIND)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_the_spill_file_is_closed_on_the_writing_thread_without_the_analysis_waiting() -> None:
    """Closing a large spill file frees its blocks (0.1 s for 474 MB): ``Spill.close`` leaves that to the writing
    thread and returns at once; the file is closed soon after, on that thread."""
    state, rows = _echo_connections_open()
    spill = Spill()
    _put(spill, state, rows)
    fd, release, closed_on = spill._fd, threading.Event(), []
    real_close = spill._file.close

    def slow_close() -> None:  # a close that takes as long as the test says
        release.wait(10)
        closed_on.append(threading.current_thread().name)
        real_close()

    spill._file.close = slow_close  # type: ignore[method-assign]
    spill.close()  # returns while the close waits
    assert not closed_on and os.fstat(fd)
    release.set()
    for _ in range(200):
        if closed_on:
            break
        threading.Event().wait(0.01)
    assert closed_on and closed_on[0].startswith("whodunnet-spill")
    threading.Event().wait(0.05)
    with pytest.raises(OSError):
        os.fstat(fd)


def acks(sport: int, windows: list[int], ip_id: int) -> list[bytes]:
    """Pure ACKs from the client of port ``sport``, one per window value, each IP id its own."""
    out = []
    for i, window in enumerate(windows):
        tcp = struct.pack("!HHIIBBHHH", sport, 80, 101, 501, 5 << 4, ACK, window, 0, 0)
        frame = bytearray(ethernet(ipv4(C, S, tcp)))
        frame[18:20] = struct.pack("!H", (ip_id + i) & 0xFFFF)
        out.append(bytes(frame))
    return out


@pytest.mark.parametrize("ageing", [None, ALWAYS], ids=["kept", "retired"])
@pytest.mark.parametrize("last_new", [True, False], ids=["new-last-value", "known-last-value"])
def test_a_sketch_at_its_distinct_limit_folds_when_its_last_run_brings_a_new_value(
    ageing: Ageing | None, last_new: bool
) -> None:
    # Window values are counted exactly up to EXACT_KEYS (256) distinct ones, then quantized to 7 significant
    # bits. The last value a side advertised is still a pending run when its row is finished (retired, or at the
    # end): counted then. Connection B's client advertises 256 distinct windows, then a last one, new or not; a
    # new one folds the sketch, and its window median is then quantized (20,224 bytes: 79 << 8), else exact (a
    # value 20,000 + 3 i). Connection A's few values must stay exact, whatever B does.
    windows = [20_000 + 3 * i for i in range(256)]
    frames = [seg(4000, seq=100, flags=SYN), *acks(4000, [30_001, 30_001, 30_002], 100)]
    frames += [seg(5000, seq=100, flags=SYN), *acks(5000, [*windows, 20_768 if last_new else windows[0]], 1000)]
    frames += [seg(port, seq=100, flags=SYN) for port in range(6000, 6008)]  # new rows wanted: sweeps retire B
    analysis = CaptureAnalysis(ageing=ageing)
    analysis.run(io.BytesIO(pcap(frames)))
    a, b = analysis.connections()[:2]
    assert a.c2s.window_median == 30_001
    if last_new:
        assert b.c2s.window_median == 79 << 8
    else:
        assert b.c2s.window_median in windows
    if ageing is not None:
        assert analysis.state is not None and analysis.state.retired >= 2
