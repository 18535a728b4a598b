"""``whodunnet analyze`` as a user runs it: a real subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from capture_testdata import CAPTURES

from whodunnet.analyze_cli import print_report, write_all
from whodunnet.engine import analyze

#: As in a user's shell: output to a pipe is block-buffered (this machine's environment sets PYTHONUNBUFFERED).
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}


def whodunnet(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "whodunnet.cli", *args], capture_output=True, text=True, timeout=60, check=False, env=ENV
    )


def test_it_prints_evidence_and_findings_as_json(tmp_path: Path) -> None:
    cut = tmp_path / "cut.pcap"
    cut.write_bytes((CAPTURES / "ipv6.pcap").read_bytes()[:5000])
    proc = whodunnet("analyze", "--json", str(CAPTURES / "twovlan.pcap"), str(cut))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"engine_version", "evidence", "findings", "capture_pairs"}
    first, second = data["evidence"]
    assert first["kind"] == "capture" and first["summary"]["packets"] == 6 and first["error"] is None
    assert second["error"]["offset"] is not None and "middle of a packet" in second["error"]["message"]
    assert [f["kind"] for f in data["findings"]] == ["capture.summary", "capture.summary"]
    assert set(data["findings"][0]) == {"kind", "layer", "severity", "title", "explanation", "refs", "key", "data"}


def test_it_prints_a_readable_report() -> None:
    proc = whodunnet("analyze", str(CAPTURES / "tcp_handshake_synthetic.pcap"))
    assert proc.returncode == 0, proc.stderr
    assert "capture.summary" in proc.stdout and "TCP connections" in proc.stdout


def test_it_exits_2_for_missing_files_and_bad_options() -> None:
    missing = whodunnet("analyze", "/nonexistent/capture.pcap")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad_limit = whodunnet("analyze", "--max-input-bytes", "lots", str(CAPTURES / "pptp.pcap"))
    assert bad_limit.returncode == 2


def test_it_honours_max_input_bytes() -> None:
    proc = whodunnet("analyze", "--json", "--max-input-bytes", "100000", str(CAPTURES / "echo-connections.pcap.gz"))
    assert proc.returncode == 0
    (ev,) = json.loads(proc.stdout)["evidence"]
    assert "limit" in ev["error"]["message"] and ev["error"]["offset"] == 100000


def test_its_json_is_the_whole_result_with_every_connection_when_asked() -> None:
    """``--json`` is written by orjson straight from the result: the same document as the standard library's."""
    paths = [CAPTURES / "echo-connections.pcap.gz", CAPTURES / "loopback-scenarios.pcap"]
    result = analyze([str(p) for p in paths])
    assert sum(len(ev.connections) for ev in result.evidence) > 10
    assert json.loads(result.to_json_bytes()) == json.loads(json.dumps(result.to_json()))
    proc = whodunnet("analyze", "--json", "--connections", *map(str, paths))
    printed = json.loads(proc.stdout)
    assert [len(ev["connections"]) for ev in printed["evidence"]] == [len(ev.connections) for ev in result.evidence]
    # Without --connections: the same summaries and findings, no table.
    short = json.loads(whodunnet("analyze", "--json", *map(str, paths)).stdout)
    assert [ev["connections"] for ev in short["evidence"]] == [[], []]
    assert short["findings"] == printed["findings"]
    assert [ev["summary"] for ev in short["evidence"]] == [ev["summary"] for ev in printed["evidence"]]


def test_the_whole_output_arrives_though_the_process_skips_the_interpreters_teardown() -> None:
    """The command ends with ``os._exit`` once its output is flushed: every byte of a large ``--json
    --connections`` document is there, the same as in process, and so is a short text report."""
    small = str(CAPTURES / "tcp_handshake_synthetic.pcap")
    report, text = whodunnet("analyze", small), io.StringIO()
    print_report(analyze([small]), text)
    assert report.returncode == 0 and report.stdout == text.getvalue()
    path = CAPTURES / "echo-connections.pcap.gz"
    proc = whodunnet("analyze", "--json", "--connections", str(path))
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout) > 1_000_000
    assert json.loads(proc.stdout) == json.loads(analyze([str(path)]).to_json_bytes())


def test_output_a_write_takes_only_part_of_is_written_whole() -> None:
    # `--json --connections` of a million connections is over 2 GiB: one write to stdout took 2 GiB - 4 KiB of it
    # (Linux's most per write), returned that count, and the rest was lost with exit status 0.
    class Partial(io.BytesIO):
        def write(self, b: object) -> int:
            return super().write(memoryview(b)[:1000])  # type: ignore[arg-type]

    out, data = Partial(), os.urandom(10_500)
    write_all(out, data)  # type: ignore[arg-type]
    assert out.getvalue() == data


def test_a_reader_that_leaves_early_is_not_an_error() -> None:
    """``whodunnet analyze x --json | head -c 100``: the first bytes arrive, the command exits 0, no traceback."""
    cmd = [sys.executable, "-m", "whodunnet.cli", "analyze", "--json", "--connections"]
    proc = subprocess.Popen(
        [*cmd, str(CAPTURES / "echo-connections.pcap.gz")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
    )
    assert proc.stdout is not None and proc.stderr is not None
    head = proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0 and head.startswith(b"{") and err == b""


def test_a_thread_still_working_when_the_command_returns_finishes_its_work(tmp_path: Path) -> None:
    """The command skips the interpreter's teardown only when no thread is left working: one that is (here, a
    thread started beside the command that writes a file after it) still finishes, as a normal exit waits for it."""
    done = tmp_path / "done"
    script = (
        "import sys, threading, time\n"
        "from pathlib import Path\n"
        "from whodunnet.cli import main\n"
        f"threading.Thread(target=lambda: (time.sleep(1.0), Path({str(done)!r}).write_text('ok'))).start()\n"
        f"sys.argv = ['whodunnet', 'analyze', {str(CAPTURES / 'tcp_handshake_synthetic.pcap')!r}]\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=ENV)
    assert proc.returncode == 0, proc.stderr
    assert "capture.summary" in proc.stdout and done.read_text() == "ok"
