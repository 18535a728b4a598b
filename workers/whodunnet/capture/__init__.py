"""Packet captures: streaming pcap/pcapng/gzip reader, TCP connection table, analyzer."""

from whodunnet.capture.analyzer import CaptureAnalysis, analyze_capture

__all__ = ["CaptureAnalysis", "analyze_capture"]
