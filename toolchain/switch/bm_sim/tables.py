"""Match-action tables at run time: entries, lookups, defaults (BMv2 ``match_units``).

A lookup returns a *result* ``(action function, action data, next node, entry)``. Tables
whose keys are all exact use one dict; tables with one LPM key and otherwise exact keys use
one dict per prefix length, longest first; anything with ternary, range or optional keys
is a priority-ordered list where, as in BMv2, the *lowest* priority value wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from .pipeline import KeySpec, TableSpec

__all__ = ["TableOpError", "MatchParam", "Entry", "MatchTable"]

HANDLE_INDEX_BITS = 24                          # bmv2: internal handle | version << 24
HANDLE_INDEX_MASK = (1 << HANDLE_INDEX_BITS) - 1


class TableOpError(Exception):
    """A table operation failed; ``code`` is BMv2's TableOperationErrorCode name."""

    def __init__(self, code: str):
        self.code = code
        super().__init__(code)


@dataclass
class MatchParam:
    """One key component of an entry. ``kind`` is the key's match type.

    exact/valid: ``a`` value; lpm: ``a`` value, ``b`` prefix length; ternary: ``a`` value,
    ``b`` mask; range: ``a`` low, ``b`` high; optional: ``a`` value, ``b`` mask (0 = wildcard).
    """

    kind: str
    a: int
    b: int = 0


@dataclass
class Entry:
    handle: int
    match: list[MatchParam]
    action: str
    data: tuple
    priority: int
    result: tuple = ()
    packets: int = 0
    bytes: int = 0
    meter: object = None
    index: tuple | None = None       # indirect tables: ("mbr" | "grp", handle) in the action profile
    hits: int = 0                    # packets that hit it, in a table with support_timeout (ageing)


def _full(width: int) -> int:
    return (1 << width) - 1


class MatchTable:
    def __init__(self, spec: TableSpec, bind: dict[str, tuple], noop, node_of):
        """``bind``: action name -> (function, next node on hit); ``node_of``: node name -> fn."""
        self.spec = spec
        self.name = spec.name
        self.keys: list[KeySpec] = spec.keys
        self.bind = bind
        self._node_of = node_of
        kinds = [k.match_type for k in self.keys]
        self.single = len(self.keys) == 1
        if all(k in ("exact", "valid") for k in kinds):
            self.kind = "exact"
        elif kinds.count("lpm") == 1 and all(k in ("exact", "valid", "lpm") for k in kinds):
            self.kind = "lpm"
            self.lpm_index = kinds.index("lpm")
        else:
            self.kind = "ternary"
        self.hit_next = spec.next_tables.get("__HIT__") if "__HIT__" in spec.next_tables else None
        self.has_hit_miss = "__HIT__" in spec.next_tables or "__MISS__" in spec.next_tables
        self.entries: dict[int, Entry] = {}
        self._versions: dict[int, int] = {}    # internal handle -> its version (see _new_handle)
        self._noop = noop
        self.default_const = False
        self.default_entry_const = False
        self.default_action: str | None = None
        self.on_keyless_change = None      # set by a switch that inlined this table's default
        self.default_data: tuple = ()
        self.default: tuple = ()
        self.default_meter = None
        self.meter_factory = None
        self.keyless = self.default
        self._reset_default_from_json()
        self._rebuild()

    # -- defaults ---------------------------------------------------------------------------------
    def _miss_next(self):
        if self.has_hit_miss:
            return self._node_of(self.spec.next_tables.get("__MISS__"))
        return None

    def _reset_default_from_json(self) -> None:
        d = self.spec.default_entry
        self.initial_default = None
        if d is None:
            self.default = (self._noop, (), self._node_of(self.spec.base_default_next), None)
            return
        self.default_const = bool(d.get("action_const"))
        self.default_entry_const = bool(d.get("action_entry_const"))
        self.initial_default = (d["action_id"], tuple(int(x, 16) for x in d.get("action_data", [])))

    def set_default(self, action: str, data: tuple, *, force: bool = False) -> None:
        if self.profile is not None:
            raise TableOpError("WRONG_TABLE_TYPE")
        if not force:
            if action not in self.bind:
                raise TableOpError("INVALID_ACTION_NAME")
            if self.default_entry_const:
                raise TableOpError("DEFAULT_ENTRY_IS_CONST")
            if self.default_const and action != self.default_action:
                raise TableOpError("DEFAULT_ACTION_IS_CONST")
        fn, hit_next = self.bind[action]
        nxt = self._miss_next() if self.has_hit_miss else hit_next
        self.default_action, self.default_data = action, data
        self.default = (fn, data, nxt, None)
        self._update_keyless()

    def reset_default(self) -> None:
        if self.spec.default_entry is None:
            self.default_action, self.default_data = None, ()
            self.default = (self._noop, (), self._node_of(self.spec.base_default_next), None)
            self._update_keyless()

    def _update_keyless(self) -> None:
        # a table without key fields matches its (single, empty-key) entry if it has one
        if not self.keys:
            self.keyless = next(iter(self.entries.values())).result if self.entries else self.default
            if self.on_keyless_change is not None:
                self.on_keyless_change(self)

    # -- entries ----------------------------------------------------------------------------------
    def _check_match(self, match: list[MatchParam]) -> list[MatchParam]:
        if len(match) != len(self.keys):
            raise TableOpError("BAD_MATCH_KEY")
        out = []
        for m, k in zip(match, self.keys):
            full = _full(k.width)
            if m.a < 0 or m.a > full:
                raise TableOpError("BAD_MATCH_KEY")
            if m.kind == "lpm":
                # the key is kept as given (simple_switch dumps it so, e.g. 0a000001/12) and
                # masked to its prefix where it is matched (_key_value)
                if not 0 <= m.b <= k.width:
                    raise TableOpError("BAD_MATCH_KEY")
            elif m.kind in ("ternary", "optional"):
                m = MatchParam(m.kind, m.a & m.b & full, m.b & full)
            elif m.kind == "range":
                if m.b > full:
                    raise TableOpError("BAD_MATCH_KEY")
            out.append(m)
        return out

    # a table with const entries (JSON "entries") keeps them: the control plane can neither add,
    # modify nor delete one (MatchTable::set_immutable_entries); table_clear and reset_state
    # still empty it, as BMv2's MatchTable::reset_state does, and it stays immutable (empty)
    immutable = False

    def _mutable(self) -> None:
        if self.immutable:
            raise TableOpError("IMMUTABLE_TABLE_ENTRIES")

    def add(self, match: list[MatchParam], action: str, data: tuple, priority: int = 0) -> int:
        self._mutable()
        if self.profile is not None:
            raise TableOpError("WRONG_TABLE_TYPE")
        if action not in self.bind:
            raise TableOpError("INVALID_ACTION_NAME")
        return self._insert(match, action, tuple(data), priority, None)

    def _insert(self, match, action, data: tuple, priority: int, index: tuple | None) -> int:
        match = self._check_match(match)
        if len(self.entries) >= self.spec.max_size:
            raise TableOpError("TABLE_FULL")
        if self.kind != "ternary":
            priority = 0
        for e in self.entries.values():
            if self.same_key(e.match, match) and e.priority == priority:
                raise TableOpError("DUPLICATE_ENTRY")
        handle = self._new_handle()
        ent = Entry(handle, match, action, data, priority, index=index)
        if self.meter_factory is not None:
            ent.meter = self.meter_factory()
        self._set_result(ent)
        self.entries[handle] = ent
        self._rebuild()
        return handle

    # -- indirect tables (action profiles, bm_sim/action_profiles.py) ------------------------------
    profile = None                      # the ActionProfile of an indirect table
    indirect_default = None             # Entry-like default member/group, when one is set

    def _index(self, kind: str, handle: int) -> tuple:
        if self.profile is None:
            raise TableOpError("WRONG_TABLE_TYPE")
        if kind == "grp" and self.spec.type != "indirect_ws":
            raise TableOpError("WRONG_TABLE_TYPE")
        self.profile.check(kind, handle)
        return (kind, handle)

    def add_indirect(self, match: list[MatchParam], kind: str, handle: int, priority: int = 0) -> int:
        """An entry pointing at member or group ``handle`` (``kind`` "mbr" or "grp")."""
        index = self._index(kind, handle)
        h = self._insert(match, None, (), priority, index)
        self.profile.ref(*index)
        return h

    def modify_indirect(self, entry: int, kind: str, handle: int) -> None:
        ent = self._entry(entry)
        index = self._index(kind, handle)
        self.profile.unref(*ent.index)
        ent.index = index
        self.profile.ref(*index)

    def set_default_indirect(self, kind: str, handle: int) -> None:
        index = self._index(kind, handle)
        if self.indirect_default is not None:
            self.profile.unref(*self.indirect_default.index)
        self.indirect_default = Entry(-1, [], None, (), 0, index=index)
        self.profile.ref(*index)
        self.default = self.indirect_default
        self._rebuild()

    def reset_default_indirect(self) -> None:
        if self.profile is None:
            raise TableOpError("WRONG_TABLE_TYPE")
        if self.indirect_default is not None:
            self.profile.unref(*self.indirect_default.index)
            self.indirect_default = None
        self.default = (self._noop, (), self._node_of(self.spec.base_default_next), None)
        self._rebuild()

    def lookup_indirect(self, key, F, P):
        """Match, then resolve the member (choosing one of a group by the selector's hash)."""
        r = (self.lookup(key) if self.keys else self.keyless) if self.entries else self.default
        if type(r) is tuple:            # no default member set: BMv2's empty default entry
            return r
        hit = r is not self.indirect_default
        kind, handle = r.index
        mbr = handle if kind == "mbr" else self.profile.choose(handle, F, P)
        if mbr is None:
            # an empty group: BMv2 logs an error and runs no action (match_tables.cpp,
            # MatchTableIndirect::lookup); the pipeline goes on as after a miss
            return (self._noop, (), self._node_of(self.spec.base_default_next), None)
        action, data = self.profile.members[mbr]
        fn, hit_next = self.bind[action]
        if self.has_hit_miss:
            nxt = self._node_of(self.spec.next_tables.get("__HIT__" if hit else "__MISS__"))
        else:
            nxt = hit_next
        if hit and self.spec.with_counters:
            r.packets += 1
            r.bytes += P.ingress_length
        if hit and self.spec.support_timeout:
            r.hits += 1
        return (fn, data, nxt, r if hit else None)

    def _set_result(self, ent: Entry) -> None:
        if ent.index is not None:       # indirect: resolved per packet by lookup_indirect
            ent.result = ent
            return
        fn, hit_next = self.bind[ent.action]
        if self.has_hit_miss:
            hit_next = self._node_of(self.spec.next_tables.get("__HIT__"))
        ent.result = (fn, ent.data, hit_next, ent)

    def modify(self, handle: int, action: str, data: tuple) -> None:
        self._mutable()
        ent = self._entry(handle)
        if self.profile is not None:
            raise TableOpError("WRONG_TABLE_TYPE")
        if action not in self.bind:
            raise TableOpError("INVALID_ACTION_NAME")
        ent.action, ent.data = action, tuple(data)
        self._set_result(ent)
        self._rebuild()

    def delete(self, handle: int) -> None:
        self._mutable()
        ent = self._entry(handle)
        if ent.index is not None:
            self.profile.unref(*ent.index)
        del self.entries[handle]
        self._retire(handle)
        self._rebuild()

    def clear(self) -> None:
        for handle, ent in self.entries.items():
            if ent.index is not None:
                self.profile.unref(*ent.index)
            self._retire(handle)
        self.entries.clear()
        self._rebuild()

    # bmv2's entry handles (match_units.cpp): the lowest free internal handle in the low 24 bits,
    # an 8-bit version above it, bumped each time the entry at that internal handle goes, so a
    # handle kept after its entry was deleted is EXPIRED_HANDLE, not another entry's
    def _new_handle(self) -> int:
        used = {h & HANDLE_INDEX_MASK for h in self.entries}
        i = 0
        while i in used:
            i += 1
        return (self._versions.get(i, 0) << HANDLE_INDEX_BITS) | i

    def _retire(self, handle: int) -> None:
        i = handle & HANDLE_INDEX_MASK
        self._versions[i] = (self._versions.get(i, 0) + 1) & 0xFF

    def _entry(self, handle: int) -> Entry:
        ent = self.entries.get(handle)
        if ent is None:
            i = handle & HANDLE_INDEX_MASK
            if 0 <= handle < 1 << 32 and any(h & HANDLE_INDEX_MASK == i for h in self.entries):
                raise TableOpError("EXPIRED_HANDLE")
            raise TableOpError("INVALID_HANDLE")
        return ent

    def entry(self, handle: int) -> Entry:
        """The entry with ``handle``; TableOpError INVALID_HANDLE or EXPIRED_HANDLE."""
        return self._entry(handle)

    # -- lookup structures ------------------------------------------------------------------------
    def _key_values(self, match: list[MatchParam]) -> tuple:
        """The values an entry matches on: an LPM key masked to its prefix length."""
        return tuple(m.a & (_full(k.width) ^ _full(k.width - m.b)) if m.kind == "lpm" else m.a
                     for m, k in zip(match, self.keys))

    def same_key(self, m1: list[MatchParam], m2: list[MatchParam]) -> bool:
        """Whether two match keys select the same packets (LPM: same masked prefix and length)."""
        return (self._key_values(m1) == self._key_values(m2)
                and [m.b for m in m1 if m.kind != "exact"] == [m.b for m in m2 if m.kind != "exact"])

    def _exact_key(self, ent: Entry):
        vals = self._key_values(ent.match)
        return vals[0] if self.single else vals

    def _rebuild(self) -> None:
        self._update_keyless()
        # the generated pipeline calls ``lookup``; the most common kinds get it bound straight
        # to their matcher (an instance attribute shadows the method)
        if self.kind == "exact" and self.keys:
            self.lookup = self._dict_lookup
        elif self.kind == "lpm" and self.single:
            self.lookup = self._lookup_lpm_single
        if self.kind == "exact":
            self._dict = {self._exact_key(e): e.result for e in self.entries.values()}
        elif self.kind == "lpm":
            groups: dict[int, dict] = {}
            for e in self.entries.values():
                groups.setdefault(e.match[self.lpm_index].b, {})[self._exact_key(e)] = e.result
            li, w = self.lpm_index, self.keys[self.lpm_index].width
            self._groups = []
            for plen in sorted(groups, reverse=True):
                mask = _full(w) ^ _full(w - plen)
                if self.single:
                    self._groups.append((mask, groups[plen]))
                else:
                    masks = tuple(mask if i == li else -1 for i in range(len(self.keys)))
                    self._groups.append((masks, groups[plen]))
        else:
            ordered = sorted(self.entries.values(), key=lambda e: (e.priority, e.handle))
            self._list = [(self._matcher(e), e.result) for e in ordered]

    def _matcher(self, ent: Entry):
        conds = []
        for i, (m, k) in enumerate(zip(ent.match, self.keys)):
            if m.kind == "lpm":
                mask = _full(k.width) ^ _full(k.width - m.b)
                conds.append((i, 0, m.a & mask, mask))
            elif m.kind in ("ternary", "optional"):
                conds.append((i, 0, m.a, m.b))
            elif m.kind == "range":
                conds.append((i, 1, m.a, m.b))
            else:
                conds.append((i, 0, m.a, -1))
        return tuple(conds)

    def lookup(self, key):
        kind = self.kind
        if kind == "exact":
            return self._dict.get(key, self.default)
        if kind == "lpm":
            if self.single:
                return self._lookup_lpm_single(key)
            for masks, d in self._groups:
                r = d.get(tuple(k & m for k, m in zip(key, masks)))
                if r is not None:
                    return r
            return self.default
        keys = (key,) if self.single else key
        for conds, result in self._list:
            for i, rng, a, b in conds:
                v = keys[i]
                if rng:
                    if not a <= v <= b:
                        break
                elif v & b != a:
                    break
            else:
                return result
        return self.default

    def _dict_lookup(self, key):
        return self._dict.get(key, self.default)

    def _lookup_lpm_single(self, key):
        for mask, d in self._groups:
            r = d.get(key & mask)
            if r is not None:
                return r
        return self.default

    def lookup_stateful(self, key, F, P):
        """Lookup that also updates the hit entry's direct counter and direct meter."""
        r = self.lookup(key)
        ent = r[3]
        if ent is not None:
            ent.hits += 1                # read by a control plane that ages entries
            ent.packets += 1
            ent.bytes += P.ingress_length
            if ent.meter is not None and self.meter_slot is not None:
                F[self.meter_slot] = ent.meter.execute(0, P) & self.meter_mask
        return r

    meter_slot = None
    meter_mask = 0
