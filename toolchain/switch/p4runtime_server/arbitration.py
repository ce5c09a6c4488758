"""Client arbitration (P4Runtime specification §5): per role, the stream with the highest
election id is the primary; only it may write, set the pipeline and send packets.

A stream's first message names its device, role and election id. The server answers every
stream of the role whenever the primary changes: the primary gets status OK, the others
ALREADY_EXISTS (a primary exists) or NOT_FOUND (none does), each with the highest election
id the role has seen. A second stream with an election id another stream of the role holds
is refused (INVALID_ARGUMENT) and closed; so is a stream for another device (NOT_FOUND).
When the primary's stream ends, the next highest becomes primary and everyone is told.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional

__all__ = ["Arbiter", "Stream", "election_key"]


def election_key(eid) -> int:
    """An Uint128 election id as one integer (high word first)."""
    return (eid.high << 64) | eid.low


class Stream:
    """One StreamChannel: ``send(response)`` queues a StreamMessageResponse for it."""

    def __init__(self, send: Callable):
        self.send = send
        self.role: Optional[str] = None
        self.election: Optional[int] = None
        self.closed = False


class Arbiter:
    def __init__(self, device_id: int, pb):
        self.device_id, self.pb = device_id, pb
        self.lock = threading.Lock()
        self.streams: dict[str, list[Stream]] = {}     # role -> its streams
        self.highest: dict[str, int] = {}               # role -> highest election id seen

    def primary(self, role: str) -> Optional[Stream]:
        live = [s for s in self.streams.get(role, []) if s.election is not None]
        return max(live, key=lambda s: s.election) if live else None

    def is_primary(self, role: str, election: Optional[int]) -> bool:
        """Does ``election`` (of a Write or SetForwardingPipelineConfig) name the role's
        primary?"""
        with self.lock:
            p = self.primary(role)
            return p is not None and election is not None and p.election == election

    def update(self, stream: Stream, msg) -> Optional[tuple]:
        """A MasterArbitrationUpdate on ``stream``: None, or (grpc code name, message) when
        the stream must be closed with that error."""
        if msg.device_id != self.device_id:
            return ("NOT_FOUND", f"device id {msg.device_id} is not this switch's "
                                 f"({self.device_id})")
        role = msg.role.name if msg.HasField("role") else ""
        if msg.HasField("role") and msg.role.id and not role:
            role = f"#{msg.role.id}"                    # a role named by its (old) number
        election = election_key(msg.election_id) if msg.HasField("election_id") else None
        with self.lock:
            if stream.role is not None and stream.role != role:
                return ("FAILED_PRECONDITION", "a stream's role cannot change")
            if election is not None and any(s is not stream and s.election == election
                                            for s in self.streams.get(role, [])):
                return ("INVALID_ARGUMENT", f"election id {election} is held by another "
                                            "stream of this role")
            was = self.primary(role)
            if stream.role is None:
                self.streams.setdefault(role, []).append(stream)
            stream.role, stream.election = role, election
            if election is not None:
                self.highest[role] = max(self.highest.get(role, 0), election)
            # everyone hears of a new primary; otherwise only this stream gets its answer
            self._announce(role, None if self.primary(role) is not was else stream)
        return None

    def leave(self, stream: Stream) -> None:
        with self.lock:
            stream.closed = True
            role = stream.role
            if role is None or stream not in self.streams.get(role, []):
                return
            was = self.primary(role)
            self.streams[role].remove(stream)
            if was is stream:
                self._announce(role)

    def primaries(self, role: str = "") -> Optional[Stream]:
        with self.lock:
            return self.primary(role)

    def _announce(self, role: str, only: Optional[Stream] = None) -> None:
        """Tell every stream of the role (or ``only``) who is primary (lock held)."""
        p = self.primary(role)
        for s in self.streams.get(role, []):
            if only is not None and s is not only:
                continue
            resp = self.pb.StreamMessageResponse()
            a = resp.arbitration
            a.device_id = self.device_id
            if role and not role.startswith("#"):
                a.role.name = role
            top = self.highest.get(role)
            if top is not None:
                a.election_id.high, a.election_id.low = top >> 64, top & ((1 << 64) - 1)
            if p is s:
                a.status.code = 0                      # OK: this stream is the primary
                a.status.message = "primary"
            elif p is not None:
                a.status.code = 6                      # ALREADY_EXISTS
                a.status.message = "a primary exists for this role"
            else:
                a.status.code = 5                      # NOT_FOUND
                a.status.message = "no primary for this role"
            s.send(resp)
