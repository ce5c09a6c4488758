"""Pinned outcomes of short seeded runs of the paper scenario: any change of behaviour fails here.

Refactors and optimisations of the simulator, the engine, the switch and the gateway program
(fewer events per packet, a faster traffic manager, cheaper frame decoding, code reshaped) must
not change a result. Each scenario below is run for a few seconds
of virtual time and summarised by a fingerprint that covers everything observable:

* every counter of the run (delivered bytes, the sender's retransmission statistics, swaps,
  both gateways' drop/EPDN/reordering counters, the stamps and reorder bits the hosts saw),
  except the number of executed events, which
  is an implementation detail the optimisations are meant to lower;
* the sender's state sampled every 0.25 s (cwnd, ssthresh, dupthresh, counters, goodput);
* a SHA-256 over every frame put on every link, in order, with its exact departure time
  (``repr`` of the float, so even a last-bit difference in a timestamp shows).

The PINNED values are this file's output when run as a script:

    python tests/sim/test_determinism_pinned.py

When a change of behaviour is intended (a TCP engine fix, a changed P4 program), rerun that
command, replace PINNED with its output, and say why in the commit message.
"""

from __future__ import annotations

import hashlib
import pprint
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

DURATION = 5.0       # seconds of virtual time per scenario
SAMPLE_STEP = 0.25   # seconds between time-series samples

# (name, RunSpec keyword arguments): the paper's swaps for the three senders, and the P4
# injection modes, so that the gateway's rewriting paths are exercised too
SCENARIOS = {
    "rdtcp_swap15": dict(variant="rdtcp", swaps=15, interval=1.0, seed=1),
    "sack_swap15": dict(variant="sack", swaps=15, interval=1.0, seed=2),
    "dsack_swap40_8s": dict(variant="dsack", swaps=40, interval=8.0, seed=3),
    "rdtcp_altpath": dict(variant="rdtcp", injection="altpath", level=0.05, seed=4),
    "sack_recirc": dict(variant="sack", injection="recirc", level=0.05, seed=5),
}


class _HashTap:
    """A channel tap (the ``write(time, frame)`` interface of ``netbase.pcap.PcapWriter``) that
    hashes what crosses every link, with the exact departure time."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.frames = 0

    def write(self, time: float, frame: bytes) -> None:
        self.h.update(repr(time).encode() + b"|" + len(frame).to_bytes(4, "big") + frame)
        self.frames += 1

    def close(self) -> None:
        pass


def _fingerprint(spec_kwargs: dict, program) -> dict:
    """Run one scenario the way ``experiments.studies.rdtcp.scenario.run_paper`` does, with a
    hashing tap on every link (one tap object shared by all channels: the order in which frames
    leave the nodes is part of the fingerprint)."""
    from experiments.runner.spec import RunSpec
    import experiments.studies.rdtcp.scenario as paper
    from experiments.studies.rdtcp.scenario import run_paper

    spec = RunSpec(duration=DURATION, sample_step=SAMPLE_STEP, **spec_kwargs)
    tap = _HashTap()
    build = paper.build_network

    def build_with_tap(spec_, program_):
        net = build(spec_, program_)
        for ch in net.channels.values():
            ch.taps.append(tap)
        return net

    paper.build_network = build_with_tap
    try:
        result = run_paper(spec, program)
    finally:
        paper.build_network = build
    stats = {k: v for k, v in sorted(result.stats.items()) if k != "events"}
    series = hashlib.sha256(repr(result.series).encode()).hexdigest()
    return {"delivered_bytes": result.delivered_bytes, "stats": stats,
            "endpoints": dict(sorted(result.endpoints.items())), "series_sha256": series,
            "frames": tap.frames, "links_sha256": tap.h.hexdigest()}


def compute_all() -> dict:
    from sim.program import gateway_json
    from toolchain.switch import load_program
    program = load_program(gateway_json())
    return {name: _fingerprint(kw, program) for name, kw in SCENARIOS.items()}


# the output of `python tests/sim/test_determinism_pinned.py` (see the module docstring)
PINNED = {'dsack_swap40_8s': {'delivered_bytes': 2671800,
                              'endpoints': {'rcv_epdn_ignored': 0,
                                            'rcv_epdn_stamps': 0,
                                            'rcv_reorder_acks': 0,
                                            'snd_reorder_dupacks': 0},
                              'frames': 11142,
                              'links_sha256': 'e3a305a10ac35d35ecb0500c4c78f439415d33aa0c5b757950aaf3ea9b92b061',
                              'series_sha256': '70e7087588f786a964c9f5197ccff578e99ad1818e229e511dcb92032a03dd07',
                              'stats': {'delay_extra_mean_ms': 0.0,
                                        'delayed_segments': 0,
                                        'fast_retransmits': 8,
                                        'r1_drops_buffer': 51,
                                        'r1_drops_malformed': 0,
                                        'r1_drops_no_route': 0,
                                        'r1_drops_pattern': 0,
                                        'r1_drops_random': 0,
                                        'r1_drops_spoofed': 0,
                                        'r1_drops_ttl': 0,
                                        'r1_epdn_events_collision': 0,
                                        'r1_epdn_events_defer_mtu': 1651,
                                        'r1_epdn_events_defer_no_room': 0,
                                        'r1_epdn_events_merge': 0,
                                        'r1_epdn_events_record': 51,
                                        'r1_epdn_events_stamp': 0,
                                        'r1_epdn_events_strip': 0,
                                        'r1_reorders_alternate_port': 0,
                                        'r1_reorders_recirculate': 0,
                                        'r2_drops_buffer': 0,
                                        'r2_drops_malformed': 0,
                                        'r2_drops_no_route': 0,
                                        'r2_drops_pattern': 0,
                                        'r2_drops_random': 0,
                                        'r2_drops_spoofed': 0,
                                        'r2_drops_ttl': 0,
                                        'r2_epdn_events_collision': 0,
                                        'r2_epdn_events_defer_mtu': 0,
                                        'r2_epdn_events_defer_no_room': 0,
                                        'r2_epdn_events_merge': 0,
                                        'r2_epdn_events_record': 0,
                                        'r2_epdn_events_stamp': 0,
                                        'r2_epdn_events_strip': 0,
                                        'r2_reorders_alternate_port': 0,
                                        'r2_reorders_recirculate': 0,
                                        'retransmits': 64,
                                        'spurious_retransmits': 10,
                                        'swap_displacement_max': 31,
                                        'swap_displacement_mean': 13.2,
                                        'swaps_done': 15,
                                        'swaps_reaching_3_dupacks': 14,
                                        'swaps_reaching_3k_dupacks': 11,
                                        'swaps_skipped': 3,
                                        'timeouts': 0}},
          'rdtcp_altpath': {'delivered_bytes': 2428296,
                            'endpoints': {'rcv_epdn_ignored': 14,
                                          'rcv_epdn_stamps': 157,
                                          'rcv_reorder_acks': 659,
                                          'snd_reorder_dupacks': 73},
                            'frames': 10800,
                            'links_sha256': 'b91a945a103dba072b14e883c62bd49d89be28c1d83c95174844c30cd3e86668',
                            'series_sha256': '639cc17e1a68b6ec072cce650729d9bfb60c98149f047a7ce456c0f007791fd7',
                            'stats': {'delay_extra_mean_ms': 0.0,
                                      'delayed_segments': 0,
                                      'fast_retransmits': 2,
                                      'r1_drops_buffer': 173,
                                      'r1_drops_malformed': 0,
                                      'r1_drops_no_route': 0,
                                      'r1_drops_pattern': 0,
                                      'r1_drops_random': 0,
                                      'r1_drops_spoofed': 0,
                                      'r1_drops_ttl': 0,
                                      'r1_epdn_events_collision': 0,
                                      'r1_epdn_events_defer_mtu': 0,
                                      'r1_epdn_events_defer_no_room': 0,
                                      'r1_epdn_events_merge': 0,
                                      'r1_epdn_events_record': 173,
                                      'r1_epdn_events_stamp': 171,
                                      'r1_epdn_events_strip': 0,
                                      'r1_reorders_alternate_port': 113,
                                      'r1_reorders_recirculate': 0,
                                      'r2_drops_buffer': 0,
                                      'r2_drops_malformed': 0,
                                      'r2_drops_no_route': 0,
                                      'r2_drops_pattern': 0,
                                      'r2_drops_random': 0,
                                      'r2_drops_spoofed': 0,
                                      'r2_drops_ttl': 0,
                                      'r2_epdn_events_collision': 0,
                                      'r2_epdn_events_defer_mtu': 0,
                                      'r2_epdn_events_defer_no_room': 0,
                                      'r2_epdn_events_merge': 0,
                                      'r2_epdn_events_record': 0,
                                      'r2_epdn_events_stamp': 0,
                                      'r2_epdn_events_strip': 0,
                                      'r2_reorders_alternate_port': 0,
                                      'r2_reorders_recirculate': 0,
                                      'retransmits': 257,
                                      'spurious_retransmits': 84,
                                      'swap_displacement_max': 0,
                                      'swap_displacement_mean': 0.0,
                                      'swaps_done': 0,
                                      'swaps_reaching_3_dupacks': 0,
                                      'swaps_reaching_3k_dupacks': 0,
                                      'swaps_skipped': 0,
                                      'timeouts': 1}},
          'rdtcp_swap15': {'delivered_bytes': 2535448,
                           'endpoints': {'rcv_epdn_ignored': 0,
                                         'rcv_epdn_stamps': 51,
                                         'rcv_reorder_acks': 194,
                                         'snd_reorder_dupacks': 189},
                           'frames': 10673,
                           'links_sha256': 'ea8c1c9cb182aee71e593fb8a2cca6fdcd33cd31b036f6406b52c4b13342a23f',
                           'series_sha256': 'f7aed70f2ba7f7f703cc7a7c44003c7bca8c3ee9a1da1f7066959b17d21d12f1',
                           'stats': {'delay_extra_mean_ms': 0.0,
                                     'delayed_segments': 0,
                                     'fast_retransmits': 3,
                                     'r1_drops_buffer': 51,
                                     'r1_drops_malformed': 0,
                                     'r1_drops_no_route': 0,
                                     'r1_drops_pattern': 0,
                                     'r1_drops_random': 0,
                                     'r1_drops_spoofed': 0,
                                     'r1_drops_ttl': 0,
                                     'r1_epdn_events_collision': 0,
                                     'r1_epdn_events_defer_mtu': 0,
                                     'r1_epdn_events_defer_no_room': 0,
                                     'r1_epdn_events_merge': 0,
                                     'r1_epdn_events_record': 51,
                                     'r1_epdn_events_stamp': 51,
                                     'r1_epdn_events_strip': 0,
                                     'r1_reorders_alternate_port': 0,
                                     'r1_reorders_recirculate': 0,
                                     'r2_drops_buffer': 0,
                                     'r2_drops_malformed': 0,
                                     'r2_drops_no_route': 0,
                                     'r2_drops_pattern': 0,
                                     'r2_drops_random': 0,
                                     'r2_drops_spoofed': 0,
                                     'r2_drops_ttl': 0,
                                     'r2_epdn_events_collision': 0,
                                     'r2_epdn_events_defer_mtu': 0,
                                     'r2_epdn_events_defer_no_room': 0,
                                     'r2_epdn_events_merge': 0,
                                     'r2_epdn_events_record': 0,
                                     'r2_epdn_events_stamp': 0,
                                     'r2_epdn_events_strip': 0,
                                     'r2_reorders_alternate_port': 0,
                                     'r2_reorders_recirculate': 0,
                                     'retransmits': 63,
                                     'spurious_retransmits': 12,
                                     'swap_displacement_max': 31,
                                     'swap_displacement_mean': 6.511,
                                     'swaps_done': 45,
                                     'swaps_reaching_3_dupacks': 25,
                                     'swaps_reaching_3k_dupacks': 16,
                                     'swaps_skipped': 30,
                                     'timeouts': 0}},
          'sack_recirc': {'delivered_bytes': 1522780,
                          'endpoints': {'rcv_epdn_ignored': 0,
                                        'rcv_epdn_stamps': 0,
                                        'rcv_reorder_acks': 0,
                                        'snd_reorder_dupacks': 0},
                          'frames': 6307,
                          'links_sha256': 'df61a1102b79dc6f51c8adeedef0d31e1313577248fe6fb235f211091512ccee',
                          'series_sha256': 'ffda0212e9cad116fed5c5c2a0b067862837f1d6f7721872d6acf889a5ec51ec',
                          'stats': {'delay_extra_mean_ms': 0.0,
                                    'delayed_segments': 0,
                                    'fast_retransmits': 2,
                                    'r1_drops_buffer': 0,
                                    'r1_drops_malformed': 0,
                                    'r1_drops_no_route': 0,
                                    'r1_drops_pattern': 0,
                                    'r1_drops_random': 0,
                                    'r1_drops_spoofed': 0,
                                    'r1_drops_ttl': 0,
                                    'r1_epdn_events_collision': 0,
                                    'r1_epdn_events_defer_mtu': 0,
                                    'r1_epdn_events_defer_no_room': 0,
                                    'r1_epdn_events_merge': 0,
                                    'r1_epdn_events_record': 0,
                                    'r1_epdn_events_stamp': 0,
                                    'r1_epdn_events_strip': 0,
                                    'r1_reorders_alternate_port': 0,
                                    'r1_reorders_recirculate': 45,
                                    'r2_drops_buffer': 0,
                                    'r2_drops_malformed': 0,
                                    'r2_drops_no_route': 0,
                                    'r2_drops_pattern': 0,
                                    'r2_drops_random': 0,
                                    'r2_drops_spoofed': 0,
                                    'r2_drops_ttl': 0,
                                    'r2_epdn_events_collision': 0,
                                    'r2_epdn_events_defer_mtu': 0,
                                    'r2_epdn_events_defer_no_room': 0,
                                    'r2_epdn_events_merge': 0,
                                    'r2_epdn_events_record': 0,
                                    'r2_epdn_events_stamp': 0,
                                    'r2_epdn_events_strip': 0,
                                    'r2_reorders_alternate_port': 0,
                                    'r2_reorders_recirculate': 0,
                                    'retransmits': 2,
                                    'spurious_retransmits': 2,
                                    'swap_displacement_max': 0,
                                    'swap_displacement_mean': 0.0,
                                    'swaps_done': 0,
                                    'swaps_reaching_3_dupacks': 0,
                                    'swaps_reaching_3k_dupacks': 0,
                                    'swaps_skipped': 0,
                                    'timeouts': 0}},
          'sack_swap15': {'delivered_bytes': 2100940,
                          'endpoints': {'rcv_epdn_ignored': 0,
                                        'rcv_epdn_stamps': 0,
                                        'rcv_reorder_acks': 0,
                                        'snd_reorder_dupacks': 0},
                          'frames': 8654,
                          'links_sha256': '22612dd7a24bed62a237fa83348bdcbab6edae66218fc540764e1f7ba4cf7d6f',
                          'series_sha256': '8d62ecfbe774fa0fec76ae06c955a241ad776d118043b44694d2d03bad837998',
                          'stats': {'delay_extra_mean_ms': 0.0,
                                    'delayed_segments': 0,
                                    'fast_retransmits': 2,
                                    'r1_drops_buffer': 0,
                                    'r1_drops_malformed': 0,
                                    'r1_drops_no_route': 0,
                                    'r1_drops_pattern': 0,
                                    'r1_drops_random': 0,
                                    'r1_drops_spoofed': 0,
                                    'r1_drops_ttl': 0,
                                    'r1_epdn_events_collision': 0,
                                    'r1_epdn_events_defer_mtu': 0,
                                    'r1_epdn_events_defer_no_room': 0,
                                    'r1_epdn_events_merge': 0,
                                    'r1_epdn_events_record': 0,
                                    'r1_epdn_events_stamp': 0,
                                    'r1_epdn_events_strip': 0,
                                    'r1_reorders_alternate_port': 0,
                                    'r1_reorders_recirculate': 0,
                                    'r2_drops_buffer': 0,
                                    'r2_drops_malformed': 0,
                                    'r2_drops_no_route': 0,
                                    'r2_drops_pattern': 0,
                                    'r2_drops_random': 0,
                                    'r2_drops_spoofed': 0,
                                    'r2_drops_ttl': 0,
                                    'r2_epdn_events_collision': 0,
                                    'r2_epdn_events_defer_mtu': 0,
                                    'r2_epdn_events_defer_no_room': 0,
                                    'r2_epdn_events_merge': 0,
                                    'r2_epdn_events_record': 0,
                                    'r2_epdn_events_stamp': 0,
                                    'r2_epdn_events_strip': 0,
                                    'r2_reorders_alternate_port': 0,
                                    'r2_reorders_recirculate': 0,
                                    'retransmits': 2,
                                    'spurious_retransmits': 2,
                                    'swap_displacement_max': 4,
                                    'swap_displacement_mean': 1.538,
                                    'swaps_done': 13,
                                    'swaps_reaching_3_dupacks': 2,
                                    'swaps_reaching_3k_dupacks': 0,
                                    'swaps_skipped': 62,
                                    'timeouts': 0}}}


@pytest.fixture(scope="module")
def program():
    from sim.program import gateway_json
    from toolchain.switch import load_program
    return load_program(gateway_json())


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_seeded_run_matches_pinned_outcome(name, program):
    got = _fingerprint(SCENARIOS[name], program)
    want = PINNED[name]
    # compare the readable parts first, so a failure says which counter moved
    assert got["delivered_bytes"] == want["delivered_bytes"]
    assert got["stats"] == want["stats"]
    assert got["endpoints"] == want["endpoints"], "the hosts saw other EPDN stamps or bits"
    assert got["series_sha256"] == want["series_sha256"], "sampled sender state differs"
    assert got["frames"] == want["frames"]
    assert got["links_sha256"] == want["links_sha256"], \
        "same counters, but some frame or departure time on some link differs"


def test_seeded_run_repeats_within_one_process(program):
    # the same seed twice in one process (shared loaded program, warm caches) gives the same
    # fingerprint: no state leaks between runs
    kw = SCENARIOS["rdtcp_swap15"]
    assert _fingerprint(kw, program) == _fingerprint(kw, program)


if __name__ == "__main__":
    pprint.pprint(compute_all(), width=100, sort_dicts=True)
