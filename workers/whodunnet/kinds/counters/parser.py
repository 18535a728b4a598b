"""Host counter snapshots: one parser for the formats engineers paste.

``nstat -az``/``-asz``, ``netstat -s``, ``/proc/net/netstat`` + ``/proc/net/snmp``
(+ ``snmp6``), ``ip -s link`` (old and new iproute2 column sets; SR-IOV ``vf N`` blocks are
not the interface's own counters and are skipped), ``ifconfig`` (net-tools 1.x and 2.x),
``netstat -i``, ``/proc/net/dev``, ``ethtool -S`` (and ``Speed:`` from ``ethtool``),
``conntrack -S``, ``/proc/net/stat/nf_conntrack`` and ``nf_conntrack_count``/``_max``.
A file may hold several of them one after the other. Counter names are the ones
nstat uses (``TcpRetransSegs``, ``TcpExtTCPSynRetrans``) whatever the source, so two
snapshots of different tools can still be compared by name.

An optional timestamp line (``=== 1795294294.15``, ``# 2024-05-01T12:00:00Z``,
``date: <epoch>``) dates the snapshot; ``# limit eth0 10Gbit`` gives an interface limit
for ``neighbours.link_usage``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from whodunnet.kinds.text import LineLog
from whodunnet.snapshots import UNREADABLE, timestamp_line

PROC_PREFIXES = frozenset(
    {"Ip", "Icmp", "IcmpMsg", "Tcp", "Udp", "UdpLite", "TcpExt", "IpExt", "MPTcpExt", "TlsExt", "Ip6", "Icmp6", "Udp6"}
)
_LIMIT = re.compile(r"^#\s*limit:?\s+(?P<iface>\S+)\s+(?P<rate>[\d.]+)\s*(?P<unit>[kmgt]?)(?:bit|bps|b/s)?\s*$", re.I)
_PROC_LINE = re.compile(r"^(?P<prefix>[A-Za-z0-9]+):\s+(?P<rest>\S.*)$")
_IP_IFACE = re.compile(r"^\d+:\s+(?P<name>[^:@\s]+)(?:@\S+)?:\s+<")
_IP_HEADER = re.compile(r"^\s+(?P<dir>RX|TX)(?P<sub> errors)?:\s+(?P<names>[a-z_ ]+)$")
_IP_VF = re.compile(r"^\s+vf\s+\d+\s")
_IFCONFIG_NEW = re.compile(r"^(?P<name>[^\s:]+):\s+flags=\d+<")
_IFCONFIG_OLD = re.compile(r"^(?P<name>\S+)\s+Link encap:")
_IFCONFIG_STATS = re.compile(r"^\s+(?P<dir>RX|TX)\s+(?P<body>(?:packets|errors|bytes).*)$")
_IFCONFIG_COLLISIONS = re.compile(r"^\s+collisions:(?P<v>\d+)(?:\s|$)")  # net-tools 1.x: own line
_NETSTAT_I_HEADER = re.compile(r"^Iface\s.*\sRX-OK\s+RX-ERR\s+RX-DRP\s+RX-OVR\s+TX-OK\s+TX-ERR\s+TX-DRP\s+TX-OVR")
_NETSTAT_I_ROW = re.compile(r"^\S+(?:\s+\d+)+(?:\s+[A-Za-z]+)?$")
_PAIR = re.compile(r"(?P<k>[a-z]+)[ :](?P<v>\d+)")
_PROCDEV_ROW = re.compile(r"^\s*(?P<name>[^\s:]+):\s*(?P<nums>\d+(?:\s+\d+){15})\s*$")
_ETHTOOL_ROW = re.compile(r"^\s+(?P<k>\S.*?):\s+(?P<v>-?\d+)\s*$")  # keys may hold ": " (rxq0: rx_pkts)
_ETHTOOL_CMD = re.compile(r"^(?:#|\$)\s*ethtool(?:\s+-S)?\s+(?P<iface>\S+)\s*$")
_ETHTOOL_SETTINGS = re.compile(r"^Settings for (?P<iface>\S+):$")  # ``ethtool IFACE``'s first line
#: ``grep . /sys/class/net/*/speed``: a NIC's link speed in Mbit/s (-1 or absent when it has none).
_SYS_SPEED = re.compile(r"^/sys/class/net/(?P<iface>[^/\s]+)/speed:\s*(?P<v>-?\d+)$")
_SPEED = re.compile(r"^\s*Speed:\s*(?P<v>\d+)\s*Mb/s", re.I)
_CONNTRACK_S = re.compile(r"^cpu=\d+\s+(?P<body>(?:\w+=\d+\s*)+)$")
_NSTAT = re.compile(r"^(?P<k>[A-Z][A-Za-z0-9_]+)\s+(?P<v>-?\d+)(?:\s+-?[\d.]+)?\s*$")
_SECTION = re.compile(r"^(?P<s>[A-Za-z][A-Za-z0-9 ]*):\s*$")
_NETSTAT_NUM_FIRST = re.compile(r"^\s+(?P<v>\d+)\s+(?P<phrase>.+?)\s*$")
_NETSTAT_NAMED = re.compile(r"^\s+(?P<k>[A-Za-z][\w ]*?):\s+(?P<v>\d+)\s*$")
_NETSTAT_PHRASE_NUM = re.compile(r"^\s+(?P<a>.*?\D)\s(?P<v>\d+)\s*(?P<b>.*)$")
_CT_COUNT = re.compile(
    r"^(?:/proc/sys/net/netfilter/|net\.netfilter\.)?(?P<k>nf_conntrack_(?:count|max))\s*[:= ]\s*(?P<v>\d+)\s*$"
)

#: ``netstat -s`` phrases → nstat names (net-tools' wording, including its typos).
NETSTAT_PHRASES: dict[str, str] = {
    "active connection openings": "TcpActiveOpens",
    "active connections openings": "TcpActiveOpens",
    "passive connection openings": "TcpPassiveOpens",
    "failed connection attempts": "TcpAttemptFails",
    "connection resets received": "TcpEstabResets",
    "connections established": "TcpCurrEstab",
    "segments received": "TcpInSegs",
    "segments send out": "TcpOutSegs",
    "segments sent out": "TcpOutSegs",
    "segments retransmited": "TcpRetransSegs",
    "segments retransmitted": "TcpRetransSegs",
    "bad segments received": "TcpInErrs",
    "resets sent": "TcpOutRsts",
    "times the listen queue of a socket overflowed": "TcpExtListenOverflows",
    "SYNs to LISTEN sockets dropped": "TcpExtListenDrops",
    "SYNs to LISTEN sockets ignored": "TcpExtListenDrops",
    "other TCP timeouts": "TcpExtTCPTimeouts",
    "total packets received": "IpInReceives",
    "incoming packets discarded": "IpInDiscards",
    "incoming packets delivered": "IpInDelivers",
    "requests sent out": "IpOutRequests",
    "outgoing packets dropped": "IpOutDiscards",
    "packets received": "UdpInDatagrams",
    "packets sent": "UdpOutDatagrams",
    "packet receive errors": "UdpInErrors",
    "packets to unknown port received": "UdpNoPorts",
    "receive buffer errors": "UdpRcvbufErrors",
    "send buffer errors": "UdpSndbufErrors",
    "fast retransmits": "TcpExtTCPFastRetrans",
    "retransmits in slow start": "TcpExtTCPSlowStartRetrans",
    "packets pruned from receive queue because of socket buffer overrun": "TcpExtPruneCalled",
    "delayed acks sent": "TcpExtDelayedACKs",
    "DSACKs sent for old packets": "TcpExtTCPDSACKOldSent",
    "DSACKs received": "TcpExtTCPDSACKRecv",
    "connections reset due to unexpected data": "TcpExtTCPAbortOnData",
    "connections reset due to early user close": "TcpExtTCPAbortOnClose",
    "connections aborted due to timeout": "TcpExtTCPAbortOnTimeout",
}
SECTION_PREFIX = {
    "Ip": "Ip",
    "Tcp": "Tcp",
    "Udp": "Udp",
    "TcpExt": "TcpExt",
    "IpExt": "IpExt",
    "Icmp": "Icmp",
    "UdpLite": "UdpLite",
}
IP_NAMES = {"bytes": "bytes", "packets": "packets", "errors": "errors", "dropped": "dropped", "overrun": "overrun",
            "missed": "missed", "mcast": "mcast", "carrier": "carrier", "collsns": "collisions", "length": "length_errors",  # noqa: E501
            "crc": "crc_errors", "frame": "frame_errors", "fifo": "fifo_errors", "aborted": "aborted_errors",
            "window": "window_errors", "heartbt": "heartbeat_errors", "transns": "transitions", "otherhost": "otherhost",  # noqa: E501
            "nohandler": "nohandler"}  # fmt: skip
#: net-tools prints the kernel's ``rx/tx_fifo_errors`` as "overruns" (ip's "overrun" is ``rx_over_errors``).
IFCONFIG_NAMES = {"packets": "packets", "bytes": "bytes", "errors": "errors", "dropped": "dropped",
                  "overruns": "fifo_errors", "frame": "frame_errors", "carrier": "carrier",
                  "collisions": "collisions"}  # fmt: skip
#: ``netstat -i`` columns (net-tools; RX-OVR/TX-OVR are the fifo errors, as in ifconfig).
NETSTAT_I_NAMES = {"RX-OK": "rx_packets", "RX-ERR": "rx_errors", "RX-DRP": "rx_dropped", "RX-OVR": "rx_fifo_errors",
                   "TX-OK": "tx_packets", "TX-ERR": "tx_errors", "TX-DRP": "tx_dropped",
                   "TX-OVR": "tx_fifo_errors"}  # fmt: skip
NETSTAT_I_NUMERIC = frozenset({"MTU", "Met", *NETSTAT_I_NAMES})
PROCDEV_FIELDS = ("bytes", "packets", "errors", "dropped", "fifo_errors", "frame_errors", "compressed", "mcast")
PROCDEV_TX_FIELDS = ("bytes", "packets", "errors", "dropped", "fifo_errors", "collisions", "carrier", "compressed")
NF_CONNTRACK_GLOBAL = frozenset({"entries"})
#: ``/proc/net/stat/nf_conntrack`` columns under the names ``conntrack -S`` gives the same counters (since
#: 5.x the second column counts clash resolutions, and since 5.15 the eighth counts inserts refused for a
#: hash chain that was too long; both were ``searched``/``delete_list`` before).
NF_CONNTRACK_NAMES = {"clashres": "clash_resolve", "chainlength": "chaintoolong", "icmp_error": "error"}


@dataclass
class Snapshot:
    """What one counters file holds. ``interfaces[name]`` keys are ``rx_bytes``, ``tx_dropped`` ..."""

    formats: list[str] = field(default_factory=list)
    timestamp: float | None = None
    counters: dict[str, int] = field(default_factory=dict)
    counter_lines: dict[str, int] = field(default_factory=dict)
    interfaces: dict[str, dict[str, int]] = field(default_factory=dict)
    interface_lines: dict[str, int] = field(default_factory=dict)
    conntrack: dict[str, int] = field(default_factory=dict)
    conntrack_lines: dict[str, int] = field(default_factory=dict)
    ethtool: dict[str, dict[str, int]] = field(default_factory=dict)
    speeds_mbps: dict[str, int] = field(default_factory=dict)
    limits_bps: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "formats": self.formats,
            "timestamp": self.timestamp,
            "counters": self.counters,
            "counter_lines": self.counter_lines,
            "interfaces": self.interfaces,
            "interface_lines": self.interface_lines,
            "conntrack": self.conntrack,
            "conntrack_lines": self.conntrack_lines,
            "ethtool": self.ethtool,
            "speeds_mbps": self.speeds_mbps,
            "limits_bps": self.limits_bps,
        }


class CounterParser:
    """A line-at-a-time state machine over the formats above; unknown lines are bad lines."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.snap = Snapshot()
        self._proc_header: tuple[str, list[str]] | None = None
        self._iface: str | None = None
        self._ip_header: tuple[str, list[str]] | None = None
        self._ip_vf = False
        self._netstat_i: list[str] | None = None
        self._section: str | None = None
        self._procdev = False
        self._ethtool: str | None = None
        self._ethtool_name = "nic"
        #: Inside ``ethtool IFACE``'s settings block: its other lines (link modes, duplex, ...) are not counters.
        self._ethtool_settings = False
        self._ct_header: list[str] | None = None

    def _format(self, name: str) -> None:
        if name not in self.snap.formats:
            self.snap.formats.append(name)

    def _set(self, name: str, value: int, line: int) -> None:
        self.snap.counters[name] = value
        self.snap.counter_lines[name] = line

    def _iface_set(self, iface: str, key: str, value: int, line: int) -> None:
        self.snap.interfaces.setdefault(iface, {})[key] = value
        self.snap.interface_lines.setdefault(iface, line)

    def feed(self, n: int, text: str) -> None:
        s = text.rstrip()
        stripped = s.strip()
        if not stripped:
            self._ethtool = None
            self._netstat_i = None
            self._section = None if not self._iface else self._section
            return
        if (when := timestamp_line(stripped)) is not None:
            if self.snap.timestamp is None:  # the first one dates the snapshot
                if when is UNREADABLE:
                    self.log.bad(n, "unreadable timestamp", text)
                else:
                    self.snap.timestamp = float(when)
            return
        if (m := _LIMIT.match(stripped)) is not None:
            scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group("unit").lower()]
            self.snap.limits_bps[m.group("iface")] = float(m.group("rate")) * scale
            return
        if (m := _ETHTOOL_CMD.match(stripped)) is not None:
            self._ethtool_name = m.group("iface")
            return
        if (m := _ETHTOOL_SETTINGS.match(stripped)) is not None:
            self._format("ethtool")
            self._ethtool_name, self._ethtool_settings = m.group("iface"), True
            return
        if (m := _SYS_SPEED.match(stripped)) is not None:
            if int(m.group("v")) > 0:
                self.snap.speeds_mbps[m.group("iface")] = int(m.group("v"))
            return
        if stripped == "#kernel":
            self._format("nstat")
            return
        if stripped.startswith("#") or stripped.startswith("$ "):
            return
        if stripped == "NIC statistics:":
            self._format("ethtool -S")
            self._ethtool = self._ethtool_name
            self._iface = None
            return
        if self._ethtool is not None and (m := _ETHTOOL_ROW.match(s)) is not None:
            self.snap.ethtool.setdefault(self._ethtool, {})[m.group("k").strip()] = int(m.group("v"))
            self.snap.interface_lines.setdefault(self._ethtool, n)
            return
        if (m := _SPEED.match(s)) is not None:
            self.snap.speeds_mbps[self._ethtool_name] = int(m.group("v"))
            return
        if (m := _CT_COUNT.match(stripped)) is not None:
            self._format("nf_conntrack")
            self.snap.conntrack[m.group("k").removeprefix("nf_conntrack_")] = int(m.group("v"))
            self.snap.conntrack_lines[m.group("k").removeprefix("nf_conntrack_")] = n
            return
        if (m := _CONNTRACK_S.match(stripped)) is not None:
            self._format("conntrack -S")
            for k, v in re.findall(r"(\w+)=(\d+)", m.group("body")):
                self.snap.conntrack[k] = self.snap.conntrack.get(k, 0) + int(v)
                self.snap.conntrack_lines.setdefault(k, n)
            return
        if stripped.startswith("entries") and "insert_failed" in stripped:
            self._format("/proc/net/stat/nf_conntrack")
            self._ct_header = [NF_CONNTRACK_NAMES.get(c, c) for c in stripped.split()]
            return
        if self._ct_header is not None and re.fullmatch(r"[0-9a-fA-F]+(\s+[0-9a-fA-F]+)+", stripped):
            values = stripped.split()
            if len(values) != len(self._ct_header):
                self.log.bad(n, f"{len(values)} values under {len(self._ct_header)} nf_conntrack columns", text)
                return
            for k, v in zip(self._ct_header, values, strict=True):
                if k in NF_CONNTRACK_GLOBAL:
                    self.snap.conntrack.setdefault(k, int(v, 16))
                else:
                    self.snap.conntrack[k] = self.snap.conntrack.get(k, 0) + int(v, 16)
                self.snap.conntrack_lines.setdefault(k, n)
            return
        if stripped == "Kernel Interface table":
            self._format("netstat -i")
            return
        if _NETSTAT_I_HEADER.match(stripped) is not None:
            self._format("netstat -i")
            self._netstat_i, self._iface, self._section, self._procdev = stripped.split(), None, None, False
            return
        if self._netstat_i is not None and not s[:1].isspace() and _NETSTAT_I_ROW.match(stripped) is not None:
            self._netstat_i_row(n, stripped, text)
            return
        # /proc/net/netstat and /proc/net/snmp: "Prefix: names" then "Prefix: values"
        if (m := _PROC_LINE.match(stripped)) is not None and m.group("prefix") in PROC_PREFIXES:
            prefix, fields = m.group("prefix"), m.group("rest").split()
            if all(re.fullmatch(r"-?\d+", f) for f in fields):
                header = self._proc_header
                if header is None or header[0] != prefix:
                    self.log.bad(n, f"{prefix} values without a {prefix} header line before them", text)
                    return
                if len(header[1]) != len(fields):
                    self.log.bad(n, f"{len(fields)} values under {len(header[1])} {prefix} names", text)
                for name, value in zip(header[1], fields, strict=False):
                    self._set(prefix + name, int(value), n)
                self._proc_header = None
                return
            if all(re.fullmatch(r"[A-Za-z][\w-]*", f) for f in fields):
                self._format("/proc/net/netstat+snmp")
                self._proc_header = (prefix, fields)
                return
        if (m := _IP_IFACE.match(s)) is not None:
            self._format("ip -s link")
            self._iface, self._ip_header, self._section, self._procdev = m.group("name"), None, None, False
            self._ip_vf = False
            self.snap.interface_lines.setdefault(self._iface, n)
            return
        if self._iface is not None and _IP_VF.match(s) is not None:
            self._ip_vf, self._ip_header = True, None  # "vf 0 link/ether ...": the RX/TX that follow are the VF's
            return
        if self._iface is not None and (m := _IP_HEADER.match(s)) is not None:
            direction = m.group("dir").lower()
            self._ip_header = (direction, m.group("names").split())
            return
        if self._iface is not None and self._ip_header is not None and re.fullmatch(r"\s+\d+(\s+\d+)*", s):
            direction, names = self._ip_header
            if self._ip_vf:
                self._ip_header = None
                return
            values = s.split()
            if len(values) != len(names):
                self.log.bad(n, f"{len(values)} values under {len(names)} {direction.upper()} columns", text)
            for name, value in zip(names, values, strict=False):
                self._iface_set(self._iface, f"{direction}_{IP_NAMES.get(name, name)}", int(value), n)
            self._ip_header = None
            return
        if (m := _IFCONFIG_NEW.match(s) or _IFCONFIG_OLD.match(s)) is not None:
            self._format("ifconfig")
            self._iface, self._ip_header, self._section, self._ip_vf = m.group("name"), None, None, False
            self.snap.interface_lines.setdefault(self._iface, n)
            return
        if self._iface is not None and (m := _IFCONFIG_STATS.match(s)) is not None:
            direction = m.group("dir").lower()
            body = m.group("body")
            # net-tools 1.x puts "RX bytes:1 (1 B)  TX bytes:2 (2 B)" on one line
            for part_dir, part in _split_rx_tx(direction, body):
                for pm in _PAIR.finditer(part):
                    field_name = IFCONFIG_NAMES.get(pm.group("k"))
                    if field_name is not None:
                        self._iface_set(self._iface, f"{part_dir}_{field_name}", int(pm.group("v")), n)
            return
        if self._iface is not None and (m := _IFCONFIG_COLLISIONS.match(s)) is not None:
            self._iface_set(self._iface, "tx_collisions", int(m.group("v")), n)
            return
        if stripped.startswith("Inter-|") or stripped.startswith("face |"):
            self._format("/proc/net/dev")
            self._procdev, self._iface = True, None
            return
        if self._procdev and (m := _PROCDEV_ROW.match(s)) is not None:
            nums = [int(x) for x in m.group("nums").split()]
            for name, value in zip(PROCDEV_FIELDS, nums[:8], strict=True):
                self._iface_set(m.group("name"), f"rx_{name}", value, n)
            for name, value in zip(PROCDEV_TX_FIELDS, nums[8:], strict=True):
                self._iface_set(m.group("name"), f"tx_{name}", value, n)
            return
        if self._iface is not None and s[:1].isspace():
            return  # other details of an interface block (link/ether, inet, ip -d attributes)
        if (m := _SECTION.match(stripped)) is not None and not s[:1].isspace():
            self._format("netstat -s")
            self._section, self._iface = m.group("s").strip(), None
            return
        if self._section is not None and s[:1].isspace():
            self._netstat_line(n, s, text)
            return
        if (m := _NSTAT.match(stripped)) is not None:
            self._format("nstat")
            self._set(m.group("k"), int(m.group("v")), n)
            return
        if self._ethtool_settings and (s[:1].isspace() or stripped.startswith("netlink error:")):
            return  # a setting of the link other than its speed, or ethtool saying what it could not read
        self.log.bad(n, "not a line of a known counters format", text)

    def _netstat_line(self, n: int, s: str, text: str) -> None:
        section = self._section or ""
        prefix = SECTION_PREFIX.get(section, section.replace(" ", ""))
        if (m := _NETSTAT_NAMED.match(s)) is not None:
            key = m.group("k").strip()
            if " " not in key:
                name = key if key.startswith(prefix) else prefix + key
                self._set(name, int(m.group("v")), n)
                return
            phrase, value = key, int(m.group("v"))
        elif (m := _NETSTAT_NUM_FIRST.match(s)) is not None:
            phrase, value = m.group("phrase").strip(), int(m.group("v"))
        elif (m := _NETSTAT_PHRASE_NUM.match(s)) is not None:
            phrase, value = f"{m.group('a').strip()} {m.group('b').strip()}".strip(), int(m.group("v"))
        else:
            if s.strip().endswith(":"):
                return  # sub-histogram headers ("ICMP input histogram:")
            self.log.bad(n, f"unreadable line in the {section} section", text)
            return
        name = NETSTAT_PHRASES.get(phrase.rstrip("."))
        if name is not None and name.startswith(prefix):
            self._set(name, value, n)

    def _netstat_i_row(self, n: int, stripped: str, text: str) -> None:
        columns = self._netstat_i or []
        values = stripped.split()
        numeric = [c for c in columns[1:] if c in NETSTAT_I_NUMERIC]
        has_flags = not values[-1].isdigit()
        if len(values) - 1 - int(has_flags) != len(numeric):
            self.log.bad(n, f"{len(values) - 1 - int(has_flags)} values under {len(numeric)} netstat -i columns", text)
            return
        name = values[0]
        for column, value in zip(numeric, values[1:], strict=False):
            key = NETSTAT_I_NAMES.get(column)
            if key is not None:
                self._iface_set(name, key, int(value), n)


def _split_rx_tx(direction: str, body: str) -> list[tuple[str, str]]:
    other = "tx" if direction == "rx" else "rx"
    marker = f"{other.upper()} "
    if marker in body:
        first, second = body.split(marker, 1)
        return [(direction, first), (other, second)]
    return [(direction, body)]
