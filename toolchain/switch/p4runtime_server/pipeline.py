"""A forwarding pipeline as P4Runtime sees it: the P4Info bound to the loaded BMv2 JSON.

simple_switch_grpc matches the two by name: every P4Info table, counter, meter, register,
action profile, digest and value set, and every action a table uses, must be the JSON object
of the same name (an action only called from a control's body is inlined in the JSON),
with the same match fields (widths and kinds, in order), action parameters and sizes; a
pipeline whose P4Info and JSON disagree is refused at SetForwardingPipelineConfig
(INVALID_ARGUMENT naming the first disagreement), before anything is replaced. A digest or
action profile the JSON names otherwise is found through its order or its tables.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .errors import Code, P4RTError

__all__ = ["Pipeline", "TableInfo", "ActionInfo", "bind_pipeline", "MATCH"]

# p4.config.v1.MatchField.MatchType
MATCH = {2: "exact", 3: "lpm", 4: "ternary", 5: "range", 6: "optional"}
# the JSON key kinds each P4Info match type may be written as (p4c writes optional as ternary)
_JSON_KINDS = {"exact": ("exact", "valid"), "lpm": ("lpm",), "ternary": ("ternary",),
               "range": ("range",), "optional": ("ternary", "optional")}


def _disagree(what: str) -> P4RTError:
    return P4RTError(Code.INVALID_ARGUMENT, f"P4Info and BMv2 JSON disagree: {what}")


@dataclass
class FieldInfo:
    id: int
    name: str
    bitwidth: int
    kind: str                 # exact | lpm | ternary | range | optional
    index: int                # position among the JSON table's keys


@dataclass
class ParamInfo:
    id: int
    name: str
    bitwidth: int
    index: int


@dataclass
class ActionInfo:
    id: int
    name: str
    params: dict              # id -> ParamInfo
    order: list               # ParamInfo in JSON order


@dataclass
class TableInfo:
    id: int
    name: str
    fields: dict              # id -> FieldInfo
    order: list               # FieldInfo in key order
    actions: dict             # action id -> scope (0 table and default, 1 table only, 2 default only)
    const_default: Optional[int]
    size: int
    needs_priority: bool
    profile: Optional["ProfileInfo"] = None
    direct_counter: Optional[int] = None
    direct_meter: Optional[int] = None
    idle_timeout: bool = False
    is_const: bool = False


@dataclass
class ProfileInfo:
    id: int
    name: str                 # the JSON action profile
    with_selector: bool
    size: int
    max_group_size: int
    tables: list = field(default_factory=list)     # TableInfo
    actions: set = field(default_factory=set)      # action ids its tables allow


@dataclass
class CounterInfo:
    """A counter or a meter (their P4Info units: 1 bytes, 2 packets, 3 both for counters)."""
    id: int
    name: str
    size: int
    unit: int
    table: Optional[TableInfo] = None              # a direct one's table


MeterInfo = CounterInfo


@dataclass
class RegisterInfo:
    id: int
    name: str
    size: int
    bitwidth: int


@dataclass
class DigestInfo:
    id: int
    name: str
    list_id: int              # the JSON learn list
    widths: list              # the data's field widths, in order
    is_struct: bool


@dataclass
class PacketMetadata:
    """A @controller_header header: its metadata fields in order (id, name, bitwidth)."""
    name: str
    fields: list

    @property
    def width(self) -> int:
        return sum(f[2] for f in self.fields)


@dataclass
class ValueSetInfo:
    id: int
    name: str
    size: int
    widths: list              # match fields' widths (id order = position + 1)


@dataclass
class Pipeline:
    p4info: object
    device_config: bytes
    cookie: int
    program: object
    tables: dict = field(default_factory=dict)          # id -> TableInfo
    actions: dict = field(default_factory=dict)         # id -> ActionInfo
    profiles: dict = field(default_factory=dict)        # id -> ProfileInfo
    counters: dict = field(default_factory=dict)        # id -> CounterInfo
    direct_counters: dict = field(default_factory=dict)
    meters: dict = field(default_factory=dict)          # id -> MeterInfo
    direct_meters: dict = field(default_factory=dict)
    registers: dict = field(default_factory=dict)       # id -> RegisterInfo
    digests: dict = field(default_factory=dict)         # id -> DigestInfo
    value_sets: dict = field(default_factory=dict)      # id -> ValueSetInfo
    packet_in: Optional[PacketMetadata] = None
    packet_out: Optional[PacketMetadata] = None


def _translated(p4info, named, what: str) -> None:
    """P4Runtime's translated types (@p4runtime_translation, spec §8.4.5): the controller's
    values are not the data plane's, and this switch (as simple_switch_grpc) keeps no
    translation tables; UNIMPLEMENTED names the field."""
    name = named.name if named is not None else ""
    if name and p4info.type_info.new_types[name].HasField("translated_type"):
        raise P4RTError(Code.UNIMPLEMENTED, f"{what} has the translated type {name} "
                                            "(@p4runtime_translation): not supported")


def _bits(spec) -> Optional[int]:
    if spec.HasField("bitstring"):
        b = spec.bitstring
        for kind in ("bit", "int"):
            if b.HasField(kind):
                return getattr(b, kind).bitwidth
    if spec.HasField("bool"):
        return 1
    return None


def bind_pipeline(p4info, device_config: bytes, cookie: int, program) -> Pipeline:
    """Bind ``p4info`` to ``program`` (a loaded BMv2 JSON); P4RTError if they disagree."""
    pl = Pipeline(p4info, device_config, cookie, program)
    j = program.json
    _bind_actions(pl, p4info, program)
    _bind_tables(pl, p4info, program)
    _bind_profiles(pl, p4info, program)
    _bind_arrays(pl, p4info, program)
    for r in p4info.registers:
        rid = program.register_ids.get(r.preamble.name)
        if rid is None:
            raise _disagree(f"register {r.preamble.name} is not in the JSON")
        width = _bits(r.type_spec)
        if width != program.register_widths[rid] or r.size != program.register_sizes[rid]:
            raise _disagree(f"register {r.preamble.name}: size or width differs")
        pl.registers[r.preamble.id] = RegisterInfo(r.preamble.id, r.preamble.name, r.size, width)
    _bind_digests(pl, p4info, program)
    for vs in p4info.value_sets:
        if vs.preamble.name not in program.vsets:
            raise _disagree(f"value set {vs.preamble.name} is not in the JSON")
        widths = [m.bitwidth for m in sorted(vs.match, key=lambda m: m.id)]
        if sum(widths) != program.vsets[vs.preamble.name]:
            raise _disagree(f"value set {vs.preamble.name}: width differs")
        pl.value_sets[vs.preamble.id] = ValueSetInfo(vs.preamble.id, vs.preamble.name, vs.size,
                                                     widths)
    for cpm in p4info.controller_packet_metadata:
        md = PacketMetadata(cpm.preamble.name,
                            [(m.id, m.name, m.bitwidth) for m in cpm.metadata])
        if cpm.preamble.name == "packet_in":
            pl.packet_in = md
        elif cpm.preamble.name == "packet_out":
            pl.packet_out = md
    del j
    return pl


def _bind_actions(pl: Pipeline, p4info, program) -> None:
    for a in p4info.actions:
        spec = program.actions.get(a.preamble.name)
        if spec is None:
            # an action the program only calls directly: p4c's P4Info lists it (made before
            # the mid end), the JSON has it inlined; no table can use it (checked there)
            continue
        if len(spec.params) != len(a.params):
            raise _disagree(f"action {a.preamble.name} has {len(a.params)} parameters in the "
                            f"P4Info, {len(spec.params)} in the JSON")
        order = []
        for i, (p, (_, width)) in enumerate(zip(a.params, spec.params)):
            if p.HasField("type_name"):
                _translated(p4info, p.type_name, f"action {a.preamble.name}: parameter {p.name}")
            if p.bitwidth != width:
                raise _disagree(f"action {a.preamble.name}: parameter {p.name} is {p.bitwidth} "
                                f"bits in the P4Info, {width} in the JSON")
            order.append(ParamInfo(p.id, p.name, p.bitwidth, i))
        pl.actions[a.preamble.id] = ActionInfo(a.preamble.id, a.preamble.name,
                                               {p.id: p for p in order}, order)


def _bind_tables(pl: Pipeline, p4info, program) -> None:
    for t in p4info.tables:
        spec = program.tables.get(t.preamble.name)
        if spec is None:
            raise _disagree(f"table {t.preamble.name} is not in the JSON")
        if len(spec.keys) != len(t.match_fields):
            raise _disagree(f"table {t.preamble.name} has {len(t.match_fields)} match fields "
                            f"in the P4Info, {len(spec.keys)} keys in the JSON")
        order = []
        for i, (mf, key) in enumerate(zip(t.match_fields, spec.keys)):
            kind = MATCH.get(mf.match_type)
            if mf.HasField("type_name"):
                _translated(p4info, mf.type_name, f"table {t.preamble.name}: match field "
                                                  f"{mf.name}")
            if kind is None:
                raise P4RTError(Code.UNIMPLEMENTED, f"table {t.preamble.name}: match field "
                                                    f"{mf.name}: match type "
                                                    f"{mf.other_match_type or mf.match_type}")
            if key.match_type not in _JSON_KINDS[kind] or mf.bitwidth != key.width:
                raise _disagree(f"table {t.preamble.name}: match field {mf.name} is {kind} "
                                f"{mf.bitwidth} bits in the P4Info, {key.match_type} "
                                f"{key.width} bits in the JSON")
            order.append(FieldInfo(mf.id, mf.name, mf.bitwidth, kind, i))
        actions = {}
        for ref in t.action_refs:
            info = pl.actions.get(ref.id)
            if info is None:
                raise _disagree(f"table {t.preamble.name} refers to action id {ref.id}, which "
                                "the P4Info does not define or the JSON lacks")
            if info.name not in spec.action_specs and info.name not in spec.actions:
                raise _disagree(f"table {t.preamble.name}: action {info.name} is not the "
                                "table's in the JSON")
            actions[ref.id] = ref.scope
        pl.tables[t.preamble.id] = TableInfo(
            t.preamble.id, t.preamble.name, {f.id: f for f in order}, order, actions,
            t.const_default_action_id or None, t.size or spec.max_size,
            any(f.kind in ("ternary", "range", "optional") for f in order),
            idle_timeout=t.idle_timeout_behavior == 1, is_const=bool(spec.has_entries))


def _bind_profiles(pl: Pipeline, p4info, program) -> None:
    for ap in p4info.action_profiles:
        users = [pl.tables[tid] for tid in ap.table_ids if tid in pl.tables]
        json_name = ap.preamble.name if ap.preamble.name in program.action_profiles else None
        if json_name is None and users:       # an action profile made in a table property
            json_name = program.tables[users[0].name].action_profile
        spec = program.action_profiles.get(json_name) if json_name else None
        if spec is None:
            raise _disagree(f"action profile {ap.preamble.name} is not in the JSON")
        if bool(spec.selector) != ap.with_selector:
            raise _disagree(f"action profile {ap.preamble.name}: a selector in one only")
        info = ProfileInfo(ap.preamble.id, json_name, ap.with_selector, ap.size or spec.max_size,
                           ap.max_group_size, users)
        for t in users:
            t.profile = info
            info.actions |= set(t.actions)
        pl.profiles[ap.preamble.id] = info


def _bind_arrays(pl: Pipeline, p4info, program) -> None:
    """Counters and meters: the indirect ones by name, the direct ones through their table."""
    for kind, ids, indirect, direct, out, direct_out, has in (
            ("counter", program.counter_ids, p4info.counters, p4info.direct_counters,
             pl.counters, pl.direct_counters, "with_counters"),
            ("meter", program.meter_ids, p4info.meters, p4info.direct_meters,
             pl.meters, pl.direct_meters, "direct_meters")):
        for x in indirect:
            if x.preamble.name not in ids:
                raise _disagree(f"{kind} {x.preamble.name} is not in the JSON")
            out[x.preamble.id] = CounterInfo(x.preamble.id, x.preamble.name, x.size,
                                             x.spec.unit)
        for x in direct:
            t = pl.tables.get(x.direct_table_id)
            if t is None or not getattr(program.tables[t.name], has):
                raise _disagree(f"direct {kind} {x.preamble.name}: its table has no {kind} in "
                                "the JSON")
            setattr(t, f"direct_{kind}", x.preamble.id)
            direct_out[x.preamble.id] = CounterInfo(x.preamble.id, x.preamble.name, 0,
                                                    x.spec.unit, t)


def _bind_digests(pl: Pipeline, p4info, program) -> None:
    lists = sorted(program.learn_lists.items())
    by_name = {name: lid for lid, (name, _) in lists}
    for i, d in enumerate(p4info.digests):
        lid = by_name.get(d.preamble.name)
        if lid is None and i < len(lists):
            lid = lists[i][0]                 # JSON names a list-typed digest otherwise
        if lid is None:
            raise _disagree(f"digest {d.preamble.name} has no learn list in the JSON")
        spec = d.type_spec
        if spec.HasField("struct"):
            members = p4info.type_info.structs[spec.struct.name].members
            widths = [_bits(m.type_spec) for m in members]
            is_struct = True
        elif spec.HasField("tuple"):
            widths = [_bits(m) for m in spec.tuple.members]
            is_struct = False
        else:
            widths = [_bits(spec)]
            is_struct = False
        if None in widths or len(widths) != len(program.learn_lists[lid][1]):
            raise _disagree(f"digest {d.preamble.name}: its fields differ from learn list "
                            f"{program.learn_lists[lid][0]}'s")
        pl.digests[d.preamble.id] = DigestInfo(d.preamble.id, d.preamble.name, lid, widths,
                                               is_struct)
