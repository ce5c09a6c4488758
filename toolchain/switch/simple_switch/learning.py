"""simple_switch's learn engine (BMv2 ``src/bm_sim/learning.cpp``), in virtual time.

A ``digest()`` in ingress gives its packet a learn list id; when ingress ends the engine reads
the list's fields into a *sample*. As in BMv2:

* **Duplicate filtering.** A sample already sent and not yet acknowledged by the control plane
  is dropped: each list keeps a filter of its unacknowledged samples. ``ack(list, buffer,
  sample ids)`` or ``ack_buffer(list, buffer)`` removes samples from the filter, and the same
  values are learned again when a packet next carries them.
* **Buffers.** Samples are sent in notifications (``LearnMessage``) of up to ``max_samples``
  samples (16: P4Objects::init_learn_lists creates every list with 16) numbered by buffer id
  from 0; a buffer that is not full is sent once ``timeout`` (1 s, LearnList's default) has
  passed since its first sample. BMv2 measures that on its clock, in a thread; here it is
  checked against the ``now`` of the switch's next sample for the list, or of ``poll(now)``.
* A packet whose learn id names no learn list is not learned (BMv2 logs an error).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["LearnEngine", "LearnMessage", "MAX_SAMPLES", "TIMEOUT_S"]

MAX_SAMPLES = 16        # P4Objects::init_learn_lists: list_create(list_id, list_name, 16)
TIMEOUT_S = 1.0         # LearnEngineIface::list_create's default timeout_ms = 1000


@dataclass
class LearnMessage:
    """One notification (BMv2's "LEA|" message): ``samples[i]`` is sample id ``i``."""
    list_id: int
    list_name: str
    buffer_id: int
    samples: list[tuple]


@dataclass
class _SentBuffer:
    """A buffer's samples that may still be in the filter (BMv2's FilterPtrs)."""
    samples: list[tuple] = field(default_factory=list)
    unacked: int = 0


class _LearnList:
    def __init__(self, list_id: int, name: str, slots: list[int]):
        self.list_id, self.name, self.slots = list_id, name, slots
        self.max_samples = MAX_SAMPLES
        self.timeout = TIMEOUT_S
        self.reset()

    def reset(self) -> None:
        """LearnList::reset_state: no buffer, no filter, buffer ids from 0 again."""
        self.filter: set[tuple] = set()
        self.buffer: list[tuple] = []
        self.buffer_id = 0
        self.started = 0.0              # when the buffer's first sample came
        self.sent: dict[int, _SentBuffer] = {}

    def add(self, sample: tuple, now: float, out: list) -> bool:
        """LearnList::add_sample; a full buffer is sent into ``out``."""
        if sample in self.filter:
            return False
        self.buffer.append(sample)
        self.filter.add(sample)
        sent = self.sent.setdefault(self.buffer_id, _SentBuffer())
        sent.samples.append(sample)
        sent.unacked += 1
        if len(self.buffer) == 1:
            self.started = now
        if len(self.buffer) >= self.max_samples:
            self.send(out)
        return True

    def due(self, now: float) -> bool:
        return bool(self.buffer) and now >= self.started + self.timeout

    def send(self, out: list) -> None:
        """swap_buffers and the transmit: the buffer goes out under its id, the next id opens."""
        out.append(LearnMessage(self.list_id, self.name, self.buffer_id, self.buffer))
        self.buffer = []
        self.buffer_id += 1

    def ack(self, buffer_id: int, sample_ids) -> None:
        """LearnList::ack: each valid sample id leaves the filter; the buffer is forgotten once
        as many acks as it had samples came (an id acknowledged twice counts twice, as in
        BMv2). A buffer already forgotten is taken as acknowledged."""
        sent = self.sent.get(buffer_id)
        if sent is None:
            return
        for i in sample_ids:
            if not 0 <= i < len(sent.samples):
                continue
            self.filter.discard(sent.samples[i])
            sent.unacked -= 1
            if sent.unacked == 0:
                del self.sent[buffer_id]
                return

    def ack_buffer(self, buffer_id: int) -> None:
        """LearnList::ack_buffer: every sample of the buffer leaves the filter."""
        sent = self.sent.pop(buffer_id, None)
        if sent is not None:
            self.filter.difference_update(sent.samples)


class LearnEngine:
    """The learn lists of one switch; ``messages`` are the notifications sent, oldest first."""

    def __init__(self, learn_lists: dict[int, tuple[str, list[int]]]):
        self.lists = {lid: _LearnList(lid, name, slots) for lid, (name, slots) in learn_lists.items()}
        self.messages: list[LearnMessage] = []

    def learn(self, list_id: int, F: list, now: float) -> tuple | None:
        """The sample of list ``list_id`` read from the PHV ``F`` at ``now``, or None when the
        list does not exist or the filter dropped it as a duplicate."""
        lst = self.lists.get(list_id)
        if lst is None:
            return None
        if lst.due(now):
            lst.send(self.messages)
        sample = tuple(F[s] for s in lst.slots)
        return sample if lst.add(sample, now, self.messages) else None

    def poll(self, now: float) -> list[LearnMessage]:
        """Send every buffer whose timeout has passed by ``now``; the messages sent."""
        first = len(self.messages)
        for lst in self.lists.values():
            if lst.due(now):
                lst.send(self.messages)
        return self.messages[first:]

    def ack(self, list_id: int, buffer_id: int, sample_ids) -> None:
        self._list(list_id).ack(buffer_id, sample_ids)

    def ack_buffer(self, list_id: int, buffer_id: int) -> None:
        self._list(list_id).ack_buffer(buffer_id)

    def set_timeout(self, list_id: int, timeout_ms: int) -> None:
        """LearnList::set_timeout (0: no timeout, a buffer goes out only when full)."""
        self._list(list_id).timeout = timeout_ms / 1000 if timeout_ms > 0 else float("inf")

    def set_max_samples(self, list_id: int, max_samples: int) -> None:
        """LearnList::set_max_samples: a buffer holding that many already goes out."""
        lst = self._list(list_id)
        lst.max_samples = max_samples
        if lst.buffer and len(lst.buffer) >= max_samples:
            lst.send(self.messages)

    def reset_state(self) -> None:
        for lst in self.lists.values():
            lst.reset()

    def _list(self, list_id: int) -> _LearnList:
        lst = self.lists.get(list_id)
        if lst is None:
            raise KeyError(f"INVALID_LIST_ID: no learn list {list_id}")
        return lst
