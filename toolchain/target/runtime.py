"""The switch's control-plane API in Python (what simple_switch's Thrift server offers).

Names are the JSON names (``MyIngress.ipv4_lpm``); as simple_switch_CLI does, any unique
dot-separated suffix (``ipv4_lpm``) is accepted too. Failures raise ``CliError`` whose
message is simple_switch_CLI's text for that failure, so the CLI layer only formats.
"""

from __future__ import annotations

from .bm_sim.hash_algos import Crc, CrcParams
from .bm_sim.tables import MatchParam, MatchTable, TableOpError
from .errors import CliError

__all__ = ["Runtime", "resolve_name"]


def resolve_name(kind: str, name: str, names) -> str:
    """Full name for ``name`` (exact, or the unique suffix after a '.'); else CliError."""
    if name in names:
        return name
    hits = [n for n in names if n.endswith("." + name)]
    if len(hits) == 1:
        return hits[0]
    raise CliError(f"Error: Invalid {kind} name ({name})")


def _table_error(e: TableOpError) -> CliError:
    return CliError(f"Invalid table operation ({e.code})")


class Runtime:
    def __init__(self, switch):
        self.sw = switch
        self.program = switch.program

    # -- resources ----------------------------------------------------------------------------------
    def table(self, name: str) -> MatchTable:
        return self.sw.tables[resolve_name("table", name, self.sw.tables)]

    def action_of(self, table: MatchTable, name: str) -> str:
        if name in table.bind:
            return name
        hits = [a for a in table.bind if a.endswith("." + name)]
        if len(hits) == 1:
            return hits[0]
        raise CliError(f"Error: Table {table.name} has no action {name}")

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

    def table_num_entries(self, table: str) -> int:
        return len(self.table(table).entries)

    # -- action profiles and selectors (bm_sim/action_profiles.py) -----------------------------------
    def act_prof(self, name: str):
        return self.sw.action_profiles[resolve_name("action profile", name, self.sw.action_profiles)]

    def act_prof_action(self, prof, name: str) -> str:
        if name in prof.actions:
            return name
        hits = [a for a in prof.actions if a.endswith("." + name)]
        if len(hits) == 1:
            return hits[0]
        raise CliError(f"Error: Action profile '{prof.name}' has no action '{name}'")

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

    def indirect_table(self, name: str, *, with_selector: bool = False) -> MatchTable:
        t = self.table(name)
        if with_selector and t.spec.type != "indirect_ws":
            raise CliError("Error: Cannot run this command on non-indirect table, or on indirect table with no selector")
        if t.profile is None:
            raise CliError("Error: Cannot run this command on non-indirect table")
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
        self._profile_op(self.indirect_table(table).reset_default_indirect)

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

    def mirroring_add(self, session: int, port: int) -> None:
        self.sw.mirroring[session] = {"port": port}

    def mirroring_add_mc(self, session: int, mgid: int) -> None:
        self.sw.mirroring[session] = {"mgid": mgid}

    def mirroring_delete(self, session: int) -> None:
        if self.sw.mirroring.pop(session, None) is None:
            raise CliError("Invalid mirroring operation (SESSION_NOT_FOUND)")

    def mirroring_get(self, session: int) -> dict:
        cfg = self.sw.mirroring.get(session)
        if cfg is None:
            raise CliError("Invalid mirroring operation (SESSION_NOT_FOUND)")
        return dict(cfg)

    def mc_mgrp_create(self, mgid: int) -> None:
        if mgid in self.sw.mc_assoc:
            raise CliError("Invalid PRE operation (DUPLICATE_ENTRY)")
        self.sw.mc_assoc[mgid] = []

    def mc_mgrp_destroy(self, mgid: int) -> None:
        if self.sw.mc_assoc.pop(mgid, None) is None:
            raise CliError("Invalid PRE operation (INVALID_MGID)")

    def mc_node_create(self, rid: int, ports: list[int], lags: list[int] = ()) -> int:
        """A node; its LAG list is kept for mc_dump (LAG replication itself is not modelled:
        a packet is replicated to the node's ports only)."""
        handle = max(self.sw.mc_nodes, default=-1) + 1
        self.sw.mc_nodes[handle] = (rid, list(ports))
        self.sw.mc_node_lags[handle] = sorted(lags)
        return handle

    def mc_entries(self) -> list[tuple[int, list[tuple[int, int, list[int], list[int]]]]]:
        """[(mgid, [(node handle, rid, ports, lags)])] in group order, nodes in association order."""
        return [(mgid, [(h, *self.sw.mc_nodes[h], self.sw.mc_node_lags.get(h, [])) for h in nodes])
                for mgid, nodes in sorted(self.sw.mc_assoc.items())]

    def mc_node_update(self, handle: int, ports: list[int]) -> None:
        if handle not in self.sw.mc_nodes:
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        self.sw.mc_nodes[handle] = (self.sw.mc_nodes[handle][0], list(ports))

    def mc_node_destroy(self, handle: int) -> None:
        if self.sw.mc_nodes.pop(handle, None) is None:
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        self.sw.mc_node_lags.pop(handle, None)
        for nodes in self.sw.mc_assoc.values():
            if handle in nodes:
                nodes.remove(handle)

    def mc_node_associate(self, mgid: int, handle: int) -> None:
        if mgid not in self.sw.mc_assoc:
            raise CliError("Invalid PRE operation (INVALID_MGID)")
        if handle not in self.sw.mc_nodes:
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        self.sw.mc_assoc[mgid].append(handle)

    def mc_node_dissociate(self, mgid: int, handle: int) -> None:
        nodes = self.sw.mc_assoc.get(mgid)
        if nodes is None:
            raise CliError("Invalid PRE operation (INVALID_MGID)")
        if handle not in nodes:
            raise CliError("Invalid PRE operation (INVALID_L1_HANDLE)")
        nodes.remove(handle)

    # -- parser value sets, hash parameters ---------------------------------------------------------
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
