"""A real git repository with a planted regression, and reproducers for it.

``git fast-import`` writes the ~1,200 commits in well under a second. The history:

* a first-parent line of ``MAIN`` commits from tag ``v1.0`` to tag ``v2.0``;
* every 40 commits a side branch of 3 commits, merged back 5 commits later;
* ``build.txt`` says ``broken`` on main commits ``BROKEN`` (the reproducer exits 125 there);
* ``net/ipv4/value.txt`` holds 100 until main commit ``PLANTED``, which makes it 250 (the
  regression); every 10th commit also touches ``net/ipv4/route.c``, the rest touch
  ``drivers/``, so a ``net/ipv4`` path filter leaves about a tenth of the range.

Dates, names and contents are fixed, so commit ids are the same on every run.
"""

from __future__ import annotations

import math
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

MAIN = 1100
PLANTED = 777
BROKEN = range(540, 570)
SIDE_EVERY, SIDE_LEN, MERGE_AFTER = 40, 3, 5

GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "LC_ALL": "C",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass(frozen=True)
class PlantedRepo:
    path: Path
    good: str
    bad: str
    planted: str
    broken: frozenset[str]
    commits: int  # in good..bad
    path_commits: int  # in good..bad touching net/ipv4

    @property
    def max_steps(self) -> int:
        return math.ceil(math.log2(self.commits)) + 3


def _blob(content: str) -> bytes:
    data = content.encode()
    return b"data %d\n" % len(data) + data + b"\n"


def _stream() -> tuple[bytes, dict[int, int]]:
    out: list[bytes] = []
    mark = 0
    ts = 1_700_000_000
    main_marks: dict[int, int] = {}
    side_tips: dict[int, int] = {}  # main index where a side branch is merged -> its tip

    def commit(
        ref: str,
        msg: str,
        files: dict[str, str],
        parent: int | None,
        merge: int | None = None,
    ) -> int:
        nonlocal mark, ts
        mark += 1
        ts += 60
        out.append(f"commit {ref}\nmark :{mark}\n".encode())
        out.append(f"author Dev {mark % 7} <dev{mark % 7}@example.org> {ts} +0000\n".encode())
        out.append(f"committer Dev {mark % 7} <dev{mark % 7}@example.org> {ts} +0000\n".encode())
        out.append(_blob(msg))
        if parent is not None:
            out.append(f"from :{parent}\n".encode())
        if merge is not None:
            out.append(f"merge :{merge}\n".encode())
        for path, content in files.items():
            out.append(f"M 100644 inline {path}\n".encode() + _blob(content))
        out.append(b"\n")
        return mark

    prev: int | None = None
    for i in range(MAIN):
        files: dict[str, str] = {}
        if i == 0:
            files = {
                "net/ipv4/value.txt": "100\n",
                "build.txt": "ok\n",
                "net/ipv4/route.c": "0\n",
            }
        if i == BROKEN.start:
            files["build.txt"] = "broken\n"
        if i == BROKEN.stop:
            files["build.txt"] = "ok\n"
        if i == PLANTED:
            files["net/ipv4/value.txt"] = "250\n"
            files["net/ipv4/tcp_output.c"] = "/* smaller socket buffer */\n"
            msg = "tcp: shrink the default send buffer"
        elif i % 10 == 5:
            files["net/ipv4/route.c"] = f"{i}\n"
            msg = f"net: route tweak {i}"
        else:
            files[f"drivers/file{i % 7}.c"] = f"{i}\n"
            msg = f"drivers: change {i}"
        merge = side_tips.pop(i, None)
        if merge is not None:
            msg = f"Merge branch 'side-{i}'"
        prev = commit("refs/heads/main", msg, files, prev, merge)
        main_marks[i] = prev
        if i % SIDE_EVERY == SIDE_EVERY // 2 and i + MERGE_AFTER < MAIN:
            tip = prev
            for k in range(SIDE_LEN):
                tip = commit(
                    f"refs/heads/side-{i}",
                    f"drivers: side {i}.{k}",
                    {f"drivers/side{i}.c": f"{k}\n"},
                    tip,
                )
            side_tips[i + MERGE_AFTER] = tip
    out.append(f"reset refs/tags/v1.0\nfrom :{main_marks[0]}\n\n".encode())
    out.append(f"reset refs/tags/v2.0\nfrom :{main_marks[MAIN - 1]}\n\n".encode())
    return b"".join(out), main_marks


def _git(args: list[str], cwd: Path, data: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=GIT_ENV,
        input=data,
        capture_output=True,
        check=True,
    )
    return proc.stdout.decode()


def build_planted_repo(path: Path) -> PlantedRepo:
    path.mkdir(parents=True)
    _git(["init", "--quiet", "--initial-branch=main"], path)
    stream, main_marks = _stream()
    marks_file = path / ".git" / "marks"
    _git(["fast-import", "--quiet", f"--export-marks={marks_file}"], path, stream)
    _git(["reset", "--quiet", "--hard", "main"], path)
    marks = dict(line.split() for line in marks_file.read_text().splitlines())
    ids = {i: marks[f":{m}"] for i, m in main_marks.items()}
    count = int(_git(["rev-list", "--count", "v1.0..v2.0"], path))
    path_count = int(_git(["rev-list", "--count", "v1.0..v2.0", "--", "net/ipv4"], path))
    return PlantedRepo(
        path=path,
        good="v1.0",
        bad="v2.0",
        planted=ids[PLANTED],
        broken=frozenset(ids[i] for i in BROKEN),
        commits=count,
        path_commits=path_count,
    )


REPRODUCER = """#!/bin/sh
# exit 125 where the build is broken, 1 when the regression is there, 0 otherwise
grep -q broken build.txt && exit 125
[ "$(cat net/ipv4/value.txt)" -lt 200 ]
"""

FLAKY_REPRODUCER = """#!/bin/sh
# as the plain one, but a good commit fails 1 time in 5, seeded by commit id and run index
grep -q broken build.txt && exit 125
[ "$(cat net/ipv4/value.txt)" -lt 200 ] || exit 1
h=$(printf '%s-%s' "$WHODUNNET_COMMIT" "$WHODUNNET_RUN" | cksum | cut -d' ' -f1)
[ $((h % 5)) -ne 0 ]
"""

METRIC_REPRODUCER = """#!/bin/sh
# prints a transfer time that grows with the value: 10.0 s before the regression, 25.0 after
grep -q broken build.txt && exit 125
echo "starting transfer"
v=$(cat net/ipv4/value.txt)
echo "transfer_seconds=$((v / 10)).$((v % 10))"
echo "done"
"""
