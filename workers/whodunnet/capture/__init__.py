"""Packet captures: streaming pcap/pcapng/gzip reader, TCP connection table, findings."""

from whodunnet.capture.analyzer import CaptureAnalysis, analyze_capture
from whodunnet.capture.connections import Connection, Direction, SynEvent
from whodunnet.capture.timeseq import TimeSequence, time_sequence

__all__ = ["CaptureAnalysis", "Connection", "Direction", "SynEvent", "TimeSequence", "analyze_capture", "time_sequence"]
