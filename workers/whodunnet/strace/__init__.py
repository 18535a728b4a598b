"""strace evidence: the syscall parser, socket tracking by fd, and the application findings."""

from whodunnet.strace.analyzer import analyze_strace
from whodunnet.strace.parser import StraceTrace

__all__ = ["StraceTrace", "analyze_strace"]
