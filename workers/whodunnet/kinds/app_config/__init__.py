"""Application configuration: Kafka client properties (``receive.buffer.bytes``, ``request.timeout.ms`` ...)."""

from pathlib import Path

from whodunnet.kinds.app_config.analyzer import analyze_app_config
from whodunnet.kinds.app_config.describe import describe
from whodunnet.kinds.app_config.findings import FIELDS, FINDINGS
from whodunnet.kinds.app_config.sniff import is_app_config
from whodunnet.kinds.spec import Kind

KIND = Kind(
    name="app_config",
    label="Application config",
    analyze=analyze_app_config,
    streams=True,
    sniff_text=is_app_config,
    findings=FINDINGS,
    fields=FIELDS,
    fuzz_seeds=Path(__file__).parent / "fuzz_seeds",
    describe=describe,
)
