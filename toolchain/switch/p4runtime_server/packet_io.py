"""Packet I/O and digests on the stream (P4Runtime specification §16.1, §16.2 and §9.9.2).

The CPU port is one end of a datagram socket pair that the switch serves as an ordinary port
(simple_switch_grpc's `--cpu-port`): a frame the program sends to it becomes a PacketIn, a
PacketOut's frame is received on it. The program's `@controller_header("packet_in")` header
leads every frame sent to the CPU port, and is read into the PacketIn's metadata (its fields
in P4Info order, by bit); a PacketOut's metadata is written into a
`@controller_header("packet_out")` header put in front of its payload (a field the
PacketOut leaves out is 0). PacketIns go to the primary of the default role; with no primary
they are dropped.

Idle timeouts: an entry of a table with `support_timeout = true` written with an
idle_timeout_ns is checked every 10 ms; once no packet has hit it for that long, the default
role's primary gets an IdleTimeoutNotification with it (once, until a packet hits it again).

Digests: the learn engine's notifications for a digest with a DigestEntry configuration go
to the default role's primary as DigestLists (list_id = BMv2's buffer id); a DigestListAck
acknowledges its buffer (its samples may be learned again); a list not acknowledged within
the configuration's ack_timeout_ns is acknowledged by the server. Notifications of a digest
without a configuration are acknowledged at once (nobody receives them).
"""
from __future__ import annotations

import logging
import select
import threading
import time

from .errors import Code, P4RTError, each_once, to_bytes, to_int

__all__ = ["PacketIO", "MAX_PACKET_OUT"]

log = logging.getLogger("rdtcp-switch")

MAX_PACKET_OUT = 65535             # bytes of a PacketOut's payload (an IPv4 datagram's most)
DIGEST_POLL_S = 0.01


def pack_header(fields: list, values: dict) -> bytes:
    """The bytes of a header whose fields (id, name, bitwidth) take ``values`` (id -> int)."""
    acc, width = 0, 0
    for fid, _, w in fields:
        acc = (acc << w) | values.get(fid, 0)
        width += w
    return acc.to_bytes((width + 7) // 8, "big")


def unpack_header(fields: list, data: bytes) -> list[tuple[int, int]]:
    """(id, value) of each field of a header at the start of ``data``."""
    width = sum(w for _, _, w in fields)
    nbytes = (width + 7) // 8
    acc = int.from_bytes(data[:nbytes], "big") >> (nbytes * 8 - width)
    out, shift = [], width
    for fid, _, w in fields:
        shift -= w
        out.append((fid, (acc >> shift) & ((1 << w) - 1)))
    return out


class PacketIO:
    """``device``: device.Device (its ``pipeline``); ``peer``: the controller's end of the CPU
    port's socket pair; ``arbiter``: who the primary is; ``executor``: the switch's thread."""

    def __init__(self, device, peer, arbiter, executor, pb, clock=time.monotonic):
        self.device, self.peer, self.arbiter = device, peer, arbiter
        self.executor, self.pb, self.clock = executor, pb, clock
        self.pending_acks: dict = {}          # (list id, buffer id) -> deadline
        self.idle: dict = {}                  # (table, handle) -> [hits seen, last hit ns, told]
        self.dropped_in = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._packet_in_loop, name="p4rt-packet-in",
                                          daemon=True),
                         threading.Thread(target=self._digest_loop, name="p4rt-digests",
                                          daemon=True)]

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=2)

    # -- PacketOut ----------------------------------------------------------------------------
    def frame_out(self, packet) -> bytes:
        pl = self.device.pipeline
        if pl is None:
            raise P4RTError(Code.FAILED_PRECONDITION, "no forwarding pipeline")
        if len(packet.payload) > MAX_PACKET_OUT:
            raise P4RTError(Code.INVALID_ARGUMENT, f"PacketOut payload of {len(packet.payload)} "
                                                   f"bytes (at most {MAX_PACKET_OUT})")
        md = pl.packet_out
        if md is None:
            if len(packet.metadata):
                raise P4RTError(Code.INVALID_ARGUMENT, "PacketOut metadata, but the program "
                                                       "has no packet_out controller header")
            return bytes(packet.payload)
        widths = {fid: (name, w) for fid, name, w in md.fields}
        values = each_once(packet.metadata, lambda m: m.metadata_id, widths, "PacketOut",
                           "metadata", lambda info, m: to_int(
                               m.value, info[1], f"PacketOut metadata {info[0]}"),
                           name_of=lambda info: info[0])
        return pack_header(md.fields, values) + bytes(packet.payload)

    def packet_out(self, packet) -> None:
        frame = self.frame_out(packet)
        try:
            self.peer.send(frame)
        except BlockingIOError:
            raise P4RTError(Code.UNAVAILABLE, "the CPU port is full; PacketOut dropped") from None

    # -- PacketIn -----------------------------------------------------------------------------
    def packet_in_message(self, frame: bytes):
        pl = self.device.pipeline
        resp = self.pb.StreamMessageResponse()
        md = pl.packet_in if pl is not None else None
        if md is None:
            resp.packet.payload = frame
            return resp
        nbytes = (md.width + 7) // 8
        if len(frame) < nbytes:
            return None
        for fid, v in unpack_header(md.fields, frame):
            resp.packet.metadata.add(metadata_id=fid, value=to_bytes(v))
        resp.packet.payload = frame[nbytes:]
        return resp

    def _packet_in_loop(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.peer], [], [], 0.2)
            except (OSError, ValueError):
                return
            if not ready:
                continue
            while True:
                try:
                    frame = self.peer.recv(65536)
                except BlockingIOError:
                    break
                except OSError:
                    return
                primary = self.arbiter.primaries("")
                msg = self.packet_in_message(frame)
                if primary is None or msg is None:
                    self.dropped_in += 1
                    continue
                primary.send(msg)

    # -- digests ------------------------------------------------------------------------------
    def collect_digests(self) -> list:
        """On the switch's thread: the DigestLists due (notifications drained from the learn
        engine; unconfigured ones and overdue acknowledgements acknowledged)."""
        dev = self.device
        if dev.pipeline is None:
            return []
        sw = dev.host.sw
        learning = sw.learning
        learning.poll(dev.host.now_us() / 1e6)
        msgs, learning.messages[:] = list(learning.messages), []
        by_list = {d.list_id: d for d in dev.pipeline.digests.values()}
        config = dev.externs.digest_config
        out, now = [], self.clock()
        for m in msgs:
            d = by_list.get(m.list_id)
            if d is None or d.id not in config:
                learning.ack_buffer(m.list_id, m.buffer_id)
                continue
            resp = self.pb.StreamMessageResponse()
            dl = resp.digest
            dl.digest_id, dl.list_id, dl.timestamp = d.id, m.buffer_id, time.time_ns()
            for sample in m.samples:
                data = dl.data.add()
                if d.is_struct:
                    for v in sample:
                        data.struct.members.add().bitstring = to_bytes(v)
                elif len(sample) == 1:
                    data.bitstring = to_bytes(sample[0])
                else:
                    for v in sample:
                        data.tuple.members.add().bitstring = to_bytes(v)
            timeout = config[d.id].ack_timeout_ns
            if timeout:
                self.pending_acks[(m.list_id, m.buffer_id)] = now + timeout / 1e9
            out.append(resp)
        for key, deadline in list(self.pending_acks.items()):
            if deadline <= now:
                del self.pending_acks[key]
                learning.ack_buffer(*key)
        return out

    def digest_ack(self, ack) -> None:
        """On the switch's thread: a DigestListAck."""
        pl = self.device.pipeline
        d = pl.digests.get(ack.digest_id) if pl is not None else None
        if d is None:
            raise P4RTError(Code.NOT_FOUND, f"DigestListAck: no digest with id {ack.digest_id}")
        self.pending_acks.pop((d.list_id, ack.list_id), None)
        try:
            self.device.host.sw.learning.ack_buffer(d.list_id, ack.list_id)
        except KeyError as e:
            raise P4RTError(Code.NOT_FOUND, f"DigestListAck: {e}") from None

    # -- idle timeouts (§9.1.8) ---------------------------------------------------------------
    def collect_idle(self) -> list:
        """On the switch's thread: an IdleTimeoutNotification of the entries idle for their
        idle_timeout_ns since their last hit (or their insertion), each told once until it
        is hit again; [] when none."""
        dev = self.device
        if dev.pipeline is None or dev.tables is None or not dev.tables.aging:
            self.idle.clear()
            return []
        tables = dev.tables
        by_name = {t.name: t for t in dev.pipeline.tables.values()}
        now_ns = dev.host.now_us() * 1000
        expired = []
        for key in list(tables.aging):
            tname, h = key
            ent = tables.rt.table(tname).entries.get(h) if tname in by_name else None
            if ent is None:
                tables.aging.discard(key)
                self.idle.pop(key, None)
                continue
            st = self.idle.get(key)
            if st is None or st[0] != ent.hits:
                self.idle[key] = [ent.hits, now_ns, False]
                continue
            if not st[2] and now_ns - st[1] >= tables.meta[key][2]:
                st[2] = True
                expired.append(tables.entry_message(by_name[tname], ent))
        if not expired:
            return []
        resp = self.pb.StreamMessageResponse()
        resp.idle_timeout_notification.timestamp = time.time_ns()
        resp.idle_timeout_notification.table_entry.extend(expired)
        return [resp]

    def _digest_loop(self) -> None:
        while not self._stop.wait(DIGEST_POLL_S):
            if self.device.pipeline is None:
                continue
            try:
                lists = self.executor.run(self.collect_digests)
                lists += self.executor.run(self.collect_idle)
            except Exception:  # noqa: BLE001 - the switch is stopping, or a bug: keep serving
                log.debug("digest collection failed", exc_info=True)
                continue
            if not lists:
                continue
            primary = self.arbiter.primaries("")
            if primary is not None:
                for resp in lists:
                    primary.send(resp)
