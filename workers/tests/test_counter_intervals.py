"""Three or more snapshots of one host: how much each counter grew over each interval (the chart of deltas)."""

from __future__ import annotations

from pathlib import Path

from whodunnet.engine import analyze


def nstat(path: Path, when: float, retrans: int, sent: int) -> Path:
    path.write_text(
        f"=== {when}\n#kernel\nTcpOutSegs {sent} 0.0\nTcpRetransSegs {retrans} 0.0\n"
        f"TcpExtTCPTimeouts {retrans // 3} 0.0\n"
    )
    return path


def link(path: Path, when: float, dropped: int) -> Path:
    path.write_text(
        f"=== {when}\n2: eth0: <BROADCAST,UP> mtu 1500 qdisc mq state UP\n    link/ether 0a:02:ad:7c:4e:9e\n"
        "    RX:  bytes packets errors dropped  missed   mcast\n"
        f"       5007542    3317      0       {dropped}       0       0\n"
        "    TX:  bytes packets errors dropped carrier collsns\n        105438    1605      0       0       0       0\n"
    )
    return path


def test_it_gives_each_intervals_retransmissions_in_time_order(tmp_path: Path) -> None:
    # Uploaded out of order: the intervals follow the times the snapshots say.
    files = [
        nstat(tmp_path / "n3.txt", 1795000020.0, 90, 3000),
        nstat(tmp_path / "n1.txt", 1795000000.0, 0, 1000),
        nstat(tmp_path / "n2.txt", 1795000010.0, 6, 2000),
        nstat(tmp_path / "n4.txt", 1795000030.0, 93, 4000),
    ]
    result = analyze(files)
    [retrans] = [f for f in result.findings if f.kind == "host.retransmits"]
    intervals = retrans.data["per_interval"]
    assert intervals["from"] == ["n1.txt", "n2.txt", "n3.txt"] and intervals["to"] == ["n2.txt", "n3.txt", "n4.txt"]
    assert intervals["start"] == [1795000000.0, 1795000010.0, 1795000020.0]
    assert intervals["end"] == [1795000010.0, 1795000020.0, 1795000030.0]
    # The burst sits in the second interval; the whole pair's number (93) hides when it happened.
    assert intervals["series"]["TcpRetransSegs"] == [6, 84, 3]
    assert intervals["series"]["TcpExtTCPTimeouts"] == [2, 28, 1]
    assert retrans.data["counters"]["TcpRetransSegs"] == 93


def test_two_snapshots_are_one_interval_and_need_no_chart(tmp_path: Path) -> None:
    files = [nstat(tmp_path / "a.txt", 1795000000.0, 0, 10), nstat(tmp_path / "b.txt", 1795000010.0, 5, 20)]
    [retrans] = [f for f in analyze(files).findings if f.kind == "host.retransmits"]
    assert retrans.data["per_interval"] is None


def test_it_gives_an_interfaces_drops_per_interval(tmp_path: Path) -> None:
    files = [link(tmp_path / f"l{i}.txt", 1795000000.0 + 10 * i, d) for i, d in enumerate((0, 0, 40))]
    [drops] = [f for f in analyze(files).findings if f.kind == "host.interface_drops"]
    assert drops.data["per_interval"]["series"] == {"rx_dropped": [0, 40]}
