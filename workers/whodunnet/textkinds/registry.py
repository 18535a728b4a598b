"""Detected text kind → analyzer, merged into ``engine.ANALYZERS``."""

from __future__ import annotations

from whodunnet.appconfig.analyzer import analyze_app_config
from whodunnet.counters.analyzer import analyze_counters
from whodunnet.kernel.analyzer import analyze_kernel_versions, analyze_sysctl
from whodunnet.latency.analyzer import analyze_latency
from whodunnet.sockets.analyzer import analyze_sockets
from whodunnet.strace.analyzer import analyze_strace
from whodunnet.textkinds import Analyzer

TEXT_ANALYZERS: dict[str, Analyzer] = {
    "strace": analyze_strace,
    "kernel_versions": analyze_kernel_versions,
    "sysctl": analyze_sysctl,
    "counters": analyze_counters,
    "sockets": analyze_sockets,
    "latency": analyze_latency,
    "app_config": analyze_app_config,
}
