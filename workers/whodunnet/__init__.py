"""Whodunnet engine: pure functions from evidence files to typed findings (no Django import)."""

import os

ENGINE_VERSION = "0.1.0"

# The engine does no linear algebra. numpy's OpenBLAS, left to itself, starts a thread per core when numpy is
# imported, and they spin a while: 0.14 s of CPU (of 0.9 s) for every `whodunnet analyze` of a small capture on a
# 2-core machine, on the core the scan's keeper and spill threads use. A user's own setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
