"""The switch's control-plane API in Python (what simple_switch's Thrift server offers).

Names are the JSON names (``MyIngress.ipv4_lpm``); as simple_switch_CLI does, any unique
dot-separated suffix (``ipv4_lpm``) is accepted too. Failures raise ``CliError`` whose
message is simple_switch_CLI's text for that failure, so the CLI layer only formats.
"""

from __future__ import annotations

import functools

from .bm_sim.hash_algos import Crc, CrcParams
from .bm_sim.tables import MatchParam, MatchTable, TableOpError
from .errors import CliError

__all__ = ["Runtime", "resolve_name"]


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


def _table_error(e: TableOpError) -> CliError:
    return CliError(f"Invalid table operation ({e.code})")


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

    # -- resources ----------------------------------------------------------------------------------
    def table(self, name: str) -> MatchTable:
        return self.sw.tables[resolve_name("table", name, self.sw.tables)]

    @functools.cached_property
    def _action_names(self) -> frozenset[str]:
        """Every action of the program (the JSON's and the loaded ones): fixed once loaded."""
        return frozenset(a["name"] for a in self.program.json.get("actions", [])) \
            | frozenset(self.program.actions)

    def action_of(self, table: MatchTable, name: str, *, shown_table: str | None = None) -> str:
        """runtime_CLI's Table.get_action: ``name`` resolves among all the program's actions
        (a unique suffix) and must be one of the table's."""
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
        full = resolve_name("register", name, self.sw.registers)
        return full, self.sw.registers[full]

    def _counter(self, name: str):
        full = resolve_name("counter", name, self.sw.counters)
        return self.sw.counters[full]

    def _meter(self, name: str):
        full = resolve_name("meter", name, self.sw.meters)
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
            raise CliError(f"Error: Action {action} needs {len(params)} parameters")
        for v, (_, width) in zip(data, params):
            if v < 0 or v >> width:
                raise CliError("Invalid table operation (BAD_ACTION_DATA)")

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
        return self.sw.action_profiles[resolve_name("action profile", name, self.sw.action_profiles)]

    def act_prof_action(self, prof, name: str, *, shown_prof: str | None = None) -> str:
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
            raise CliError("Error: Cannot run this command on an action profile without selector")
        return p

    @staticmethod
    def check_indirect(t: MatchTable, *, with_selector: bool = False) -> None:
        """runtime_CLI's check_indirect / check_indirect_ws (on the JSON table type)."""
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
            raise CliError("Invalid table operation (WRONG_TABLE_TYPE)")
        self._profile_op(t.reset_default_indirect)

    # -- registers ----------------------------------------------------------------------------------
    def register_read(self, name: str, index: int) -> int:
        _, arr = self._register(name)
        if not 0 <= index < len(arr):
            raise CliError("Invalid register operation (INVALID_INDEX)")
        return arr[index]

    def register_read_all(self, name: str) -> list[int]:
        return list(self._register(name)[1])

    def register_write(self, name: str, index: int, value: int) -> None:
        full, arr = self._register(name)
        if not 0 <= index < len(arr):
            raise CliError("Invalid register operation (INVALID_INDEX)")
        width = self.program.register_widths[self.program.register_ids[full]]
        arr[index] = value & ((1 << width) - 1)

    def register_reset(self, name: str) -> None:
        _, arr = self._register(name)
        arr[:] = [0] * len(arr)

    # -- counters -----------------------------------------------------------------------------------
    def counter_read(self, name: str, index: int) -> tuple[int, int]:
        """(packets, bytes) of an indirect counter cell, or of a direct counter's entry handle."""
        direct = self._direct_counter_table(name)
        if direct is not None:
            ent = direct.entries.get(index)
            if ent is None:
                raise CliError("Invalid counter operation (INVALID_ENTRY_HANDLE)")
            return ent.packets, ent.bytes
        c = self._counter(name)
        if not 0 <= index < len(c):
            raise CliError("Invalid counter operation (INVALID_INDEX)")
        return c.packets[index], c.bytes[index]

    def _direct_counter_table(self, name: str) -> MatchTable | None:
        for cid, spec in self.program.counters.items():
            if spec.get("is_direct") and (spec["name"] == name or spec["name"].endswith("." + name)):
                return self.sw.tables.get(spec.get("binding"))
        return None

    def counter_reset(self, name: str) -> None:
        direct = self._direct_counter_table(name)
        if direct is not None:
            for ent in direct.entries.values():
                ent.packets = ent.bytes = 0
            return
        self._counter(name).reset()

    def counter_write(self, name: str, index: int, packets: int, nbytes: int) -> None:
        c = self._counter(name)
        if not 0 <= index < len(c):
            raise CliError("Invalid counter operation (INVALID_INDEX)")
        c.packets[index], c.bytes[index] = packets, nbytes

    # -- meters -------------------------------------------------------------------------------------
    def meter_set_rates(self, name: str, index: int, rates: list[tuple[float, int]]) -> None:
        """Rates in units (bytes or packets) per microsecond, bursts in units; committed first."""
        m = self._meter(name)
        if len(rates) != m.rate_count:
            raise CliError(f"Error: Invalid number of rates, expected {m.rate_count} but got {len(rates)}")
        if any(rates[i][0] > rates[i + 1][0] for i in range(len(rates) - 1)):
            raise CliError("Invalid meter operation (INVALID_INFO_RATE_VALUE)")
        self._meter_cell(m, index).set_rates(rates)

    def meter_array_set_rates(self, name: str, rates: list[tuple[float, int]]) -> None:
        m = self._meter(name)
        if len(rates) != m.rate_count:
            raise CliError(f"Error: Invalid number of rates, expected {m.rate_count} but got {len(rates)}")
        if any(rates[i][0] > rates[i + 1][0] for i in range(len(rates) - 1)):
            raise CliError("Invalid meter operation (INVALID_INFO_RATE_VALUE)")
        for cell in getattr(m, "meters", []):
            cell.set_rates(rates)

    def _meter_cell(self, m, index: int):
        """The meter at ``index``; for a direct meter ``index`` is the bound table's entry handle."""
        spec = self.program.meters[self.program.meter_ids[m.name]]
        if spec.get("is_direct"):
            table = self.sw.tables.get(spec.get("binding"))
            ent = table.entries.get(index) if table else None
            if ent is None or ent.meter is None:
                raise CliError("Invalid meter operation (INVALID_INDEX)")
            return ent.meter
        if not 0 <= index < len(m):
            raise CliError("Invalid meter operation (INVALID_INDEX)")
        return m.meters[index]

    def meter_get_rates(self, name: str, index: int) -> list[tuple[float, int]]:
        rates = self._meter_cell(self._meter(name), index).rates or []
        return [(r[0], int(r[1])) for r in rates]

    # -- traffic manager, mirroring, multicast ------------------------------------------------------
    def set_queue_depth(self, depth: int, port: int | None = None) -> None:
        if depth < 0:
            raise CliError("Error: Invalid queue depth, must be >= 0")
        self.sw.tm.set_queue_depth(depth, port)

    def set_queue_rate(self, rate_pps: float, port: int | None = None) -> None:
        self.sw.tm.set_queue_rate(rate_pps, port)

    MAX_MIRROR_SESSION_ID = (1 << 15) - 1

    def mirroring_add(self, session: int, port: int) -> None:
        # simple_switch ignores (logs) an id out of 0..32767, and the CLI reports nothing
        if 0 <= session <= self.MAX_MIRROR_SESSION_ID:
            self.sw.mirroring[session] = {"port": port}

    def mirroring_add_mc(self, session: int, mgid: int) -> None:
        if 0 <= session <= self.MAX_MIRROR_SESSION_ID:
            self.sw.mirroring[session] = {"mgid": mgid}

    def mirroring_delete(self, session: int) -> None:
        if self.sw.mirroring.pop(session, None) is None:
            raise CliError("Invalid mirroring operation (SESSION_NOT_FOUND)")

    def mirroring_get(self, session: int) -> dict:
        cfg = self.sw.mirroring.get(session)
        if cfg is None:
            raise CliError("Invalid mirroring operation (SESSION_NOT_FOUND)")
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
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        self._node_ports[handle] = sorted(ports)
        self.sw.mc_node_lags[handle] = sorted(lags)
        self._refresh_node(handle)

    def mc_set_lag_membership(self, lag: int, ports: list[int]) -> None:
        if lag > 256:                              # LAG_MAX_ENTRIES
            raise CliError("Invalid PRE operation (ERROR)")
        self._lags[lag] = sorted(ports)
        self._lag_order.insert(lag)
        for handle in self.sw.mc_nodes:
            self._refresh_node(handle)

    def mc_node_destroy(self, handle: int) -> None:
        if handle not in self.sw.mc_nodes:
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        mgid = self._node_mgrp.pop(handle, None)
        if mgid is not None and handle in self.sw.mc_assoc.get(mgid, []):
            self.sw.mc_assoc[mgid].remove(handle)
        del self.sw.mc_nodes[handle]
        self._node_ports.pop(handle, None)
        self.sw.mc_node_lags.pop(handle, None)

    def mc_node_associate(self, mgid: int, handle: int) -> None:
        if handle not in self.sw.mc_nodes:
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        if mgid not in self.sw.mc_assoc:
            raise CliError("Invalid PRE operation (INVALID_MGRP_HANDLE)")
        if handle in self._node_mgrp:              # a node is in one group at most
            raise CliError("Invalid PRE operation (ERROR)")
        self.sw.mc_assoc[mgid].append(handle)
        self._node_mgrp[handle] = mgid

    def mc_node_dissociate(self, mgid: int, handle: int) -> None:
        if handle not in self.sw.mc_nodes:
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        if mgid not in self.sw.mc_assoc:
            raise CliError("Invalid PRE operation (INVALID_MGRP_HANDLE)")
        if self._node_mgrp.get(handle) != mgid:
            raise CliError("Invalid PRE operation (ERROR)")
        self.sw.mc_assoc[mgid].remove(handle)
        del self._node_mgrp[handle]

    # -- parser value sets, hash parameters ---------------------------------------------------------
    def pvs_name(self, name: str) -> str:
        return resolve_name("parser value set", name, self.sw.vsets)

    def pvs_add(self, name: str, value: int) -> None:
        self.sw.vsets[resolve_name("parser value set", name, self.sw.vsets)].add(value)

    def pvs_remove(self, name: str, value: int) -> None:
        self.sw.vsets[resolve_name("parser value set", name, self.sw.vsets)].discard(value)

    def pvs_get(self, name: str) -> list[int]:
        return sorted(self.sw.vsets[resolve_name("parser value set", name, self.sw.vsets)])

    def pvs_clear(self, name: str) -> None:
        self.sw.vsets[resolve_name("parser value set", name, self.sw.vsets)].clear()

    def set_crc_parameters(self, width: int, calc_name: str, params: CrcParams) -> None:
        names = {c["name"]: c for c in self.program.json.get("calculations", [])}
        full = resolve_name("calculation", calc_name, names)
        algo = self.sw.hash_algorithms.get(names[full]["id"])
        if not isinstance(algo, Crc) or names[full].get("algo") != f"crc{width}_custom":
            raise CliError(f"Error: {full} is not a crc{width}_custom calculation")
        algo.set_params(params)
