"""The receive-window model: how large a window a kernel advertises for a given SO_RCVBUF.

Formula, per kernel (``S`` = SO_RCVBUF the application asked for):

* ``sk_rcvbuf = 2 × min(S, net.core.rmem_max)`` (the kernel doubles the value for
  bookkeeping; ``man 7 socket``), at least 2304 bytes (SOCK_MIN_RCVBUF).
* **before 6.6** (no dfa2f0483360): ``window = tcp_win_from_space(sk_rcvbuf)`` =
  ``sk_rcvbuf − sk_rcvbuf / 2^tcp_adv_win_scale`` for ``tcp_adv_win_scale > 0`` and
  ``sk_rcvbuf / 2^−tcp_adv_win_scale`` otherwise. Default scale 1 → ``window = S``.
* **6.6 with dfa2f0483360, without 697a6c8cec03** (6.6.0–6.6.32, 6.7, 6.8 < 6.8.12,
  6.9 < 6.9.3): ``window_clamp = sk_rcvbuf × 64/256`` (TCP_DEFAULT_SCALING_RATIO, ~25 %),
  computed when the connection starts and — for SO_RCVBUF sockets — never updated
  when the measured ratio rises, so ``window = S / 2``. tcp_adv_win_scale is ignored.
* **with 697a6c8cec03, without 05f76b2d634e** (6.6.33–6.6.44, 6.10.0–6.10.3, 6.8.12+, 6.9.3+):
  the initial ratio is 128/256 → ``window = sk_rcvbuf / 2 = S``.
* **with 05f76b2d634e** (6.6.45+, 6.10.4+, 6.11+): window_clamp follows the measured
  ratio ``skb->len / skb->truesize`` → ``window ≈ sk_rcvbuf × r``. ``r`` depends on the
  driver and MTU, so the model gives no number unless a ratio is passed (a capture's measured
  window divided by sk_rcvbuf); it assumes none.

Assumptions: the window is the only limit on throughput (no loss, cwnd never smaller,
the sender always has data), so ``rate = window / RTT`` and a transfer of ``N`` bytes
takes one RTT for the handshake plus ``N / rate``. Window scaling granularity and
slow start are ignored: they make the real transfer a little slower or faster. tcp_rmem only
matters when SO_RCVBUF is not set (autotuning up to tcp_rmem[2]).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from whodunnet.kernel.kb import change, has_change
from whodunnet.kernel.versions import Version

SOCK_MIN_RCVBUF = 2304
DEFAULT_ADV_WIN_SCALE = 1
DEFAULT_RMEM_MAX = 212992

#: Kernels the strace finding shows its per-kernel table for.
REFERENCE_KERNELS: tuple[tuple[str, Version], ...] = (
    ("6.5 and older (tcp_adv_win_scale=1)", (6, 5, 13)),
    ("6.6.0-6.6.32 (dfa2f0483360)", (6, 6, 10)),
    ("6.6.33-6.6.44, 6.10.0-6.10.3 (697a6c8cec03)", (6, 6, 33)),
    ("6.6.45+, 6.10.4+, 6.11+ (05f76b2d634e)", (6, 6, 45)),
)


@dataclass(frozen=True)
class WindowEstimate:
    """The largest window one kernel advertises for one SO_RCVBUF, and how it was computed."""

    regime: str
    so_rcvbuf: int
    sk_rcvbuf: int
    #: None when it depends on what only a measurement says (the traffic's skb->len/truesize).
    window: int | None
    ratio: float | None
    formula: str
    assumption: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "regime": self.regime,
            "so_rcvbuf": self.so_rcvbuf,
            "sk_rcvbuf": self.sk_rcvbuf,
            "window": self.window,
            "ratio": self.ratio,
            "formula": self.formula,
            "assumption": self.assumption,
        }


def window_for_rcvbuf(
    so_rcvbuf: int,
    version: Version,
    *,
    adv_win_scale: int = DEFAULT_ADV_WIN_SCALE,
    rmem_max: int | None = None,
    measured_ratio: float | None = None,
) -> WindowEstimate:
    """The receive-window ceiling of a socket with SO_RCVBUF=``so_rcvbuf`` on ``version``."""
    asked = max(0, so_rcvbuf)
    if rmem_max is not None:
        asked = min(asked, rmem_max)
    sk = max(SOCK_MIN_RCVBUF, 2 * asked)
    if not has_change(change("dfa2f0483360"), version):
        s = max(-31, min(31, adv_win_scale))
        window = sk - (sk >> s) if s > 0 else sk >> -s
        return WindowEstimate(
            "tcp_adv_win_scale", so_rcvbuf, sk, window, window / sk,
            f"sk_rcvbuf - sk_rcvbuf/2^{s}" if s > 0 else f"sk_rcvbuf/2^{-s}",
        )  # fmt: skip
    if has_change(change("05f76b2d634e"), version):
        return WindowEstimate(
            "clamp_follows_measured_ratio", so_rcvbuf, sk, int(sk * measured_ratio) if measured_ratio else None,
            measured_ratio, "sk_rcvbuf x skb->len/skb->truesize",
            "" if measured_ratio else "skb->len/skb->truesize depends on the driver and MTU: only a capture says",
        )  # fmt: skip
    if has_change(change("697a6c8cec03"), version):
        return WindowEstimate("scaling_ratio_50", so_rcvbuf, sk, sk * 128 >> 8, 0.5, "sk_rcvbuf x 128/256")
    return WindowEstimate(
        "scaling_ratio_25", so_rcvbuf, sk, sk * 64 >> 8, 0.25, "sk_rcvbuf x 64/256 (clamp never updated)"
    )


def window_text(w: dict[str, Any]) -> str:
    """``32,768 bytes`` or, when it follows the traffic, ``sk_rcvbuf × skb->len/truesize (up to 131,072 bytes)``."""
    if w.get("window") is not None:
        return f"{w['window']:,} bytes"
    return f"{w['sk_rcvbuf']:,} bytes × the traffic's skb->len/truesize"


def transfer_seconds(nbytes: int, window: int, rtt_s: float) -> float:
    """Handshake RTT + ``nbytes`` at ``window / rtt`` (the window is the only limit)."""
    if window <= 0 or rtt_s <= 0:
        return float("inf")
    return rtt_s + nbytes * rtt_s / window
