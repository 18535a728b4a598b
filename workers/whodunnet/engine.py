"""The engine entry point: files in, one ``AnalysisResult`` out.

``analyze`` is what the Celery worker and ``whodunnet analyze`` call. It detects each
file's kind from its content, runs that kind's analyzer (``whodunnet.registry``) and never
raises for bad input: a file that cannot be read is an ``EvidenceResult`` with an
``error`` (and whatever was read before the break). ``combine`` runs the kinds' combiners
over results alone (the backend calls it for a whole incident).

A file is a path, or a ``Source``: a file kept elsewhere (an object store) that the engine
opens as a stream. A kind that reads streams (``Kind.streams``: every kind today, captures and
text alike) reads it as it arrives; any other kind gets the local copy the source makes for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from whodunnet import ENGINE_VERSION, registry, snapshots
from whodunnet import provenance as prov
from whodunnet.detect import sniff, sniff_gzip_inner
from whodunnet.errors import InputRefused, MalformedInput
from whodunnet.kinds.spec import Combiner, Kind
from whodunnet.limits import DEFAULT_LIMITS, Limits
from whodunnet.model import AnalysisResult, ErrorInfo, EvidenceResult, Finding, Provenance
from whodunnet.tuning import DEFAULT_TUNING, Tuning

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[float, str], None]


class Source(Protocol):
    """A file the engine reads without a path of its own: ``name`` (shown as its path), ``size``
    in bytes, ``open()`` a readable, seekable binary stream, ``local_copy()`` a path to a copy
    that exists while the block runs (for kinds that read files by path)."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int: ...

    def open(self) -> BinaryIO: ...

    def local_copy(self) -> contextlib.AbstractContextManager[Path]: ...


#: The kinds a person can choose when the content sniffing got a file wrong.
EVIDENCE_KINDS: tuple[str, ...] = registry.names()

#: How many bytes of a file ``sniff`` sees (the backend sniffs the same 64 KiB).
SNIFF_BYTES = 64 * 1024
#: Minimum seconds between two progress reports.
PROGRESS_INTERVAL = 0.1


def analyze(
    paths: Sequence[str | Path | Source],
    *,
    progress: ProgressCallback | None = None,
    limits: Limits = DEFAULT_LIMITS,
    kinds: Sequence[str | None] | None = None,
    tuning: Tuning = DEFAULT_TUNING,
    combine_evidence: bool = True,
    provenance: Mapping[str, Provenance] | None = None,
) -> AnalysisResult:
    """Analyze evidence files together; one evidence entry per file, plus findings.

    ``kinds`` (one per path, None to detect) is a person's correction of the detected kind,
    one of EVIDENCE_KINDS; a capture's format is still read from its magic number.
    ``tuning`` holds the settings a person changed (the BBR-candidate method's parameters).
    ``provenance`` (by path, as given) is what a person said about a file's host, role and
    snapshot time; it wins over what the content and the file name say (``whodunnet.provenance``).
    ``combine_evidence=False`` leaves out the findings ``combine`` draws from the results (counter
    diffs, kernel ranges, the receive-window model): the backend computes those once per incident.
    """
    files = [Path(p) if isinstance(p, (str, Path)) else p for p in paths]
    wanted = list(kinds) if kinds is not None else [None] * len(files)
    if len(wanted) != len(files):
        raise ValueError("give one kind (or None) per path")
    sizes = [_size(p) for p in files]
    total = sum(sizes) or 1
    throttle = _Throttle(progress)
    evidence: list[EvidenceResult] = []
    findings: list[Finding] = []
    done = 0
    for index, (path, size) in enumerate(zip(files, sizes, strict=True)):
        shown = path.name if isinstance(path, Path) else Path(path.name).name
        label = f"reading {shown}" + (f" ({index + 1} of {len(files)})" if len(files) > 1 else "")

        def file_progress(fraction: float, _done: int = done, _size: int = size, _label: str = label) -> None:
            throttle((_done + fraction * _size) / total, _label)

        throttle((done / total), label)
        ev, found = _analyze_one(index, path, limits, file_progress, wanted[index], tuning)
        # A stream from the store is known by its name, as a file is by its path.
        named = path if isinstance(path, Path) else Path(path.name)
        given = _given(provenance, p if isinstance(p := paths[index], str | Path) else p.name)
        ev = replace(ev, provenance=prov.merge(prov.infer(named, ev.kind, ev.summary), given))
        evidence.append(ev)
        findings.extend(found)
        done += size
    evidence = prov.across(evidence)
    pairs: list[Any] = []
    if combine_evidence:
        sources = {i: f for i, f in enumerate(files) if not isinstance(f, Path)}
        combined, pairs = _combine(evidence, findings, limits, sources)
        findings.extend(combined)
    throttle(1.0, "done", force=True)
    return AnalysisResult(
        engine_version=ENGINE_VERSION, evidence=tuple(evidence), findings=tuple(findings), capture_pairs=tuple(pairs)
    )


def _given(provenance: Mapping[str, Provenance] | None, path: str | Path) -> Provenance | None:
    """What a person said about ``path``: by the path as given, else as resolved."""
    if not provenance:
        return None
    if (found := provenance.get(str(path))) is not None:
        return found
    resolved = {str(Path(k).resolve()): v for k, v in provenance.items()}
    return resolved.get(str(Path(path).resolve()))


def _analyze_one(
    index: int,
    file: Path | Source,
    limits: Limits,
    progress: Callable[[float], None],
    wanted: str | None = None,
    tuning: Tuning = DEFAULT_TUNING,
) -> tuple[EvidenceResult, list[Finding]]:
    path = file if isinstance(file, Path) else Path(file.name)
    try:
        with _open(file) as f:
            head = f.read(SNIFF_BYTES)
    except OSError as exc:
        return _unknown(path, f"the file cannot be read ({exc.strerror or exc})"), []
    found = sniff(head)
    if found == "empty":
        return _unknown(path, "the file is empty"), []
    chosen = registry.kind(wanted) if wanted is not None else None
    if wanted is not None and chosen is None:
        return _unknown(path, f"unknown evidence kind {wanted!r}"), []
    if chosen is not None and chosen.formats and found not in (*chosen.formats, "gzip"):
        return _unknown(path, f"this is not a {chosen.name}: it looks like {_describe(found, head)}"), []
    if found == "gzip" and (chosen is None or chosen.formats):
        try:
            with _open(file) as f:
                found = sniff_gzip_inner(f)
        except MalformedInput as exc:
            return _unknown(path, exc.message), []
        inner = _kind_of(found)
        if inner is None or (chosen is not None and inner is not chosen):
            return _unknown(path, f"the file is gzip-compressed {_describe(found)}, not a capture"), []
    kind = chosen or _kind_of(found)
    if kind is None:
        return _unknown(path, f"not a recognised evidence file: it looks like {_describe(found, head)}"), []
    try:
        if isinstance(file, Path):
            return kind.analyze(index, path, limits=limits, progress=progress, **tuning.arguments(kind))
        return _analyze_source(index, file, kind, limits=limits, progress=progress, tuning=tuning)
    except InputRefused as exc:  # a gzip bomb: what was read of it is no result, only the refusal is
        error = ErrorInfo(f"{exc.message}; nothing of it was analysed (offset counted in the gzip file)", exc.offset)
        return EvidenceResult(path=str(path), kind=kind.name, summary={}, error=error), []
    except MalformedInput as exc:  # an analyzer that did not keep its partial result
        return EvidenceResult(
            path=str(path),
            kind=kind.name,
            summary=exc.partial if isinstance(exc.partial, dict) else {},
            error=ErrorInfo(exc.message, exc.offset, exc.line),
        ), []
    except Exception as exc:
        # A bug, not bad input (the fuzz target hunts these); one file must still never take the
        # worker down or lose the other files' results, so report it plainly on this file.
        return _unknown(path, f"internal error while reading this file: {type(exc).__name__}: {exc}"), []


def _open(file: Path | Source) -> BinaryIO:
    return open(file, "rb") if isinstance(file, Path) else file.open()


def _analyze_source(
    index: int, source: Source, kind: Kind, *, limits: Limits, progress: Callable[[float], None], tuning: Tuning
) -> tuple[EvidenceResult, list[Finding]]:
    """A kind that reads streams reads the source's stream; any other reads its local copy. The result
    names the source, never the stream or the copy."""
    if kind.streams:
        with source.open() as stream:
            ev, found = kind.analyze(index, stream, limits=limits, progress=progress, **tuning.arguments(kind))
    else:
        with source.local_copy() as copy:
            ev, found = kind.analyze(index, copy, limits=limits, progress=progress, **tuning.arguments(kind))
    return dataclasses.replace(ev, path=source.name), found


def _kind_of(found: str) -> Kind | None:
    """The kind behind what ``sniff`` said: a text kind's name or a binary kind's format."""
    return registry.kind(found) or registry.kind_of_format(found)


def combine(
    evidence: Sequence[EvidenceResult],
    findings: Sequence[Finding],
    *,
    limits: Limits = DEFAULT_LIMITS,
    sources: Mapping[int, Source] | None = None,
) -> list[Finding]:
    """Findings across several pieces of evidence: the kinds' combiners over the results, and the
    two-capture matching (``capture_pairs``) for every pair of captures whose file can be read: at the
    result's path, or ``sources[i]`` (by index into ``evidence``) for a file with no path of its own.

    The backend calls this over an incident's stored results (with its files' paths or, from an S3
    store, their sources) whenever one of them changes, and ``analyze`` over the files it read, so
    both say the same. Snapshots are paired per host by ``evidence[i].provenance``. A combiner that
    fails (a bug: results are data it must cope with) is logged and reported as an ``engine.combiner_failed`` finding
    naming it; the other combiners still run.
    """
    return _combine(evidence, findings, limits, sources)[0]


def _combine(
    evidence: Sequence[EvidenceResult],
    findings: Sequence[Finding],
    limits: Limits,
    sources: Mapping[int, Source] | None = None,
) -> tuple[list[Finding], list[Any]]:
    out: list[Finding] = []
    pairs: list[Any] = []
    try:
        from whodunnet.capture_pairs import compare_captures  # the capture engine (numpy): only when combining

        # Two captures of the same traffic.
        pairs, pair_findings = compare_captures(evidence, limits=limits, sources=sources)
        out.extend(pair_findings)
    except Exception as exc:
        logger.exception("capture matching failed")
        out.append(_combiner_failed(_CAPTURE_MATCHING, exc))
    # Combiners read what the capture matching found (the network cleared or not).
    for combiner in registry.combiners():
        try:
            out.extend(combiner.run(tuple(evidence), (*findings, *out)))
        except Exception as exc:
            logger.exception("combiner %r failed", combiner.name)
            out.append(_combiner_failed(combiner, exc))
    return out, pairs


#: How the two-capture matching is named when it fails (it is run by ``_combine``, not the registry).
_CAPTURE_MATCHING = Combiner("the matching of two captures of the same traffic", "network", lambda ev, found: [])


def _combiner_failed(combiner: Combiner, exc: Exception) -> Finding:
    error = f"{type(exc).__name__}: {exc}"
    return Finding(
        kind="engine.combiner_failed",
        layer=combiner.layer,
        severity="low",
        title=f"Whodunnet could not work out {combiner.name}",
        explanation=(
            f"Working out {combiner.name} from this incident's evidence failed with an internal error ({error}), "
            "so the findings it would have drawn are missing. This is a bug in Whodunnet, not a problem with the "
            "evidence; the other findings are not affected."
        ),
        key=combiner.name,
        data={"combiner": combiner.name, "error": error[:500]},
    )


def snapshot_pairing(evidence: Sequence[EvidenceResult]) -> list[dict[str, Any]]:
    """How each snapshot is diffed, for every snapshot kind (``whodunnet.snapshots.snapshot_pairing``)."""
    return snapshots.snapshot_pairing(evidence, registry.snapshot_kinds())


def _unknown(path: Path, message: str) -> EvidenceResult:
    return EvidenceResult(path=str(path), kind="unknown", summary={}, error=ErrorInfo(message=message))


def _describe(kind: str, head: bytes = b"") -> str:
    if kind == "empty":
        return "empty data"
    if kind == "binary":
        return f"binary data (starts with {head[:8].hex(' ')})" if head else "binary data"
    if kind == "text":
        if head:
            first = head.split(b"\n", 1)[0][:60].decode("utf-8", errors="replace").strip()
            return f"text (first line: {first!r})"
        return "text"
    return f"{kind} data"


def _size(path: Path | Source) -> int:
    if not isinstance(path, Path):
        return path.size
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


class _Throttle:
    """Forwards progress at most once per ``PROGRESS_INTERVAL`` seconds."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self._callback = callback
        self._last = -PROGRESS_INTERVAL

    def __call__(self, fraction: float, message: str, *, force: bool = False) -> None:
        if self._callback is None:
            return
        now = time.monotonic()
        if not force and now - self._last < PROGRESS_INTERVAL:
            return
        self._last = now
        self._callback(min(1.0, max(0.0, fraction)), message)
