"""Errors of the bisect engine."""

from __future__ import annotations


class BisectError(Exception):
    """Git refused or failed a bisect operation (bad refs, swapped good/bad, no testable commit).

    ``output`` carries what git printed, so a caller can store it with the failed job.
    """

    def __init__(self, message: str, *, output: str = "") -> None:
        super().__init__(message if not output else f"{message}: {output.strip()[-2000:]}")
        self.message = message
        self.output = output


class SpecError(ValueError):
    """A bisect spec that cannot run (no command, repeats < 1, bad agreement share, ...)."""
