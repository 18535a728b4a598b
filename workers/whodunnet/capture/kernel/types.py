"""Type names for the kernel's arguments (for mypy; numba infers its own)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

#: The capture bytes.
Buffer = npt.NDArray[np.uint8]
#: A record array of one of ``fields``' record types (rows are records, fields by name).
Rows = Any
