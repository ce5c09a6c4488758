"""simple_switch's packet flow over a compiled program, in virtual time (library mode).

Per packet, as ``targets/simple_switch/simple_switch.cpp`` does it:

ingress pass: parse -> verify checksums -> ingress pipeline -> ingress clone (the copy is
the *original* packet re-parsed, metadata reset except the clone field list,
instance_type 1) -> resubmit (original packet, field list kept, instance_type 6) ->
multicast -> drop if egress_spec is the drop port (511) -> instance_type 0 -> enqueue.

egress (at dequeue): egress_port, queueing metadata and timestamps set, egress_spec
preset to a non-drop value -> egress pipeline -> egress clone (current headers, metadata
reset except the field list, instance_type 2) -> drop if egress_spec is 511 -> compute
checksums -> deparse -> recirculate (the deparsed packet re-enters ingress with
instance_type 4 and only the field list preserved) or transmit.
"""

from __future__ import annotations

import logging
import random
import struct

from ..bm_sim.action_profiles import ActionProfile
from ..bm_sim.externs import CounterArray, MeterArray, register_array
from ..bm_sim.hash_algos import csum16_int, make_algorithm
from ..bm_sim.json_loader import DEFAULT_MAX_STATE, Program, load_program
from ..bm_sim.parser import ParserError
from ..bm_sim.tables import MatchParam, MatchTable, TableOpError
from ..errors import LoadError
from ..runtime import Runtime
from ..runtime_cli import RuntimeCLI
from .learning import LearnEngine
from .packet import Packet
from .traffic_manager import TrafficManager
from .v1model_metadata import metadata_setters

__all__ = ["SimpleSwitch", "P4AssertionError", "PacketFault", "INSTANCE_TYPES", "MAX_PASSES"]

log = logging.getLogger(__name__)

# standard_metadata.instance_type values (simple_switch.md, "instance_type")
PKT_INSTANCE_TYPE_NORMAL = 0
PKT_INSTANCE_TYPE_INGRESS_CLONE = 1
PKT_INSTANCE_TYPE_EGRESS_CLONE = 2
PKT_INSTANCE_TYPE_COALESCED = 3
PKT_INSTANCE_TYPE_RECIRC = 4
PKT_INSTANCE_TYPE_REPLICATION = 5
PKT_INSTANCE_TYPE_RESUBMIT = 6
INSTANCE_TYPES = {"normal": 0, "ingress_clone": 1, "egress_clone": 2, "coalesced": 3,
                  "recirc": 4, "replication": 5, "resubmit": 6}

DROP_PORT = 511
# simple_switch runs with one queue per egress port unless started with --priority-queues
# (simple_switch.h default_nb_queues_per_port), which this target does not offer: a packet
# whose priority is not 0 is dropped when it is enqueued (SimpleSwitch::enqueue)
NB_QUEUES_PER_PORT = 1
# clone(): the session id is read as a uint16 and its low 15 bits name the session
# (targets/simple_switch/register_access.h MIRROR_SESSION_ID_MASK, primitives.cpp clone_*)
MIRROR_SESSION_ID_MASK = 0x7FFF
# A program that resubmits or recirculates forever would hang simple_switch's threads; the
# library stops such a packet after this many passes and records it in ``sw.errors``.
MAX_PASSES = 1024


class P4AssertionError(Exception):
    """An assert()/assume() in the program failed (simple_switch would abort)."""


class PacketFault(Exception):
    """The program asked for something this target will not compute for one packet (a shift
    by more than expressions.MAX_SHIFT bits): the packet is stopped and the fault recorded."""


def _shift_fault(count: int):
    raise PacketFault(f"shift by {count} bits")


def _inlined_node(F, P):
    raise AssertionError("internal error: a table handed back a node that was inlined")


def _noop(F, A, P):
    return None


def _stack_push(P, F, bases, n, next_slot, count, size=None):
    """push_front(count) of the headers at `bases` (n slots each, the validity last); the
    next index at next_slot (None: moved by a separate call, for the members of a header
    union stack, whose size is then given)."""
    size = len(bases) if size is None else size
    count = min(max(count, 0), size)
    for i in range(len(bases) - 1, count - 1, -1):
        d, s = bases[i], bases[i - count]
        F[d:d + n] = F[s:s + n]
    for i in range(min(count, len(bases))):
        F[bases[i] + n - 1] = 0
    if next_slot is not None:
        F[next_slot] = min(F[next_slot] + count, size)


def _stack_pop(P, F, bases, n, next_slot, count, size=None):
    size = len(bases) if size is None else size
    count = min(max(count, 0), size)
    for i in range(len(bases) - count):
        d, s = bases[i], bases[i + count]
        F[d:d + n] = F[s:s + n]
    for i in range(max(len(bases) - count, 0), len(bases)):
        F[bases[i] + n - 1] = 0
    if next_slot is not None:
        F[next_slot] = max(F[next_slot] - count, 0)


class SimpleSwitch:
    """One switch instance: its own tables, registers, queues, mirror sessions and RNG."""

    def __init__(self, program: Program | str | dict, *, seed: int = 0):
        if not isinstance(program, Program):
            program = load_program(program)
        self.program = program
        self.rng = random.Random(seed)
        self.errors: list[str] = []          # packets stopped by a runtime fault (see MAX_PASSES)
        # (learn list name, field values) of every sample the learn engine took from a digest()
        # (duplicates of samples not yet acknowledged are not taken: learning.py)
        self.digests: list[tuple[str, tuple]] = []
        self.learning = LearnEngine(program.learn_lists)
        self.mirroring: dict[int, dict] = {}  # session id -> {"port": p} or {"mgid": g}
        self.mc_nodes: dict[int, tuple[int, list[int]]] = {}    # node handle -> (rid, ports)
        self.mc_assoc: dict[int, list[int]] = {}                # mgid -> node handles
        self.mc_node_lags: dict[int, list[int]] = {}            # node handle -> LAG ids (mc_dump)
        self._layout = program.layout
        self._on_arrival, self._on_enqueue, self._on_dequeue = metadata_setters(program)
        self._bind_namespace()
        self._cache_slots()
        # the bytes a packet takes on the wire: its valid headers and its payload
        self.tm = TrafficManager(self._wire_size_of)
        self.runtime = Runtime(self)
        self._cli = None

    @classmethod
    def from_json(cls, path, *, seed: int = 0,
                  max_state: int | None = DEFAULT_MAX_STATE) -> "SimpleSwitch":
        """The switch of the BMv2 JSON at ``path``; its register, counter and meter arrays
        may take at most ``max_state`` bytes (None: no limit; json_loader.load_program)."""
        return cls(load_program(path, max_state=max_state), seed=seed)

    # -- set-up -----------------------------------------------------------------------------------
    def _bind_namespace(self) -> None:
        prog = self.program
        ns: dict = dict(prog.constants)
        ns.update(_PErr=ParserError, _P4Assert=P4AssertionError, _shift_fault=_shift_fault,
                  _stack_push=_stack_push, _stack_pop=_stack_pop, _rng_uniform=self._rng_uniform,
                  _div=_div, _mod=_mod, _csum16_int=csum16_int)
        self.registers = {}
        for name, rid in prog.register_ids.items():
            ns[f"_R{rid}"] = self.registers[name] = register_array(prog.register_widths[rid],
                                                                   prog.register_sizes[rid])
        self.counters = {}
        for cid, spec in prog.counters.items():
            ns[f"_C{cid}"] = self.counters[spec["name"]] = arr = CounterArray(spec["name"], int(spec.get("size", 0)))
            ns[f"_C{cid}p"], ns[f"_C{cid}b"] = arr.packets, arr.bytes   # updated in place by the program
        self.meters = {}
        for mid, spec in prog.meters.items():
            ns[f"_M{mid}"] = self.meters[spec["name"]] = MeterArray(spec)
        self.hash_algorithms = {}
        for cid, algo in prog.calc_algos.items():
            ns[f"_H{cid}"] = self.hash_algorithms[cid] = make_algorithm(algo, self.rng)
        self.vsets = {name: set() for name in prog.vsets}
        ns["_VSETS"] = self.vsets
        self._ns = ns
        self.tables: dict[str, MatchTable] = {}
        exec(prog.code, ns)
        self.action_profiles = self._make_action_profiles(ns)
        for spec in prog.tables.values():
            ns[f"_T{spec.seq}"] = self.tables[spec.name] = self._make_table(spec)
            if spec.action_profile is not None:
                self.tables[spec.name].profile = self.action_profiles[spec.action_profile]
        for tid, tname in prog.inlined_defaults.items():
            # the inlined body of a const default runs while the table still holds exactly that
            # default (bm_sim/pipeline.py): flag _I<id>, kept up to date by the table; an entry
            # added at run time makes the pipeline take the table's own path
            t = self.tables[tname]
            initial = t.keyless

            def on_change(table, flag=f"_I{tid}", initial=initial):
                ns[flag] = table.keyless is initial
            t.on_keyless_change = on_change
            on_change(t)
        self._parse, self._ingress = ns["parse"], ns["ingress"]
        self._egress, self._deparse = ns["egress"], ns["deparse"]
        # checksum passes that would do nothing are skipped instead of called
        self._verify_ck = ns["verify_checksums"] if prog.has_verify_checksums else None
        self._update_ck = ns["update_checksums"] if prog.has_update_checksums else None

    def _make_action_profiles(self, ns: dict) -> dict:
        """One ActionProfile per JSON action profile, shared by the tables that name it; its
        actions are those of those tables (as simple_switch_CLI collects them)."""
        profiles = {}
        for name, spec in self.program.action_profiles.items():
            users = [t for t in self.program.tables.values() if t.action_profile == name]
            actions = set().union(*(t.actions for t in users))
            select = ns[spec.select_func] if spec.select_func else None
            profiles[name] = ActionProfile(spec, actions, select)
        return profiles

    def _node_of(self, name):
        """The region function a table continues with; a node inlined into its only predecessor
        has none, and a table only hands back its next node when that is a region
        (bm_sim/pipeline.py), so its results carry a function that says so if ever called."""
        if name is None:
            return None
        return self._ns.get(self.program.node_names[name], _inlined_node)

    def _make_table(self, spec) -> MatchTable:
        ns, prog = self._ns, self.program
        bind = {a: (ns[spec.action_specs[a].func], self._node_of(spec.next_tables.get(a, spec.base_default_next)))
                for a in spec.actions}
        t = MatchTable(spec, bind, _noop, self._node_of)
        if t.initial_default is not None:
            aid, data = t.initial_default
            t.set_default(prog.actions_by_id[aid].name, data, force=True)
        if spec.direct_meters:
            mspec = prog.meters[prog.meter_ids[spec.direct_meters]]
            one = dict(mspec, size=1)           # each entry's meter: one cell of its own
            t.meter_factory = lambda: MeterArray(one)
            tgt = mspec.get("result_target")
            if tgt:
                t.meter_slot = self._layout.slot(tgt[0], tgt[1])
                t.meter_mask = (1 << self._layout.widths[t.meter_slot]) - 1
        for i, e in enumerate(spec.entries):
            try:
                self._add_const_entry(t, e)
            except (TableOpError, KeyError, ValueError) as err:
                raise LoadError(f"table {spec.name!r}: const entry {i} refused: {err}") from None
        t.immutable = spec.has_entries
        return t

    def _add_const_entry(self, t: MatchTable, e: dict) -> None:
        match = []
        for mk, ks in zip(e["match_key"], t.keys):
            mt = mk.get("match_type", ks.match_type)
            if mt == "lpm":
                match.append(MatchParam("lpm", int(mk["key"], 16), int(mk["prefix_length"])))
            elif mt in ("ternary", "optional"):
                mask = int(mk["mask"], 16) if "mask" in mk else (1 << ks.width) - 1
                match.append(MatchParam(mt, int(mk["key"], 16), mask))
            elif mt == "range":
                match.append(MatchParam("range", int(mk["start"], 16), int(mk["end"], 16)))
            elif mt == "valid":                  # P4_14's valid match: true or false
                match.append(MatchParam(mt, 1 if mk["key"] else 0))
            else:
                match.append(MatchParam(mt, int(mk["key"], 16)))
        ae = e["action_entry"]
        name = self.program.actions_by_id[ae["action_id"]].name
        t.add(match, name, tuple(int(x, 16) for x in ae.get("action_data", [])),
              int(e.get("priority", 0)))

    def _cache_slots(self) -> None:
        lay = self._layout
        sm = lambda f: lay.slot("standard_metadata", f) if lay.has_field("standard_metadata", f) else None  # noqa
        self._template = lay.template()
        self._meta_slots = lay.metadata_slots()
        self.s_ingress_port = sm("ingress_port")
        self.s_egress_spec = sm("egress_spec")
        self.s_instance_type = sm("instance_type")
        self.s_packet_length = sm("packet_length")
        self.s_mcast_grp = sm("mcast_grp")
        self.s_egress_rid = sm("egress_rid")
        # the queue a packet is enqueued in: SSWITCH_PRIORITY_QUEUEING_SRC, the field (alias)
        # "intrinsic_metadata.priority" (p4c maps it to standard_metadata.priority)
        try:
            self.s_priority = lay.slot("intrinsic_metadata", "priority")
        except LoadError:
            self.s_priority = None
        self._hdr_sizes = tuple((h.valid_slot, h.nbytes) for h in lay.headers.values() if not h.metadata)
        self._varbit_lens = tuple((h.valid_slot, h.len_slot) for h in lay.headers.values()
                                  if not h.metadata and h.varbit is not None)
        self._wire_size_of = _wire_size_function(self.program, self._hdr_sizes, self._varbit_lens)

    def _learn(self, learn_list: int, F: list, now: float) -> None:
        sample = self.learning.learn(learn_list, F, now)
        if sample is not None:
            self.digests.append((self.program.learn_lists[learn_list][0], sample))

    def _rng_uniform(self, lo: int, hi: int) -> int:
        if lo > hi:
            lo, hi = hi, lo
        return self.rng.randint(lo, hi)

    # -- control ----------------------------------------------------------------------------------
    def cli(self, line: str) -> str:
        """Run one simple_switch_CLI command; returns its output text (raises CliError)."""
        return self._runtime_cli().run(line)

    def run_commands(self, path_or_text) -> str:
        """Run a commands file (path) or text; CliError carries the failing line number."""
        return self._runtime_cli().run_commands(path_or_text)

    def _runtime_cli(self):
        if self._cli is None:
            self._cli = RuntimeCLI(self.runtime)
        return self._cli

    # -- packets in -------------------------------------------------------------------------------
    def _new_packet(self, data: bytes, ingress_port: int, instance_type: int) -> Packet:
        F = self._template[:]
        P = Packet(F, data)
        F[self.s_ingress_port] = ingress_port & 0x1FF
        F[self.s_instance_type] = instance_type
        F[self.s_packet_length] = len(data)
        return P

    def receive(self, port: int, frame: bytes, *, now: float = 0.0) -> None:
        """A frame arrives on ``port`` at ``now``: parser and ingress run, the packet is queued."""
        data = frame if type(frame) is bytes else bytes(frame)
        F = self._template[:]
        now_us = int(now * 1_000_000 + 1e-6)
        # ingress_global_timestamp is set on arrival only: resubmitted and recirculated packets
        # get reset metadata, as in simple_switch (keep it in the field list to carry it)
        self._on_arrival(F, port, len(data), now_us)
        P = Packet(F, data)
        P.now_us = now_us
        R = self._ingress_once(P, now)
        if R is not None:
            self._ingress_pass(R, now)

    def _ingress_pass(self, P: Packet, now: float) -> None:
        """Ingress for P and for every resubmitted copy of it (a loop, not recursion)."""
        now_us = int(now * 1_000_000 + 1e-6)
        while P is not None:
            P.now_us = now_us
            P = self._ingress_once(P, now)

    def _ingress_once(self, P: Packet, now: float) -> Packet | None:
        """One ingress pass of P, whose ``now_us`` the caller has set (the time of ``now``)."""
        F = P.F
        data = P.data
        try:
            off = self._parse(F, data, P)
            P.payload = data[off:] if off else data
            if self._verify_ck is not None:
                self._verify_ck(F, P)
            self._ingress(F, P)
        except (IndexError, P4AssertionError, ZeroDivisionError, PacketFault) as e:
            self._fault(f"ingress: {type(e).__name__}: {e}")
            return None
        P.exit = False
        if P.clone is not None:
            self._ingress_clone(P, now)
        if P.learn:     # after ingress cloning, before resubmit and drop (ingress_thread)
            self._learn(P.learn, F, now)
            P.learn = 0
        if P.resubmit is not None:
            return self._resubmit(P)
        if self.s_mcast_grp is not None and F[self.s_mcast_grp]:
            F[self.s_instance_type] = PKT_INSTANCE_TYPE_REPLICATION
            self._multicast(P, F[self.s_mcast_grp], now)
            return None
        port = F[self.s_egress_spec]
        if port == DROP_PORT:
            return None
        F[self.s_instance_type] = PKT_INSTANCE_TYPE_NORMAL
        if self.s_priority is not None and F[self.s_priority] >= NB_QUEUES_PER_PORT:
            self._priority_drop(F)
            return None
        # _enqueue, inlined: this is every forwarded packet's path
        P.enq_us = P.now_us
        depth = self.tm.enqueue(port, P, now)
        if depth is not None:
            self._on_enqueue(F, P.now_us, depth)

    def _priority_drop(self, F: list) -> None:
        # simple_switch.cpp SimpleSwitch::enqueue: "Priority out of range, dropping packet"
        # (an error in simple_switch's log, not a fault of the program)
        log.info("Priority out of range (%d), dropping packet", F[self.s_priority])

    def _fault(self, msg: str) -> None:
        log.warning("packet dropped: %s", msg)
        self.errors.append(msg)

    def _copy_metadata_reset(self, F_src: list, F_dst: list, field_list: int, instance_type: int) -> None:
        """BMv2's copy_field_list_and_set_type: reset metadata, keep the field list."""
        T = self._template
        for s in self._meta_slots:
            F_dst[s] = T[s]
        for s in self.program.field_lists.get(field_list, ()):
            F_dst[s] = F_src[s]
        F_dst[self.s_instance_type] = instance_type

    def _ingress_clone(self, P: Packet, now: float) -> None:
        session, fl = P.clone
        P.clone = None
        cfg = self.mirroring.get(session & MIRROR_SESSION_ID_MASK)
        if cfg is None:
            return
        C = self._new_packet(P.data, P.F[self.s_ingress_port], PKT_INSTANCE_TYPE_INGRESS_CLONE)
        C.now_us = P.now_us
        try:
            C.payload = P.data[self._parse(C.F, P.data, C):]
        except (IndexError, PacketFault) as e:
            self._fault(f"ingress clone: {e}")
            return
        self._copy_metadata_reset(P.F, C.F, fl, PKT_INSTANCE_TYPE_INGRESS_CLONE)
        C.length = C.ingress_length = P.ingress_length
        self._to_session(cfg, C, now)

    def _to_session(self, cfg: dict, C: Packet, now: float) -> None:
        if cfg.get("mgid") is not None:
            self._multicast(C, cfg["mgid"], now)
        if cfg.get("port") is not None:
            self._enqueue(cfg["port"], C, now)

    def _resubmit(self, P: Packet) -> Packet | None:
        """The packet to run through ingress again: original bytes, field list kept."""
        if P.passes >= MAX_PASSES:
            self._fault(f"resubmitted more than {MAX_PASSES} times")
            return None
        R = self._new_packet(P.data, 0, PKT_INSTANCE_TYPE_RESUBMIT)
        R.passes = P.passes + 1
        self._copy_metadata_reset(P.F, R.F, P.resubmit, PKT_INSTANCE_TYPE_RESUBMIT)
        R.F[self.s_packet_length] = P.ingress_length
        return R

    def _multicast(self, P: Packet, mgid: int, now: float) -> None:
        """One copy per (rid, port) of the group; the copies keep P's metadata (a clone sent
        to a multicast session keeps its clone instance_type, as in simple_switch)."""
        for rid, port in self.mc_groups_expanded(mgid):
            C = Packet(P.F[:], P.data)
            C.payload, C.length, C.ingress_length, C.now_us = P.payload, P.length, P.ingress_length, P.now_us
            if self.s_egress_rid is not None:
                C.F[self.s_egress_rid] = rid
            self._enqueue(port, C, now)

    def mc_groups_expanded(self, mgid: int) -> list[tuple[int, int]]:
        out = []
        for handle in self.mc_assoc.get(mgid, []):
            rid, ports = self.mc_nodes[handle]
            out.extend((rid, p) for p in ports)
        return out

    def _enqueue(self, port: int, P: Packet, now: float) -> None:
        """Into the egress queue of ``port``, with enq_timestamp and enq_qdepth (if it has room)."""
        if self.s_priority is not None and P.F[self.s_priority] >= NB_QUEUES_PER_PORT:
            self._priority_drop(P.F)
            return
        P.enq_us = enq_us = int(now * 1_000_000 + 1e-6)
        depth = self.tm.enqueue(port, P, now)
        if depth is not None:
            self._on_enqueue(P.F, enq_us, depth)

    # -- packets out ------------------------------------------------------------------------------
    def next_event_time(self) -> float | None:
        """Earliest departure time of any queued packet, or None if all queues are empty."""
        return self.tm.next_event_time()

    def advance(self, *, now: float) -> list[tuple[int, bytes, float]]:
        """Dequeue every packet due by ``now``: [(egress port, frame, departure time)]."""
        out: list = []
        tm = self.tm
        while tm.busy:
            item = tm.pop_due(now)
            if item is None:
                return out
            port, P, dep, depth = item
            self._egress_pass(port, P, dep, depth, out)
        return out

    def process(self, port: int, frame: bytes, now: float = 0.0) -> list[tuple[int, bytes]]:
        """Receive one frame and drain every queue ignoring rates (STF/PTF semantics)."""
        self.receive(port, frame, now=now)
        return self.drain(now=now)

    def drain(self, *, now: float = 0.0) -> list[tuple[int, bytes]]:
        out: list = []
        pop, egress_pass = self.tm.pop_oldest, self._egress_pass
        while self.tm.busy:
            port, P, depth = pop()
            egress_pass(port, P, now, depth, out)
        if len(out) == 1:           # the usual case, without building a comprehension
            p, f, _ = out[0]
            return [(p, f)]
        return [(p, f) for p, f, _ in out]

    def _egress_pass(self, port: int, P: Packet, t: float, depth_after: int, out: list) -> None:
        F = P.F
        P.now_us = now_us = int(t * 1_000_000 + 1e-6)
        self._on_dequeue(F, P, port, now_us, depth_after)
        try:
            self._egress(F, P)
        except (IndexError, P4AssertionError, ZeroDivisionError, PacketFault) as e:
            self._fault(f"egress: {type(e).__name__}: {e}")
            return
        P.exit = False
        P.learn = 0     # simple_switch's egress does not learn
        if P.clone is not None:
            self._egress_clone(P, t)
        if F[self.s_egress_spec] == DROP_PORT:
            return
        try:
            if self._update_ck is not None:
                self._update_ck(F, P)
            frame = self._deparse(F, P)
        except (IndexError, struct.error) as e:      # a value out of its field's range: a bug
            self._fault(f"deparser: {type(e).__name__}: {e}")
            return
        if P.recirculate is not None:
            # the recirculated copy is made from the whole deparsed buffer: not truncated
            # (simple_switch.cpp egress_thread, Packet::clone_no_phv_ptr)
            self._recirculate(P, frame, t)
            return
        if len(frame) > P.truncate:      # applied on transmission (Packet::get_data_size)
            frame = frame[:P.truncate]
        out.append((port, frame, t))

    def _egress_clone(self, P: Packet, t: float) -> None:
        session, fl = P.clone
        P.clone = None
        cfg = self.mirroring.get(session & MIRROR_SESSION_ID_MASK)
        if cfg is None:
            return
        C = Packet(P.F[:], P.data)
        C.payload, C.length, C.ingress_length, C.now_us = P.payload, P.length, P.ingress_length, P.now_us
        self._copy_metadata_reset(P.F, C.F, fl, PKT_INSTANCE_TYPE_EGRESS_CLONE)
        self._to_session(cfg, C, t)

    def _recirculate(self, P: Packet, frame: bytes, t: float) -> None:
        if P.passes >= MAX_PASSES:
            self._fault(f"recirculated more than {MAX_PASSES} times")
            return
        R = self._new_packet(frame, 0, PKT_INSTANCE_TYPE_RECIRC)
        R.passes = P.passes + 1
        self._copy_metadata_reset(P.F, R.F, P.recirculate, PKT_INSTANCE_TYPE_RECIRC)
        R.F[self.s_packet_length] = len(frame)
        self._ingress_pass(R, t)


def _wire_size_function(program: Program, hdr_sizes: tuple, varbit_lens: tuple):
    """``wire_size(P)``: one test per header with its slot and size as constants, generated
    once per program (the traffic manager asks it for every packet it queues at a rate)."""
    cached = getattr(program, "_wire_size_of", None)
    if cached is None:
        lines = ["def wire_size(P):", "    F = P.F", "    size = len(P.payload)"]
        lines += [f"    if F[{slot}]: size += {nbytes}" for slot, nbytes in hdr_sizes]
        lines += [f"    if F[{valid}]: size += F[{length}] // 8" for valid, length in varbit_lens]
        lines.append("    return size")
        ns: dict = {}
        exec(compile("\n".join(lines) + "\n", f"<wire-size:{program.name}>", "exec"), ns)
        cached = program._wire_size_of = ns["wire_size"]
    return cached


def _div(a: int, b: int) -> int:
    return a // b if b else 0


def _mod(a: int, b: int) -> int:
    return a % b if b else 0
