"""The ``standard`` service (behavioral-model ``thrift_src/standard.thrift``), as
``src/bm_runtime/Standard_server.cpp`` serves it: names are full JSON names, failures are
the IDL's exceptions with BMv2's codes. Every call goes to the switch's ``Runtime``, the
same code the CLI language (``runtime_cli``) runs, so both give the same answers.
"""

from __future__ import annotations

import functools
import logging

from ..bm_sim.hash_algos import CrcParams
from ..bm_sim.tables import HANDLE_INDEX_MASK, TableOpError
from ..errors import CliError, LoadError
from ..runtime import OpError
from .modules import thrift_modules
from .convert import data_bytes, i32, i64, match_params, u32, wire_match_key
from .host import ControlHost, SwapError

__all__ = ["StandardHandler", "api_call"]

log = logging.getLogger("rdtcp-switch.thrift")

_UINT_MASK = (1 << 32) - 1           # C++ unsigned int
_SIZE_T_MASK = (1 << 64) - 1         # C++ size_t


def _exception(kind: str, code: str):
    """The IDL exception for an OpError of ``kind`` with ``code`` (ERROR when the installed
    modules predate the code)."""
    m = thrift_modules()
    exc, codes = {
        "table": (m.std.InvalidTableOperation, m.std.TableOperationErrorCode),
        "counter": (m.std.InvalidCounterOperation, m.std.CounterOperationErrorCode),
        "register": (m.std.InvalidRegisterOperation, m.std.RegisterOperationErrorCode),
        "meter": (m.std.InvalidMeterOperation, m.std.MeterOperationErrorCode),
        "pvs": (m.std.InvalidParseVSetOperation, m.std.ParseVSetOperationErrorCode),
        "crc": (m.std.InvalidCrcOperation, m.std.CrcErrorCode),
        "pre": (m.pre.InvalidMcOperation, m.pre.McOperationErrorCode),
        "mirroring": (m.ss.InvalidMirroringOperation, m.ss.MirroringOperationErrorCode),
    }[kind]
    value = codes._NAMES_TO_VALUES.get(code, codes._NAMES_TO_VALUES.get("ERROR", 1))
    return exc(code=value)


def api_call(method):
    """Run a handler method with the runtime resolving full names only, and raise BMv2's
    exception for an OpError. Other failures reach the processor, which answers the client
    with a TApplicationException (INTERNAL_ERROR) and logs them; the switch goes on."""
    @functools.wraps(method)
    def call(self, *args):
        rt = self.rt
        rt.exact_names = True
        try:
            return method(self, *args)
        except OpError as e:
            raise _exception(e.kind, e.code) from None
        except TableOpError as e:
            raise _exception("table", e.code) from None
        finally:
            rt.exact_names = False
    return call


class _Base:
    def __init__(self, host: ControlHost):
        self.host = host
        self.m = thrift_modules()

    @property
    def rt(self):
        return self.host.sw.runtime

    @property
    def sw(self):
        return self.host.sw


class StandardHandler(_Base):
    """bm_runtime.standard.Standard.Iface over a ControlHost."""

    # -- tables -------------------------------------------------------------------------------
    @api_call
    def bm_mt_get_num_entries(self, cxt_id, table_name):
        return self.rt.table_num_entries(table_name)

    @api_call
    def bm_mt_clear_entries(self, cxt_id, table_name, reset_default_entry):
        self.rt.table_clear(table_name)
        if reset_default_entry:
            self.rt.table_reset_default(table_name)

    def _data(self, action: str, action_data, table=None) -> list[int]:
        data = [int.from_bytes(d, "big") for d in action_data or []]
        self.rt._check_data(action, data, table)
        return data

    @api_call
    def bm_mt_add_entry(self, cxt_id, table_name, match_key, action_name, action_data, options):
        t = self.rt.table(table_name)
        action = self.rt.action_of(t, action_name)
        match = match_params(t, match_key)
        priority = (options.priority if options is not None else None) or 0
        return i32(self.rt.table_add(t.name, action, match, self._data(action, action_data, t),
                                     priority))

    @api_call
    def bm_mt_set_default_action(self, cxt_id, table_name, action_name, action_data):
        t = self.rt.table(table_name)
        action = self.rt.action_of(t, action_name)
        self.rt.table_set_default(t.name, action, self._data(action, action_data, t))

    @api_call
    def bm_mt_reset_default_entry(self, cxt_id, table_name):
        self.rt.table_reset_default(table_name)

    @api_call
    def bm_mt_delete_entry(self, cxt_id, table_name, entry_handle):
        self.rt.table_delete(table_name, u32(entry_handle))

    @api_call
    def bm_mt_modify_entry(self, cxt_id, table_name, entry_handle, action_name, action_data):
        t = self.rt.table(table_name)
        action = self.rt.action_of(t, action_name)
        self.rt.table_modify(t.name, action, u32(entry_handle), self._data(action, action_data, t))

    @api_call
    def bm_mt_set_entry_ttl(self, cxt_id, table_name, entry_handle, timeout_ms):
        t = self.rt.table(table_name)
        if not t.spec.support_timeout:
            raise OpError("table", "AGEING_DISABLED")
        self.rt.table_entry(t.name, u32(entry_handle)).timeout_ms = timeout_ms

    bm_mt_indirect_set_entry_ttl = bm_mt_set_entry_ttl

    # -- action profiles ----------------------------------------------------------------------
    @api_call
    def bm_mt_act_prof_add_member(self, cxt_id, act_prof_name, action_name, action_data):
        p = self.rt.act_prof(act_prof_name)
        action = self.rt.act_prof_action(p, action_name)
        return i32(self.rt.act_prof_create_member(p.name, action, self._data(action, action_data)))

    @api_call
    def bm_mt_act_prof_delete_member(self, cxt_id, act_prof_name, mbr_handle):
        self.rt.act_prof_delete_member(act_prof_name, u32(mbr_handle))

    @api_call
    def bm_mt_act_prof_modify_member(self, cxt_id, act_prof_name, mbr_handle, action_name,
                                     action_data):
        p = self.rt.act_prof(act_prof_name)
        action = self.rt.act_prof_action(p, action_name)
        self.rt.act_prof_modify_member(p.name, action, u32(mbr_handle),
                                       self._data(action, action_data))

    @api_call
    def bm_mt_act_prof_create_group(self, cxt_id, act_prof_name):
        return i32(self.rt.act_prof_create_group(act_prof_name))

    @api_call
    def bm_mt_act_prof_delete_group(self, cxt_id, act_prof_name, grp_handle):
        self.rt.act_prof_delete_group(act_prof_name, u32(grp_handle))

    @api_call
    def bm_mt_act_prof_add_member_to_group(self, cxt_id, act_prof_name, mbr_handle, grp_handle):
        self.rt.act_prof_add_member_to_group(act_prof_name, u32(mbr_handle), u32(grp_handle))

    @api_call
    def bm_mt_act_prof_remove_member_from_group(self, cxt_id, act_prof_name, mbr_handle,
                                                grp_handle):
        self.rt.act_prof_remove_member_from_group(act_prof_name, u32(mbr_handle),
                                                  u32(grp_handle))

    def _member(self, prof, handle: int):
        action, data = prof.members[handle]
        return self.m.std.BmMtActProfMember(mbr_handle=i32(handle), action_name=action,
                                            action_data=[data_bytes(v) for v in data])

    def _group(self, prof, handle: int):
        return self.m.std.BmMtActProfGroup(grp_handle=i32(handle),
                                           mbr_handles=[i32(h) for h in prof.groups[handle]])

    @api_call
    def bm_mt_act_prof_get_members(self, cxt_id, act_prof_name):
        p = self.rt.act_prof(act_prof_name)
        return [self._member(p, h) for h in sorted(p.members)]

    @api_call
    def bm_mt_act_prof_get_member(self, cxt_id, act_prof_name, mbr_handle):
        p = self.rt.act_prof(act_prof_name)
        if u32(mbr_handle) not in p.members:
            raise OpError("table", "INVALID_MBR_HANDLE")
        return self._member(p, u32(mbr_handle))

    @api_call
    def bm_mt_act_prof_get_groups(self, cxt_id, act_prof_name):
        p = self.rt.act_prof(act_prof_name)
        return [self._group(p, h) for h in sorted(p.groups)]

    @api_call
    def bm_mt_act_prof_get_group(self, cxt_id, act_prof_name, grp_handle):
        p = self.rt.act_prof(act_prof_name)
        if u32(grp_handle) not in p.groups:
            raise OpError("table", "INVALID_GRP_HANDLE")
        return self._group(p, u32(grp_handle))

    # -- indirect tables ----------------------------------------------------------------------
    def _indirect_add(self, table_name, match_key, handle, options, group: bool):
        t = self.rt.indirect_table(table_name, with_selector=group)
        priority = (options.priority if options is not None else None) or 0
        return i32(self.rt.table_indirect_add(t.name, match_params(t, match_key), u32(handle),
                                              priority, group=group))

    @api_call
    def bm_mt_indirect_add_entry(self, cxt_id, table_name, match_key, mbr_handle, options):
        return self._indirect_add(table_name, match_key, mbr_handle, options, False)

    @api_call
    def bm_mt_indirect_ws_add_entry(self, cxt_id, table_name, match_key, grp_handle, options):
        return self._indirect_add(table_name, match_key, grp_handle, options, True)

    @api_call
    def bm_mt_indirect_modify_entry(self, cxt_id, table_name, entry_handle, mbr_handle):
        self.rt.table_indirect_modify(table_name, u32(entry_handle), u32(mbr_handle))

    @api_call
    def bm_mt_indirect_ws_modify_entry(self, cxt_id, table_name, entry_handle, grp_handle):
        self.rt.table_indirect_modify(table_name, u32(entry_handle), u32(grp_handle), group=True)

    @api_call
    def bm_mt_indirect_delete_entry(self, cxt_id, table_name, entry_handle):
        self.rt.indirect_table(table_name)
        self.rt.table_delete(table_name, u32(entry_handle))

    @api_call
    def bm_mt_indirect_set_default_member(self, cxt_id, table_name, mbr_handle):
        self.rt.table_indirect_set_default(table_name, u32(mbr_handle))

    @api_call
    def bm_mt_indirect_ws_set_default_group(self, cxt_id, table_name, grp_handle):
        self.rt.table_indirect_set_default(table_name, u32(grp_handle), group=True)

    @api_call
    def bm_mt_indirect_reset_default_entry(self, cxt_id, table_name):
        self.rt.table_indirect_reset_default(table_name)

    # -- direct counters and meters -----------------------------------------------------------
    @api_call
    def bm_mt_read_counter(self, cxt_id, table_name, entry_handle):
        packets, nbytes = self.rt.table_counter_read(table_name, u32(entry_handle))
        return self.m.std.BmCounterValue(bytes=i64(nbytes), packets=i64(packets))

    @api_call
    def bm_mt_reset_counters(self, cxt_id, table_name):
        self.rt.table_counters_reset(table_name)

    @api_call
    def bm_mt_write_counter(self, cxt_id, table_name, entry_handle, value):
        self.rt.table_counter_write(table_name, u32(entry_handle), value.packets & (2**64 - 1),
                                    value.bytes & (2**64 - 1))

    @api_call
    def bm_mt_set_meter_rates(self, cxt_id, table_name, entry_handle, rates):
        self.rt.table_meter_set_rates(table_name, u32(entry_handle), _rates(rates))

    @api_call
    def bm_mt_get_meter_rates(self, cxt_id, table_name, entry_handle):
        return self._wire_rates(self.rt.table_meter_get_rates(table_name, u32(entry_handle)))

    def _wire_rates(self, rates):
        return [self.m.std.BmMeterRateConfig(units_per_micros=r, burst_size=b) for r, b in rates]

    # -- entries out --------------------------------------------------------------------------
    def _action_entry(self, t, action, data, index):
        std = self.m.std
        if index is not None:
            kind, h = index
            if kind == "mbr":
                return std.BmActionEntry(action_type=std.BmActionEntryType.MBR_HANDLE,
                                         mbr_handle=i32(h))
            return std.BmActionEntry(action_type=std.BmActionEntryType.GRP_HANDLE,
                                     grp_handle=i32(h))
        if action is None:
            return std.BmActionEntry(action_type=std.BmActionEntryType.NONE)
        return std.BmActionEntry(action_type=std.BmActionEntryType.ACTION_DATA,
                                 action_name=action, action_data=[data_bytes(v) for v in data])

    def _entry(self, t, ent):
        # BMv2 gives exact and LPM entries no priority (-1: simple_switch_CLI prints none)
        priority = ent.priority if t.spec.match_type in ("ternary", "range") else -1
        return self.m.std.BmMtEntry(
            match_key=wire_match_key(self.m.std, t, ent.match),
            options=self.m.std.BmAddEntryOptions(priority=priority),
            entry_handle=i32(ent.handle),
            action_entry=self._action_entry(t, ent.action, ent.data, ent.index))

    @api_call
    def bm_mt_get_entries(self, cxt_id, table_name):
        t = self.rt.table(table_name)
        return [self._entry(t, e) for e in sorted(t.entries.values(),
                                                  key=lambda e: e.handle & HANDLE_INDEX_MASK)]

    @api_call
    def bm_mt_get_entry(self, cxt_id, table_name, entry_handle):
        t = self.rt.table(table_name)
        return self._entry(t, self.rt.table_entry(t.name, u32(entry_handle)))

    def _default(self, t):
        if t.profile is not None:
            index = t.indirect_default.index if t.indirect_default is not None else None
            if index is None:
                return self._action_entry(t, None, (), None)
            return self._action_entry(t, None, (), index)
        return self._action_entry(t, t.default_action, t.default_data, None)

    @api_call
    def bm_mt_get_default_entry(self, cxt_id, table_name):
        return self._default(self.rt.table(table_name))

    @api_call
    def bm_mt_get_entry_from_key(self, cxt_id, table_name, match_key, options):
        t = self.rt.table(table_name)
        if not match_key:               # BMv2: an empty key asks for the default entry
            return self.m.std.BmMtEntry(action_entry=self._default(t))
        priority = (options.priority if options is not None else None) or 0
        ent = self.rt.table_entry_from_key(t.name, match_params(t, match_key), priority)
        return self._entry(t, ent)

    # -- counters, meters, registers ----------------------------------------------------------
    @api_call
    def bm_counter_read(self, cxt_id, counter_name, index):
        packets, nbytes = self.rt.counter_read(self._indirect_counter(counter_name), index)
        return self.m.std.BmCounterValue(bytes=i64(nbytes), packets=i64(packets))

    def _indirect_counter(self, name: str) -> str:
        # BMv2 keeps direct counters in their table: by name they are not counter arrays
        if self.rt._direct_counter_table(name) is not None:
            raise OpError("counter", "INVALID_COUNTER_NAME")
        return name

    @api_call
    def bm_counter_reset_all(self, cxt_id, counter_name):
        self.rt.counter_reset(self._indirect_counter(counter_name))

    @api_call
    def bm_counter_write(self, cxt_id, counter_name, index, value):
        self.rt.counter_write(self._indirect_counter(counter_name), index,
                              value.packets & (2**64 - 1), value.bytes & (2**64 - 1))

    @api_call
    def bm_meter_array_set_rates(self, cxt_id, meter_array_name, rates):
        self.rt.meter_array_set_rates(meter_array_name, _rates(rates))

    @api_call
    def bm_meter_set_rates(self, cxt_id, meter_array_name, index, rates):
        self.rt.meter_set_rates(meter_array_name, index, _rates(rates))

    @api_call
    def bm_meter_get_rates(self, cxt_id, meter_array_name, index):
        return self._wire_rates(self.rt.meter_get_rates(meter_array_name, index))

    @api_call
    def bm_register_read(self, cxt_id, register_array_name, idx):
        return i64(self.rt.register_read(register_array_name, idx))

    @api_call
    def bm_register_read_all(self, cxt_id, register_array_name):
        return [i64(v) for v in self.rt.register_read_all(register_array_name)]

    @api_call
    def bm_register_write(self, cxt_id, register_array_name, index, value):
        self.rt.register_write(register_array_name, index, value)

    @api_call
    def bm_register_write_range(self, cxt_id, register_array_name, start_index, end_index, value):
        self.rt.register_write_range(register_array_name, start_index, end_index, value)

    @api_call
    def bm_register_reset(self, cxt_id, register_array_name):
        self.rt.register_reset(register_array_name)

    # -- parser value sets, hash parameters ---------------------------------------------------
    @api_call
    def bm_parse_vset_add(self, cxt_id, parse_vset_name, value):
        self.rt.pvs_add(parse_vset_name, int.from_bytes(value, "big"))

    @api_call
    def bm_parse_vset_remove(self, cxt_id, parse_vset_name, value):
        self.rt.pvs_remove(parse_vset_name, int.from_bytes(value, "big"))

    @api_call
    def bm_parse_vset_get(self, cxt_id, parse_vset_name):
        n = self.rt.pvs_value_bytes(parse_vset_name)
        return [v.to_bytes(n, "big") for v in self.rt.pvs_get(parse_vset_name)]

    @api_call
    def bm_parse_vset_clear(self, cxt_id, parse_vset_name):
        self.rt.pvs_clear(parse_vset_name)

    def _crc(self, width: int, calc_name: str, cfg) -> None:
        mask = (1 << width) - 1
        params = CrcParams(width, cfg.polynomial & mask, cfg.initial_remainder & mask,
                           cfg.final_xor_value & mask, bool(cfg.data_reflected),
                           bool(cfg.remainder_reflected))
        try:
            self.rt.set_crc_parameters(width, calc_name, params)
        except OpError:                 # INVALID_CALCULATION_NAME: passed on as it is
            raise
        except CliError:                # a calculation, but not crc<width>_custom
            raise OpError("crc", "WRONG_TYPE_CALCULATION") from None

    @api_call
    def bm_set_crc16_custom_parameters(self, cxt_id, calc_name, crc16_config):
        self._crc(16, calc_name, crc16_config)

    @api_call
    def bm_set_crc32_custom_parameters(self, cxt_id, calc_name, crc32_config):
        self._crc(32, calc_name, crc32_config)

    # -- learning (LearnEngine::ack, ack_buffer, list_set_timeout, list_set_max_samples) -------
    # The IDL's integers reach BMv2's engine converted to its C++ types: a buffer id to uint64
    # (a negative one names no buffer: nothing is acknowledged), a timeout to unsigned int and
    # a buffer size to size_t (a negative one is a huge value, not "none").
    def _learning(self, call, list_id, *args) -> None:
        try:
            call(list_id, *args)
        except KeyError:                # no learn list of that id
            raise self.m.std.InvalidLearnOperation(
                code=self.m.std.LearnOperationErrorCode.INVALID_LIST_ID) from None

    def bm_learning_ack(self, cxt_id, list_id, buffer_id, sample_ids):
        self._learning(self.sw.learning.ack, list_id, buffer_id, list(sample_ids or []))

    def bm_learning_ack_buffer(self, cxt_id, list_id, buffer_id):
        self._learning(self.sw.learning.ack_buffer, list_id, buffer_id)

    def bm_learning_set_timeout(self, cxt_id, list_id, timeout_ms):
        self._learning(self.sw.learning.set_timeout, list_id, timeout_ms & _UINT_MASK)

    def bm_learning_set_buffer_size(self, cxt_id, list_id, nb_samples):
        self._learning(self.sw.learning.set_max_samples, list_id, nb_samples & _SIZE_T_MASK)

    # -- configuration ------------------------------------------------------------------------
    def bm_load_new_config(self, config_str):
        try:
            self.host.load_new_config(config_str)
        except SwapError as e:
            codes = self.m.std.SwapOperationErrorCode
            raise self.m.std.InvalidSwapOperation(code=codes._NAMES_TO_VALUES[e.code]) from None
        except LoadError as e:          # no swap code says "bad JSON": the message says it
            raise self.m.Thrift.TApplicationException(
                self.m.Thrift.TApplicationException.INTERNAL_ERROR,
                f"new config refused: {e}") from None

    def bm_swap_configs(self):
        try:
            self.host.swap_configs()
        except SwapError as e:
            codes = self.m.std.SwapOperationErrorCode
            raise self.m.std.InvalidSwapOperation(code=codes._NAMES_TO_VALUES[e.code]) from None

    def bm_reset_state(self):
        self.rt.reset_state()

    def bm_get_config(self):
        return self.host.config_text

    def bm_get_config_md5(self):
        return self.host.config_md5()

    def bm_mgmt_get_info(self):
        return self.m.std.BmConfig(device_id=self.host.device_id,
                                   thrift_port=self.host.thrift_port)

    def bm_get_id_from_name(self, cxt_id, resource_type, resource_name):
        std, prog = self.m.std, self.rt.program
        ids = {
            std.BmResourceType.MATCH_TABLE: {n: t.id for n, t in prog.tables.items()},
            std.BmResourceType.ACTION_PROFILE: {n: p.id for n, p in prog.action_profiles.items()},
            std.BmResourceType.COUNTER: {c["name"]: c["id"] for c in prog.counters.values()},
            std.BmResourceType.METER: {m["name"]: m["id"] for m in prog.meters.values()},
            std.BmResourceType.REGISTER: dict(prog.register_ids),
            std.BmResourceType.LEARNING_LIST: {name: lid for lid, (name, _)
                                                in prog.learn_lists.items()},
        }.get(resource_type)
        if ids is None:
            raise std.InvalidIdLookup(code=std.IdLookupErrorCode.INVALID_RESOURCE_TYPE)
        if resource_name not in ids:
            raise std.InvalidIdLookup(code=std.IdLookupErrorCode.INVALID_RESOURCE_NAME)
        return ids[resource_name]

    def bm_serialize_state(self):
        raise self.m.Thrift.TApplicationException(
            self.m.Thrift.TApplicationException.UNKNOWN_METHOD,
            "bm_serialize_state: this switch does not serialize its state (nor restore it)")

    # -- device manager -----------------------------------------------------------------------
    def _dev_mgr_error(self):
        return self.m.std.InvalidDevMgrOperation(code=self.m.std.DevMgrErrorCode.ERROR)

    def bm_dev_mgr_add_port(self, iface_name, port_num, pcap_path):
        try:
            self.host.add_port(iface_name, port_num, pcap_path)
        except (OSError, ValueError) as e:
            log.warning("thrift: port_add %s %d refused: %s", iface_name, port_num, e)
            raise self._dev_mgr_error() from None

    def bm_dev_mgr_remove_port(self, port_num):
        try:
            self.host.remove_port(port_num)
        except (OSError, ValueError, KeyError) as e:
            log.warning("thrift: port_remove %d refused: %s", port_num, e)
            raise self._dev_mgr_error() from None

    def bm_dev_mgr_show_ports(self):
        return [self.m.std.DevMgrPortInfo(port_num=n, iface_name=name, is_up=up, extra={})
                for n, name, up in self.host.port_info()]


def _rates(rates) -> list[tuple[float, int]]:
    return [(float(r.units_per_micros), int(r.burst_size)) for r in rates or []]
