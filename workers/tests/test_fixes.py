"""The fixes a postmortem lists come from the analysed evidence: the engine reads the files, the rules read its
findings' numbers (and the kernel-changes knowledge base), and the command follows the numbers."""

from __future__ import annotations

from pathlib import Path

from whodunnet.engine import analyze
from whodunnet.fixes import collect, fixes_for


def fixes_of(tmp_path: Path, files: dict[str, str]) -> dict[str, str]:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(tmp_path / name)
    result = analyze(paths)
    return {f.command: f.why for f in collect([(f.kind, f.data) for f in result.findings])}


def test_it_asks_for_the_first_6_6_kernel_with_both_window_fixes(tmp_path: Path) -> None:
    fixes = fixes_of(tmp_path, {"kernels.txt": "before: 6.5.13\nafter: 6.6.10\n"})
    assert "a kernel ≥ 6.6.45" in fixes
    why = fixes["a kernel ≥ 6.6.45"]
    assert "6.6.10 has dfa2f0483360" in why
    assert "(in 6.6.33)" in why and "(in 6.6.45)" in why


def test_it_has_no_kernel_fix_for_a_kernel_that_has_them(tmp_path: Path) -> None:
    fixes = fixes_of(tmp_path, {"kernels.txt": "before: 6.5.13\nafter: 6.6.50\n"})
    assert not any(command.startswith("a kernel") for command in fixes)


def test_it_asks_kafka_to_leave_the_receive_buffer_to_the_kernel_only_when_it_pins_it(tmp_path: Path) -> None:
    pinned = fixes_of(tmp_path, {"consumer.properties": "bootstrap.servers=k:9092\nreceive.buffer.bytes=65536\n"})
    assert "receive.buffer.bytes=65,536" in pinned["receive.buffer.bytes=-1"]
    (tmp_path / "consumer.properties").unlink()
    tuned = fixes_of(tmp_path, {"consumer.properties": "bootstrap.servers=k:9092\nreceive.buffer.bytes=-1\n"})
    assert tuned == {}


def test_it_sizes_the_conntrack_table_from_the_ports_and_the_table(tmp_path: Path) -> None:
    fixes = fixes_of(
        tmp_path,
        {
            "fw-sysctl.txt": "net.netfilter.nf_conntrack_count = 131072\nnet.netfilter.nf_conntrack_max = 131072\n"
            "net.ipv4.ip_local_port_range = 32768\t60999\n",
        },
    )
    command = next(c for c in fixes if c.startswith("sysctl -w net.netfilter.nf_conntrack_max="))
    value = int(command.rsplit("=", 1)[1])
    assert value > 131072
    assert "131,072" in fixes[command]


def test_it_lists_both_ecn_commands_for_an_ecn_black_hole() -> None:
    commands = [f.command for f in fixes_for("tcp.ecn_syn_blackhole", {})]
    assert commands == ["sysctl -w net.ipv4.tcp_ecn=2", "netsh int tcp set global ecncapability=disabled"]
    assert fixes_for("capture.summary", {}) == []
