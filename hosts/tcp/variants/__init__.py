"""TCP variants as small policies over the one engine (hosts/tcp/connection.py).

A variant overrides only the hooks it changes; the engine calls every hook at the documented
point and never asks which variant runs. Register a variant with :func:`register`.

Sender hooks (positions are unwrapped offsets, see hosts/tcp/ranges.py):
- ``dupthresh``: attribute, the duplicate-ACK threshold now in force (RFC 6675 §2 DupThresh);
  the engine's IsLost (RFC 6675 §4) counts SACKed segments against it. It starts at
  ``config.dupthresh`` (3; an OS profile may set it for ``sack``, hosts/tcp/profiles.py).
- ``on_dupack(conn, seg, dupacks)``: a duplicate ACK arrived; may change ``dupthresh``.
- ``should_fast_retransmit(conn, dupacks) -> bool``: enter fast retransmit now (called after
  ``on_dupack``, outside recovery). Default: ``dupacks >= dupthresh`` (RFC 5681 §3.2 step 2).
- ``ssthresh_after_loss(conn) -> int``: ssthresh on a fast retransmit or an RTO. Default
  RFC 5681 eq. (4), max(FlightSize / 2, 2 * SMSS), with FlightSize not counting the data limited
  transmit sent since the episode's first duplicate ACK (§3.2 step 2;
  ``conn.flight_size_before_limited_transmit``).
- ``on_new_ack(conn)``: the cumulative ACK advanced (a dupack episode ended).
- ``retransmit_on_partial_ack(conn) -> bool``: without SACK, a partial ACK in fast recovery
  (RFC 6582 §3.2 step 5; ``config.partial_ack`` "newreno") retransmits the first unacknowledged
  segment at once when True (the default). Called after ``on_new_ack``, once per partial ACK; a
  variant returning False retransmits later itself (``conn.retransmit_head()``).
- ``on_enter_recovery(conn, prior_cwnd, prior_ssthresh)``: fast retransmit is about to happen.
- ``on_retransmit(conn, start, end)``: [start, end) is being sent again.
- ``on_dsack(conn, start, end, retransmitted)``: the peer reported [start, end) twice (RFC 2883).
- ``timeout_enters_recovery(conn) -> bool``: the retransmission timer expired outside any
  recovery; True makes the engine enter fast recovery (halve the window, retransmit the head,
  IsLost marks the rest) instead of the RTO's loss window and retransmission of everything
  unSACKed. Default False (RFC 6298, RFC 5681 §3.1). Called before ``on_timeout``.
- ``on_timeout(conn)``: the retransmission timer expired.
- ``on_ack(conn, seg, prior_una)``: any ACK, after the engine has processed it (``conn.snd_una
  > prior_una``: it acknowledged new data); ``seg`` carries its options (the peer's TSecr).
- ``timeout_retransmits_all(conn) -> bool``: whether an RTO marks every unSACKed segment lost
  (RFC 6675 §5.1, the default) or only the first, which it retransmits (F-RTO). Called after
  ``on_timeout``.
- ``new_data_allowance(conn) -> int``: while an RTO's recovery runs, how many new segments to
  send now beyond cwnd (F-RTO's two probes). Default 0.
- ``on_delivered(conn, start, end, sent_at, transmissions)``: [start, end) was acknowledged for
  the first time, by a SACK block or by the cumulative ACK (a segment SACKed earlier is not
  reported again when the cumulative ACK passes it); ``sent_at`` is the time of its latest
  transmission, ``transmissions`` how often it was sent. Called while the engine processes the
  ACK, SACK blocks first, then the cumulative ACK, each in sequence order, and before
  ``on_ack``. Only for policies whose class sets ``observes_deliveries = True`` (it costs a call
  per segment).
- ``dupthresh_loss_marking``: attribute, True (default) when the engine's RFC 6675 IsLost marks
  segments lost (on entering recovery, the head; then every unSACKed segment with ``dupthresh``
  SACKed segments above it); False for a variant that marks losses itself (RACK).
- ``on_deadline(conn, now) -> list[Segment]``: the variant's own timer, ``conn.policy_deadline``
  (a time the variant sets, or None), has expired; returns segments to send (a loss probe), after
  which the engine sends what the scoreboard and cwnd allow. The RTO, when due at the same time,
  goes first and this waits.
Class attributes the experiments read: ``needs_timestamps`` (the variant works only with the
timestamp option, RFC 7323; Eifel) and ``offers_sack`` (False for a sender built on the NewReno
path, Net Reno: the experiments do not offer SACK-permitted for it).
Receiver hooks:
- ``on_data(rcv, start, end, stamp)``: a data segment arrived, before reassembly, with the
  EPDN stamp (lo, hi) it carried or None (stamps reach here only on RD-TCP flows).
- ``ack_reorder_bit(rcv) -> bool``: whether the ACK about to be sent carries the reorder bit.

Engine calls a variant may make: ``conn.undo_reduction`` (restore the window a false fast
retransmit cut), ``conn.resume_after_spurious_timeout`` (leave an RTO's go-back-N recovery),
``conn.mark_all_lost`` (go on with an RTO's conventional recovery), ``conn.ts_val()`` (the TSval
being sent now), ``conn.unsent``, ``conn.highest_sacked()``, ``conn.now`` (the time of the event
being processed), ``conn.rtt`` (the RFC 6298 estimator: ``srtt``, ``rttvar``, ``rto``),
``conn.sacked_out`` (bytes SACKed), ``conn.rto_deadline``, ``conn.restart_rto()``,
``conn.pipe`` (RFC 6675 SetPipe, bytes), ``conn.retransmit_head()`` (the first unacknowledged
segment is lost, again if it was retransmitted: it goes out on this event regardless of pipe),
``conn.carry_dupacks(n)`` (outside recovery, after a cumulative ACK: the next unacknowledged
segment counts as having drawn ``n`` duplicate ACKs, each one a segment gone from pipe without
SACK); a variant may also lower ``conn.cwnd`` during recovery; for variants
that detect losses themselves: ``conn.mark_lost_by_send_time(xmit_ts, end_seq, window)`` (RACK's
rule: mark lost what was sent ``window`` before the delivered segment (xmit_ts, end_seq); returns
how many it marked and the time until the next would be), ``conn.enter_recovery()`` (fast recovery for the losses
marked), ``conn.send_probe(now)`` (a tail loss probe: new data beyond cwnd, else the last
segment again) and ``conn.reduce_window()`` (the congestion response to a repaired loss).

Written: ``sack``, ``dsack``, ``dsack-inc``, ``dsack-avg`` (dsack.py), ``eifel`` (eifel.py), ``frto`` (frto.py:
001's halving response to a spurious timeout; ``frto-undo`` and ``frto-rfc4015`` with the others),
``newreno``, ``frto-newreno``, ``eifel-newreno`` (newreno.py: the three on the NewReno path, 001 §5.1;
``frto-newreno-undo``, ``frto-newreno-rfc4015``),
``rack`` (rack.py: RACK-TLP, RFC 8985, on on_delivered, on_deadline and the loss-marking calls),
``rrtcp``, ``rrtcp-fa`` (rrtcp.py: RR-TCP, 000: a reordering histogram from on_delivered, dupthresh
at an FA-ratio percentile, DSACK undo; ``rrtcp`` adapts the FA ratio by cost),
``rdtcp``, ``rdtcp-adaptive``, ``rdtcp-measured`` and ``rdtcp-measured-undo`` (rdtcp.py; they change
k, and ``RdTcp.wait_k`` is how many duplicate ACKs beyond three a hole marked reordered waits for;
the last also undoes false fast retransmits); spurious.py detects a false fast retransmit from
DSACKs and undoes its window reduction (``FalseRecoveryUndo``); ``netreno`` (netreno.py: Net Reno, 002, on the NewReno path: the
partial-ACK deflation and exit window by on_ack and ``retransmit_on_partial_ack``, the reordering
guard and the lost-retransmission clock by on_dupack, on_retransmit and ``conn.retransmit_head``,
the small-window rule by ``conn.carry_dupacks`` and ``ssthresh_after_loss``, back-to-back
recovery by ``conn.enter_recovery``; with a SACK peer it is ``sack``).

How the planned variants map onto these hooks (engine state they read is public on ``conn``:
``cwnd``, ``ssthresh``, ``snd_una``, ``snd_max``, ``flight_size``, ``mss``, ``stats``):
- Net Reno with SACK (002 §5.2, NR-LSSACK, ``netreno-sack``): not written. The rules of
  ``netreno`` carry over (on_retransmit's marker, on_dupack's clock, ``conn.retransmit_head``);
  what it needs besides is the loss-sensitive pipe (no extra segment per retransmission,
  002 §5.2 rule 1: lower ``conn.cwnd`` by one MSS per retransmission) and a partial-ACK hook on
  the SACK path, where the engine has none today (a partial ACK is handled by IsLost there).
- Limited Transmit (RFC 3042): the engine already sends new data on each duplicate ACK below
  DupThresh whenever cwnd - pipe allows it (RFC 6675 §5 step (3), the SACK form of Limited
  Transmit), which is what keeps the ACK clock running while RD-TCP waits for 3+k dupacks and
  while BL-INC/BL-AVG wait for a raised dupthresh (without SACK, each duplicate ACK counts as
  one segment gone from pipe, the same one new segment per duplicate ACK).
"""

from __future__ import annotations

from hosts.tcp.variants.base import DUPTHRESH, VARIANTS, LossRecoveryPolicy, get_variant, register
from hosts.tcp.variants import sack, dsack, eifel, frto, netreno, rack, rdtcp, rrtcp  # noqa: F401  (registration)
from hosts.tcp.variants import newreno  # noqa: F401  (registration: 001's NewReno forms)

__all__ = ["LossRecoveryPolicy", "VARIANTS", "register", "get_variant", "DUPTHRESH"]
