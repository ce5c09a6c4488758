"""simple_switch's action primitives: names, C++ argument types and the JSON parameter kinds
each argument type accepts. Shared by the action converter (actions.py: which arguments are
destinations) and the loader-rule checker (bmv2_schema/).
"""
from __future__ import annotations

# Parameter kinds per C++ argument type (actions.h, the `ActionParam::to<T>` specialisations;
# any other tag hits `_BM_UNREACHABLE` or an assert at packet time).
LVALUE = "Data &"            # field, register, lvalue expression, last-stack field
RVALUE = "const Data &"      # + hexstr, runtime_data
FIELD = "Field &"            # field only
HDR = "Header &"
HSTACK = "HeaderStack &"
ANYSTACK = "StackIface &"
HUNION = "HeaderUnion &"
HUSTACK = "HeaderUnionStack &"
CALC, METER, COUNTER, REGISTER = ("NamedCalculation", "MeterArray", "CounterArray",
                                  "RegisterArray")
STRING, DATA_VECTOR, FIELD_VECTOR = "string", "std::vector<Data>", "std::vector<Field>"

ACCEPTED_PARAMS = {
    LVALUE: {"field", "register", "expression:data", "stack_field"},
    RVALUE: {"hexstr", "field", "runtime_data", "register", "expression:data", "stack_field"},
    FIELD: {"field"},
    HDR: {"header", "expression:header"},
    HSTACK: {"header_stack", "expression:header_stack"},
    ANYSTACK: {"header_stack", "expression:header_stack", "header_union_stack",
               "expression:header_union_stack"},
    HUNION: {"header_union", "expression:header_union"},
    HUSTACK: {"header_union_stack", "expression:header_union_stack"},
    CALC: {"calculation"}, METER: {"meter_array"}, COUNTER: {"counter_array"},
    REGISTER: {"register_array"}, STRING: {"string"},
    DATA_VECTOR: {"parameters_vector"}, FIELD_VECTOR: {"field_list"},
}

# Primitive name -> C++ argument types: src/bm_sim/core/primitives.cpp and
# include/bm/bm_sim/core/primitives.h (core), src/bm_sim/actions.cpp (_jump, _jump_if_zero),
# targets/simple_switch/primitives.cpp (REGISTER_PRIMITIVE / REGISTER_PRIMITIVE_W_NAME).
# `add_primitive_to_action` rejects an unknown name and a wrong number of parameters.
PRIMITIVES = {
    # core
    "assign": (LVALUE, RVALUE), "assign_VL": (FIELD, FIELD), "assign_header": (HDR, HDR),
    "assign_union": (HUNION, HUNION), "assign_header_stack": (HSTACK, HSTACK),
    "assign_union_stack": (HUSTACK, HUSTACK), "push": (ANYSTACK, RVALUE),
    "pop": (ANYSTACK, RVALUE), "assert": (RVALUE,), "assume": (RVALUE,), "exit": (),
    "log_msg": (STRING, DATA_VECTOR), "_jump": (RVALUE,), "_jump_if_zero": (RVALUE, RVALUE),
    # simple_switch
    "modify_field": (LVALUE, RVALUE), "modify_field_rng_uniform": (LVALUE, RVALUE, RVALUE),
    "add_to_field": (FIELD, RVALUE), "subtract_from_field": (FIELD, RVALUE),
    "add": (LVALUE, RVALUE, RVALUE), "subtract": (LVALUE, RVALUE, RVALUE),
    "bit_xor": (LVALUE, RVALUE, RVALUE), "bit_or": (LVALUE, RVALUE, RVALUE),
    "bit_and": (LVALUE, RVALUE, RVALUE), "shift_left": (LVALUE, RVALUE, RVALUE),
    "shift_right": (LVALUE, RVALUE, RVALUE), "drop": (), "mark_to_drop": (HDR,),
    "generate_digest": (RVALUE, RVALUE), "add_header": (HDR,), "add_header_fast": (HDR,),
    "remove_header": (HDR,), "copy_header": (HDR, HDR),
    "clone_ingress_pkt_to_egress": (RVALUE, RVALUE),
    "clone_egress_pkt_to_egress": (RVALUE, RVALUE), "resubmit": (RVALUE,),
    "recirculate": (RVALUE,),
    "modify_field_with_hash_based_offset": (LVALUE, RVALUE, CALC, RVALUE), "no_op": (),
    "execute_meter": (METER, RVALUE, FIELD), "count": (COUNTER, RVALUE),
    "register_read": (FIELD, REGISTER, RVALUE), "register_write": (REGISTER, RVALUE, RVALUE),
    "truncate": (RVALUE,),
}

# Which argument of these primitives is a field list id that simple_switch later looks up
# with `get_field_list(id)` (P4Objects.h: `field_lists.at(id)`, std::out_of_range if absent):
# simple_switch.cpp ingress/egress cloning, resubmit, recirculate. Id 0 means "no
# resubmit/recirculate" (the flag register is tested for non-zero), so p4c numbers from 1.
FIELD_LIST_ARGUMENT = {"clone_ingress_pkt_to_egress": 1, "clone_egress_pkt_to_egress": 1,
                       "resubmit": 0, "recirculate": 0}
