"""P4Runtime entities other than table entries (specification §9.2-§9.9): action profile
members and groups, counters, meters, registers, the packet replication engine (multicast
groups and clone sessions), value sets and digest configurations, each through the switch's
Runtime (the API the Thrift server and the CLI use).

Meters: a MeterConfig's rates are units (bytes or packets) per second and its bursts units;
BMv2 holds rates per microsecond, committed first (RFC 2698: CIR <= PIR). A MeterEntry without
a config makes the meter unconfigured again (every packet green).

Action profiles: P4Runtime names members and groups by ids the controller picks; the switch
numbers them itself (handles), and this server keeps the map. A group member's weight must
be 1 (BMv2 selects among members with equal weight; simple_switch_grpc refuses others). A
table entry may give its actions itself (one-shot, an action_profile_action_set): the server
makes a group and members of the entry's own, invisible to the controller's reads of members
and groups, read back as the set and removed with the entry.

Replication: a multicast group with replicas (port, instance) is one BMv2 multicast group
with one node per instance (rid) holding that instance's ports; a clone session with one
replica mirrors to its port, one with several to a multicast group of the switch's own
(id 2^16 + session, beyond the 16 bits of standard_metadata.mcast_grp, so no program's group
can take it). class_of_service and packet_length_bytes must be 0 (no priority queues, no
truncation of clones in simple_switch's mirroring sessions).
"""
from __future__ import annotations

from . import wire
from .errors import Code, P4RTError, to_bytes, to_int

__all__ = ["Profiles", "Externs", "meter_rates", "meter_config", "CLONE_MGID_BASE"]

CLONE_MGID_BASE = 1 << 16
MAX_MGID = (1 << 16) - 1
MAX_CLONE_SESSION = (1 << 15) - 1       # simple_switch keeps a session id's low 15 bits
MAX_REPLICAS = 4096


def _invalid(message: str) -> P4RTError:
    return P4RTError(Code.INVALID_ARGUMENT, message)


def meter_rates(config, what: str) -> list[tuple[float, int]]:
    """BMv2 rates from a MeterConfig (committed first); INVALID_ARGUMENT unless CIR <= PIR."""
    for name in ("cir", "cburst", "pir", "pburst"):
        if getattr(config, name) < 0:
            raise _invalid(f"{what}: negative {name}")
    if config.cir > config.pir:
        raise _invalid(f"{what}: cir {config.cir} above pir {config.pir}")
    return [(config.cir / 1e6, config.cburst), (config.pir / 1e6, config.pburst)]


def meter_config(rates, msg) -> None:
    """Fill ``msg.meter_config`` / ``msg.config`` from BMv2 rates (nothing if unconfigured)."""
    if not rates:
        return
    cfg = msg.meter_config if hasattr(msg, "meter_config") else msg.config
    (cir, cburst), (pir, pburst) = rates[0], rates[-1]
    cfg.cir, cfg.cburst = round(cir * 1e6), int(cburst)
    cfg.pir, cfg.pburst = round(pir * 1e6), int(pburst)


class Profiles:
    """Action profile members and groups: P4Runtime ids <-> the switch's handles."""

    def __init__(self, pl, rt, pb, entries_of):
        self.pl, self.rt, self.pb = pl, rt, pb
        self.entries_of = entries_of          # () -> TableEntries, for action data
        self.members: dict = {}               # profile id -> {member id: handle}
        self.groups: dict = {}                # profile id -> {group id: (handle, {mid: weight}, max)}
        self.oneshots: dict = {}              # (profile id, group handle) -> ([member handles], set)

    def profile(self, pid: int):
        p = self.pl.profiles.get(pid)
        if p is None:
            raise P4RTError(Code.NOT_FOUND, f"no action profile with id {pid}")
        return p

    # -- references from table entries -------------------------------------------------------
    def reference(self, t, action) -> tuple[int, bool]:
        """(handle, is_group) of a table entry's member or group."""
        which = action.WhichOneof("type")
        p = t.profile
        if which == "action_profile_member_id":
            h = self.members.get(p.id, {}).get(action.action_profile_member_id)
            if h is None:
                raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no member "
                                                f"{action.action_profile_member_id}")
            return h, False
        if which == "action_profile_group_id":
            if not p.with_selector:
                raise _invalid(f"action profile {p.name} has no selector (no groups)")
            g = self.groups.get(p.id, {}).get(action.action_profile_group_id)
            if g is None:
                raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no group "
                                                f"{action.action_profile_group_id}")
            return g[0], True
        if which == "action_profile_action_set":
            return self.oneshot(t, action.action_profile_action_set), True
        raise _invalid(f"table {t.name} takes action profile members or groups")

    # -- one-shot programming (§9.2.3): a group of the entry's own, hidden from the controller -
    def oneshot(self, t, action_set) -> int:
        """A new group holding one new member per action of the set; its handle."""
        p = t.profile
        if not p.with_selector:
            raise _invalid(f"table {t.name}: one-shot programming needs an action selector")
        acts = list(action_set.action_profile_actions)
        if not acts:
            raise _invalid(f"table {t.name}: an empty action set")
        if p.max_group_size and len(acts) > p.max_group_size:
            raise P4RTError(Code.RESOURCE_EXHAUSTED, f"action profile {p.name}: {len(acts)} "
                                                     f"actions above the group size")
        entries = self.entries_of()
        planned = []
        for apa in acts:
            if apa.weight != 1:
                if apa.weight < 1:
                    raise _invalid(f"action profile {p.name}: weight {apa.weight}")
                raise P4RTError(Code.UNIMPLEMENTED, f"action profile {p.name}: weight "
                                                    f"{apa.weight} (BMv2 selects members alike)")
            a, data = entries.action(t, apa.action, default=False)
            planned.append((a.name, data))
        g = self.rt.act_prof_create_group(p.name)
        made = []
        try:
            for name, data in planned:
                made.append(self.rt.act_prof_create_member(p.name, name, data))
                self.rt.act_prof_add_member_to_group(p.name, made[-1], g)
        except Exception:
            self._drop(p.name, g, made)
            raise
        saved = type(action_set)()
        saved.CopyFrom(action_set)
        self.oneshots[(p.id, g)] = (made, saved)
        return g

    def _drop(self, prof: str, g: int, members: list) -> None:
        for m in members:
            try:
                self.rt.act_prof_remove_member_from_group(prof, m, g)
            except Exception:            # noqa: BLE001 - not added yet
                pass
            self.rt.act_prof_delete_member(prof, m)
        self.rt.act_prof_delete_group(prof, g)

    def release(self, t, index) -> None:
        """After an entry stopped using ``index``: its one-shot group and members go."""
        if index is None or index[0] != "grp":
            return
        got = self.oneshots.pop((t.profile.id, index[1]), None)
        if got is not None:
            self._drop(t.profile.name, index[1], got[0])

    def describe(self, t, index: tuple, msg) -> None:
        """Fill a TableAction with the member or group id of a switch handle."""
        kind, handle = index
        p = t.profile
        if kind == "mbr":
            ids = {h: m for m, h in self.members.get(p.id, {}).items()}
            msg.action_profile_member_id = ids.get(handle, handle)
        elif (p.id, handle) in self.oneshots:
            msg.action_profile_action_set.CopyFrom(self.oneshots[(p.id, handle)][1])
        else:
            ids = {g[0]: gid for gid, g in self.groups.get(p.id, {}).items()}
            msg.action_profile_group_id = ids.get(handle, handle)

    # -- members ------------------------------------------------------------------------------
    def write_member(self, kind: str, m) -> None:
        p = self.profile(m.action_profile_id)
        mine = self.members.setdefault(p.id, {})
        if kind == "DELETE":
            h = mine.get(m.member_id)
            if h is None:
                raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no member {m.member_id}")
            for gid, (_, members, _) in self.groups.get(p.id, {}).items():
                if m.member_id in members:
                    raise P4RTError(Code.FAILED_PRECONDITION, f"action profile {p.name}: member "
                                                              f"{m.member_id} is in group {gid}")
            self.rt.act_prof_delete_member(p.name, h)
            del mine[m.member_id]
            return
        if m.action.action_id not in p.actions:
            raise _invalid(f"action profile {p.name}: action id {m.action.action_id} is not one "
                           "of its tables'")
        a = self.pl.actions[m.action.action_id]
        data = self.entries_of().action_data(a, m.action.params)
        if kind == "INSERT":
            if m.member_id in mine:
                raise P4RTError(Code.ALREADY_EXISTS, f"action profile {p.name}: member "
                                                     f"{m.member_id} exists")
            if len(mine) >= p.size:
                raise P4RTError(Code.RESOURCE_EXHAUSTED, f"action profile {p.name} is full "
                                                         f"({p.size} members)")
            mine[m.member_id] = self.rt.act_prof_create_member(p.name, a.name, data)
        else:
            h = mine.get(m.member_id)
            if h is None:
                raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no member {m.member_id}")
            self.rt.act_prof_modify_member(p.name, a.name, h, data)

    def read_members(self, m, out: list) -> None:
        pids = [self.profile(m.action_profile_id).id] if m.action_profile_id else list(self.pl.profiles)
        entries = self.entries_of()
        for pid in pids:
            p = self.pl.profiles[pid]
            prof = self.rt.act_prof(p.name)
            for mid, h in sorted(self.members.get(pid, {}).items()):
                if m.member_id and mid != m.member_id:
                    continue
                msg = self.pb.ActionProfileMember(action_profile_id=pid, member_id=mid)
                action, data = prof.members[h]
                entries._action_message(msg.action, action, data)
                out.append(msg)
            if m.member_id and m.member_id not in self.members.get(pid, {}) and m.action_profile_id:
                raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no member {m.member_id}")

    # -- groups -------------------------------------------------------------------------------
    def write_group(self, kind: str, g) -> None:
        p = self.profile(g.action_profile_id)
        if not p.with_selector:
            raise _invalid(f"action profile {p.name} has no selector (no groups)")
        mine = self.groups.setdefault(p.id, {})
        if kind == "DELETE":
            cur = mine.get(g.group_id)
            if cur is None:
                raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no group {g.group_id}")
            self.rt.act_prof_delete_group(p.name, cur[0])
            del mine[g.group_id]
            return
        wanted = {}
        for gm in g.members:
            if gm.member_id in wanted:
                raise _invalid(f"action profile {p.name}: member {gm.member_id} twice in a group")
            if gm.weight != 1:
                if gm.weight < 1:
                    raise _invalid(f"action profile {p.name}: member weight {gm.weight}")
                raise P4RTError(Code.UNIMPLEMENTED, f"action profile {p.name}: member weight "
                                                    f"{gm.weight} (BMv2 selects members alike)")
            if gm.member_id not in self.members.get(p.id, {}):
                raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no member {gm.member_id}")
            wanted[gm.member_id] = 1
        limit = g.max_size or p.max_group_size
        if limit and len(wanted) > limit:
            raise P4RTError(Code.RESOURCE_EXHAUSTED, f"action profile {p.name}: {len(wanted)} "
                                                     f"members above the group size {limit}")
        if p.max_group_size and g.max_size > p.max_group_size:
            raise _invalid(f"action profile {p.name}: max_size {g.max_size} above "
                           f"{p.max_group_size}")
        if kind == "INSERT":
            if g.group_id in mine:
                raise P4RTError(Code.ALREADY_EXISTS, f"action profile {p.name}: group "
                                                     f"{g.group_id} exists")
            h = self.rt.act_prof_create_group(p.name)
            mine[g.group_id] = (h, {}, g.max_size)
        cur = mine.get(g.group_id)
        if cur is None:
            raise P4RTError(Code.NOT_FOUND, f"action profile {p.name}: no group {g.group_id}")
        h, members, _ = cur
        handles = self.members[p.id]
        for mid in [x for x in members if x not in wanted]:
            self.rt.act_prof_remove_member_from_group(p.name, handles[mid], h)
            del members[mid]
        for mid in wanted:
            if mid not in members:
                self.rt.act_prof_add_member_to_group(p.name, handles[mid], h)
                members[mid] = 1
        mine[g.group_id] = (h, members, g.max_size)

    def read_groups(self, g, out: list) -> None:
        pids = [self.profile(g.action_profile_id).id] if g.action_profile_id else \
            [pid for pid, p in self.pl.profiles.items() if p.with_selector]
        for pid in pids:
            for gid, (_, members, max_size) in sorted(self.groups.get(pid, {}).items()):
                if g.group_id and gid != g.group_id:
                    continue
                msg = self.pb.ActionProfileGroup(action_profile_id=pid, group_id=gid,
                                                 max_size=max_size)
                for mid in members:
                    msg.members.add(member_id=mid, weight=1)
                out.append(msg)


class Externs:
    """Counters, meters, registers, the PRE, value sets and digest configurations."""

    def __init__(self, pl, rt, pb, tables):
        self.pl, self.rt, self.pb, self.tables = pl, rt, pb, tables
        self.mcast: dict = {}          # mgid -> [(instance, node handle, [ports])]
        self.clones: dict = {}         # session -> CloneSessionEntry as written
        self.digest_config: dict = {}  # digest id -> DigestEntry.Config

    def _one(self, table: dict, oid: int, what: str):
        x = table.get(oid)
        if x is None:
            raise P4RTError(Code.NOT_FOUND, f"no {what} with id {oid}")
        return x

    @staticmethod
    def _indices(e, size: int, what: str):
        if e.HasField("index"):
            i = e.index.index
            if not 0 <= i < size:
                raise P4RTError(Code.OUT_OF_RANGE, f"{what}: index {i} out of 0..{size - 1}")
            return [i]
        return range(size)

    # -- counters -----------------------------------------------------------------------------
    def write_counter(self, kind: str, e) -> None:
        if kind != "MODIFY":
            raise _invalid("counter entries are only modified")
        c = self._one(self.pl.counters, e.counter_id, "counter")
        for i in self._indices(e, c.size, f"counter {c.name}"):
            self.rt.counter_write(c.name, i, e.data.packet_count, e.data.byte_count)

    def read_counters(self, e, out: list) -> None:
        cs = [self._one(self.pl.counters, e.counter_id, "counter")] if e.counter_id \
            else list(self.pl.counters.values())
        for c in cs:
            cells = []
            for i in self._indices(e, c.size, f"counter {c.name}"):
                p, b = self.rt.counter_read(c.name, i)
                cells.append(wire.counter_entity(c.id, i, p, b))
            out.add_raw(cells)

    def write_direct_counter(self, kind: str, e) -> None:
        if kind != "MODIFY":
            raise _invalid("direct counter entries are only modified")
        t, ents = self.tables.direct_entries(e, "counter")
        for ent in ents:
            self.rt.table_counter_write(t.name, ent.handle, e.data.packet_count, e.data.byte_count)

    def read_direct_counters(self, e, out: list) -> None:
        if not e.HasField("table_entry") or not e.table_entry.table_id:
            tables = [c.table for c in self.pl.direct_counters.values()]
        else:
            tables = None
        for t, ents in ([(t, self.tables.direct_entries(_with_table(self.pb, "DirectCounterEntry",
                                                                    t.id), "counter")[1])
                         for t in tables] if tables is not None
                        else [self.tables.direct_entries(e, "counter")]):
            for ent in ents:
                msg = self.pb.DirectCounterEntry()
                msg.table_entry.CopyFrom(self.tables.entry_message(t, ent))
                msg.data.packet_count, msg.data.byte_count = \
                    self.rt.table_counter_read(t.name, ent.handle)
                out.append(msg)

    # -- meters -------------------------------------------------------------------------------
    def write_meter(self, kind: str, e) -> None:
        if kind != "MODIFY":
            raise _invalid("meter entries are only modified")
        m = self._one(self.pl.meters, e.meter_id, "meter")
        for i in self._indices(e, m.size, f"meter {m.name}"):
            if e.HasField("config"):
                self.rt.meter_set_rates(m.name, i, meter_rates(e.config, f"meter {m.name}"))
            else:
                self.rt.meter_clear_rates(m.name, i)

    def read_meters(self, e, out: list) -> None:
        ms = [self._one(self.pl.meters, e.meter_id, "meter")] if e.meter_id \
            else list(self.pl.meters.values())
        for m in ms:
            for i in self._indices(e, m.size, f"meter {m.name}"):
                msg = out.add()
                msg.meter_id = m.id
                msg.index.index = i
                meter_config(self.rt.meter_get_rates(m.name, i), msg)

    def write_direct_meter(self, kind: str, e) -> None:
        if kind != "MODIFY":
            raise _invalid("direct meter entries are only modified")
        t, ents = self.tables.direct_entries(e, "meter")
        meter = self.pl.direct_meters[t.direct_meter]
        for ent in ents:
            if e.HasField("config"):
                self.rt.table_meter_set_rates(t.name, ent.handle,
                                              meter_rates(e.config, f"meter {meter.name}"))
            else:
                self.rt.meter_clear_rates(self.rt.table(t.name).spec.direct_meters, ent.handle)

    def read_direct_meters(self, e, out: list) -> None:
        if not e.HasField("table_entry") or not e.table_entry.table_id:
            pairs = [(m.table, self.tables.direct_entries(
                _with_table(self.pb, "DirectMeterEntry", m.table.id), "meter")[1])
                for m in self.pl.direct_meters.values()]
        else:
            pairs = [self.tables.direct_entries(e, "meter")]
        for t, ents in pairs:
            for ent in ents:
                msg = self.pb.DirectMeterEntry()
                msg.table_entry.CopyFrom(self.tables.entry_message(t, ent))
                meter_config(self.rt.table_meter_get_rates(t.name, ent.handle), msg)
                out.append(msg)

    # -- registers ----------------------------------------------------------------------------
    def write_register(self, kind: str, e) -> None:
        if kind != "MODIFY":
            raise _invalid("register entries are only modified")
        r = self._one(self.pl.registers, e.register_id, "register")
        if e.data.WhichOneof("data") != "bitstring":
            raise _invalid(f"register {r.name}: data must be a bitstring")
        v = to_int(e.data.bitstring, r.bitwidth, f"register {r.name}")
        for i in self._indices(e, r.size, f"register {r.name}"):
            self.rt.register_write(r.name, i, v)

    def read_registers(self, e, out: list) -> None:
        rs = [self._one(self.pl.registers, e.register_id, "register")] if e.register_id \
            else list(self.pl.registers.values())
        for r in rs:
            values = self.rt.register_read_all(r.name)
            out.add_raw([wire.register_entity(r.id, i, to_bytes(values[i]))
                         for i in self._indices(e, r.size, f"register {r.name}")])

    # -- packet replication engine ------------------------------------------------------------
    def _replicas(self, replicas, what: str) -> dict:
        """instance -> [ports] of a replica list (each (port, instance) once)."""
        if len(replicas) > MAX_REPLICAS:
            raise P4RTError(Code.RESOURCE_EXHAUSTED, f"{what}: over {MAX_REPLICAS} replicas")
        seen, out = set(), {}
        for r in replicas:
            if r.WhichOneof("port_kind") == "port":
                port = to_int(r.port, 32, f"{what}: replica port")
            else:
                port = r.egress_port
            if not 0 <= port < 512:
                raise P4RTError(Code.OUT_OF_RANGE, f"{what}: egress port {port} (0..511)")
            if not 0 <= r.instance < (1 << 16):
                raise P4RTError(Code.OUT_OF_RANGE, f"{what}: instance {r.instance} (16 bits)")
            if (port, r.instance) in seen:
                raise _invalid(f"{what}: replica (port {port}, instance {r.instance}) twice")
            seen.add((port, r.instance))
            out.setdefault(r.instance, []).append(port)
        return out

    def _set_group(self, mgid: int, replicas: dict) -> None:
        for inst, handle, _ in self.mcast.pop(mgid, []):
            self.rt.mc_node_dissociate(mgid, handle)
            self.rt.mc_node_destroy(handle)
        self.rt.mc_mgrp_create(mgid)
        nodes = []
        for inst, ports in replicas.items():
            h = self.rt.mc_node_create(inst, ports)
            self.rt.mc_node_associate(mgid, h)
            nodes.append((inst, h, ports))
        self.mcast[mgid] = nodes

    def _drop_group(self, mgid: int) -> None:
        for inst, handle, _ in self.mcast.pop(mgid, []):
            self.rt.mc_node_dissociate(mgid, handle)
            self.rt.mc_node_destroy(handle)
        self.rt.mc_mgrp_destroy(mgid)

    def write_pre(self, kind: str, e) -> None:
        which = e.WhichOneof("type")
        if which == "multicast_group_entry":
            g = e.multicast_group_entry
            what = f"multicast group {g.multicast_group_id}"
            if not 0 < g.multicast_group_id <= MAX_MGID:
                raise P4RTError(Code.OUT_OF_RANGE, f"{what}: ids are 1..{MAX_MGID}")
            exists = g.multicast_group_id in self.mcast
            self._check_kind(kind, exists, what)
            if kind == "DELETE":
                self._drop_group(g.multicast_group_id)
            else:
                self._set_group(g.multicast_group_id, self._replicas(g.replicas, what))
            return
        if which != "clone_session_entry":
            raise _invalid("a packet replication engine entry needs a multicast group or a "
                           "clone session")
        c = e.clone_session_entry
        what = f"clone session {c.session_id}"
        if not 0 < c.session_id <= MAX_CLONE_SESSION:
            raise P4RTError(Code.OUT_OF_RANGE, f"{what}: ids are 1..{MAX_CLONE_SESSION}")
        self._check_kind(kind, c.session_id in self.clones, what)
        mgid = CLONE_MGID_BASE + c.session_id
        if kind == "DELETE":
            self.rt.mirroring_delete(c.session_id)
            if mgid in self.mcast:
                self._drop_group(mgid)
            del self.clones[c.session_id]
            return
        if c.class_of_service or c.packet_length_bytes:
            raise P4RTError(Code.UNIMPLEMENTED, f"{what}: class_of_service and "
                                                "packet_length_bytes must be 0 on this switch")
        replicas = self._replicas(c.replicas, what)
        if mgid in self.mcast:
            self._drop_group(mgid)
        ports = [p for ps in replicas.values() for p in ps]
        if len(ports) == 1 and list(replicas) == [0]:
            self.rt.mirroring_add(c.session_id, ports[0])
        else:
            self._set_group(mgid, replicas)
            self.rt.mirroring_add_mc(c.session_id, mgid)
        saved = self.pb.CloneSessionEntry()
        saved.CopyFrom(c)
        self.clones[c.session_id] = saved

    @staticmethod
    def _check_kind(kind: str, exists: bool, what: str) -> None:
        if kind == "INSERT" and exists:
            raise P4RTError(Code.ALREADY_EXISTS, f"{what} exists")
        if kind != "INSERT" and not exists:
            raise P4RTError(Code.NOT_FOUND, f"no {what}")

    def read_pre(self, e, out: list) -> None:
        which = e.WhichOneof("type")
        if which == "multicast_group_entry":
            want = e.multicast_group_entry.multicast_group_id
            for mgid in sorted(self.mcast):
                if mgid > MAX_MGID or want and mgid != want:
                    continue
                msg = self.pb.PacketReplicationEngineEntry()
                g = msg.multicast_group_entry
                g.multicast_group_id = mgid
                for inst, _, ports in self.mcast[mgid]:
                    for p in ports:
                        g.replicas.add(egress_port=p, instance=inst)
                out.append(msg)
        elif which == "clone_session_entry":
            want = e.clone_session_entry.session_id
            for sid in sorted(self.clones):
                if want and sid != want:
                    continue
                msg = self.pb.PacketReplicationEngineEntry()
                msg.clone_session_entry.CopyFrom(self.clones[sid])
                out.append(msg)
        else:
            raise _invalid("read a multicast group or a clone session entry")

    # -- value sets ---------------------------------------------------------------------------
    def write_value_set(self, kind: str, e) -> None:
        if kind != "MODIFY":
            raise _invalid("value set entries are only modified (the whole set)")
        vs = self._one(self.pl.value_sets, e.value_set_id, "value set")
        if len(e.members) > vs.size:
            raise P4RTError(Code.RESOURCE_EXHAUSTED, f"value set {vs.name}: {len(e.members)} "
                                                     f"members, room for {vs.size}")
        values = []
        for member in e.members:
            v = 0
            if len(member.match) != len(vs.widths):
                raise _invalid(f"value set {vs.name}: a member has {len(member.match)} fields")
            for fm in sorted(member.match, key=lambda f: f.field_id):
                w = vs.widths[fm.field_id - 1] if 0 < fm.field_id <= len(vs.widths) else None
                if w is None or fm.WhichOneof("field_match_type") != "exact":
                    raise _invalid(f"value set {vs.name}: field {fm.field_id} must be exact")
                v = (v << w) | to_int(fm.exact.value, w, f"value set {vs.name}")
            values.append(v)
        self.rt.pvs_clear(vs.name)
        for v in values:
            self.rt.pvs_add(vs.name, v)

    def read_value_sets(self, e, out: list) -> None:
        sets = [self._one(self.pl.value_sets, e.value_set_id, "value set")] if e.value_set_id \
            else list(self.pl.value_sets.values())
        for vs in sets:
            msg = self.pb.ValueSetEntry(value_set_id=vs.id)
            for v in self.rt.pvs_get(vs.name):
                member = msg.members.add()
                shift = sum(vs.widths)
                for i, w in enumerate(vs.widths):
                    shift -= w
                    member.match.add(field_id=i + 1).exact.value = \
                        to_bytes((v >> shift) & ((1 << w) - 1))
            out.append(msg)

    # -- digests ------------------------------------------------------------------------------
    def write_digest(self, kind: str, e) -> None:
        d = self._one(self.pl.digests, e.digest_id, "digest")
        exists = d.id in self.digest_config
        self._check_kind(kind, exists, f"digest {d.name} configuration")
        if kind == "DELETE":
            del self.digest_config[d.id]
            return
        cfg = e.config
        if cfg.max_timeout_ns < 0 or cfg.max_list_size < 0 or cfg.ack_timeout_ns < 0:
            raise _invalid(f"digest {d.name}: negative configuration value")
        learning = self.rt.sw.learning
        # the learn list's buffer goes out when full or max_timeout after its first sample
        learning.set_timeout(d.list_id, cfg.max_timeout_ns // 1_000_000 or 0)
        learning.set_max_samples(d.list_id, cfg.max_list_size or 1)
        saved = self.pb.DigestEntry.Config()
        saved.CopyFrom(cfg)
        self.digest_config[d.id] = saved

    def read_digests(self, e, out: list) -> None:
        for did in sorted(self.digest_config):
            if e.digest_id and did != e.digest_id:
                continue
            msg = self.pb.DigestEntry(digest_id=did)
            msg.config.CopyFrom(self.digest_config[did])
            out.append(msg)


def _with_table(pb, kind: str, table_id: int):
    msg = getattr(pb, kind)()
    msg.table_entry.table_id = table_id
    return msg
