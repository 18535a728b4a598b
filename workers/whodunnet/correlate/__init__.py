"""Analysis across the evidence of one run: counter deltas, kernel ranges, the receive-window model.

``correlate(evidence, findings)`` is registered in ``engine.COMBINERS``; it reads only the
``EvidenceResult`` summaries the per-file analyzers produced, so it is a pure function
of what is on the evidence cards.
"""

from whodunnet.correlate.combine import correlate

__all__ = ["correlate"]
