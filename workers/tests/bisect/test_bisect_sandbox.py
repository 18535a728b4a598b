"""A reproducer in the bisect sandbox tries what a hostile team member would, and fails.

Each attack is first shown to work without the sandbox (so the test can fail), then shown to
fail inside it: reading the worker's secrets from its environment, reading a file of another
team next to the bisect cache, reaching a database over TCP and over its Unix socket, writing
outside the worktree, tampering with the worktree's ``.git`` link to run code as the worker,
seeing the worker's processes, and running as root. A whole bisect still finds its commit.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from bisect_testrepo import REPRODUCER, PlantedRepo

from whodunnet.bisect.driver import run_bisect
from whodunnet.bisect.repo import RepoCache
from whodunnet.bisect.runner import LocalRunner, RunOutcome
from whodunnet.bisect.sandbox import Sandbox, SandboxError
from whodunnet.bisect.spec import BisectSpec

SECRET = f"s3cret-{uuid.uuid4().hex}"


def _sandbox_or_skip() -> Sandbox:
    try:
        sandbox = Sandbox.for_worker()
    except SandboxError as exc:
        pytest.skip(f"no bubblewrap here: {exc}")
    problem = sandbox.check()
    if problem:
        pytest.skip(f"the sandbox cannot start on this machine: {problem}")
    return sandbox


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return _sandbox_or_skip()


@pytest.fixture
def site(planted_repo: PlantedRepo) -> Iterator[dict[str, Path]]:
    """A worker's layout: the bisect cache (clones, worktrees, scratch) beside another team's evidence."""
    # Under /tmp and searchable by others, as the sandbox user must reach the bound paths.
    top = Path(tempfile.mkdtemp(prefix="wdn-sandbox-"))
    top.chmod(0o711)
    evidence = top / "evidence"
    evidence.mkdir()
    other_team = evidence / "other-team-capture.pcap"
    other_team.write_text(f"{SECRET}\n")
    other_team.chmod(0o644)
    cache = RepoCache(top / "bisect" / "clones")
    worktree = cache.add_worktree(str(planted_repo.path), top / "bisect" / "worktrees" / "job-1", planted_repo.bad)
    cache.add_worktree(str(planted_repo.path), top / "bisect" / "worktrees" / "job-2", planted_repo.good)
    scratch = top / "bisect" / "scratch" / "run-1"
    scratch.mkdir(parents=True)
    try:
        yield {"top": top, "evidence": other_team, "worktree": worktree, "scratch": scratch, "cache": cache.cache_dir}
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def secrets_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SECRET_KEY", SECRET)
    monkeypatch.setenv("DATABASE_URL", f"postgres://whodunnet:{SECRET}@127.0.0.1:5432/whodunnet")


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP service on the worker's loopback, standing in for PostgreSQL or the broker."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.sendall(b"HELLO-FROM-THE-WORKER\n")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


@pytest.fixture
def unix_listener(site: dict[str, Path]) -> Iterator[Path]:
    """A Unix socket like PostgreSQL's /var/run/postgresql/.s.PGSQL.5432."""
    folder = site["top"] / "run-postgresql"
    folder.mkdir()
    folder.chmod(0o755)
    path = folder / ".s.PGSQL.5432"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    path.chmod(0o777)
    server.listen(4)
    yield path
    server.close()


def run(
    runner: LocalRunner,
    site: dict[str, Path],
    command: str,
    *,
    network: bool = False,
    env: dict[str, str] | None = None,
) -> RunOutcome:
    spec = BisectSpec(
        repo="unused",
        good="g",
        bad="b",
        command=command,
        step_timeout=30,
        network=network,
        env=tuple(sorted((env or {}).items())),
    )
    return runner.run(spec, "0" * 40, site["worktree"], site["scratch"], run_index=0)


def both(sandbox: Sandbox, site: dict[str, Path], command: str, **kw: object) -> tuple[RunOutcome, RunOutcome]:
    """The same command run as the CLI runs it (as the caller, with its environment) and sandboxed."""
    bare = run(LocalRunner(inherit_env=True), site, command, **kw)  # type: ignore[arg-type]
    boxed = run(LocalRunner(sandbox=sandbox), site, command, **kw)  # type: ignore[arg-type]
    return bare, boxed


@pytest.mark.usefixtures("secrets_in_env")
def test_it_gives_a_sandboxed_reproducer_none_of_the_workers_environment(
    sandbox: Sandbox, site: dict[str, Path]
) -> None:
    bare, boxed = both(sandbox, site, "env", env={"XFER_BYTES": "1048576"})

    assert SECRET in bare.stdout_tail
    assert SECRET not in boxed.stdout_tail, boxed.stdout_tail
    names = {line.split("=", 1)[0] for line in boxed.stdout_tail.splitlines() if "=" in line}
    assert "DATABASE_URL" not in names and "DJANGO_SECRET_KEY" not in names
    assert "XFER_BYTES=1048576" in boxed.stdout_tail.splitlines()
    assert {"PATH", "HOME", "WHODUNNET_COMMIT", "WHODUNNET_SCRATCH", "WHODUNNET_WORKTREE", "WHODUNNET_RUN"} <= names


@pytest.mark.usefixtures("secrets_in_env")
def test_it_never_copies_the_workers_environment_even_without_the_sandbox(site: dict[str, Path]) -> None:
    outcome = run(LocalRunner(), site, "env")

    assert outcome.exit_code == 0, outcome.stderr_tail
    assert SECRET not in outcome.stdout_tail


def test_it_hides_other_teams_evidence_and_the_workers_files(sandbox: Sandbox, site: dict[str, Path]) -> None:
    evidence = site["evidence"]
    other_clone = site["cache"] / "0123456789abcdef01234567.git"  # another repository's clone on this worker
    other_clone.mkdir()
    bare, boxed = both(sandbox, site, f"ls {site['top']} {site['cache']}; cat {evidence}")

    assert SECRET in bare.stdout_tail
    assert SECRET not in boxed.stdout_tail
    assert boxed.exit_code != 0
    listed = boxed.stdout_tail.split()
    assert "evidence" in bare.stdout_tail.split() and "evidence" not in listed
    assert other_clone.name in bare.stdout_tail.split() and other_clone.name not in listed
    # Nor the home of the worker's user, where a .env or a cloud credential would sit.
    home = run(LocalRunner(sandbox=sandbox), site, "ls -a /root /home 2>&1; ls /var/run/postgresql 2>&1")
    assert "No such file or directory" in home.stdout_tail


def test_it_keeps_a_reproducer_off_the_workers_network(sandbox: Sandbox, site: dict[str, Path], listener: int) -> None:
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && head -1 <&3"
    bare, boxed = both(sandbox, site, f"bash -c '{probe}'")

    assert "HELLO-FROM-THE-WORKER" in bare.stdout_tail
    assert "HELLO-FROM-THE-WORKER" not in boxed.stdout_tail
    assert boxed.exit_code != 0
    assert "Connection refused" in boxed.stderr_tail


def test_it_gives_the_network_only_to_a_job_that_asks_for_it(
    sandbox: Sandbox, site: dict[str, Path], listener: int
) -> None:
    probe = f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{listener} && head -1 <&3'"
    boxed = run(LocalRunner(sandbox=sandbox), site, probe, network=True)

    assert "HELLO-FROM-THE-WORKER" in boxed.stdout_tail, boxed.stderr_tail


@pytest.mark.skipif(shutil.which("python3", path="/usr/bin:/bin") is None, reason="needs the system python3")
def test_it_keeps_a_reproducer_off_a_database_unix_socket(
    sandbox: Sandbox, site: dict[str, Path], unix_listener: Path
) -> None:
    program = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('CONNECTED')"
    connect = f'/usr/bin/python3 -c "{program}" {unix_listener}'
    bare, boxed = both(sandbox, site, connect)

    assert "CONNECTED" in bare.stdout_tail, bare.stderr_tail
    assert "CONNECTED" not in boxed.stdout_tail
    assert "FileNotFoundError" in boxed.stderr_tail


def test_it_lets_a_reproducer_write_only_its_worktree_and_scratch(sandbox: Sandbox, site: dict[str, Path]) -> None:
    marker = f"wdn-marker-{uuid.uuid4().hex}"
    gitdir = (site["worktree"] / ".git").read_text().split(":", 1)[1].strip()
    outside = [
        f"/tmp/{marker}",  # the sandbox's /tmp is its own
        f"{site['top']}/{marker}",
        f"{site['cache']}/{marker}",
        f"{gitdir}/{marker}",
        f"/usr/{marker}",
    ]
    script = "; ".join(f"touch {p} 2>/dev/null && echo WROTE {p}" for p in outside)
    script += f"; touch {marker} && echo WROTE worktree; touch $WHODUNNET_SCRATCH/{marker} && echo WROTE scratch"

    outcome = run(LocalRunner(sandbox=sandbox), site, script)

    wrote = outcome.stdout_tail.splitlines()
    assert "WROTE worktree" in wrote and "WROTE scratch" in wrote, outcome.stdout_tail
    assert f"WROTE {gitdir}/{marker}" not in wrote and f"WROTE /usr/{marker}" not in wrote
    # What it wrote elsewhere went to the sandbox's own throwaway root, never to the worker's disk.
    assert [p for p in outside if os.path.exists(p)] == []
    assert (site["worktree"] / marker).exists()


def test_it_puts_back_a_git_link_the_reproducer_rewrote(sandbox: Sandbox, site: dict[str, Path]) -> None:
    gitfile = site["worktree"] / ".git"
    original = gitfile.read_text()
    # A git directory of the reproducer's own with an fsmonitor command would run as the worker.
    evil = (
        "mkdir -p $WHODUNNET_SCRATCH/evil && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > evil.config; "
        "rm -f .git; ln -s /etc/passwd .git"
    )

    outcome = run(LocalRunner(sandbox=sandbox), site, evil)

    assert outcome.exit_code == 0, outcome.stderr_tail
    assert not gitfile.is_symlink()
    assert gitfile.read_text() == original
    status = subprocess.run(
        ["git", "-c", "safe.directory=*", "status", "--short"], cwd=site["worktree"], capture_output=True, text=True
    )
    assert status.returncode == 0, status.stderr


def test_it_hides_the_workers_processes(sandbox: Sandbox, site: dict[str, Path]) -> None:
    marker = f"wdn-process-{uuid.uuid4().hex[:8]}"
    sleeper = subprocess.Popen([marker, "60"], executable=shutil.which("sleep"))
    try:
        bare, boxed = both(sandbox, site, "ps -e -o pid=,args=")
    finally:
        sleeper.kill()
        sleeper.wait()

    assert marker in bare.stdout_tail
    assert marker not in boxed.stdout_tail
    assert len(boxed.stdout_tail.splitlines()) <= 4, boxed.stdout_tail


def test_it_runs_a_reproducer_as_an_unprivileged_user(sandbox: Sandbox, site: dict[str, Path]) -> None:
    outcome = run(LocalRunner(sandbox=sandbox), site, "id -u; cat /proc/self/status | grep CapEff")

    uid, caps = outcome.stdout_tail.splitlines()[:2]
    if os.geteuid() == 0:
        assert uid == "65534"
    assert caps.split()[1] == "0000000000000000"
    # Files it made are not the worker's when the worker is root.
    made = run(LocalRunner(sandbox=sandbox), site, "touch made-here")
    assert made.exit_code == 0
    if os.geteuid() == 0:
        assert (site["worktree"] / "made-here").stat().st_uid != 0


def test_it_finds_the_planted_commit_with_every_run_sandboxed(
    sandbox: Sandbox, planted_repo: PlantedRepo, site: dict[str, Path]
) -> None:
    spec = BisectSpec(
        repo=str(planted_repo.path),
        good=planted_repo.good,
        bad=planted_repo.bad,
        command=REPRODUCER,
        path="net/ipv4",
        step_timeout=30,
    )
    report = run_bisect(
        spec,
        cache=RepoCache(site["top"] / "cli-cache"),
        runner=LocalRunner(sandbox=sandbox),
        workdir=site["top"] / "cli-worktree",
    )

    assert report.status == "found", report.error
    assert report.done is not None and report.done.first_bad is not None
    assert report.done.first_bad.id == planted_repo.planted
