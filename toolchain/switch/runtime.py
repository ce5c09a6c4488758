"""The switch's control-plane API in Python (what simple_switch's Thrift server offers).

Names are the JSON names (``MyIngress.ipv4_lpm``); as simple_switch_CLI does, any unique
dot-separated suffix (``ipv4_lpm``) is accepted too. Failures raise ``CliError`` whose
message is simple_switch_CLI's text for that failure, so the CLI layer only formats.
"""

from __future__ import annotations

import functools

from .bm_sim.externs import fill
from .bm_sim.hash_algos import Crc, CrcParams
from .bm_sim.tables import HANDLE_INDEX_MASK, MatchParam, MatchTable, TableOpError
from .errors import CliError

__all__ = ["Runtime", "OpError", "resolve_name"]


class OpError(CliError):
    """An operation the switch refuses with one of BMv2's error codes (the runtime API's
    exceptions: ``InvalidTableOperation`` and the others). ``kind`` names the exception
    (table, counter, register, meter, pre, mirroring, pvs, crc), ``code`` its code's name; the message
    is what simple_switch_CLI prints for it."""

    _SHOWN = {"table": "table", "counter": "counter", "register": "register", "meter": "meter",
              "pre": "PRE", "mirroring": "mirroring", "pvs": "parser value set", "crc": "crc"}

    def __init__(self, kind: str, code: str):
        super().__init__(f"Invalid {self._SHOWN[kind]} operation ({code})")
        self.kind = kind
        self.code = code


def _suffix_hits(name: str, names) -> list[str]:
    """runtime_CLI's SUFFIX_LOOKUP_MAP: every dot-separated suffix of every name (the full
    name included) maps to its object unless two objects share it, even a full name."""
    return [n for n in names if n == name or n.endswith("." + name)]


def resolve_name(kind: str, name: str, names) -> str:
    """Full name for ``name`` (a unique suffix, the full name being one); else CliError."""
    hits = _suffix_hits(name, names)
    if len(hits) == 1:
        return hits[0]
    raise CliError(f"Error: Invalid {kind} name ({name})")


class _StdUnorderedMap:
    """The iteration order of libstdc++'s ``std::unordered_map`` over integer keys (identity
    hash, prime bucket counts), which bmv2's PRE dumps follow (its mgrps and LAGs): a key goes
    first in its bucket, a key of an empty bucket first of all, rehashing re-inserts in order."""

    _PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73,
               79, 83, 89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211,
               227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619,
               661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741,
               1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703,
               5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011,
               12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411,
               30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307,
               72817, 78779, 85229, 92203, 99733, 107897, 116731, 126271, 136607, 147793,
               159871, 172933, 187091, 202409, 218971, 236897, 256279, 277261, 299951,
               324503, 351061, 379787, 410857, 444487, 480881, 520241, 562841, 608903,
               658753, 712697, 771049, 834181, 902483, 976369)
    _FAST = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)

    def __init__(self):
        self.order: list[int] = []
        self.nbkt = 1
        self.next_resize = 0

    def _next_bkt(self, n: int) -> int:
        if n < len(self._FAST):
            self.next_resize = self._FAST[n]
            return self._FAST[n]
        p = next((q for q in self._PRIMES if q >= n), n)
        self.next_resize = p
        return p

    def _place(self, order: list[int], key: int, nbkt: int) -> None:
        b = key % nbkt
        for i, k in enumerate(order):
            if k % nbkt == b:
                order.insert(i, key)
                return
        order.insert(0, key)

    def insert(self, key: int) -> None:
        if key in self.order:
            return
        n = len(self.order)
        if n + 1 > self.next_resize:
            min_bkts = max(n + 1, 0 if self.next_resize else 11)
            if min_bkts >= self.nbkt:
                self.nbkt = self._next_bkt(max(min_bkts + 1, self.nbkt * 2))
                old, self.order = self.order, []
                for k in old:
                    self._place(self.order, k, self.nbkt)
            else:
                self.next_resize = self.nbkt
        self._place(self.order, key, self.nbkt)

    def erase(self, key: int) -> None:
        if key in self.order:
            self.order.remove(key)

    def __iter__(self):
        return iter(list(self.order))


# BMv2's answer to a name it does not know, per kind of object
_UNKNOWN_NAME = {"table": ("table", "INVALID_TABLE_NAME"),
                 "action profile": ("table", "INVALID_ACTION_PROFILE_NAME"),
                 "register": ("register", "INVALID_REGISTER_NAME"),
                 "counter": ("counter", "INVALID_COUNTER_NAME"),
                 "meter": ("meter", "INVALID_METER_NAME"),
                 "parser value set": ("pvs", "INVALID_PARSE_VSET_NAME"),
                 "calculation": ("crc", "INVALID_CALCULATION_NAME")}


def _table_error(e: TableOpError) -> OpError:
    return OpError("table", e.code)


class Runtime:
    def __init__(self, switch):
        self.sw = switch
        self.program = switch.program
        # the PRE (bmv2 McSimplePreLAG)
        self._mgids = _StdUnorderedMap()
        self._node_ports: dict[int, list[int]] = {}     # L1 handle -> its own ports (mc_dump)
        self._node_mgrp: dict[int, int] = {}            # L1 handle -> the group it is in
        self._lags: dict[int, list[int]] = {}           # LAG index -> member ports
        self._lag_order = _StdUnorderedMap()
        # the Thrift API names objects by their full JSON names only (BMv2 looks them up as
        # given); simple_switch_CLI resolves suffixes on its side, as this CLI's names do
        self.exact_names = False

    def _resolve(self, kind: str, name: str, names) -> str:
        if self.exact_names:
            if name in names:
                return name
            raise OpError(*_UNKNOWN_NAME[kind])
        return resolve_name(kind, name, names)

    # -- resources ----------------------------------------------------------------------------------
    def table(self, name: str) -> MatchTable:
        return self.sw.tables[self._resolve("table", name, self.sw.tables)]

    @functools.cached_property
    def _action_names(self) -> frozenset[str]:
        """Every action of the program (the JSON's and the loaded ones): fixed once loaded."""
        return frozenset(a["name"] for a in self.program.json.get("actions", [])) \
            | frozenset(self.program.actions)

    def action_of(self, table: MatchTable, name: str, *, shown_table: str | None = None) -> str:
        """runtime_CLI's Table.get_action: ``name`` resolves among all the program's actions
        (a unique suffix) and must be one of the table's."""
        if self.exact_names:
            if name in table.bind:
                return name
            raise OpError("table", "INVALID_ACTION_NAME")
        hits = _suffix_hits(name, self._action_names)
        if len(hits) == 1 and hits[0] in table.bind:
            return hits[0]
        raise CliError(f"Error: Table {shown_table or table.name} has no action {name}")

    def action_params(self, action: str, table: MatchTable | None = None) -> list[tuple[str, int]]:
        """The (name, bitwidth) parameters of ``action``; with ``table``, of that table's action of
        that name (a program may have several actions of one name, bmv2/pipeline.py)."""
        if table is not None and action in table.spec.action_specs:
            return table.spec.action_specs[action].params
        return self.program.actions[action].params

    def _register(self, name: str) -> tuple[str, list]:
        full = self._resolve("register", name, self.sw.registers)
        return full, self.sw.registers[full]

    def _counter(self, name: str):
        full = self._resolve("counter", name, self.sw.counters)
        return self.sw.counters[full]

    def _meter(self, name: str):
        full = self._resolve("meter", name, self.sw.meters)
        return self.sw.meters[full]

    # -- tables -------------------------------------------------------------------------------------
    # entry handles are numbered as bmv2 numbers them (MatchTable._new_handle)
    def table_entry(self, table: str, handle: int):
        try:
            return self.table(table).entry(handle)
        except TableOpError as e:
            raise _table_error(e) from None

    def table_add(self, table: str, action: str, match: list[MatchParam], data: list[int],
                  priority: int = 0) -> int:
        t = self.table(table)
        action = self.action_of(t, action)
        self._check_data(action, data, t)
        try:
            return t.add(list(match), action, tuple(data), priority)
        except TableOpError as e:
            raise _table_error(e) from None

    def _check_data(self, action: str, data: list[int], table: MatchTable | None = None) -> None:
        params = self.action_params(action, table)
        if len(data) != len(params):
            if self.exact_names:
                raise OpError("table", "BAD_ACTION_DATA")
            raise CliError(f"Error: Action {action} needs {len(params)} parameters")
        for v, (_, width) in zip(data, params):
            if v < 0 or v >> width:
                raise OpError("table", "BAD_ACTION_DATA")

    def table_set_default(self, table: str, action: str, data: list[int]) -> None:
        t = self.table(table)
        action = self.action_of(t, action)
        self._check_data(action, data, t)
        try:
            t.set_default(action, tuple(data))
        except TableOpError as e:
            raise _table_error(e) from None

    def table_modify(self, table: str, action: str, handle: int, data: list[int]) -> None:
        t = self.table(table)
        action = self.action_of(t, action)
        self._check_data(action, data, t)
        try:
            t.modify(handle, action, tuple(data))
        except TableOpError as e:
            raise _table_error(e) from None

    def table_delete(self, table: str, handle: int) -> None:
        try:
            self.table(table).delete(handle)
        except TableOpError as e:
            raise _table_error(e) from None

    def table_entry_from_key(self, table: str, match: list[MatchParam], priority: int = 0):
        """The entry whose key selects the same packets as ``match`` (and, in a table with
        priorities, has ``priority``); BAD_MATCH_KEY when there is none."""
        t = self.table(table)
        try:
            wanted = t._check_match(match)
        except TableOpError as e:
            raise _table_error(e) from None
        with_priority = t.spec.match_type in ("ternary", "range")
        for ent in sorted(t.entries.values(), key=lambda e: e.handle & HANDLE_INDEX_MASK):
            if t.same_key(ent.match, wanted) and (not with_priority or ent.priority == priority):
                return ent
        raise OpError("table", "BAD_MATCH_KEY")

    def table_clear(self, table: str) -> None:
        self.table(table).clear()

    def table_reset_default(self, table: str) -> None:
        t = self.table(table)
        try:
            t.reset_default()
        except TableOpError as e:
            raise _table_error(e) from None

    def table_num_entries(self, table: str) -> int:
        return len(self.table(table).entries)

    # -- action profiles and selectors (bm_sim/action_profiles.py) -----------------------------------
    def act_prof(self, name: str):
        return self.sw.action_profiles[self._resolve("action profile", name, self.sw.action_profiles)]

    def act_prof_action(self, prof, name: str, *, shown_prof: str | None = None) -> str:
        if self.exact_names:
            if name in prof.actions:
                return name
            raise OpError("table", "INVALID_ACTION_NAME")
        hits = _suffix_hits(name, self._action_names)
        if len(hits) == 1 and hits[0] in prof.actions:
            return hits[0]
        raise CliError(f"Error: Action profile '{shown_prof or prof.name}' has no action '{name}'")

    def _profile_op(self, fn, *args):
        try:
            return fn(*args)
        except TableOpError as e:
            raise _table_error(e) from None

    def act_prof_create_member(self, prof: str, action: str, data: list[int]) -> int:
        p = self.act_prof(prof)
        action = self.act_prof_action(p, action)
        self._check_data(action, data)
        return self._profile_op(p.add_member, action, tuple(data))

    def act_prof_modify_member(self, prof: str, action: str, handle: int, data: list[int]) -> None:
        p = self.act_prof(prof)
        action = self.act_prof_action(p, action)
        self._check_data(action, data)
        self._profile_op(p.modify_member, handle, action, tuple(data))

    def act_prof_delete_member(self, prof: str, handle: int) -> None:
        p = self.act_prof(prof)
        self._profile_op(p.delete_member, handle)

    def act_prof_create_group(self, prof: str) -> int:
        return self._profile_op(self._selector(prof).create_group)

    def act_prof_delete_group(self, prof: str, handle: int) -> None:
        self._profile_op(self._selector(prof).delete_group, handle)

    def act_prof_add_member_to_group(self, prof: str, mbr: int, grp: int) -> None:
        self._profile_op(self._selector(prof).add_member_to_group, mbr, grp)

    def act_prof_remove_member_from_group(self, prof: str, mbr: int, grp: int) -> None:
        self._profile_op(self._selector(prof).remove_member_from_group, mbr, grp)

    def _selector(self, prof: str):
        p = self.act_prof(prof)
        if not p.with_selection:
            if self.exact_names:
                raise OpError("table", "NO_ACTION_PROFILE_SELECTION")
            raise CliError("Error: Cannot run this command on an action profile without selector")
        return p

    def check_indirect(self, t: MatchTable, *, with_selector: bool = False) -> None:
        """runtime_CLI's check_indirect / check_indirect_ws (on the JSON table type); through
        the Thrift API, BMv2's WRONG_TABLE_TYPE."""
        wanted = ("indirect_ws",) if with_selector else ("indirect", "indirect_ws")
        if self.exact_names and t.spec.type not in wanted:
            raise OpError("table", "WRONG_TABLE_TYPE")
        if with_selector:
            if t.spec.type != "indirect_ws":
                raise CliError("Error: Cannot run this command on non-indirect table, or on indirect table with no selector")
        elif t.spec.type not in ("indirect", "indirect_ws"):
            raise CliError("Error: Cannot run this command on non-indirect table")

    def indirect_table(self, name: str, *, with_selector: bool = False) -> MatchTable:
        t = self.table(name)
        self.check_indirect(t, with_selector=with_selector)
        return t

    def table_indirect_add(self, table: str, match: list[MatchParam], handle: int, priority: int = 0,
                           *, group: bool = False) -> int:
        t = self.indirect_table(table, with_selector=group)
        return self._profile_op(t.add_indirect, list(match), "grp" if group else "mbr", handle, priority)

    def table_indirect_modify(self, table: str, entry: int, handle: int, *, group: bool = False) -> None:
        t = self.indirect_table(table, with_selector=group)
        self._profile_op(t.modify_indirect, entry, "grp" if group else "mbr", handle)

    def table_indirect_set_default(self, table: str, handle: int, *, group: bool = False) -> None:
        t = self.indirect_table(table, with_selector=group)
        self._profile_op(t.set_default_indirect, "grp" if group else "mbr", handle)

    def table_indirect_reset_default(self, table: str) -> None:
        t = self.table(table)
        if t.profile is None:
            raise OpError("table", "WRONG_TABLE_TYPE")
        self._profile_op(t.reset_default_indirect)

    # -- registers ----------------------------------------------------------------------------------
    def register_read(self, name: str, index: int) -> int:
        _, arr = self._register(name)
        if not 0 <= index < len(arr):
            raise OpError("register", "INVALID_INDEX")
        return arr[index]

    def register_read_all(self, name: str) -> list[int]:
        return list(self._register(name)[1])

    def register_write(self, name: str, index: int, value: int) -> None:
        full, arr = self._register(name)
        if not 0 <= index < len(arr):
            raise OpError("register", "INVALID_INDEX")
        width = self.program.register_widths[self.program.register_ids[full]]
        arr[index] = value & ((1 << width) - 1)

    def register_write_range(self, name: str, start: int, end: int, value: int) -> None:
        """Cells ``start`` up to, not including, ``end`` (BMv2's Context::register_write_range)."""
        full, arr = self._register(name)
        if start < 0 or end > len(arr) or start > end:
            raise OpError("register", "INVALID_INDEX")
        width = self.program.register_widths[self.program.register_ids[full]]
        fill(arr, value & ((1 << width) - 1), start, end)

    def register_reset(self, name: str) -> None:
        _, arr = self._register(name)
        fill(arr, 0)

    # -- counters -----------------------------------------------------------------------------------
    # a direct counter is its table's (simple_switch_CLI goes through the table: bm_mt_read_counter,
    # bm_mt_write_counter, bm_mt_reset_counters), with an entry handle for index
    def counter_read(self, name: str, index: int) -> tuple[int, int]:
        """(packets, bytes) of an indirect counter cell, or of a direct counter's entry handle."""
        direct = self._direct_counter_table(name)
        if direct is not None:
            return self.table_counter_read(direct.name, index)
        c = self._counter(name)
        if not 0 <= index < len(c):
            raise OpError("counter", "INVALID_INDEX")
        return c.packets[index], c.bytes[index]

    def _direct_counter_table(self, name: str) -> MatchTable | None:
        for cid, spec in self.program.counters.items():
            if spec.get("is_direct") and (spec["name"] == name or spec["name"].endswith("." + name)):
                return self.sw.tables.get(spec.get("binding"))
        return None

    def counter_reset(self, name: str) -> None:
        direct = self._direct_counter_table(name)
        if direct is not None:
            self.table_counters_reset(direct.name)
            return
        self._counter(name).reset()

    def counter_write(self, name: str, index: int, packets: int, nbytes: int) -> None:
        direct = self._direct_counter_table(name)
        if direct is not None:
            self.table_counter_write(direct.name, index, packets, nbytes)
            return
        c = self._counter(name)
        if not 0 <= index < len(c):
            raise OpError("counter", "INVALID_INDEX")
        c.write(index, packets, nbytes)

    # -- meters -------------------------------------------------------------------------------------
    def _check_rate_count(self, count: int, rates: list) -> None:
        if len(rates) != count:
            if self.exact_names:         # BMv2's Meter::set_rates
                raise OpError("meter", "BAD_RATES_LIST")
            raise CliError(f"Error: Invalid number of rates, expected {count} but got {len(rates)}")

    # -- direct counters and meters by table entry (bm_mt_*_counter(s), bm_mt_*_meter_rates) -----
    def _direct_entry(self, table: str, handle: int, *, meters: bool = False):
        t = self.table(table)
        if not (t.spec.direct_meters if meters else t.spec.with_counters):
            raise OpError("table", "METERS_DISABLED" if meters else "COUNTERS_DISABLED")
        ent = t.entries.get(handle)
        if ent is None:
            raise OpError("table", "INVALID_HANDLE")
        return ent

    def table_counter_read(self, table: str, handle: int) -> tuple[int, int]:
        ent = self._direct_entry(table, handle)
        return ent.packets, ent.bytes

    def table_counter_write(self, table: str, handle: int, packets: int, nbytes: int) -> None:
        ent = self._direct_entry(table, handle)
        ent.packets, ent.bytes = packets, nbytes

    def table_counters_reset(self, table: str) -> None:
        t = self.table(table)
        if not t.spec.with_counters:
            raise OpError("table", "COUNTERS_DISABLED")
        for ent in t.entries.values():
            ent.packets = ent.bytes = 0

    def table_meter_set_rates(self, table: str, handle: int, rates: list[tuple[float, int]]) -> None:
        ent = self._direct_entry(table, handle, meters=True)
        m = self._meter(self.table(table).spec.direct_meters)
        self._check_rate_count(m.rate_count, rates)
        self._check_rising(rates, "table", "INVALID_METER_OPERATION")
        ent.meter.set_rates(0, rates)

    def table_meter_get_rates(self, table: str, handle: int) -> list[tuple[float, int]]:
        ent = self._direct_entry(table, handle, meters=True)
        return [(r, int(b)) for r, b in ent.meter.get_rates(0)]

    def _direct_meter_table(self, m) -> str | None:
        """The table a direct meter is bound to (simple_switch_CLI then goes through the
        table's entry: bm_mt_set_meter_rates / bm_mt_get_meter_rates), else None."""
        spec = self.program.meters[self.program.meter_ids[m.name]]
        return spec.get("binding") if spec.get("is_direct") else None

    def meter_set_rates(self, name: str, index: int, rates: list[tuple[float, int]]) -> None:
        """Rates in units (bytes or packets) per microsecond, bursts in units; committed first.
        For a direct meter ``index`` is the bound table's entry handle."""
        m = self._meter(name)
        table = self._direct_meter_table(m)
        if table is not None:
            self.table_meter_set_rates(table, index, rates)
            return
        self._check_rate_count(m.rate_count, rates)
        self._check_rising(rates)
        if not 0 <= index < len(m):
            raise OpError("meter", "INVALID_INDEX")
        m.set_rates(index, rates)

    @staticmethod
    def _check_rising(rates: list[tuple[float, int]], kind: str = "meter",
                      code: str = "INVALID_INFO_RATE_VALUE") -> None:
        """RFC 2698's two rates: the committed one (first) may not exceed the peak one."""
        if any(rates[i][0] > rates[i + 1][0] for i in range(len(rates) - 1)):
            raise OpError(kind, code)

    def meter_clear_rates(self, name: str, index: int) -> None:
        """Back to unconfigured (every packet green), as after reset_state; for a direct meter
        ``index`` is the entry handle (P4Runtime's MeterEntry without a config)."""
        m = self._meter(name)
        table = self._direct_meter_table(m)
        if table is not None:
            self._direct_entry(table, index, meters=True).meter.rates = None
            return
        if not 0 <= index < len(m):
            raise OpError("meter", "INVALID_INDEX")
        m.meters[index].rates = None

    def meter_array_set_rates(self, name: str, rates: list[tuple[float, int]]) -> None:
        m = self._meter(name)
        self._check_rate_count(m.rate_count, rates)
        self._check_rising(rates)
        m.set_all_rates(rates)

    def meter_get_rates(self, name: str, index: int) -> list[tuple[float, int]]:
        m = self._meter(name)
        table = self._direct_meter_table(m)
        if table is not None:
            return self.table_meter_get_rates(table, index)
        if not 0 <= index < len(m):
            raise OpError("meter", "INVALID_INDEX")
        return [(r, int(b)) for r, b in m.get_rates(index)]

    # -- traffic manager, mirroring, multicast ------------------------------------------------------
    # The queue and mirroring values both paths take: the CLI language (an error line) and
    # the Thrift handlers (sswitch.py: the call's failure code, or a log line where
    # simple_switch's own handler answers nothing), so neither applies what the other refuses.
    MAX_QUEUE_DEPTH = (1 << 31) - 1       # set_egress_queue_depth's i32 depth_pkts
    MAX_MIRROR_SESSION_ID = (1 << 15) - 1  # simple_switch's mirroring sessions: 0..32767

    def set_queue_depth(self, depth: int, port: int | None = None) -> None:
        """simple_switch casts a negative depth to 2^32 - 1 packets (no limit at all); here
        it is refused, as any depth beyond the API's i32."""
        if not 0 <= depth <= self.MAX_QUEUE_DEPTH:
            raise CliError(f"Error: Invalid queue depth {depth}, must be 0..{self.MAX_QUEUE_DEPTH}")
        self.sw.tm.set_queue_depth(depth, port)

    def set_queue_rate(self, rate_pps: float, port: int | None = None) -> None:
        self.sw.tm.set_queue_rate(rate_pps, port)

    def _check_mirror_id(self, session: int) -> None:
        """simple_switch logs "mirror_id out of range. No session added." and adds none."""
        if not 0 <= session <= self.MAX_MIRROR_SESSION_ID:
            raise CliError(f"Error: mirror_id {session} out of range "
                           f"(0..{self.MAX_MIRROR_SESSION_ID}), no session added")

    def mirroring_add(self, session: int, port: int) -> None:
        self._check_mirror_id(session)
        self.sw.mirroring[session] = {"port": port}

    def mirroring_add_mc(self, session: int, mgid: int) -> None:
        self._check_mirror_id(session)
        self.sw.mirroring[session] = {"mgid": mgid}

    def mirroring_delete(self, session: int) -> None:
        if self.sw.mirroring.pop(session, None) is None:
            raise OpError("mirroring", "SESSION_NOT_FOUND")

    def mirroring_get(self, session: int) -> dict:
        cfg = self.sw.mirroring.get(session)
        if cfg is None:
            raise OpError("mirroring", "SESSION_NOT_FOUND")
        return dict(cfg)

    def time_elapsed_us(self) -> int:
        return int(getattr(self.sw, "now_us", 0) or 0)

    # -- the PRE: bmv2's McSimplePreLAG (simple_pre.cpp, simple_pre_lag.cpp) ------------------------
    # sw.mc_assoc (mgid -> L1 handles) and sw.mc_nodes (L1 handle -> (rid, ports replicated to))
    # are what the switch replicates from; a node's replicated ports are its own ports, then for
    # each of its LAGs (ascending) the member bmv2 picks with its fixed LAG hash 0xFF.
    def mc_mgrp_create(self, mgid: int) -> None:
        # bmv2 inserts into its map: creating an existing group is a silent no-op
        self.sw.mc_assoc.setdefault(mgid, [])
        self._mgids.insert(mgid)

    def mc_mgrp_destroy(self, mgid: int) -> None:
        # erase, no error for an unknown group; its nodes stay "associated" (as in bmv2)
        self.sw.mc_assoc.pop(mgid, None)
        self._mgids.erase(mgid)

    def _replicated_ports(self, handle: int) -> list[int]:
        out = list(self._node_ports[handle])
        for lag in self.sw.mc_node_lags.get(handle, []):
            members = self._lags.get(lag)
            if members:
                out.append(members[0xFF % len(members)])
        return out

    def _refresh_node(self, handle: int) -> None:
        rid = self.sw.mc_nodes[handle][0]
        self.sw.mc_nodes[handle] = (rid, self._replicated_ports(handle))

    def mc_node_create(self, rid: int, ports: list[int], lags: list[int] = ()) -> int:
        handle = 0
        while handle in self.sw.mc_nodes:          # bmv2's HandleMgr: the lowest free handle
            handle += 1
        self.sw.mc_nodes[handle] = (rid, [])
        self._node_ports[handle] = sorted(ports)
        self.sw.mc_node_lags[handle] = sorted(lags)
        self._refresh_node(handle)
        return handle

    def mc_entries(self) -> list[tuple[int, list[tuple[int, int, list[int], list[int]]]]]:
        """[(mgid, [(L1 handle, rid, ports, lags)])] in bmv2's dump order (its unordered_map's),
        nodes in association order."""
        return [(mgid, [(h, self.sw.mc_nodes[h][0], self._node_ports[h], self.sw.mc_node_lags.get(h, []))
                        for h in self.sw.mc_assoc.get(mgid, [])])
                for mgid in self._mgids if mgid in self.sw.mc_assoc]

    def mc_lags(self) -> list[tuple[int, list[int]]]:
        return [(lag, self._lags[lag]) for lag in self._lag_order]

    def mc_node_update(self, handle: int, ports: list[int], lags: list[int] = ()) -> None:
        if handle not in self.sw.mc_nodes:
            raise OpError("pre", "INVALID_L1_HANDLE")
        self._node_ports[handle] = sorted(ports)
        self.sw.mc_node_lags[handle] = sorted(lags)
        self._refresh_node(handle)

    def mc_set_lag_membership(self, lag: int, ports: list[int]) -> None:
        if lag > 256:                              # LAG_MAX_ENTRIES
            raise OpError("pre", "ERROR")
        self._lags[lag] = sorted(ports)
        self._lag_order.insert(lag)
        for handle in self.sw.mc_nodes:
            self._refresh_node(handle)

    def mc_node_destroy(self, handle: int) -> None:
        if handle not in self.sw.mc_nodes:
            raise OpError("pre", "INVALID_L1_HANDLE")
        mgid = self._node_mgrp.pop(handle, None)
        if mgid is not None and handle in self.sw.mc_assoc.get(mgid, []):
            self.sw.mc_assoc[mgid].remove(handle)
        del self.sw.mc_nodes[handle]
        self._node_ports.pop(handle, None)
        self.sw.mc_node_lags.pop(handle, None)

    def mc_node_associate(self, mgid: int, handle: int) -> None:
        if handle not in self.sw.mc_nodes:
            raise OpError("pre", "INVALID_L1_HANDLE")
        if mgid not in self.sw.mc_assoc:
            raise OpError("pre", "INVALID_MGRP_HANDLE")
        if handle in self._node_mgrp:              # a node is in one group at most
            raise OpError("pre", "ERROR")
        self.sw.mc_assoc[mgid].append(handle)
        self._node_mgrp[handle] = mgid

    def mc_node_dissociate(self, mgid: int, handle: int) -> None:
        if handle not in self.sw.mc_nodes:
            raise OpError("pre", "INVALID_L1_HANDLE")
        if mgid not in self.sw.mc_assoc:
            raise OpError("pre", "INVALID_MGRP_HANDLE")
        if self._node_mgrp.get(handle) != mgid:
            raise OpError("pre", "ERROR")
        self.sw.mc_assoc[mgid].remove(handle)
        del self._node_mgrp[handle]

    # -- parser value sets, hash parameters ---------------------------------------------------------
    def pvs_name(self, name: str) -> str:
        return self._resolve("parser value set", name, self.sw.vsets)

    def pvs_add(self, name: str, value: int) -> None:
        self.sw.vsets[self._resolve("parser value set", name, self.sw.vsets)].add(value)

    def pvs_remove(self, name: str, value: int) -> None:
        self.sw.vsets[self._resolve("parser value set", name, self.sw.vsets)].discard(value)

    def pvs_value_bytes(self, name: str) -> int:
        """Bytes of a value set's values as they come back (BMv2 returns the bytes it was
        given; simple_switch_CLI sends ceil((bitwidth + 7) / 8), its float division)."""
        return (self.program.vsets[self.pvs_name(name)] + 14) // 8

    def pvs_get(self, name: str) -> list[int]:
        return sorted(self.sw.vsets[self._resolve("parser value set", name, self.sw.vsets)])

    def pvs_clear(self, name: str) -> None:
        self.sw.vsets[self._resolve("parser value set", name, self.sw.vsets)].clear()

    def set_crc_parameters(self, width: int, calc_name: str, params: CrcParams) -> None:
        names = {c["name"]: c for c in self.program.json.get("calculations", [])}
        full = self._resolve("calculation", calc_name, names)
        algo = self.sw.hash_algorithms.get(names[full]["id"])
        if not isinstance(algo, Crc) or names[full].get("algo") != f"crc{width}_custom":
            raise CliError(f"Error: {full} is not a crc{width}_custom calculation")
        algo.set_params(params)

    # -- whole-switch state (bm_reset_state) ---------------------------------------------------------
    def reset_state(self) -> None:
        """BMv2's ``reset_state`` (SwitchWContexts::reset_state: P4Objects::reset_state, then
        simple_switch's reset_target_state_, its PRE): every table emptied, its handles
        numbered from 0 again and its default back to the JSON's; action profiles emptied;
        counter arrays and registers zeroed; meters unconfigured; the learn engine's filter
        and buffers emptied; multicast groups, nodes and LAGs gone. A table's const entries
        go too (MatchTable::reset_state_ empties its match unit) and the table stays
        immutable, so it holds nothing until the program is loaded again: BMv2's behaviour,
        kept so that a test passes or fails alike on both switches. The program, parser value
        sets, mirroring sessions, CRC parameters, the learn lists' timeouts and buffer sizes
        and the queues' settings stay (README.md, "reset_state")."""
        for t in self.sw.tables.values():
            self._reset_table(t)
        for prof in self.sw.action_profiles.values():
            prof.members.clear()
            prof.groups.clear()
            prof.refs.clear()
            prof.__post_init__()               # handles from 0 again
        for arr in self.sw.registers.values():
            fill(arr, 0)
        for c in self.sw.counters.values():
            c.reset()
        for m in self.sw.meters.values():
            m.reset()
        self.sw.learning.reset_state()
        self._reset_pre()

    def _reset_table(self, t: MatchTable) -> None:
        if t.profile is not None:
            t.reset_default_indirect()
        t.clear()
        t._versions.clear()                # BMv2 renews its match units: handles from 0 again
        t.reset_default()
        if t.initial_default is not None:
            aid, data = t.initial_default
            t.set_default(self.program.actions_by_id[aid].name, data, force=True)

    def _reset_pre(self) -> None:
        self.sw.mc_nodes.clear()
        self.sw.mc_assoc.clear()
        self.sw.mc_node_lags.clear()
        self._mgids = _StdUnorderedMap()
        self._node_ports.clear()
        self._node_mgrp.clear()
        self._lags.clear()
        self._lag_order = _StdUnorderedMap()
