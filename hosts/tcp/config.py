"""Engine configuration. Defaults follow the RFCs; the paper's ns-2 setup is in experiments/."""

from __future__ import annotations

from dataclasses import dataclass

from hosts.tcp.rtt import ESTIMATORS
from hosts.tcp.variants import VARIANTS

__all__ = ["TcpConfig", "DEFAULT_MSS", "RDTCP_MSS_REDUCTION", "MSL"]

DEFAULT_MSS = 1460            # Ethernet MTU 1500 - 20 (IPv4) - 20 (TCP)
# negotiated RD-TCP endpoints leave room for a 12-byte EPDN stamp (docs/architecture.md §4)
RDTCP_MSS_REDUCTION = 12
MSL = 120.0                   # RFC 9293 §3.4.2: Maximum Segment Lifetime, 2 minutes


@dataclass(frozen=True)
class TcpConfig:
    variant: str = "sack"           # hosts.tcp.variants.VARIANTS
    mss: int = DEFAULT_MSS          # MSS we announce and use at most
    sack: bool = True               # offer SACK-permitted (RFC 2018)
    timestamps: bool = False        # offer timestamps (RFC 7323 §3)
    window_scale: int | None = 7    # offer window scale (RFC 7323 §2); None: do not
    rdtcp: bool = False             # offer RD-TCP-permitted (docs/architecture.md §4)
    rdtcp_k: int = 3                # [RDTCP] §6: k = 3, i.e. dupthresh 6 on reordering
    delayed_ack: bool = False       # RFC 5681 §4.2; off as in the paper's ns-2 runs
    delayed_ack_timeout: float = 0.2    # RFC 5681 §4.2: < 500 ms
    max_cwnd_segments: int = 500    # [RDTCP] §4: maximum congestion window of 500 segments
    initial_window_segments: int | None = None  # None: RFC 5681 §3.1 (2-4 segments by MSS)
    rcv_buffer: int = 4 << 20       # receive buffer (bytes): the advertised window's bound
    snd_buffer: int = 1 << 20       # send buffer (bytes): how much the application may queue
    min_rto: float = 1.0            # RFC 6298 (2.4)
    max_rto: float = 60.0           # RFC 6298 (2.5)
    initial_rto: float = 1.0        # RFC 6298 (2.1)
    time_wait: float = 2 * MSL      # RFC 9293 §3.10.7.4: TIME-WAIT lasts 2*MSL, long enough that
                                    # the peer's retransmitted FIN is still acknowledged
    max_retries: int = 15           # give up after this many RTOs of one segment (RFC 9293 §3.8.3 R2)
    # the knobs [TCPDEBUG]'s OS profiles set (hosts/tcp/profiles.py builds configs from them)
    dupthresh: int = 3              # RFC 5681 §3.2 DupThresh of the sack/NewReno senders ([TCPDEBUG]: D)
    rto_estimator: str = "rfc6298"  # hosts.tcp.rtt.ESTIMATORS: "rfc6298", "linux-2.4" or
                                    # "histogram"; a variant built on its own (DSACK-HG) uses it
    rto_m: float = 1.0              # RTO = m·srtt + k·rttvar ([TCPDEBUG] Table 1.1; RFC 6298: 1 and 4;
                                    # Linux's estimator: 1 and 1, the linux-2.4 profile's)
    rto_k: float = 4.0
    clock_granularity: float = 0.001    # G: the timer's tick (RFC 6298 §2.2; [TCPDEBUG] Table 1.1)
    rtt_sampling: str = "per-ack"   # "per-ack" (RFC 7323 style: every ACK that can be timed)
                                    # or "per-flight" (one segment timed per RTT, as BSD/Windows)
    # limited transmit's bound: new data sent while duplicate ACKs arrive below dupthresh, in
    # windows of cwnd ([RRTCP] §2.3 and Table 2: 1); None: no bound but cwnd - pipe (RFC 6675 §5 (3))
    limited_transmit_cwnds: float | None = None
    # the sender's own window (ns-2's window_, [RRTCP] §5's maxwnd M): no new data beyond SND.UNA +
    # this many segments, limited transmit's and recovery's included; None: cwnd and the peer's
    send_window_segments: int | None = None
    fa_ratio: float | None = None   # RR-TCP's FA ratio: DSACK-FA's fixed one, DSACK-TA's first
                                    # ([RRTCP] §4.2-4.3); None: Table 2's 0.90
    partial_ack: str = "newreno"    # without SACK, a partial ACK in fast recovery: "newreno"
                                    # (RFC 6582: retransmit the next hole) or "wait" (no
                                    # retransmission, later holes wait for the RTO: Windows XP,
                                    # [TCPDEBUG] §3.2)
    # the window's arithmetic: "rfc5681" (bytes: RFC 5681 §3.1 eq. (3) in congestion avoidance,
    # eq. (4) on a loss, cwnd = ssthresh when fast recovery ends) or "ns2" (ns-2's TcpAgent, ns
    # Manual "TCP Agents": cwnd a real number of packets, +1 per new ACK in slow start and
    # +1/cwnd in congestion avoidance, halved on a loss with ssthresh its integer part, and
    # Sack1 leaving fast recovery with the halved cwnd, grown from the next ACK)
    cwnd_model: str = "rfc5681"
    # with cwnd_model "ns2", a fast retransmit halves cwnd to the whole packets of half the
    # window (ns-2's precisionReduce_ false, ns Manual "TCP Agents"); False: to the real half
    cwnd_halves_whole: bool = False
    # with SACK, what fast recovery counts as in flight and resends: "rfc6675" (SetPipe from
    # the scoreboard, IsLost's DupThresh SACKed segments above a hole) or "sack1" (ns-2's
    # Agent/TCP/Sack1, after Fall and Floyd: pipe a counter, flight - DupThresh packets at the
    # fast retransmit, -1 each ACK, -1 more a partial ACK, +1 each packet sent after the
    # retransmission; every hole below a SACKed packet is resent in turn)
    pipe_model: str = "rfc6675"
    # at most this many segments sent under cwnd at one instant (an ACK's, a timer's), ns-2's
    # maxburst_ (ns Manual, "TCP Agents"); None: no limit but cwnd
    max_burst: int | None = None
    # how a connection opens: "rfc9293" (the three-way handshake, options offered on the SYN
    # and answered on the SYN-ACK, RFC 9293 §3.5) or "one-way" (ns-2's one-way agents, ns
    # Manual "TCP Agents": sender and sink are configured alike and negotiate nothing, so the
    # SYN and its answer carry no options (40-byte packets) and an option-less SYN or SYN-ACK
    # from the peer means the peer's configuration is ours; the handshake's ACK rides on the
    # first data segment, which RFC 9293 §3.10.7.3 permits, instead of a segment of its own.
    # A peer whose SYN carries options is answered and negotiated with as RFC 9293 says)
    opening: str = "rfc9293"
    # at most this many SACK blocks on an ACK (ns-2's maxSackBlocks_, ns Manual §"Sack TCP
    # Sink"); None: as many as the option space holds, 4, or 3 beside timestamps (RFC 2018 §3)
    max_sack_blocks: int | None = None
    # ns-2's numdupacksFrac_ (ns Manual, "TCP Agents"; its sack suite's sack_dupacks1): at each
    # duplicate ACK DupThresh is the larger of ``dupthresh`` and the whole packets of cwnd over
    # this fraction, so a large window waits for more duplicate ACKs; None: DupThresh fixed
    dupthresh_cwnd_fraction: int | None = None
    # with delayed_ack, a listener answers a SYN when the delayed-ACK timer fires, as it
    # acknowledges a lone in-order segment (ns-2's DelAck sink with SYN_immediate_ack_ false,
    # ns Manual §"Delayed-ACK TCP Sink"); False: at once (RFC 9293 §3.10.7.2)
    delayed_ack_syn: bool = False
    # Limited Transmit (RFC 3042) also for a variant whose own rule sends nothing on duplicate
    # ACKs below DupThresh (BSD Reno): ns-2's Agent/TCP/Reno with singledup_ 1 sends one new
    # packet on each (ns Manual, "TCP Agents"); limited_transmit_cwnds still bounds it
    limited_transmit_always: bool = False
    # without SACK, the window after a partial ACK in fast recovery: "partial" (RFC 6582 §3.2
    # step 5: deflate by the data acknowledged, add back one segment) or "full" (the duplicate
    # ACKs' inflation is dropped and cwnd is ssthresh again, RFC 2582 §3's note on Hoe's
    # variant; ns-2's Newreno with partial_window_deflation_ 0, ns Manual "TCP Agents")
    partial_ack_deflation: str = "partial"
    # without SACK, which partial ACKs restart the retransmission timer: "each" (RFC 2582 §4's
    # Slow-but-Steady) or "first" (its Impatient variant, RFC 6582 §4.1: the first partial ACK
    # of a recovery only; ns-2's Newreno with newreno_changes1_ 1)
    partial_ack_timer: str = "each"
    # without SACK, the window when a full ACK ends fast recovery: min(ssthresh, FlightSize +
    # SMSS), RFC 6582 §3.2 step 4's first option, which avoids a burst when little is in flight
    # (ns-2's Newreno with exit_recovery_fix_, ns Manual "TCP Agents"); False: ssthresh (its
    # second option), or with cwnd_model "ns2" the halved cwnd kept
    exit_cwnd_flight: bool = False
    # without SACK, the guard against a second fast retransmit from one window's duplicate
    # ACKs (RFC 2582 §6, RFC 6582 §3.2 step 2): "careful" (none while the cumulative ACK does
    # not cover more than "recover"), "less-careful" (RFC 2582 §6's Less Careful variant: none
    # while it does not reach "recover"; ns-2's lessCareful_) or "off" (ns-2's bugFix_ false,
    # ns Manual "TCP Agents")
    recover_guard: str = "careful"
    # duplicate ACKs the guard refused still make room for new data (the engine's pipe counts
    # each as a segment gone); False: they send nothing, as ns-2's Reno family, which inflates
    # its window only in fast recovery (exitFastRetrans_, ns Manual "TCP Agents"); nor do those
    # that reach DupThresh while an RTO's go-back-N runs (recover is SND.MAX of the timeout,
    # RFC 6582 §4). With recover_guard "off" as well, those may start a fast retransmit
    guarded_dupacks_send: bool = True
    # Reno (a variant that leaves fast recovery on the first new ACK, LeaveRecovery) keeps
    # "recover" from its fast retransmit, so that recover_guard also holds off its next one
    # until the cumulative ACK covers more than it (RFC 2582 §3 step 1 and §6, RFC 6582 §3.2
    # step 2; ns-2's Agent/TCP/Reno with bugFix_, ns Manual "TCP Agents"); False: Reno forgets
    # it, so that three more duplicate ACKs for a hole still open retransmit (BSD Reno, RFC
    # 5681 §3.2)
    reno_keeps_recover: bool = False
    # variant "tahoe" only: no fast retransmit, every loss waits for the timer (ns-2's
    # Agent/TCP with noFastRetrans_, ns Manual "TCP Agents")
    no_fast_retransmit: bool = False
    # the retransmission timer starts afresh at the fast retransmit, with the sample in
    # progress dropped (Karn), as ns-2's agents do on their duplicate-ACK action
    # (reset_rtx_timer); RFC 6298 (5.1) leaves a running timer alone, so a fast retransmit
    # lost again times out one RTO after the last new ACK instead of after the retransmission
    rto_restart_at_fast_retransmit: bool = False

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown TCP variant {self.variant!r}; choose from "
                             f"{', '.join(sorted(VARIANTS))}")
        if not 64 <= self.mss <= 65495:
            raise ValueError(f"mss must be in 64..65495, got {self.mss}")
        if self.window_scale is not None and not 0 <= self.window_scale <= 14:
            raise ValueError("window_scale must be in 0..14 (RFC 7323 §2.3)")
        if self.rdtcp_k < 0 or self.max_cwnd_segments < 1:
            raise ValueError("rdtcp_k must be >= 0 and max_cwnd_segments >= 1")
        if self.rto_estimator not in ESTIMATORS:
            raise ValueError(f"unknown rto_estimator {self.rto_estimator!r}; choose from "
                             f"{', '.join(sorted(ESTIMATORS))}")
        if self.rtt_sampling not in ("per-ack", "per-flight"):
            raise ValueError(f"rtt_sampling must be 'per-ack' or 'per-flight', got "
                             f"{self.rtt_sampling!r}")
        if self.partial_ack not in ("newreno", "wait"):
            raise ValueError(f"partial_ack must be 'newreno' or 'wait', got {self.partial_ack!r}")
        if self.partial_ack_deflation not in ("partial", "full"):
            raise ValueError(f"partial_ack_deflation must be 'partial' or 'full', got "
                             f"{self.partial_ack_deflation!r}")
        if self.partial_ack_timer not in ("each", "first"):
            raise ValueError(f"partial_ack_timer must be 'each' or 'first', got "
                             f"{self.partial_ack_timer!r}")
        if self.recover_guard not in ("careful", "less-careful", "off"):
            raise ValueError(f"recover_guard must be 'careful', 'less-careful' or 'off', got "
                             f"{self.recover_guard!r}")
        if self.cwnd_model not in ("rfc5681", "ns2"):
            raise ValueError(f"cwnd_model must be 'rfc5681' or 'ns2', got {self.cwnd_model!r}")
        if self.pipe_model not in ("rfc6675", "sack1"):
            raise ValueError(f"pipe_model must be 'rfc6675' or 'sack1', got {self.pipe_model!r}")
        if self.opening not in ("rfc9293", "one-way"):
            raise ValueError(f"opening must be 'rfc9293' or 'one-way', got {self.opening!r}")
        if self.dupthresh_cwnd_fraction is not None and (self.dupthresh_cwnd_fraction < 1
                                                         or self.variant != "sack"):
            raise ValueError(f"dupthresh_cwnd_fraction must be >= 1 (or None), for variant "
                             f"'sack', got {self.dupthresh_cwnd_fraction} with "
                             f"{self.variant!r}")
        if self.max_sack_blocks is not None and self.max_sack_blocks < 1:
            raise ValueError(f"max_sack_blocks must be >= 1 (or None: as many as fit), got "
                             f"{self.max_sack_blocks}")
        if self.max_burst is not None and self.max_burst < 1:
            raise ValueError(f"max_burst must be >= 1 (or None: no limit), got {self.max_burst}")
        if not 0 <= self.time_wait < float("inf"):
            raise ValueError(f"time_wait must be a finite number of seconds >= 0, got "
                             f"{self.time_wait!r}")
        if self.no_fast_retransmit and self.variant != "tahoe":
            raise ValueError(f"no_fast_retransmit is for variant 'tahoe', got {self.variant!r}")
        if self.dupthresh < 1:
            raise ValueError(f"dupthresh must be >= 1, got {self.dupthresh}")
        if self.dupthresh != 3 and self.variant != "sack":
            # the other variants define their thresholds from the RFC's 3 (RD-TCP's 3 + k,
            # BL-INC's resets, RR-TCP's clamp): a different base is the plain senders' knob
            raise ValueError(f"dupthresh {self.dupthresh} is for variant 'sack' (an OS profile's "
                             f"D); {self.variant!r} sets its own from 3")
        if self.limited_transmit_cwnds is not None and not self.limited_transmit_cwnds >= 0:
            raise ValueError(f"limited_transmit_cwnds must be >= 0 (or None: unbounded), got "
                             f"{self.limited_transmit_cwnds}")
        if self.send_window_segments is not None and self.send_window_segments < 1:
            raise ValueError(f"send_window_segments must be >= 1 (or None), got "
                             f"{self.send_window_segments}")
        if self.fa_ratio is not None and not 0.0 <= self.fa_ratio <= 1.0:
            raise ValueError(f"fa_ratio must be in [0, 1], got {self.fa_ratio}")
        if not (self.rto_m > 0 and self.rto_k >= 0 and self.clock_granularity > 0
                and 0 < self.min_rto <= self.max_rto and self.initial_rto > 0):
            raise ValueError("the RTO parameters must satisfy rto_m > 0, rto_k >= 0, "
                             "clock_granularity > 0, 0 < min_rto <= max_rto, initial_rto > 0")
