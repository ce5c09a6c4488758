"""ns-2 2.35's one-way TCP agents as engine configurations.

ns-2's one-way agents (the ns Manual, ch. "TCP Agents", §"One-Way TCP Senders" and §"TCP
Receivers (sinks)") are a sender class, ``Agent/TCP`` (Tahoe), ``/Reno``, ``/Newreno`` or
``/Sack1``, and a sink, ``Agent/TCPSink`` (one ACK per packet), ``/DelAck``, ``/Sack1`` or
``/Sack1/DelAck``, each configured by bound variables. ``Ns2Agent`` is one such pair with its
variables; ``configs()`` gives the sender's and the receiver's ``TcpConfig`` and, by name, every
value the engine does not yet act on as ns-2 does (``unmodelled``), so that a run or a
conformance test can say what it approximated.

Each variable and the engine knob it sets, with the documented rule:

=================  ===========================  ===========================================
ns-2 variable      TcpConfig                    the rule
=================  ===========================  ===========================================
window_            send_window_segments,        "bounds the window TCP uses ... the role of
                   max_cwnd_segments            the receiver's advertised window" (ns Manual
                                                §"Other Configuration Parameters"); RFC 9293
                                                §3.8.6 SND.WND
windowInit_        initial_window_segments      "initial/reset value of cwnd" (ibid.);
                                                RFC 5681 §3.1 IW
packetSize_        mss (useHeaders_: + 40 B     "packet size used by sender" (ibid.); with
                   of TCP/IP header on the      useHeaders_ true the agent adds its 40-byte
                   wire, else inside it)        TCP/IP header (tcpip_base_hdr_size_)
maxcwnd_           max_cwnd_segments            upper bound on cwnd_ (0: none)
tcpTick_           clock_granularity            "timer granularity" (ns Manual, "Round-Trip
                                                Time Estimation and RTO Timeout Selection");
                                                RFC 6298 §2 G; RTTs measured in whole ticks
minrto_            min_rto (at least two        RFC 6298 (2.4); ns-2 never sets a timer
                   ticks)                       shorter than 2 tcpTick_
rtxcur_init_       initial_rto                  RFC 6298 (2.1): the RTO before a sample
maxrto_            max_rto                      RFC 6298 (2.5) "bound on RTO"
numdupacks_        dupthresh                    NUMDUPACKS duplicate ACKs are a loss (ns
                                                Manual, "Responses to Congestion"); RFC 5681
                                                §3.2 DupThresh
singledup_         limited_transmit_cwnds       1: a new packet on each of the first two
                   (0 when off),                duplicate ACKs, RFC 3042 Limited Transmit,
                   limited_transmit_always      Reno's too
timestamps_        timestamps (mss + 12)        RFC 7323 timestamps (ns-2: off); the data
                                                packets keep packetSize_ of data, the option
                                                on top (ns-2's ts_option_size_, 10 bytes on
                                                the wire, none on the sink's ACKs: sim.nsnet)
(RTT timing)       rtt_sampling = per-flight    without timestamps one packet per RTT is
                                                timed (rtt_active_), Karn's rule (RFC 6298 §3)
SYN_immediate_     delayed_ack_syn (when off,   the DelAck sink acknowledges the SYN at
ack_               with a DelAck sink)          once; off, when its timer fires (ibid.)
DelAck interval_   delayed_ack,                 "the number of seconds to wait between ACKs";
                   delayed_ack_timeout          only in-order packets are delayed (ns Manual
                                                §"Delayed-ACK TCP Sink"); RFC 5681 §4.2
Sack1 sink         sack                         RFC 2018 SACK blocks (ns Manual §"Sack TCP
                                                Sink")
maxSackBlocks_     max_sack_blocks              at most that many blocks on an ACK (ibid.)
syn_               opening = one-way            one-way agents negotiate nothing (ns Manual,
                   (Ns2Configs.syn)             "TCP Agents"): a 40-byte SYN, the sink's
                                                40-byte ACK, the data next, with no third
                                                segment; syn_ false: no SYN in ns-2's
                                                time (sim.nsnet opens the engine before)
maxburst_          max_burst (0: None)          at most maxburst_ packets sent on one ACK
                                                or timer (ns Manual, "TCP Agents")
windowOption_ 1    cwnd_model = ns2             cwnd_ a real number of packets: +1/cwnd_
                                                per new ACK above ssthresh_, halved on a
                                                loss, ssthresh_ its integer part (ibid.)
Sack1 sender       pipe_model = sack1           Fall and Floyd's Sack1: fast recovery's pipe
                                                a counter of ACKs and packets sent
Newreno's          partial_ack_deflation        Newreno's RFC 2582 options (ns Manual, "TCP
partial_window_    ("full" when 0)              Agents"): 0 drops the duplicate ACKs'
deflation_                                      inflation at a partial ACK (RFC 2582 §3),
                                                1 deflates by the data acknowledged (RFC
                                                6582 §3.2 step 5)
newreno_changes1_  partial_ack_timer            1: the first partial ACK of a recovery
                   ("first" when 1)             restarts the timer, RFC 6582 §4.1 Impatient
bugFix_,           recover_guard ("off",        no second fast retransmit from one window's
lessCareful_       "careful", "less-careful")   duplicate ACKs (RFC 2582 §6, its Careful
                                                and Less Careful variants), nor from an
                                                RTO's go-back-N (RFC 6582 §4); "off": three
                                                duplicate ACKs always retransmit
Reno's bugFix_     reno_keeps_recover           Reno leaves fast recovery on the first new
                                                ACK but keeps "recover" for the guard (RFC
                                                2582 §3 step 1)
exitFastRetrans_   guarded_dupacks_send False   duplicate ACKs that start no fast recovery
                                                send nothing: the window is inflated in fast
                                                recovery only (Reno and Newreno)
precisionReduce_   cwnd_halves_whole (when      a loss halves cwnd_ to whole packets; true:
                   false)                       to the real half (both keep it as recovery
                                                ends, as ns-2 inflates dupwnd_, not cwnd_)
exit_recovery_     exit_cwnd_flight             Newreno leaves fast recovery with min(
fix_                                            ssthresh_, packets out + 1), RFC 6582 §3.2
                                                step 4 (1)
(duplicate-ACK     rto_restart_at_fast_         every agent restarts its retransmission
action)            retransmit                   timer at the fast retransmit and drops the
                                                RTT sample in progress (reset_rtx_timer),
                                                where RFC 6298 (5.1) keeps a running timer
=================  ===========================  ===========================================

The senders: ``Sack1`` is the engine's SACK sender (variant ``sack`` with Sack1's pipe);
``Newreno`` its NewReno path without SACK (RFC 6582: variant ``sack``, no SACK offered);
``Reno`` the engine's ``reno`` (fast recovery left on the first new ACK, partial or not, RFC 5681
§3.2 step 6, as the ns Manual's "Reno TCP" describes, with "recover" kept for bugFix_; that
variant sends no Limited Transmit of its own, ns-2's ``singledup_ 0``, and ``singledup_ 1``
turns it on); ``Tahoe`` (``Agent/TCP``) the engine's ``tahoe``: after a fast retransmit
cwnd is one packet and every packet not acknowledged goes out again in slow start, with no
fast recovery (noFastRetrans_ true: ``TcpConfig.no_fast_retransmit``, only the timer).

Values marked unmodelled are those ns-2 acts on and the engine has no knob for (rfc2988_
false, a Sack1 sender over a sink without SACK, ...): ``configs()``
lists each with the ns-2 rule, and the run keeps the engine's own rule there.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from hosts.tcp.config import TcpConfig
from hosts.tcp.handshake import TIMESTAMP_OPTION_BYTES

__all__ = ["Ns2Agent", "Ns2Configs", "Ns2Unsupported", "AGENTS", "SINKS", "AGENT_DEFAULTS",
           "SINK_DEFAULTS", "HEADER_BYTES"]

HEADER_BYTES = 40               # ns-2's tcpip_base_hdr_size_: a TCP/IP header without options
RCV_BUFFER = 1 << 24            # over 65535 << 7 bytes: the advertised window stays at its cap

# ns-2 2.35's defaults (tcl/lib/ns-default.tcl of the release: `Agent/TCP set NAME` prints them)
AGENT_DEFAULTS: dict[str, Any] = {
    "window_": 20, "windowInit_": 2, "packetSize_": 1000, "maxburst_": 0, "maxcwnd_": 0,
    "tcpTick_": 0.01, "minrto_": 0.2, "rtxcur_init_": 3.0, "maxrto_": 60.0, "rfc2988_": True,
    "numdupacks_": 3, "bugFix_": True, "exitFastRetrans_": True, "singledup_": 1,
    "syn_": True, "delay_growth_": True,
    "useHeaders_": True, "timestamps_": False, "noFastRetrans_": False, "overhead_": 0.0,
    "ecn_": 0, "windowOption_": 1, "increase_num_": 1.0, "decrease_num_": 0.5,
    "numdupacksFrac_": -1, "lessCareful_": False, "bugFix_ack_": False, "bugFix_ts_": False,
    "precisionReduce_": True, "updated_rttvar_": True, "timerfix_": True,
    "windowInitOption_": 1, "ts_resetRTO_": False, "old_ecn_": 0,
    # F-RTO (RFC 5682): frto_enabled_, its SACK-enhanced form sfrto_enabled_
    "frto_enabled_": 0, "sfrto_enabled_": 0, "spurious_response_": 1, "partial_ack_": False,
    # Newreno's variants of RFC 2582 (ns-2's defaults)
    "newreno_changes1_": 1, "partial_window_deflation_": 1, "exit_recovery_fix_": 0,
}
SINK_DEFAULTS: dict[str, Any] = {
    "interval_": 0.1, "maxSackBlocks_": 3, "ts_echo_rfc1323_": False,
    "RFC2581_immediate_ack_": True, "SYN_immediate_ack_": True,
}


@dataclass(frozen=True)
class _Agent:
    ns2_class: str
    variant: str                # the engine variant
    sack_sender: bool           # the sender uses SACK information (RFC 6675)


AGENTS: dict[str, _Agent] = {
    "Tahoe": _Agent("Agent/TCP", "tahoe", False),
    "Reno": _Agent("Agent/TCP/Reno", "reno", False),
    "Newreno": _Agent("Agent/TCP/Newreno", "sack", False),
    "Sack1": _Agent("Agent/TCP/Sack1", "sack", True),
}
# sink name -> (sends SACK blocks, delays ACKs)
SINKS: dict[str, tuple[bool, bool]] = {
    "": (False, False), "DelAck": (False, True), "Sack1": (True, False),
    "Sack1/DelAck": (True, True),
}


class Ns2Unsupported(ValueError):
    """The agent (or a value of it) cannot be run by the engine at all; the message says why."""


@dataclass(frozen=True)
class Ns2Configs:
    sender: TcpConfig
    receiver: TcpConfig
    wire_bytes: int             # a full data packet's size on ns-2's links (packetSize_ + 40
                                # with useHeaders_, else packetSize_)
    syn: bool                   # ns-2 sends a SYN first (syn_); without, data starts at once
    unmodelled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ns2Agent:
    """One ns-2 sender and sink with their bound variables (ns-2's names, e.g. ``window_``)."""

    agent: str = "Sack1"
    sink: str = "Sack1"
    params: Mapping[str, Any] = field(default_factory=dict)
    sink_params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.agent not in AGENTS:
            raise ValueError(f"unknown ns-2 agent {self.agent!r}; choose from "
                             f"{', '.join(AGENTS)}")
        if self.sink not in SINKS:
            raise ValueError(f"unknown ns-2 sink {self.sink!r}; choose from "
                             f"{', '.join(repr(s) for s in SINKS)}")
        bad = sorted(set(self.params) - set(AGENT_DEFAULTS))
        if bad:
            raise ValueError(f"unknown Agent/TCP variable(s) {', '.join(bad)}; known: "
                             f"{', '.join(AGENT_DEFAULTS)}")
        bad = sorted(set(self.sink_params) - set(SINK_DEFAULTS))
        if bad:
            raise ValueError(f"unknown TCPSink variable(s) {', '.join(bad)}; known: "
                             f"{', '.join(SINK_DEFAULTS)}")

    def value(self, name: str) -> Any:
        if name in SINK_DEFAULTS:
            return self.sink_params.get(name, SINK_DEFAULTS[name])
        return self.params.get(name, AGENT_DEFAULTS[name])

    def with_params(self, **params: Any) -> "Ns2Agent":
        return replace(self, params={**self.params, **params})

    def configs(self, base: TcpConfig | None = None) -> Ns2Configs:
        """The sender's and receiver's configurations (over ``base``'s other fields), the wire
        size of a data packet, and what the engine leaves unmodelled. Ns2Unsupported when the
        engine has no sender for the agent."""
        cls = AGENTS[self.agent]
        v = self.value
        variant = cls.variant
        if variant == "tahoe" and (v("frto_enabled_") or v("sfrto_enabled_")):
            raise Ns2Unsupported("Agent/TCP (Tahoe) with frto_enabled_: the engine's F-RTO "
                                 "has no Tahoe form")
        if v("frto_enabled_") or v("sfrto_enabled_"):
            # RFC 5682: the SACK-enhanced algorithm where SACK is in use, else the basic one
            variant = "frto" if cls.sack_sender else "frto-newreno"
        sink_sack, delack = SINKS[self.sink]
        tick = float(v("tcpTick_"))
        size = int(v("packetSize_"))
        mss = size if v("useHeaders_") else size - HEADER_BYTES
        if mss < 64:
            raise Ns2Unsupported(f"packetSize_ {size}: a segment of {mss} data bytes is below "
                                 f"the engine's smallest MSS of 64")
        window = int(v("window_"))
        maxcwnd = int(v("maxcwnd_"))
        # TcpConfig fields of several types, checked by the dataclass itself
        knobs: dict[str, Any] = dict(
            # with timestamps_ ns-2 adds its option (ts_option_size_) to the header and keeps
            # packetSize_ of data; the engine takes the option's 12 bytes out of the MSS (RFC
            # 6691 §2), so the MSS is the data and the option
            variant=variant, sack=cls.sack_sender and sink_sack,
            mss=mss + TIMESTAMP_OPTION_BYTES if v("timestamps_") else mss,
            timestamps=bool(v("timestamps_")),
            initial_window_segments=int(v("windowInit_")), send_window_segments=window,
            # ns-2 sends within min(cwnd_, window_) and takes ssthresh from that minimum
            # (ns Manual, "Responses to Congestion": "half of the current window size (the
            # minimum of cwnd_ and window_)"); cwnd_ itself may grow beyond window_ meanwhile.
            # Capping the engine's cwnd at window_ (and maxcwnd_) gives the same window.
            max_cwnd_segments=min(window, maxcwnd) if maxcwnd > 0 else window,
            # ns-2's sinks advertise no window (window_ is the sender's): a receive buffer
            # beyond what the window field can show keeps every ACK's window the same, so no
            # duplicate ACK is a window update (RFC 5681 §2 (e)) as the sink's reads free space
            window_scale=7, rcv_buffer=RCV_BUFFER,
            clock_granularity=tick,
            min_rto=max(float(v("minrto_")), 2 * tick), initial_rto=float(v("rtxcur_init_")),
            max_rto=float(v("maxrto_")), rto_m=1.0, rto_k=4.0, rtt_sampling="per-flight",
            partial_ack="newreno", cwnd_model="ns2",
            cwnd_halves_whole=not v("precisionReduce_"),
            pipe_model="sack1" if cls.sack_sender else "rfc6675",
            max_burst=int(v("maxburst_")) or None, opening="one-way",
            max_sack_blocks=int(v("maxSackBlocks_")),
            limited_transmit_cwnds=None if v("singledup_") else 0.0,
            limited_transmit_always=bool(v("singledup_")),
            delayed_ack=delack, delayed_ack_timeout=float(v("interval_")),
            # (without syn_ there is no SYN in ns-2 for the sink to delay)
            delayed_ack_syn=delack and not v("SYN_immediate_ack_") and bool(v("syn_")),
            rto_restart_at_fast_retransmit=True,
        )
        if cls.ns2_class == "Agent/TCP/Newreno":
            # Newreno's RFC 2582 options (ns Manual, "TCP Agents"): partial_window_deflation_
            # 0 drops the duplicate ACKs' inflation at a partial ACK (cwnd = ssthresh), 1
            # deflates by the data acknowledged (RFC 6582 §3.2 step 5); newreno_changes1_ 1
            # restarts the timer at the first partial ACK only (RFC 6582 §4.1, Impatient)
            knobs["partial_ack_deflation"] = ("partial" if v("partial_window_deflation_")
                                              else "full")
            knobs["partial_ack_timer"] = "first" if v("newreno_changes1_") else "each"
            # exit_recovery_fix_: leave with min(ssthresh_, the packets out + 1), RFC 6582
            # §3.2 step 4 (1)
            knobs["exit_cwnd_flight"] = bool(v("exit_recovery_fix_"))
            # bugFix_ false: duplicate ACKs below "recover" may fast-retransmit again
            knobs["recover_guard"] = ("off" if not v("bugFix_") else
                                      "less-careful" if v("lessCareful_") else "careful")
        if cls.ns2_class == "Agent/TCP/Reno":
            # Reno leaves fast recovery on the first new ACK but keeps "recover": bugFix_ holds
            # off a fast retransmit until the cumulative ACK covers more than it, after a
            # recovery (RFC 2582 §3 step 1) and after an RTO (RFC 6582 §4); without bugFix_
            # three duplicate ACKs always retransmit (ns Manual, "TCP Agents"). lessCareful_
            # is Newreno's alone
            knobs["reno_keeps_recover"] = True
            knobs["recover_guard"] = "careful" if v("bugFix_") else "off"
        if cls.ns2_class == "Agent/TCP":
            # Tahoe: bugFix_ guards its fast retransmit as Reno's (ns Manual, "TCP Agents");
            # noFastRetrans_ leaves every loss to the timer
            knobs["recover_guard"] = "careful" if v("bugFix_") else "off"
            knobs["no_fast_retransmit"] = bool(v("noFastRetrans_"))
        if cls.ns2_class in ("Agent/TCP", "Agent/TCP/Reno", "Agent/TCP/Newreno"):
            # exitFastRetrans_: the window is inflated by duplicate ACKs in fast recovery only,
            # so those that start none send nothing; false: every one from the DupThresh-th on
            knobs["guarded_dupacks_send"] = not v("exitFastRetrans_")
        if variant == "sack":
            knobs["dupthresh"] = int(v("numdupacks_"))
            # ns-2 takes int(cwnd_) / numdupacksFrac_ when it is the larger; at or below 0
            # (2.35's default -1) that is never so
            if v("numdupacksFrac_") > 0:
                knobs["dupthresh_cwnd_fraction"] = int(v("numdupacksFrac_"))
        config = replace(base or TcpConfig(), **knobs)
        return Ns2Configs(config, config, size + HEADER_BYTES if v("useHeaders_") else size,
                          bool(v("syn_")), self._unmodelled(cls))

    def _unmodelled(self, cls: _Agent) -> tuple[str, ...]:
        """Each value ns-2 acts on that the engine's configuration cannot express."""
        v = self.value
        out = []

        def note(name: str, rule: str) -> None:
            out.append(f"{name} {v(name)}: {rule}")
        if not v("rfc2988_"):
            note("rfc2988_", "ns-2 applies minrto_ after the backoff; the engine before it "
                             "(RFC 6298 (5.5))")
        if not v("bugFix_") and cls.ns2_class not in ("Agent/TCP/Newreno", "Agent/TCP/Reno"):
            note("bugFix_", "ns-2 may fast-retransmit again on duplicate ACKs from one window; "
                            "the engine never does (RFC 6582 §3.2 step 2)")
        if v("numdupacks_") != 3 and (cls.variant != "sack" or v("frto_enabled_")):
            note("numdupacks_", f"the engine's {cls.variant!r} sender keeps DupThresh 3")
        if cls.sack_sender and not SINKS[self.sink][0]:
            note("sink", "a Sack1 sender over a sink that sends no SACK blocks: the engine "
                         "runs its NewReno path (RFC 6582), ns-2 its Sack1 pipe without blocks")
        if v("maxSackBlocks_") > 4:
            note("maxSackBlocks_", "the engine's receiver sends at most 4 blocks, the most "
                                   "its option holds (RFC 2018 §3)")
        for name in ("overhead_", "ecn_", "lessCareful_", "bugFix_ack_", "bugFix_ts_",
                     "ts_resetRTO_", "partial_ack_"):
            if name == "lessCareful_" and cls.ns2_class == "Agent/TCP/Newreno":
                continue                            # recover_guard "less-careful"
            if v(name):
                note(name, "not modelled by the engine")
        if v("numdupacksFrac_") > 0 and (cls.variant != "sack" or v("frto_enabled_")):
            note("numdupacksFrac_", f"ns-2 raises numdupacks_ to cwnd/numdupacksFrac_; the "
                                    f"engine's {cls.variant!r} sender keeps DupThresh 3")
        if not v("updated_rttvar_") or not v("timerfix_"):
            out.append("updated_rttvar_/timerfix_: ns-2's older RTO arithmetic; the engine's "
                       "is RFC 6298's")
        if v("windowInitOption_") != 1:
            note("windowInitOption_", "ns-2 computes the initial window from the packet size "
                                      "(RFC 3390); the engine takes windowInit_")
        if v("frto_enabled_") or v("sfrto_enabled_"):
            out.append(f"frto_enabled_/sfrto_enabled_, spurious_response_ "
                       f"{v('spurious_response_')}: the engine's F-RTO responds by halving "
                       f"([FRTO] §3)")
        for name, default in (("ts_echo_rfc1323_", False), ("RFC2581_immediate_ack_", True)):
            if v(name) != default:
                note(name, "the engine's receiver does not offer this choice")
        if v("windowOption_") != 1 or v("increase_num_") != 1.0 or v("decrease_num_") != 0.5:
            out.append("windowOption_/increase_num_/decrease_num_: the engine's window grows "
                       "and halves as ns-2's defaults (1, 1.0, 0.5) only")
        return tuple(out)
