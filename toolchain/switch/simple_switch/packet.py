"""A packet in flight through the switch: its PHV, payload and v1model side flags."""

from __future__ import annotations

__all__ = ["Packet", "NO_TRUNCATION"]

NO_TRUNCATION = 1 << 64


class Packet:
    __slots__ = ("F", "payload", "length", "ingress_length", "exit", "clone", "recirculate",
                 "resubmit", "learn", "truncate", "now_us", "enq_us", "enq_time", "seq", "data", "passes", "wire_size")

    def __init__(self, F: list, data: bytes):
        self.F = F
        self.data = data                 # the frame as it entered this ingress pass
        self.payload = b""
        # simple_switch's packet-length register, and the length the packet arrived with
        self.length = self.ingress_length = len(data)
        self.exit = False
        self.clone = None                # (mirror session, field list id)
        self.recirculate = None          # field list id
        self.resubmit = None             # field list id
        self.learn = 0                   # learn list id of the last digest() call (0: none)
        # bm::Packet's truncated_length: the smallest length truncate() was given; a new
        # Packet (a copy, a clone, a recirculated packet) starts without one
        self.truncate = NO_TRUNCATION
        self.now_us = 0
        self.enq_us = 0
        self.enq_time = 0.0
        self.seq = 0
        self.passes = 0                  # resubmit/recirculation passes so far
        self.wire_size = 0               # bytes on the wire while queued (set at enqueue for bps rates)
