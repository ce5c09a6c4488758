"""The options two endpoints agree on in their SYN and SYN-ACK (RFC 9293 §3.7.1, RFC 2018 §2,
RFC 7323, RD-TCP-permitted, docs/architecture.md §4), and the values derived from them: the MSS a segment
carries and the initial window (TSval's clock is in timers.py).

``negotiate`` reads the peer's SYN or SYN-ACK; ``syn_options`` writes ours (a SYN-ACK answers
only what the SYN offered); ``configured_alike`` is the agreement of an option-less one-way
opening (TcpConfig.opening). The connection's state machine (connection.py) decides when.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from hosts.tcp.config import RDTCP_MSS_REDUCTION, TcpConfig

__all__ = ["Negotiated", "negotiate", "configured_alike", "syn_options", "initial_window",
           "DEFAULT_PEER_MSS", "TIMESTAMP_OPTION_BYTES", "MAX_WSCALE"]

DEFAULT_PEER_MSS = 536              # RFC 9293 §3.7.1: when the peer sends no MSS option
TIMESTAMP_OPTION_BYTES = 12         # RFC 7323 §3: NOP, NOP, kind 8 length 10
MAX_WSCALE = 14                     # RFC 7323 §2.3: larger shift counts are taken as 14


class Negotiated(NamedTuple):
    """What the peer's SYN (or SYN-ACK) and our configuration agree on."""
    mss: int                        # data bytes per segment (Eff.snd.MSS)
    sack_ok: bool                   # SACK-permitted both ways (RFC 2018 §2)
    ts_ok: bool                     # timestamps both ways (RFC 7323 §3)
    rdtcp_ok: bool                  # RD-TCP-permitted both ways (docs/architecture.md §4)
    peer_wscale: int | None         # the peer's window scale, None if it sent none
    ts_recent: int                  # the peer's TSval on its SYN (RFC 7323 §4.3 TS.Recent)


def negotiate(cfg: TcpConfig, options) -> Negotiated:
    """The peer's SYN or SYN-ACK options against ours (RFC 9293 §3.7.1, RFC 2018 §2, RFC 7323)."""
    peer_mss = DEFAULT_PEER_MSS
    peer_ws = None
    sack_ok = ts_ok = rdtcp_ok = False
    ts_recent = 0
    for name, value in options:
        if name == "MSS":
            peer_mss = value
        elif name == "SAckOK":
            sack_ok = cfg.sack
        elif name == "WScale":
            peer_ws = min(value, MAX_WSCALE)
        elif name == "Timestamp":
            ts_ok = cfg.timestamps
            ts_recent = value[0]
        elif name == "RDTCPOK":
            rdtcp_ok = cfg.rdtcp
    mss = max(64, min(cfg.mss, peer_mss))
    if ts_ok:
        # the MSS counts data only, every segment now carries a 12-byte timestamp option:
        # Eff.snd.MSS subtracts the options sent (RFC 9293 §3.7.1, RFC 6691 §2), or a
        # full segment would exceed the MTU (Linux's mss_cache: 1448 with timestamps)
        mss -= TIMESTAMP_OPTION_BYTES
    if rdtcp_ok:
        mss -= RDTCP_MSS_REDUCTION          # docs/architecture.md §4: room for a 12-byte EPDN stamp
    return Negotiated(mss, sack_ok, ts_ok, rdtcp_ok, peer_ws, ts_recent)


def configured_alike(cfg: TcpConfig) -> Negotiated:
    """What a peer configured as we are agrees on without saying so: the agreement our own
    SYN's options would reach (the one-way opening of ns-2's agents, TcpConfig.opening)."""
    return negotiate(cfg, syn_options(cfg, None, (0, 0)))


def syn_options(cfg: TcpConfig, peer: Negotiated | None, ts: tuple[int, int]) -> tuple:
    """Our SYN's options (``peer`` None), or our SYN-ACK's, which answers only what the peer's
    SYN offered (RFC 2018 §2, RFC 7323 §1.3). ``ts``: (TSval, TSecr) to send."""
    opts: list[tuple[str, Any]] = [("MSS", cfg.mss)]
    if cfg.sack and (peer is None or peer.sack_ok):
        opts += [("NOP", None), ("NOP", None), ("SAckOK", b"")]
    if cfg.window_scale is not None and (peer is None or peer.peer_wscale is not None):
        opts += [("NOP", None), ("WScale", cfg.window_scale)]
    if cfg.timestamps and (peer is None or peer.ts_ok):
        opts += [("NOP", None), ("NOP", None), ("Timestamp", ts)]
    if cfg.rdtcp and (peer is None or peer.rdtcp_ok):
        opts.append(("RDTCPOK", None))
    return tuple(opts)


def initial_window(cfg: TcpConfig, mss: int) -> int:
    """IW in bytes: the configured segments, else RFC 5681 §3.1 equation (1) by SMSS."""
    if cfg.initial_window_segments:
        return cfg.initial_window_segments * mss
    if mss > 2190:
        return 2 * mss
    if mss > 1095:
        return 3 * mss
    return 4 * mss
