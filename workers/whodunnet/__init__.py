"""Whodunnet engine: pure functions from evidence files to typed findings (no Django import)."""

ENGINE_VERSION = "0.1.0"
