"""One P4Runtime device: the switch behind the API, its forwarding pipeline, and the
per-entity state (specification §7 "Forwarding pipeline", §9 "Entities", §12 "Errors").

Every method here runs on the switch's own thread (the process's event loop, between
packets; service.py hands calls over), so it needs no lock and a batch of updates is applied
with no packet in between.

Pipeline (§7.2): VERIFY checks a P4Info + BMv2 JSON pair (the JSON loads, the two agree)
and changes nothing; VERIFY_AND_SAVE keeps it for a later COMMIT; VERIFY_AND_COMMIT and
COMMIT replace the running program, every entity starting empty (a new switch); the
Thrift API and the data path take the new program at once. RECONCILE_AND_COMMIT keeps the
forwarding state when the device config is the one running (only the P4Info and cookie
change) and is UNIMPLEMENTED otherwise: carrying entries across programs is beyond this
switch, as beyond simple_switch_grpc.
"""
from __future__ import annotations

from typing import Optional

from ..bm_sim.json_loader import DEFAULT_MAX_STATE, load_program_text
from ..errors import CliError, LoadError
from ..runtime import OpError
from ..simple_switch.switch import SimpleSwitch
from . import wire
from .errors import Code, P4RTError
from .externs import Externs, Profiles
from .pipeline import Pipeline, bind_pipeline
from .tables import TableEntries

__all__ = ["Device", "op_error_code"]

# BMv2's error codes (runtime API exceptions) as P4Runtime status codes
_OP_CODES = {
    "DUPLICATE_ENTRY": Code.ALREADY_EXISTS, "TABLE_FULL": Code.RESOURCE_EXHAUSTED,
    "INVALID_HANDLE": Code.NOT_FOUND, "EXPIRED_HANDLE": Code.NOT_FOUND,
    "BAD_MATCH_KEY": Code.INVALID_ARGUMENT, "INVALID_ACTION_NAME": Code.INVALID_ARGUMENT,
    "BAD_ACTION_DATA": Code.INVALID_ARGUMENT, "IMMUTABLE_TABLE_ENTRIES": Code.PERMISSION_DENIED,
    "DEFAULT_ACTION_IS_CONST": Code.PERMISSION_DENIED,
    "DEFAULT_ENTRY_IS_CONST": Code.PERMISSION_DENIED,
    "MBR_STILL_USED": Code.FAILED_PRECONDITION, "GRP_STILL_USED": Code.FAILED_PRECONDITION,
    "INVALID_MBR_HANDLE": Code.NOT_FOUND, "INVALID_GRP_HANDLE": Code.NOT_FOUND,
    "MBR_ALREADY_IN_GRP": Code.ALREADY_EXISTS, "MBR_NOT_IN_GRP": Code.NOT_FOUND,
    "INVALID_INDEX": Code.OUT_OF_RANGE, "INVALID_INFO_RATE_VALUE": Code.INVALID_ARGUMENT,
    "INVALID_METER_OPERATION": Code.INVALID_ARGUMENT, "BAD_RATES_LIST": Code.INVALID_ARGUMENT,
    "SESSION_NOT_FOUND": Code.NOT_FOUND, "WRONG_TABLE_TYPE": Code.INVALID_ARGUMENT,
    "ERROR": Code.INTERNAL,
}


def op_error_code(e: OpError) -> Code:
    return _OP_CODES.get(e.code, Code.UNKNOWN)


UPDATE_KINDS = {1: "INSERT", 2: "MODIFY", 3: "DELETE"}
READ_CHUNK = 1000                  # entities per ReadResponse


class Device:
    """``host``: the ControlHost (its ``sw`` is the running switch; ``replace(sw, text)``
    installs another); ``pb``: p4.v1.p4runtime_pb2."""

    def __init__(self, host, pb, *, seed: int = 0):
        self.host, self.pb, self.seed = host, pb, seed
        self.pipeline: Optional[Pipeline] = None
        self.saved: Optional[tuple] = None          # (Pipeline, SimpleSwitch) of VERIFY_AND_SAVE
        self.tables = self.profiles = self.externs = None

    # -- pipeline -----------------------------------------------------------------------------
    def _verify(self, config) -> tuple[Pipeline, Optional[SimpleSwitch]]:
        if not config.HasField("p4info"):
            raise P4RTError(Code.INVALID_ARGUMENT, "the config has no P4Info")
        data = config.p4_device_config
        if not data:
            raise P4RTError(Code.INVALID_ARGUMENT, "the config has no p4_device_config (the "
                                                   "BMv2 JSON)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise P4RTError(Code.INVALID_ARGUMENT, f"p4_device_config: not UTF-8 text (byte "
                                                   f"{data[e.start]:#04x} at offset {e.start})")
        try:
            # the arrays' budget of the switch's other loaders (rdtcp-switch --max-state)
            program = load_program_text(text, "p4_device_config",
                                        max_state=getattr(self.host, "max_state",
                                                          DEFAULT_MAX_STATE))
        except LoadError as e:
            raise P4RTError(Code.INVALID_ARGUMENT, f"p4_device_config: {e}") from None
        cookie = config.cookie.cookie if config.HasField("cookie") else 0
        pl = bind_pipeline(config.p4info, data, cookie, program)
        return pl, program

    def set_pipeline(self, action: int, config) -> None:
        """SetForwardingPipelineConfig (§7.2); ``action`` its Action enum value."""
        # VERIFY 1, VERIFY_AND_SAVE 2, VERIFY_AND_COMMIT 3, COMMIT 4, RECONCILE_AND_COMMIT 5
        if action == 4:
            if self.saved is None:
                raise P4RTError(Code.FAILED_PRECONDITION, "COMMIT without a saved config "
                                                          "(VERIFY_AND_SAVE first)")
            pl, program = self.saved
            self.saved = None
            self._install(pl, program)
            return
        if action not in (1, 2, 3, 5):
            raise P4RTError(Code.INVALID_ARGUMENT, f"unknown pipeline config action {action}")
        pl, program = self._verify(config)
        if action == 1:
            return
        if action == 2:
            self.saved = (pl, program)
            return
        if action == 5:
            if self.pipeline is None or pl.device_config != self.pipeline.device_config:
                raise P4RTError(Code.UNIMPLEMENTED, "RECONCILE_AND_COMMIT of another device "
                                                    "config (only the running one's P4Info and "
                                                    "cookie can change)")
            pl.program = self.pipeline.program
            self._bind(pl)
            return
        self._install(pl, program)

    def _install(self, pl: Pipeline, program) -> None:
        sw = SimpleSwitch(program, seed=self.seed)
        self.host.replace(sw, pl.device_config.decode())
        self._bind(pl)

    def _bind(self, pl: Pipeline) -> None:
        old = (self.tables, self.profiles, self.externs)
        self.pipeline = pl
        rt = self.host.sw.runtime
        self.profiles = Profiles(pl, rt, self.pb, lambda: self.tables)
        self.tables = TableEntries(pl, rt, self.profiles, self.pb)
        self.externs = Externs(pl, rt, self.pb, self.tables)
        if old[0] is not None and old[0].rt is rt:      # reconciled: the same switch
            self.tables.meta = old[0].meta
            self.profiles.members, self.profiles.groups = old[1].members, old[1].groups
            self.externs.mcast, self.externs.clones = old[2].mcast, old[2].clones
            self.externs.digest_config = old[2].digest_config

    def get_config(self, response_type: int):
        """ForwardingPipelineConfig per GetForwardingPipelineConfig's ResponseType."""
        cfg = self.pb.ForwardingPipelineConfig()
        pl = self.pipeline
        if pl is None:
            return cfg
        # ALL 0, COOKIE_ONLY 1, P4INFO_AND_COOKIE 2, DEVICE_CONFIG_AND_COOKIE 3
        if response_type in (0, 2):
            cfg.p4info.CopyFrom(pl.p4info)
        if response_type in (0, 3):
            cfg.p4_device_config = pl.device_config
        cfg.cookie.cookie = pl.cookie
        return cfg

    def _ready(self) -> None:
        if self.pipeline is None:
            raise P4RTError(Code.FAILED_PRECONDITION, "no forwarding pipeline: "
                                                      "SetForwardingPipelineConfig first")

    # -- writes -------------------------------------------------------------------------------
    def write(self, updates) -> list[Optional[P4RTError]]:
        """Apply updates in order (CONTINUE_ON_ERROR); the error of each, or None."""
        self._ready()
        rt = self.host.sw.runtime
        out = []
        rt.exact_names = True              # full JSON names, as BMv2's API takes them
        try:
            for u in updates:
                try:
                    self._update(u)
                    out.append(None)
                except P4RTError as e:
                    out.append(e)
                except OpError as e:
                    out.append(P4RTError(op_error_code(e), f"{e} ({e.kind})"))
                except (CliError, KeyError, ValueError, IndexError, OverflowError) as e:
                    out.append(P4RTError(Code.INVALID_ARGUMENT, str(e) or type(e).__name__))
        finally:
            rt.exact_names = False
        return out

    def _update(self, u) -> None:
        kind = UPDATE_KINDS.get(u.type)
        if kind is None:
            raise P4RTError(Code.INVALID_ARGUMENT, f"update type {u.type} (INSERT, MODIFY or "
                                                   "DELETE)")
        e = u.entity
        which = e.WhichOneof("entity")
        if which == "table_entry":
            self.tables.write(kind, e.table_entry)
        elif which == "action_profile_member":
            self.profiles.write_member(kind, e.action_profile_member)
        elif which == "action_profile_group":
            self.profiles.write_group(kind, e.action_profile_group)
        elif which == "counter_entry":
            self.externs.write_counter(kind, e.counter_entry)
        elif which == "direct_counter_entry":
            self.externs.write_direct_counter(kind, e.direct_counter_entry)
        elif which == "meter_entry":
            self.externs.write_meter(kind, e.meter_entry)
        elif which == "direct_meter_entry":
            self.externs.write_direct_meter(kind, e.direct_meter_entry)
        elif which == "register_entry":
            self.externs.write_register(kind, e.register_entry)
        elif which == "packet_replication_engine_entry":
            self.externs.write_pre(kind, e.packet_replication_engine_entry)
        elif which == "value_set_entry":
            self.externs.write_value_set(kind, e.value_set_entry)
        elif which == "digest_entry":
            self.externs.write_digest(kind, e.digest_entry)
        elif which == "extern_entry":
            raise P4RTError(Code.UNIMPLEMENTED, "extern entries (the program has no "
                                                "architecture-specific externs)")
        else:
            raise P4RTError(Code.INVALID_ARGUMENT, "an update without an entity")

    # -- reads --------------------------------------------------------------------------------
    def read(self, entities) -> list:
        """The ReadResponses holding the entities the request selects (§11.1, wildcards),
        READ_CHUNK entities each."""
        self._ready()
        rt = self.host.sw.runtime
        rt.exact_names = True
        try:
            responses: list = []
            for e in entities:
                try:
                    self._read_one(e, responses)
                except OpError as err:
                    raise P4RTError(op_error_code(err), str(err)) from None
            return responses
        finally:
            rt.exact_names = False

    def _read_one(self, e, responses: list) -> None:
        which = e.WhichOneof("entity")
        found = _Sink(self.pb, which, responses)
        readers = {
            "table_entry": self.tables.read,
            "action_profile_member": self.profiles.read_members,
            "action_profile_group": self.profiles.read_groups,
            "counter_entry": self.externs.read_counters,
            "direct_counter_entry": self.externs.read_direct_counters,
            "meter_entry": self.externs.read_meters,
            "direct_meter_entry": self.externs.read_direct_meters,
            "register_entry": self.externs.read_registers,
            "packet_replication_engine_entry": self.externs.read_pre,
            "value_set_entry": self.externs.read_value_sets,
            "digest_entry": self.externs.read_digests,
        }
        reader = readers.get(which)
        if reader is None:
            raise P4RTError(Code.UNIMPLEMENTED if which == "extern_entry" else
                            Code.INVALID_ARGUMENT, f"cannot read {which or 'an empty entity'}")
        reader(getattr(e, which), found)


class _Sink:
    """Where a reader puts what it found: ``add()`` a new message of the entity's kind, made in
    place in the current ReadResponse (no copy: large register arrays are read whole), or
    ``append(msg)`` a message built elsewhere."""

    def __init__(self, pb, which: str, responses: list):
        self.pb, self.which, self.responses = pb, which, responses

    def add(self):
        r = self.responses
        if not r or isinstance(r[-1], bytes) or len(r[-1].entities) >= READ_CHUNK:
            r.append(self.pb.ReadResponse())
        return getattr(r[-1].entities.add(), self.which)

    def add_raw(self, entities: list[bytes]) -> None:
        """Entities already serialized (wire.py), as ReadResponses of READ_CHUNK each."""
        for i in range(0, len(entities), READ_CHUNK):
            self.responses.append(wire.read_response(entities[i:i + READ_CHUNK]))

    def append(self, msg) -> None:
        self.add().CopyFrom(msg)
