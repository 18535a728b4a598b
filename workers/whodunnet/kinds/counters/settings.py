"""The counters kind's setting: each interface's limit, which ``neighbours.link_usage`` compares rates with.

A limit a person gives wins over the file's ``# limit eth0 10Gbit`` lines, which win over the NIC
speed from an ``ethtool`` "Speed:" line.
"""

from __future__ import annotations

import re

from whodunnet.kinds.settings import GBIT, RateMap

#: Interface names as the kernel allows them (IFNAMSIZ 16), plus '@' and ':' for veth/alias forms.
IFACE_NAME = re.compile(r"^[A-Za-z0-9_.@:-]{1,32}$")
#: The largest interface limit accepted (100 Tbit/s).
MAX_LINK_BPS = 1e14

LINK_LIMITS = RateMap(
    name="link_limits_bps",
    title="Interface limits",
    help="Interface → limit in bit/s (counters evidence), replacing the ones given before; the file is analysed again.",
    noun="interface limits",
    key_label="interface",
    key_noun="an interface",
    key_pattern=IFACE_NAME,
    keys_from="interfaces",
    maximum=MAX_LINK_BPS,
    display=GBIT,
    cli_flag="link-limit",
    cli_help="an interface's limit for neighbours.link_usage, e.g. eth0=10G or macvtap2=800M (repeatable)",
    submit_label="Save limits",
)
