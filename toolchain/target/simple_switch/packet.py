"""A packet in flight through the switch: its PHV, payload and v1model side flags."""

from __future__ import annotations

__all__ = ["Packet"]


class Packet:
    __slots__ = ("F", "payload", "length", "ingress_length", "exit", "clone", "recirculate",
                 "resubmit", "truncate", "now_us", "enq_us", "enq_time", "seq", "data", "passes", "wire_size")

    def __init__(self, F: list, data: bytes):
        self.F = F
        self.data = data                 # the frame as it entered this ingress pass
        self.payload = b""
        self.length = len(data)          # simple_switch's packet-length register
        self.ingress_length = len(data)
        self.exit = False
        self.clone = None                # (mirror session, field list id)
        self.recirculate = None          # field list id
        self.resubmit = None             # field list id
        self.truncate = 0
        self.now_us = 0
        self.enq_us = 0
        self.enq_time = 0.0
        self.seq = 0
        self.passes = 0                  # resubmit/recirculation passes so far
        self.wire_size = 0               # bytes on the wire while queued (set at enqueue for bps rates)
