"""The outbox's own task, by stable name: beat sends it (config/beat.py); nothing else needs to."""

from __future__ import annotations

RELAY = "outbox.relay"
