"""Action compilation (JSON "actions") and the primitives simple_switch registers.

Each action becomes ``_A<id>(F, A, P)``: ``F`` the PHV, ``A`` the action data tuple,
``P`` the packet (flags for drop/clone/recirculate, payload, timestamps). Primitives are
emitters registered under their JSON name, like BMv2's ``REGISTER_PRIMITIVE``; a name
without an emitter is refused at load time. ``_jump``/``_jump_if_zero`` (p4c's lowering
of ``if`` inside actions) turn the body into a small program-counter loop.
"""

from __future__ import annotations

from typing import Callable

from ..errors import LoadError
from .codegen import CodeGen, FunctionBuilder
from .expressions import ExprCompiler, aggregate_name, index_range_known, mux, unwrap
from .externs import U64
from .phv import Layout

__all__ = ["ActionCompiler", "PRIMITIVES", "PRIMITIVE_PARAMS"]

Emitter = Callable[["ActionCompiler", list], list]
PRIMITIVES: dict[str, Emitter] = {}

# How many parameters each primitive takes (the ActionPrimitive<...> signatures of BMv2's
# src/bm_sim/core/primitives.h, src/bm_sim/actions.cpp and targets/simple_switch/primitives.cpp):
# P4Objects::add_primitive_to_action refuses any other number.
PRIMITIVE_PARAMS = {
    "assign": 2, "assign_VL": 2, "assign_header": 2, "assign_union": 2, "assign_header_stack": 2,
    "assign_union_stack": 2, "push": 2, "pop": 2, "assume": 1, "assert": 1, "exit": 0,
    "log_msg": 2, "_jump": 1, "_jump_if_zero": 2,
    "modify_field": 2, "modify_field_rng_uniform": 3, "add_to_field": 2, "subtract_from_field": 2,
    "add": 3, "subtract": 3, "bit_xor": 3, "bit_or": 3, "bit_and": 3, "shift_left": 3,
    "shift_right": 3, "drop": 0, "mark_to_drop": 1, "generate_digest": 2, "add_header": 1,
    "add_header_fast": 1, "remove_header": 1, "copy_header": 2, "clone_ingress_pkt_to_egress": 2,
    "clone_egress_pkt_to_egress": 2, "resubmit": 1, "recirculate": 1,
    "modify_field_with_hash_based_offset": 4, "no_op": 0, "execute_meter": 3, "count": 2,
    "register_read": 3, "register_write": 3, "truncate": 1,
}


def primitive(*names: str):
    def register(fn: Emitter) -> Emitter:
        for n in names:
            PRIMITIVES[n] = fn
        return fn
    return register


def _const(e) -> int:
    if e.get("type") == "hexstr":
        return int(e["value"], 16)
    raise LoadError(f"expected a constant, got operand type {e.get('type')!r}")


class ActionCompiler:
    def __init__(self, layout: Layout, gen: CodeGen, expr: ExprCompiler, program):
        self.layout, self.gen, self.expr, self.program = layout, gen, expr, program
        self.params = True

    def val(self, e) -> str:
        return self.expr.value(e, params=self.params)

    def assign(self, dst, src: str) -> str:
        return self.expr.assign(dst, src, params=self.params)

    def header(self, e) -> tuple[str, int]:
        """(base slot source, number of fields) of a header operand."""
        base, tname = self.expr.header_base(e, params=self.params)
        return base, len(self.expr._type_fields(tname))

    def extern_id(self, e, kind: str) -> int:
        table = {"register_array": self.program.register_ids, "counter_array": self.program.counter_ids,
                 "meter_array": self.program.meter_ids}[kind]
        if e.get("type") != kind or e.get("value") not in table:
            raise LoadError(f"unknown {kind} {e.get('value')!r}")
        return table[e["value"]]

    # -- one primitive ----------------------------------------------------------------------------
    def primitive_lines(self, prim: dict) -> list[str]:
        op = prim.get("op")
        emitter = PRIMITIVES.get(op)
        if emitter is None:
            raise LoadError(f"unsupported primitive {op!r}")
        return emitter(self, prim.get("parameters", []))

    # -- whole action -----------------------------------------------------------------------------
    def compile(self, action: dict, fname: str) -> None:
        prims = action.get("primitives", [])
        fb = FunctionBuilder(f"{fname}(F, A, P)")
        if any(p.get("op") in ("_jump", "_jump_if_zero") for p in prims):
            self._compile_with_jumps(fb, prims)
        else:
            for p in prims:
                fb.emit_all(self.primitive_lines(p))
        self.gen.add(fb)
        # the body, for the pipeline compiler to inline where the action is a table's
        # constant default (pipeline.py); "exit" makes it a function that must stay one
        self.program.action_bodies[fname] = [line[4:] for line in fb.lines]
        if any(p.get("op") == "exit" for p in prims):
            self.program.exiting_actions.add(fname)

    def _compile_with_jumps(self, fb: FunctionBuilder, prims: list) -> None:
        n = len(prims)
        fb.emit("pc = 0")
        fb.emit(f"while pc < {n}:")
        fb.indent()
        for i, p in enumerate(prims):
            fb.emit(("if" if i == 0 else "elif") + f" pc == {i}:")
            fb.indent()
            op = p.get("op")
            params = p.get("parameters", [])
            if op == "_jump":
                fb.emit(f"pc = {_const(params[0])}")
            elif op == "_jump_if_zero":
                fb.emit(f"pc = {_const(params[1])} if not ({self.val(params[0])}) else {i + 1}")
            else:
                fb.emit_all(self.primitive_lines(p))
                fb.emit(f"pc = {i + 1}")
            fb.dedent()
        fb.dedent()


# -- field and header primitives ------------------------------------------------------------------
@primitive("assign", "modify_field")
def _assign(c: ActionCompiler, p: list) -> list:
    return [c.assign(p[0], c.val(p[1]))]


@primitive("assign_VL")
def _assign_vl(c: ActionCompiler, p: list) -> list:
    # a varbit assignment copies the value and its current length
    (dh, df), (sh, sf) = p[0]["value"], p[1]["value"]
    d, s = c.layout.header(dh), c.layout.header(sh)
    if d.varbit is None or s.varbit is None:
        raise LoadError("assign_VL between fields that are not varbit")
    return [f"F[{c.layout.slot(dh, df)}] = F[{c.layout.slot(sh, sf)}]", f"F[{d.len_slot}] = F[{s.len_slot}]"]


@primitive("add_to_field")
def _add_to_field(c: ActionCompiler, p: list) -> list:
    return [c.assign(p[0], f"{c.val(p[0])} + {c.val(p[1])}")]


@primitive("subtract_from_field")
def _subtract_from_field(c: ActionCompiler, p: list) -> list:
    return [c.assign(p[0], f"{c.val(p[0])} - {c.val(p[1])}")]


# P4_14-era arithmetic primitives simple_switch still registers: dst = op(src1, src2)
_BINARY_PRIMITIVES = {"add": "+", "subtract": "-", "bit_xor": "^", "bit_or": "|", "bit_and": "&",
                      "shift_left": "<<", "shift_right": ">>"}


def _binary_primitive(op: str) -> Emitter:
    def emit(c: ActionCompiler, p: list) -> list:
        return [c.assign(p[0], f"{c.val(p[1])} {op} {c.val(p[2])}")]
    return emit


for _name, _op in _BINARY_PRIMITIVES.items():
    PRIMITIVES[_name] = _binary_primitive(_op)


@primitive("add_header_fast")
def _add_header_fast(c: ActionCompiler, p: list) -> list:
    def mark(h) -> list:
        base, n = c.header(h)
        return [f"F[{base} + {n}] = 1"]
    return _each_choice(c, p[0], mark)


def _copy_header(dst, src, n: int, also: str = "") -> list:
    """BMv2 core assign_header between the headers whose first slots are ``dst`` and ``src``
    (numbers, or source text of an index computed per packet; ``n`` fields, then the valid
    slot): a valid source is copied with its validity (then ``also`` runs); an invalid one only
    makes the destination invalid, its fields keep their values. The one copy rule of
    assign_header, assign_union, assign_header_stack and assign_union_stack."""
    return [f"if F[{src} + {n}]: F[{dst}:{dst} + {n + 1}] = F[{src}:{src} + {n + 1}]{also}",
            f"else: F[{dst} + {n}] = 0"]


def _each_choice(c: ActionCompiler, e, emit) -> list:
    """``emit(operand)`` for an operand that is a header, a union or a stack; when it is a
    ``?`` between two of them (p4c's predicated ``if`` in an action), an ``if``/``else`` on
    its condition with ``emit`` on each of its operands: BMv2 evaluates the condition once,
    then the primitive works on the operand it picked."""
    x = mux(e)
    if x is None:
        return emit(e)

    def block(operand) -> list:
        return ["    " + line for line in _each_choice(c, operand, emit) or ["pass"]]
    return ([f"if {c.expr.condition(x['cond'], params=c.params)}:"] + block(x["left"])
            + ["else:"] + block(x["right"]))


def _both_choices(c: ActionCompiler, p: list, emit) -> list:
    """_each_choice over a primitive's destination and, for each, over its source."""
    return _each_choice(c, p[0], lambda d: _each_choice(c, p[1], lambda s: emit(d, s)))


@primitive("assign_header", "copy_header")
def _assign_header(c: ActionCompiler, p: list) -> list:
    """BMv2 core assign_header (into a union member, a copied valid source makes the other
    members invalid)."""
    def copy(dst, src) -> list:
        db, dtype = c.expr.header_base(dst, params=c.params)
        sb, stype = c.expr.header_base(src, params=c.params)
        if c.expr.fields_of(dtype) != c.expr.fields_of(stype):
            raise LoadError(f"assign_header between headers of different types {dtype!r} and {stype!r}")
        n = len(c.expr.fields_of(dtype))
        return _copy_header(db, sb, n, "".join(f"; F[{v}] = 0" for v in _siblings(c, dst)))
    return _both_choices(c, p, copy)


@primitive("assign_union")
def _assign_union(c: ActionCompiler, p: list) -> list:
    """BMv2 core assign_union: assign_header member by member."""
    def copy(dst, src) -> list:
        d = c.layout.union(aggregate_name(dst, "header_union"))
        s = c.layout.union(aggregate_name(src, "header_union"))
        return [line for dh, sh in zip(d, s) for line in _copy_header(dh.base, sh.base, len(dh.fields))]
    return _both_choices(c, p, copy)


@primitive("assign_header_stack")
def _assign_header_stack(c: ActionCompiler, p: list) -> list:
    """BMv2 core assign_header_stack: assign_header element by element, then the next index."""
    def copy(dst, src) -> list:
        d = c.layout.stack(aggregate_name(dst, "header_stack"))
        s = c.layout.stack(aggregate_name(src, "header_stack"))
        lines = [line for dh, sh in zip(d.elements, s.elements)
                 for line in _copy_header(dh.base, sh.base, len(dh.fields))]
        return lines + [f"F[{d.next_slot}] = F[{s.next_slot}]"]
    return _both_choices(c, p, copy)


@primitive("assign_union_stack")
def _assign_union_stack(c: ActionCompiler, p: list) -> list:
    """dst = src for stacks of header unions (BMv2 core assign_union_stack; p4c writes it in
    actions and parser states): the next index, then every member of every union as BMv2's
    assign_header copies it: a valid source member is copied (valid), an invalid one makes
    the destination member invalid and leaves its fields."""
    return _both_choices(c, p, lambda d, s: _copy_union_stack(c, d, s))


def _copy_union_stack(c: ActionCompiler, dst, src) -> list:
    d = c.layout.union_stack(aggregate_name(dst, "header_union_stack"))
    s = c.layout.union_stack(aggregate_name(src, "header_union_stack"))
    if d.size != s.size or d.union_type != s.union_type:
        raise LoadError(f"assign_union_stack between {d.name!r} and {s.name!r}: "
                        "different union types or sizes")
    lines = [f"F[{d.next_slot}] = F[{s.next_slot}]"]
    for du, su in zip(d.unions, s.unions):
        for dh, sh in zip(du, su):
            lines += _copy_header(dh.base, sh.base, len(dh.fields))
    return lines


def _header_bytes(c: ActionCompiler, e) -> int:
    """Bytes on the wire of the header operand's type (fixed-width fields only)."""
    tname = c.expr.header_base(e, params=c.params)[1]
    h = next(h for h in c.layout.headers.values() if h.type_name == tname)
    return h.nbytes


@primitive("add_header")
def _add_header(c: ActionCompiler, p: list) -> list:
    # setValid(): a header that was invalid comes back zeroed (BMv2 resets it) and the
    # packet-length register grows by the header's size.
    def add(h) -> list:
        base, n = c.header(h)
        zeros = c.gen.const((0,) * n, "Z")
        return [f"if not F[{base} + {n}]:",
                f"    F[{base}:{base} + {n}] = {zeros}",
                f"    F[{base} + {n}] = 1",
                f"    P.length += {_header_bytes(c, h)}"] + [f"F[{v}] = 0" for v in _siblings(c, h)]
    return _each_choice(c, p[0], add)


def _siblings(c: ActionCompiler, e) -> tuple[int, ...]:
    """Valid slots of the other members when ``e`` is a header-union member: making one member
    valid makes the others invalid (BMv2's header union semantics)."""
    if e.get("type") == "header":
        return c.layout.header(e["value"]).union_siblings
    return ()


@primitive("remove_header")
def _remove_header(c: ActionCompiler, p: list) -> list:
    def remove(h) -> list:
        base, n = c.header(h)
        return [f"if F[{base} + {n}]:", f"    F[{base} + {n}] = 0",
                f"    P.length -= {_header_bytes(c, h)}"]
    return _each_choice(c, p[0], remove)


def _stack_shift(c: ActionCompiler, p: list, fn: str) -> list:
    """push / pop (BMv2 push_front / pop_front) of a header stack, or of a header union
    stack: there BMv2 shifts whole unions, i.e. every member header of each element shifts
    as the elements of a header stack do, and the stack's next index moves once."""
    return _each_choice(c, p[0], lambda stack: _shift_lines(c, stack, c.val(p[1]), fn))


def _shift_lines(c: ActionCompiler, stack, count: str, fn: str) -> list:
    if unwrap(stack).get("type") == "header_union_stack":
        us = c.layout.union_stack(aggregate_name(stack, "header_union_stack"))
        cnt = c.gen.name("_cnt")
        lines = [f"{cnt} = {count}"]
        for k in range(len(us.unions[0]) if us.unions else 0):
            members = [un[k] for un in us.unions]
            bases = c.gen.const(tuple(h.base for h in members), "S")
            lines.append(f"{fn}(P, F, {bases}, {len(members[0].fields) + 1}, None, {cnt})")
        lines.append(f"{fn}(P, F, (), 0, {us.next_slot}, {cnt}, {us.size})")
        return lines
    st = c.layout.stack(aggregate_name(stack, "header_stack"))
    bases = c.gen.const(tuple(h.base for h in st.elements), "S")
    n = len(st.elements[0].fields) + 1 if st.elements else 1
    return [f"{fn}(P, F, {bases}, {n}, {st.next_slot}, {count})"]


@primitive("push")
def _push(c: ActionCompiler, p: list) -> list:
    return _stack_shift(c, p, "_stack_push")


@primitive("pop")
def _pop(c: ActionCompiler, p: list) -> list:
    return _stack_shift(c, p, "_stack_pop")


# -- control of the packet ------------------------------------------------------------------------
@primitive("mark_to_drop", "drop")
def _mark_to_drop(c: ActionCompiler, p: list) -> list:
    lines = [f"F[{c.layout.slot('standard_metadata', 'egress_spec')}] = {c.program.drop_port}"]
    if c.layout.has_field("standard_metadata", "mcast_grp"):
        lines.append(f"F[{c.layout.slot('standard_metadata', 'mcast_grp')}] = 0")
    return lines


@primitive("exit")
def _exit(c: ActionCompiler, p: list) -> list:
    # as BMv2: the packet is marked and the action goes on (ActionFnEntry::execute has no exit
    # check); the pipeline stops before its next node (Pipeline::apply)
    c.program.uses_exit = True
    return ["P.exit = True"]


@primitive("no_op")
def _no_op(c: ActionCompiler, p: list) -> list:
    return []


@primitive("log_msg")
def _log_msg(c: ActionCompiler, p: list) -> list:
    # log_msg only writes to simple_switch's log; nothing observable on the data plane.
    return []


@primitive("assert", "assume")
def _assert(c: ActionCompiler, p: list) -> list:
    return [f"if not ({c.val(p[0])}): raise _P4Assert('assert/assume failed')"]


@primitive("truncate")
def _truncate(c: ActionCompiler, p: list) -> list:
    # several calls keep the smallest length (bm::Packet::truncate in packet.h)
    return [f"P.truncate = min(P.truncate, {c.val(p[0])})"]


@primitive("recirculate")
def _recirculate(c: ActionCompiler, p: list) -> list:
    return [f"P.recirculate = {c.val(p[0])}"]


@primitive("resubmit")
def _resubmit(c: ActionCompiler, p: list) -> list:
    return [f"P.resubmit = {c.val(p[0])}"]


@primitive("clone_ingress_pkt_to_egress", "clone_egress_pkt_to_egress")
def _clone(c: ActionCompiler, p: list) -> list:
    fl = c.val(p[1]) if len(p) > 1 else "0"
    return [f"P.clone = ({c.val(p[0])}, {fl})"]


@primitive("generate_digest")
def _generate_digest(c: ActionCompiler, p: list) -> list:
    # digest(receiver, data): like simple_switch, only the learn list id is recorded here (a
    # later call replaces it); the fields are read when ingress ends (primitives.cpp
    # generate_digest sets the packet's lf_field_list register; simple_switch.cpp ingress_thread
    # calls the learn engine after the ingress pipeline; egress never learns)
    lid = c.val(p[1])
    return [f"P.learn = {lid} & 0xFFFF"]


# -- externs --------------------------------------------------------------------------------------
@primitive("modify_field_with_hash_based_offset")
def _hash(c: ActionCompiler, p: list) -> list:
    name = p[2].get("value")
    fn = c.program.calc_funcs.get(name)
    if fn is None:
        raise LoadError(f"unknown calculation {name!r}")
    return [c.assign(p[0], _hash_offset(c.val(p[1]), f"{fn}(F, P)", c.val(p[3])))]


def _hash_offset(base: str, value: str, size: str) -> str:
    """base + value mod size (size 0 gives base, as BMv2's modulo helper), written without the
    helper call and the ``0 +`` when base and size are non-zero constants: ``& (size - 1)`` for a
    power of two (the hash is never negative), ``% size`` otherwise."""
    n = int(size) if size.isdigit() else 0
    if n == 0:                  # the hash still runs: the "random" algorithm draws from the RNG
        return f"{base} + _mod({value}, {size})"
    if n & (n - 1) == 0:
        off = f"({value} & {n - 1})"
    else:
        off = f"({value} % {n})"
    if base == "0":
        return off
    return f"{base} + {off}"


@primitive("modify_field_rng_uniform")
def _rng(c: ActionCompiler, p: list) -> list:
    return [c.assign(p[0], f"_rng_uniform({c.val(p[1])}, {c.val(p[2])})")]


@primitive("register_read")
def _register_read(c: ActionCompiler, p: list) -> list:
    rid = c.extern_id(p[1], "register_array")
    size = c.program.register_sizes[rid]          # fixed at load time: no resize in simple_switch
    head, guard, idx = _register_index(c, c.val(p[2]), size)
    return head + [guard + c.assign(p[0], f"_R{rid}[{idx}]")]


@primitive("register_write")
def _register_write(c: ActionCompiler, p: list) -> list:
    rid = c.extern_id(p[0], "register_array")
    width = c.program.register_widths[rid]
    size = c.program.register_sizes[rid]
    head, guard, idx = _register_index(c, c.val(p[1]), size)
    return head + [guard + f"_R{rid}[{idx}] = {c.expr.truncated(c.val(p[2]), width)}"]


def _register_index(c: ActionCompiler, src: str, size: int) -> tuple[list, str, str]:
    """(statements, guard prefix, index expression) of a register access at index ``src``:
    out of range, BMv2 leaves the register (and a read's destination) alone. The bound tests
    that cannot fail are left out (an unsigned field is never negative; ``x & 63`` is always
    below 64), and an index that needs none is used in place, without a temporary."""
    non_negative, below = index_range_known(src, c.layout, size)
    if below:
        return [], "", src
    idx = c.gen.name("_ix")
    guard = f"if {idx} < {size}: " if non_negative else f"if 0 <= {idx} < {size}: "
    return [f"{idx} = {src}"], guard, idx


@primitive("count")
def _count(c: ActionCompiler, p: list) -> list:
    cid = c.extern_id(p[0], "counter_array")
    size = int(c.program.counters[cid].get("size", 0))
    # the counter's two flat arrays updated in place (CounterArray.count without the method
    # call), wrapping at 2^64 as BMv2's; an index out of range counts nothing, as BMv2
    head, guard, idx = _register_index(c, c.val(p[1]), size)
    if size <= 0:
        return [f"_C{cid}.count({c.val(p[1])}, P)"]
    body = (f"_C{cid}p[{idx}] = (_C{cid}p[{idx}] + 1) & {U64}; "
            f"_C{cid}b[{idx}] = (_C{cid}b[{idx}] + P.ingress_length) & {U64}")
    if guard:
        return head + [guard.rstrip() + " " + body]
    return head + [body]


@primitive("execute_meter")
def _execute_meter(c: ActionCompiler, p: list) -> list:
    # out-of-range index: no meter runs and the destination keeps its value (as BMv2)
    mid = c.extern_id(p[0], "meter_array")
    idx = c.gen.name("_ix")
    return [f"{idx} = {c.val(p[1])}",
            f"if 0 <= {idx} < len(_M{mid}): " + c.assign(p[2], f"_M{mid}.execute({idx}, P)")]
