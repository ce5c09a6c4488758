"""Table entries over P4Runtime (specification §9.1): keys, actions, priorities, the default
entry, and the direct counters and meters that belong to entries (§9.4, §9.6).

An entry is named by its key (and, in a table whose key has a ternary, range or optional
field, its priority): the server finds the switch's entry handle from it, so entries
written over Thrift are read and changed over P4Runtime too. Keys follow §9.1.1: an exact
field must be given; a ternary, LPM, range or optional field that matches everything must be
left out (a zero mask, a /0 prefix or a full range given is INVALID_ARGUMENT), and bits
outside a ternary mask or an LPM prefix must be zero. Priorities: P4Runtime's highest value
wins, BMv2's lowest; the switch holds ``BM_PRIORITY_TOP - p``.
"""
from __future__ import annotations

from ..bm_sim.tables import HANDLE_INDEX_MASK, MatchParam
from .errors import Code, P4RTError, each_once, to_bytes, to_int
from .pipeline import TableInfo

__all__ = ["TableEntries", "BM_PRIORITY_TOP"]

BM_PRIORITY_TOP = (1 << 31) - 1        # P4Runtime priorities are 1 .. 2^31-1 (int32 > 0)


def _invalid(message: str) -> P4RTError:
    return P4RTError(Code.INVALID_ARGUMENT, message)


class TableEntries:
    """Table entries of the current pipeline ``pl`` on the switch ``rt`` (its Runtime);
    ``profiles`` translates action profile member/group ids (profiles.py)."""

    def __init__(self, pl, rt, profiles, pb):
        self.pl, self.rt, self.profiles, self.pb = pl, rt, profiles, pb
        self.meta: dict = {}           # (table name, handle) -> (controller_metadata, metadata, idle ns)
        self.aging: set = set()        # the (table name, handle) of entries with an idle timeout
        self.action_by_name = {a.name: a for a in pl.actions.values()}

    # -- lookups ------------------------------------------------------------------------------
    def table(self, table_id: int) -> TableInfo:
        t = self.pl.tables.get(table_id)
        if t is None:
            raise P4RTError(Code.NOT_FOUND, f"no table with id {table_id}")
        return t

    def key(self, t: TableInfo, fields, priority: int) -> tuple[list, int]:
        """(MatchParams in key order, BMv2 priority) of a P4Runtime key."""
        spec_keys = self.rt.table(t.name).keys
        given = each_once(fields, lambda fm: fm.field_id, t.fields, f"table {t.name}",
                          "match field", lambda f, fm: fm)
        out = []
        for f in t.order:
            json_kind = spec_keys[f.index].match_type
            out.append(self._param(t, f, json_kind, given.get(f.id)))
        if t.needs_priority:
            if priority <= 0:
                raise _invalid(f"table {t.name}: an entry needs a priority above 0")
            return out, BM_PRIORITY_TOP - priority
        if priority:
            raise _invalid(f"table {t.name}: its entries have no priority")
        return out, 0

    def _param(self, t, f, json_kind: str, fm) -> MatchParam:
        full = (1 << f.bitwidth) - 1
        what = f"table {t.name}: match field {f.name}"
        which = fm.WhichOneof("field_match_type") if fm is not None else None
        if fm is not None and which != f.kind:
            raise _invalid(f"{what} is {f.kind}, not {which}")
        if f.kind == "exact":
            if fm is None:
                raise _invalid(f"{what} (exact) must be given")
            return MatchParam(json_kind, to_int(fm.exact.value, f.bitwidth, what))
        if f.kind == "lpm":
            if fm is None:
                return MatchParam("lpm", 0, 0)
            v = to_int(fm.lpm.value, f.bitwidth, what)
            plen = fm.lpm.prefix_len
            if not 0 < plen <= f.bitwidth:
                raise _invalid(f"{what}: prefix length {plen} (1..{f.bitwidth}; leave a /0 "
                               "field out)")
            if v & (full >> plen):
                raise _invalid(f"{what}: bits beyond the /{plen} prefix are set")
            return MatchParam("lpm", v, plen)
        if f.kind == "ternary":
            if fm is None:
                return MatchParam(json_kind, 0, 0)
            v = to_int(fm.ternary.value, f.bitwidth, what)
            m = to_int(fm.ternary.mask, f.bitwidth, what)
            if m == 0:
                raise _invalid(f"{what}: a zero mask matches everything (leave the field out)")
            if v & ~m:
                raise _invalid(f"{what}: value bits outside the mask are set")
            return MatchParam(json_kind, v, m)
        if f.kind == "range":
            if fm is None:
                return MatchParam("range", 0, full)
            lo = to_int(fm.range.low, f.bitwidth, what)
            hi = to_int(fm.range.high, f.bitwidth, what)
            if lo > hi:
                raise _invalid(f"{what}: low {lo} above high {hi}")
            if lo == 0 and hi == full:
                raise _invalid(f"{what}: the full range matches everything (leave the field "
                               "out)")
            return MatchParam("range", lo, hi)
        # optional: a JSON ternary key (as p4c writes it) with a full or a zero mask
        if fm is None:
            return MatchParam(json_kind, 0, 0)
        return MatchParam(json_kind, to_int(fm.optional.value, f.bitwidth, what), full)

    def action_data(self, a, params) -> list[int]:
        """The action's data in JSON order from P4Runtime params (each exactly once)."""
        given = each_once(params, lambda p: p.param_id, a.params, f"action {a.name}",
                          "parameter", lambda info, p: to_int(
                              p.value, info.bitwidth, f"action {a.name}: parameter {info.name}"))
        missing = [i.name for i in a.order if i.id not in given]
        if missing:
            raise _invalid(f"action {a.name}: parameter {missing[0]} missing")
        return [given[i.id] for i in a.order]

    def action(self, t: TableInfo, action, *, default: bool):
        """(ActionInfo, data) of a direct action allowed in the table (scope checked)."""
        a = self.pl.actions.get(action.action_id)
        if a is None or action.action_id not in t.actions:
            raise _invalid(f"table {t.name}: action id {action.action_id} is not one of its "
                           "actions")
        scope = t.actions[action.action_id]
        if default and scope == 1:
            raise P4RTError(Code.PERMISSION_DENIED, f"table {t.name}: action {a.name} is "
                                                    "@tableonly (not a default action)")
        if not default and scope == 2:
            raise P4RTError(Code.PERMISSION_DENIED, f"table {t.name}: action {a.name} is "
                                                    "@defaultonly (not for entries)")
        return a, self.action_data(a, action.params)

    def handle_of(self, t: TableInfo, match: list, bm_priority: int) -> int:
        try:
            return self.rt.table_entry_from_key(t.name, match, bm_priority).handle
        except Exception:
            raise P4RTError(Code.NOT_FOUND, f"table {t.name}: no entry with that key") from None

    # -- writes -------------------------------------------------------------------------------
    def write(self, kind: str, e) -> None:
        t = self.table(e.table_id)
        if e.is_default_action:
            return self._write_default(kind, t, e)
        if t.is_const:
            raise P4RTError(Code.PERMISSION_DENIED, f"table {t.name} has const entries")
        if e.HasField("meter_config") or e.HasField("counter_data"):
            if t.direct_meter is None and e.HasField("meter_config"):
                raise _invalid(f"table {t.name} has no direct meter")
            if t.direct_counter is None and e.HasField("counter_data"):
                raise _invalid(f"table {t.name} has no direct counter")
        if e.idle_timeout_ns and not t.idle_timeout:
            raise _invalid(f"table {t.name} does not support idle timeouts")
        match, prio = self.key(t, e.match, e.priority)
        meta = (e.controller_metadata, e.metadata, e.idle_timeout_ns)
        if kind == "INSERT":
            if not e.HasField("action"):
                raise _invalid(f"table {t.name}: an entry needs an action")
            h = self._insert(t, match, prio, e.action)
        elif kind == "MODIFY":
            h = self.handle_of(t, match, prio)
            if e.HasField("action"):
                self._modify(t, h, e.action)
        else:
            h = self.handle_of(t, match, prio)
            index = self.rt.table(t.name).entries[h].index
            self.rt.table_delete(t.name, h)
            if t.profile is not None:
                self.profiles.release(t, index)
            self.meta.pop((t.name, h), None)
            self.aging.discard((t.name, h))
            return
        self.meta[(t.name, h)] = meta
        if e.idle_timeout_ns > 0:
            self.aging.add((t.name, h))
        else:
            self.aging.discard((t.name, h))
        if e.HasField("counter_data"):
            self.rt.table_counter_write(t.name, h, e.counter_data.packet_count,
                                        e.counter_data.byte_count)
        if e.HasField("meter_config"):
            self._set_direct_meter(t, h, e.meter_config)

    def _insert(self, t, match, prio, action) -> int:
        which = action.WhichOneof("type")
        if t.profile is None:
            if which != "action":
                raise _invalid(f"table {t.name} takes actions, not action profile members")
            a, data = self.action(t, action.action, default=False)
            return self.rt.table_add(t.name, a.name, match, data, prio)
        handle, group = self.profiles.reference(t, action)
        try:
            return self.rt.table_indirect_add(t.name, match, handle, prio, group=group)
        except Exception:
            self.profiles.release(t, ("grp", handle) if group else None)
            raise

    def _modify(self, t, h: int, action) -> None:
        if t.profile is None:
            if action.WhichOneof("type") != "action":
                raise _invalid(f"table {t.name} takes actions, not action profile members")
            a, data = self.action(t, action.action, default=False)
            self.rt.table_modify(t.name, a.name, h, data)
            return
        before = self.rt.table(t.name).entries[h].index
        handle, group = self.profiles.reference(t, action)
        try:
            self.rt.table_indirect_modify(t.name, h, handle, group=group)
        except Exception:
            self.profiles.release(t, ("grp", handle) if group else None)
            raise
        self.profiles.release(t, before)

    def _write_default(self, kind: str, t: TableInfo, e) -> None:
        """§9.1.4: the default entry is only modified (MODIFY; without an action it goes
        back to the program's default); it has no key and no priority."""
        if kind != "MODIFY":
            raise _invalid(f"table {t.name}: the default entry can only be modified")
        if len(e.match) or e.priority:
            raise _invalid(f"table {t.name}: the default entry has no key or priority")
        if t.const_default is not None:
            raise P4RTError(Code.PERMISSION_DENIED, f"table {t.name}: its default action is const")
        if not e.HasField("action"):
            if t.profile is not None:
                self.rt.table_indirect_reset_default(t.name)
            else:
                self.rt.table_reset_default(t.name)
                self._restore_initial_default(t)
            return
        if t.profile is not None:
            handle, group = self.profiles.reference(t, e.action)
            self.rt.table_indirect_set_default(t.name, handle, group=group)
            return
        if e.action.WhichOneof("type") != "action":
            raise _invalid(f"table {t.name} takes actions, not action profile members")
        a, data = self.action(t, e.action.action, default=True)
        self.rt.table_set_default(t.name, a.name, data)

    def _restore_initial_default(self, t) -> None:
        mt = self.rt.table(t.name)
        if mt.initial_default is not None:
            aid, data = mt.initial_default
            mt.set_default(self.rt.program.actions_by_id[aid].name, data, force=True)

    def _set_direct_meter(self, t, h: int, config) -> None:
        from .externs import meter_rates
        self.rt.table_meter_set_rates(t.name, h, meter_rates(config, f"table {t.name}"))

    # -- reads --------------------------------------------------------------------------------
    def read(self, e, out: list) -> None:
        """Append to ``out`` the TableEntry messages ``e`` selects (§11.1: table_id 0 is every
        table; a key selects one entry; is_default_action the default entries)."""
        tables = [self.table(e.table_id)] if e.table_id else list(self.pl.tables.values())
        for t in tables:
            if e.is_default_action:
                out.append(self._default_message(t))
                continue
            mt = self.rt.table(t.name)
            if len(e.match) or e.priority:
                match, prio = self.key(t, e.match, e.priority)
                handles = [self.handle_of(t, match, prio)]
            else:
                handles = sorted(mt.entries, key=lambda h: h & HANDLE_INDEX_MASK)
            for h in handles:
                out.append(self.entry_message(t, mt.entries[h], counters=e.HasField(
                    "counter_data"), meters=e.HasField("meter_config")))

    def entry_message(self, t: TableInfo, ent, *, counters=False, meters=False):
        msg = self.pb.TableEntry(table_id=t.id)
        for f, m in zip(t.order, ent.match):
            self._field_message(msg, f, m)
        if t.needs_priority:
            msg.priority = BM_PRIORITY_TOP - ent.priority
        if ent.index is not None:
            self.profiles.describe(t, ent.index, msg.action)
        elif ent.action is not None:
            self._action_message(msg.action.action, ent.action, ent.data)
        cm, md, idle = self.meta.get((t.name, ent.handle), (0, b"", 0))
        msg.controller_metadata, msg.metadata, msg.idle_timeout_ns = cm, md, idle
        msg.is_const = t.is_const
        if counters and t.direct_counter is not None:
            msg.counter_data.packet_count, msg.counter_data.byte_count = \
                self.rt.table_counter_read(t.name, ent.handle)
        if meters and t.direct_meter is not None:
            from .externs import meter_config
            meter_config(self.rt.table_meter_get_rates(t.name, ent.handle), msg)
        return msg

    def _field_message(self, msg, f, m: MatchParam) -> None:
        full = (1 << f.bitwidth) - 1
        if f.kind in ("ternary", "optional") and m.b == 0 or \
                f.kind == "lpm" and m.b == 0 or f.kind == "range" and (m.a, m.b) == (0, full):
            return                              # matches everything: left out (§9.1.1)
        fm = msg.match.add(field_id=f.id)
        if f.kind == "exact":
            fm.exact.value = to_bytes(m.a)
        elif f.kind == "lpm":
            fm.lpm.value, fm.lpm.prefix_len = to_bytes(m.a), m.b
        elif f.kind == "ternary":
            fm.ternary.value, fm.ternary.mask = to_bytes(m.a), to_bytes(m.b)
        elif f.kind == "range":
            fm.range.low, fm.range.high = to_bytes(m.a), to_bytes(m.b)
        else:
            fm.optional.value = to_bytes(m.a)

    def _action_message(self, msg, name: str, data) -> None:
        a = self.action_by_name.get(name)
        if a is None:                # an action the P4Info does not list (NoAction's kin)
            return
        msg.action_id = a.id
        for p, v in zip(a.order, data):
            msg.params.add(param_id=p.id, value=to_bytes(v))

    def _default_message(self, t: TableInfo):
        msg = self.pb.TableEntry(table_id=t.id, is_default_action=True)
        mt = self.rt.table(t.name)
        if t.profile is not None and mt.indirect_default is not None:
            self.profiles.describe(t, mt.indirect_default.index, msg.action)
        elif mt.default_action is not None:
            self._action_message(msg.action.action, mt.default_action, mt.default_data)
        return msg

    # -- direct counters and meters (DirectCounterEntry, DirectMeterEntry) --------------------
    def direct_entries(self, e, has_table: str):
        """(TableInfo, [entry]) a DirectCounterEntry's / DirectMeterEntry's table_entry names
        (every entry of the table when it has no key)."""
        te = e.table_entry
        t = self.table(te.table_id)
        if (t.direct_counter if has_table == "counter" else t.direct_meter) is None:
            raise _invalid(f"table {t.name} has no direct {has_table}")
        mt = self.rt.table(t.name)
        if te.is_default_action:
            raise P4RTError(Code.UNIMPLEMENTED, f"table {t.name}: the default entry's direct "
                                                f"{has_table} is not kept by this switch")
        if len(te.match) or te.priority:
            match, prio = self.key(t, te.match, te.priority)
            return t, [mt.entries[self.handle_of(t, match, prio)]]
        return t, [mt.entries[h] for h in sorted(mt.entries, key=lambda h: h & HANDLE_INDEX_MASK)]
