"""Kernel evidence: version strings, the known-changes knowledge base, sysctl, the receive-window model."""
