"""The evidence app's Celery task names (beat sends the two sweeps; nothing else sends evidence tasks).

Kept beside ``analysis.dispatch`` and ``bisects.dispatch`` so ``tests/test_queues.py`` sees every stable name.
"""

from __future__ import annotations

REAP_UPLOADS = "evidence.reap_uploads"
PURGE_DELETED = "evidence.purge_deleted"
