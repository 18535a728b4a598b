"""What the evidence app tells the layers above it, without importing them.

Evidence sits below analysis in the layering (analysis reads evidence; docs/architecture.md, "Layers"), so its
services cannot call analysis to queue a run. They send one of these signals inside the transaction that made
the change, and ``analysis.receivers`` queues the work in that same transaction. ``send`` refuses to send a
signal nobody receives: a missing receiver fails loudly instead of leaving evidence unread.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

# The file must be read (again): it was just stored, or a person changed its kind or its analysis settings.
# Sent with ``evidence``.
needs_reading = Signal()

# A person said where a file comes from (host, role, when it was taken): which snapshot is diffed with which, and
# every finding across evidence, may change. Sent with ``evidence``.
provenance_changed = Signal()

# A file was taken out of the analysis or put back (excluded / included, deleted / restored): every finding across
# the incident's evidence may change. Sent with ``evidence``.
use_changed = Signal()


def send(signal: Signal, **kwargs: Any) -> None:
    """Send ``signal`` to its receivers; an error when nothing receives it (the analysis app is not loaded)."""
    if not signal.has_listeners():
        raise ImproperlyConfigured("nothing receives the evidence signals: is 'analysis' in INSTALLED_APPS?")
    signal.send(sender=None, **kwargs)
