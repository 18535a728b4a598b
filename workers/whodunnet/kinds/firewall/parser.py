"""Firewall rule counters: ``iptables -L -v [-x] [-n]``, ``iptables-save -c`` and ``nft list ruleset``.

Every rule with a counter becomes one row: its table and chain, its text (without the counters,
so the same rule is found again in a later snapshot), what it does with a packet (``drop``,
``reject``, ``accept``, ``jump X``, ``log`` ...), and its packets and bytes. A chain's policy
is a row too when its counters are printed (iptables prints them; nftables does not count a
policy). ip6tables prints the same formats.

``iptables -L`` without ``-x`` rounds large counters (``12K``, ``3M``: iptables divides by 1000):
such values are read as printed and the row says ``rounded``. ``iptables -L`` does not print
the table; it is ``filter`` unless a ``$ iptables -t nat -L ...`` line above the output says
otherwise. A ``=== <epoch>`` or ``# <ISO time>`` line dates the snapshot (``whodunnet.snapshots``).
"""

from __future__ import annotations

import re
from typing import Any

from whodunnet.kinds.text import LineLog
from whodunnet.snapshots import SnapshotTime

#: Rows kept (a large Kubernetes node has tens of thousands of rules).
MAX_RULES = 200_000
DROPPING = frozenset({"drop", "reject"})

_IPT_CHAIN = re.compile(
    r"^Chain (?P<chain>\S+) \((?:policy (?P<policy>\w+) (?P<pkts>\d+[KMGT]?) packets, (?P<bytes>\d+[KMGT]?) bytes"
    r"|(?P<refs>\d+) references)\)$"
)
_IPT_COLUMNS = re.compile(r"^(?P<num>num\s+)?pkts\s+bytes\s+target\s+prot\s+opt\s+in\s+out\s+source\s+destination")
_IPT_COUNT = re.compile(r"^\d+[KMGT]?$")
_IPT_OPT = frozenset({"--", "-f", "!f"})
_IPT_COMMAND = re.compile(r"^[$#]\s*(?:sudo\s+)?ip6?tables(?:-legacy|-nft)?\s.*?(?:-t\s*|--table[= ])(?P<table>\w+)")
_SAVE_TABLE = re.compile(r"^\*(?P<table>\w+)$")
_SAVE_POLICY = re.compile(r"^:(?P<chain>\S+) (?P<policy>\S+) \[(?P<pkts>\d+):(?P<bytes>\d+)\]$")
_SAVE_RULE = re.compile(r"^\[(?P<pkts>\d+):(?P<bytes>\d+)\] -A (?P<chain>\S+) (?P<rule>.*)$")
_SAVE_TARGET = re.compile(r"(?:^| )-[jg] (?P<target>\S+)")
_NFT_TABLE = re.compile(r"^table (?P<family>ip|ip6|inet|arp|bridge|netdev) (?P<name>\S+) \{$")
_NFT_CHAIN = re.compile(r"^chain (?P<name>\S+) \{$")
_NFT_BLOCK = re.compile(r"^(?:set|map|flowtable|ct \w+|quota|limit|synproxy|secmark|tunnel) \S+ \{$")
_NFT_NAMED_COUNTER = re.compile(r"^counter (?P<name>\S+) \{$")
_NFT_COUNTER_VALUES = re.compile(r"^packets (?P<pkts>\d+) bytes (?P<bytes>\d+)")
_NFT_POLICY = re.compile(r"\bpolicy (?P<policy>\w+);")
_NFT_COUNTER = re.compile(r"\bcounter packets (?P<pkts>\d+) bytes (?P<bytes>\d+)")
_NFT_HANDLE = re.compile(r"\s*# handle \d+$")
_NFT_VERDICT = re.compile(
    r"\b(?P<verdict>accept|drop|reject|queue|continue|return|(?:jump|goto) \S+)\b"
    r"(?!.*\b(?:accept|drop|reject|jump|goto)\b)"  # the last verdict of the rule
)
_SCALE = {"": 1, "K": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4}


def count(text: str) -> tuple[int, bool]:
    """An iptables counter as printed (``12K`` = 12,000): its value and whether it was rounded."""
    m = re.fullmatch(r"(\d+)([KMGT]?)", text)
    if m is None:
        raise ValueError(text)
    return int(m.group(1)) * _SCALE[m.group(2)], bool(m.group(2))


def verdict_of(target: str) -> str:
    """An iptables target as what it does with a packet: ``DROP`` → ``drop``, a chain → ``jump <chain>``."""
    low = target.lower()
    if low in ("drop", "reject", "accept", "return", "log", "queue", "nflog", "mark", "masquerade", "snat", "dnat"):
        return low
    return f"jump {target}" if target else "count"


#: Protocol numbers iptables-nft prints in the prot column (legacy iptables prints the names).
PROTOCOLS = {"0": "all", "1": "icmp", "6": "tcp", "17": "udp", "58": "ipv6-icmp", "132": "sctp"}
_ANY = frozenset({"*", "0.0.0.0/0", "::/0", "--", "all", "0"})


def _ipt_rule_text(columns: list[str], target: str) -> str:
    """An ``iptables -L -v`` rule in iptables' own words, the columns that match anything left out:
    ``6 -- * * 0.0.0.0/0 0.0.0.0/0 tcp dpt:9`` with target DROP → ``-p tcp tcp dpt:9 -j DROP``."""
    prot, opt, iface_in, iface_out, src, dst, *extra = columns
    words = [f"-p {PROTOCOLS.get(prot, prot)}"] if prot not in _ANY else []
    words += [opt] if opt not in _ANY else []
    words += [
        f"{flag} {v}" for flag, v in (("-i", iface_in), ("-o", iface_out), ("-s", src), ("-d", dst)) if v not in _ANY
    ]
    words += extra
    words += [f"-j {target}"] if target else []
    return " ".join(words) or "(every packet)"


class FirewallParser:
    """A line-at-a-time reader of the three formats (a file holds one of them, or several tables)."""

    def __init__(self, log: LineLog) -> None:
        self.log = log
        self.formats: list[str] = []
        self.time = SnapshotTime(log)
        self.rules: list[dict[str, Any]] = []
        self.dropped_rules = 0
        self._seen: dict[str, int] = {}
        self._table = "filter"
        self._chain: str | None = None
        self._ipt_columns = False
        self._ipt_num = False
        self._nft_depth = 0
        self._nft_table: str | None = None
        self._nft_chain: str | None = None
        self._nft_policy: dict[str, str] = {}
        self._nft_skip_to: int | None = None
        self._nft_counter: str | None = None

    def _format(self, name: str) -> None:
        if name not in self.formats:
            self.formats.append(name)

    def _row(self, n: int, table: str, chain: str, rule: str, verdict: str, pkts: int, byts: int, **extra: Any) -> None:
        if len(self.rules) >= MAX_RULES:
            self.dropped_rules += 1
            return
        key = f"{table}/{chain}: {rule}"
        seen = self._seen.get(key, 0)
        self._seen[key] = seen + 1
        if seen:
            key += f" #{seen + 1}"  # the same rule twice in a chain: told apart by order
        self.rules.append(
            {"key": key, "table": table, "chain": chain, "rule": rule, "verdict": verdict, "packets": pkts,
             "bytes": byts, "line": n, **extra}
        )  # fmt: skip

    def feed(self, n: int, text: str) -> None:
        s = text.strip()
        if not s:
            self._chain = None if not self._nft_depth else self._chain
            return
        if self.time.feed(n, s):
            return
        if self._nft_depth:
            self._nft(n, s, text)
            return
        if (m := _IPT_COMMAND.match(s)) is not None:
            self._table = m.group("table")
            return
        if s.startswith("#") or s.startswith("$") or s == "COMMIT":
            return
        if (m := _NFT_TABLE.match(s)) is not None:
            self._format("nft list ruleset")
            self._nft_table, self._nft_depth = f"{m.group('family')} {m.group('name')}", 1
            return
        if (m := _IPT_CHAIN.match(s)) is not None:
            self._ipt_chain(n, m)
            return
        if (m := _IPT_COLUMNS.match(s)) is not None:
            self._ipt_columns, self._ipt_num = self._chain is not None, m.group("num") is not None
            return
        if self._chain is not None and self._ipt_columns:
            self._ipt_rule(n, s, text)
            return
        if (m := _SAVE_TABLE.match(s)) is not None:
            self._format("iptables-save")
            self._table = m.group("table")
            return
        if (m := _SAVE_POLICY.match(s)) is not None:
            if m.group("policy") != "-":
                policy = m.group("policy").lower()
                self._row(n, self._table, m.group("chain"), f"policy {policy}", policy, int(m.group("pkts")),
                          int(m.group("bytes")), policy=True)  # fmt: skip
            return
        if s.startswith("-A ") or re.match(r"^:\S+ \S+$", s):
            self._format("iptables-save")  # iptables-save without -c: rules, but no counters to read
            return
        if (m := _SAVE_RULE.match(s)) is not None:
            t = _SAVE_TARGET.search(m.group("rule"))
            verdict = verdict_of(t.group("target")) if t else "count"
            self._row(n, self._table, m.group("chain"), m.group("rule"), verdict, int(m.group("pkts")),
                      int(m.group("bytes")))  # fmt: skip
            return
        self.log.bad(n, "not a line of iptables -L -v, iptables-save -c or nft list ruleset", text)

    # -- iptables -L -v -------------------------------------------------------------------

    def _ipt_chain(self, n: int, m: re.Match[str]) -> None:
        self._format("iptables -L")
        self._chain, self._ipt_columns = m.group("chain"), False
        if m.group("policy") is not None:
            pkts, r1 = count(m.group("pkts"))
            byts, r2 = count(m.group("bytes"))
            policy = m.group("policy").lower()
            extra = {"rounded": True} if r1 or r2 else {}
            self._row(n, self._table, self._chain, f"policy {policy}", policy, pkts, byts, policy=True, **extra)

    def _ipt_rule(self, n: int, s: str, text: str) -> None:
        tokens = s.split()
        if self._ipt_num and tokens and tokens[0].isdigit():
            tokens = tokens[1:]
        if len(tokens) >= 9 and tokens[4] in _IPT_OPT:
            target, rest = tokens[2], tokens[3:]
        elif len(tokens) >= 8 and tokens[3] in _IPT_OPT:
            target, rest = "", tokens[2:]  # a rule without a target only counts
        else:
            self.log.bad(n, "an iptables rule line without the -v columns", text)
            return
        if not (_IPT_COUNT.match(tokens[0]) and _IPT_COUNT.match(tokens[1])):
            self.log.bad(n, "iptables packet and byte counts that are not numbers", text)
            return
        pkts, r1 = count(tokens[0])
        byts, r2 = count(tokens[1])
        rule = _ipt_rule_text(rest, target)
        extra = {"rounded": True} if r1 or r2 else {}
        assert self._chain is not None
        self._row(n, self._table, self._chain, rule, verdict_of(target), pkts, byts, **extra)

    # -- nft list ruleset -----------------------------------------------------------------

    def _nft(self, n: int, s: str, text: str) -> None:
        opens, closes = s.count("{"), s.count("}")
        if self._nft_skip_to is not None:
            self._nft_depth += opens - closes
            if self._nft_depth < self._nft_skip_to:
                self._nft_skip_to = None
            return
        if self._nft_counter is not None:
            if (m := _NFT_COUNTER_VALUES.match(s)) is not None:
                assert self._nft_table is not None
                self._row(n, self._nft_table, "(named counters)", f"counter {self._nft_counter}", "count",
                          int(m.group("pkts")), int(m.group("bytes")))  # fmt: skip
            if s == "}":
                self._nft_counter = None
                self._nft_depth -= 1
            return
        if s == "}":
            self._nft_depth -= 1
            if self._nft_depth == 1:
                self._nft_chain = None
            elif self._nft_depth == 0:
                self._nft_table = None
            return
        if self._nft_depth == 1:
            if (m := _NFT_CHAIN.match(s)) is not None:
                self._nft_chain, self._nft_depth = m.group("name"), 2
            elif (m := _NFT_NAMED_COUNTER.match(s)) is not None:
                self._nft_counter, self._nft_depth = m.group("name"), 2
            elif opens > closes:  # a set, map, flowtable...: its elements are no counters
                self._nft_depth += opens - closes
                self._nft_skip_to = 2
            elif not s.startswith(("#", "flags ", "comment ")):
                self.log.bad(n, "not a line of an nftables table", text)
            return
        if self._nft_chain is None or self._nft_table is None:
            self._nft_depth += opens - closes
            return
        if s.startswith("type ") and (m := _NFT_POLICY.search(s)) is not None:
            self._nft_policy[f"{self._nft_table}/{self._nft_chain}"] = m.group("policy")
            return
        if opens > closes:  # a rule spread over lines (a long anonymous set): its counter is on a later line
            self._nft_depth += opens - closes
            self._nft_skip_to = self._nft_depth
            self.log.bad(n, "an nftables rule over several lines is not read", text)
            return
        if (m := _NFT_COUNTER.search(s)) is None:
            return  # a rule without a counter counts nothing
        rule = _NFT_HANDLE.sub("", _NFT_COUNTER.sub("counter", s))
        v = _NFT_VERDICT.search(rule)
        verdict = v.group("verdict") if v else "count"
        self._row(n, self._nft_table, self._nft_chain, rule, verdict, int(m.group("pkts")), int(m.group("bytes")))

    def finish(self) -> None:
        if self.dropped_rules:
            self.log.bad(0, f"{self.dropped_rules:,} rules past the first {MAX_RULES:,} were not kept", "")

    def to_json(self) -> dict[str, Any]:
        return {
            "formats": self.formats,
            "timestamp": self.time.value,
            "rules": self.rules,
            "policies": self._nft_policy,
        }
