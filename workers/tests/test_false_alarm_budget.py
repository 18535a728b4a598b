"""The false-alarm budget: every medium or high finding over the shared corpus, each justified in one table.

A medium or high finding makes the checklist suggest "suspect" for a layer, so each one must be
something an expert would agree with. ``data/false_alarm_budget.md`` lists every medium/high
finding the engine makes over the corpus (``../shared/corpus``, read in place: it is not copied
into the repository), one row per input and finding kind, with its severity, how many there are,
an expert's verdict and a one-line justification. A new medium/high finding, one that disappears
or one whose severity or count changes fails this test until the table is updated with a reason;
a row whose verdict is ``false`` fails it too: the budget is no false alarm.

Inputs are each file alone (an incident with that one piece of evidence), each pair of snapshots
named ``X-before``/``X-after`` (the two an engineer uploads to diff), and the corpus's one bundle
of evidence about the same connections (``generated_here/loopback-scenarios-1/``), given in the
order an engineer would upload it (before snapshots first). The tool output recorded for this
repository's own tests (``workers/tests/host/data/lab/``) is read the same way; its rows are named
by their path in the repository, the corpus's by their path in the corpus. Captures are in the
budget too (``CAPTURES``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

from whodunnet.detect import sniff
from whodunnet.engine import analyze
from whodunnet.model import SEVERITIES

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("WHODUNNET_CORPUS", REPO.parent / "shared" / "corpus"))
TABLE = Path(__file__).parent / "data" / "false_alarm_budget.md"
#: This repository's recorded tool output, named by its path in the repository.
LAB = Path(__file__).parent / "host" / "data" / "lab"
_PAIR = re.compile(r"^(?P<stem>.*?)[-_.]?(?P<when>before|after)(?P<ext>\.\w+)?$")
#: Directories whose files are also analysed together, as one incident.
BUNDLES = ("generated_here/loopback-scenarios-1/",)
#: Whether captures are in the budget (they are: every corpus capture, alone and in its bundle).
CAPTURES = True
CAPTURE_FORMATS = frozenset({"pcap", "pcapng", "gzip"})
NOT_EVIDENCE = frozenset({"text", "binary", "empty"})
VERDICTS = frozenset({"true", "false"})
_ROW = re.compile(
    r"^\|\s*`(?P<input>[^`]+)`\s*\|\s*`(?P<kind>[^`]+)`\s*\|\s*(?P<severity>\w+)\s*\|\s*(?P<count>\d+)\s*\|"
    r"\s*(?P<verdict>\w+)\s*\|\s*(?P<why>.*?)\s*\|$"
)

Key = tuple[str, str]


def upload_order(path: Path) -> tuple[int, str]:
    """Before snapshots first, after ones last, the rest by name: how an engineer uploads a bundle."""
    name = path.name.lower()
    return (0 if "before" in name else 2 if "after" in name else 1), name


def evidence_files(root: Path) -> list[Path]:
    """Every corpus file a kind reads (captures only when ``CAPTURES``), in a stable order."""
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        with path.open("rb") as f:
            found = sniff(f.read(65536))
        if found in NOT_EVIDENCE or (found in CAPTURE_FORMATS and not CAPTURES):
            continue
        out.append(path)
    return out


def runs(root: Path, name_of: Path) -> list[tuple[str, list[Path]]]:
    """The incidents made of ``root``'s files: each alone, each before/after pair, each bundle.

    Each is named by its path relative to ``name_of``."""
    files = evidence_files(root)
    out: list[tuple[str, list[Path]]] = [(str(p.relative_to(name_of)), [p]) for p in files]
    pairs: dict[tuple[Path, str, str], list[Path]] = {}
    for p in files:
        if (m := _PAIR.match(p.name)) is not None:
            pairs.setdefault((p.parent, m.group("stem"), m.group("ext") or ""), []).append(p)
    for (parent, stem, ext), members in sorted(pairs.items()):
        if len(members) == 2:
            sep = members[0].name[len(stem)]
            name = str((parent / f"{stem}{sep}{{before,after}}{ext}").relative_to(name_of))
            out.append((name, sorted(members, key=upload_order)))
    for bundle in BUNDLES:
        members = sorted((p for p in files if str(p.relative_to(root)).startswith(bundle)), key=upload_order)
        if members:
            out.append((bundle, members))
    return out


def observed(root: Path, name_of: Path | None = None) -> dict[Key, tuple[str, int, list[str]]]:
    """(input, finding kind) → (highest severity, how many, their titles) for the medium and high findings."""
    out: dict[Key, tuple[str, int, list[str]]] = {}
    for name, paths in runs(root, name_of or root):
        found = [f for f in analyze(paths).findings if f.severity in ("medium", "high")]
        for kind, n in Counter(f.kind for f in found).items():
            mine = [f for f in found if f.kind == kind]
            worst = max((f.severity for f in mine), key=SEVERITIES.index)
            out[(name, kind)] = (worst, n, [f.title for f in mine])
    return out


def committed() -> dict[Key, dict[str, str]]:
    rows = {}
    for line in TABLE.read_text().splitlines():
        if (m := _ROW.match(line.strip())) is not None:
            rows[(m.group("input"), m.group("kind"))] = m.groupdict()
    return rows


def test_the_table_is_well_formed() -> None:
    rows = committed()
    assert rows, f"no rows read from {TABLE}"
    for key, row in rows.items():
        assert row["severity"] in ("medium", "high"), f"{key}: only medium and high findings are budgeted"
        assert row["verdict"] in VERDICTS, f"{key}: the verdict is true or false, not {row['verdict']!r}"
        assert len(row["why"]) >= 20, f"{key}: say why in a sentence"


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS} (set WHODUNNET_CORPUS)")
def test_every_medium_or_high_finding_over_the_corpus_is_in_the_table_with_a_reason() -> None:
    seen = observed(CORPUS) | observed(LAB, REPO)
    rows = committed()
    problems = []
    for key in sorted(seen.keys() - rows.keys()):
        severity, n, titles = seen[key]
        problems.append(f"new: | `{key[0]}` | `{key[1]}` | {severity} | {n} | ? | {titles[0]} |")
    for key in sorted(rows.keys() - seen.keys()):
        problems.append(f"gone: {key} (the table says: {rows[key]['why']})")
    for key in sorted(seen.keys() & rows.keys()):
        severity, n, titles = seen[key]
        if (severity, str(n)) != (rows[key]["severity"], rows[key]["count"]):
            problems.append(f"changed: {key}: now {severity} ×{n}, the table says {rows[key]['severity']} "
                            f"×{rows[key]['count']} ({titles[0]})")  # fmt: skip
    assert not problems, "update data/false_alarm_budget.md with a reason for each:\n" + "\n".join(problems)
    false = [key for key, row in rows.items() if row["verdict"] == "false"]
    assert not false, f"the budget is no false alarm; these are false: {false}"
