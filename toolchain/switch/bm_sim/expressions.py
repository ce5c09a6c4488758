"""BMv2 JSON expressions (JSON_format.md, "expressions") compiled to Python source.

BMv2 evaluates expressions on arbitrary-precision integers and truncates only when a value
is stored into a field; p4c therefore emits explicit masks (``& 0xff``) and the
``two_comp_mod`` / ``sat_cast`` / ``usat_cast`` ops for P4's wrap-around and saturating
semantics. Python's unbounded ``int`` has exactly these semantics, including ``&`` on
negative numbers (two's complement), so most ops map one-to-one onto Python operators.
Signed fields are sign-extended on read.
"""

from __future__ import annotations

import ast

from ..errors import LoadError
from .codegen import CodeGen
from .phv import Layout

__all__ = ["ExprCompiler", "BINARY_OPS", "SIMPLE_OPS", "EXPRESSION_OPS", "MAX_SHIFT", "mux",
           "aggregate_name", "unwrap"]

BINARY_OPS = {
    "+": "+", "-": "-", "*": "*", "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^",
    "==": "==", "!=": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">=",
}
# ops that are one Python expression of their operands (L left, R right, C condition)
SIMPLE_OPS = {
    "/": "_div({L}, {R})", "%": "_mod({L}, {R})", "~": "(~{R})", "not": "(not {R})",
    "and": "({L} and {R})", "or": "({L} or {R})", "d2b": "({R} != 0)", "b2d": "(1 if {R} else 0)",
    "?": "({L} if {C} else {R})",
}
EXPRESSION_OPS = set(BINARY_OPS) | {
    "/", "%", "~", "not", "and", "or", "d2b", "b2d", "?", "valid", "valid_union",
    "two_comp_mod", "sat_cast", "usat_cast", "dereference_header_stack", "dereference_stack",
    "access_field", "last_stack_index", "size_stack", "access_union_header",
}


def _fits(node: ast.expr, mask: int, widths: list[int], arrays: dict | None = None) -> bool:
    """Whether the generated expression ``node`` is always an int in [0, mask]. ``arrays``:
    module-level lists whose every element fits a width (``_R<id>``: a register array, whose
    writes are all masked to its width, by the generated code and by the runtime)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int and 0 <= node.value <= mask
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "F"
            and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int):
        # F[k] as the expression compiler writes an unsigned field read (signed reads differ)
        return (1 << widths[node.slice.value]) - 1 <= mask
    if (arrays and isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
            and node.value.id in arrays):
        return (1 << arrays[node.value.id]) - 1 <= mask
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        return _fits(node.right, mask, widths, arrays) or _fits(node.left, mask, widths, arrays)
    if isinstance(node, ast.IfExp):
        return _fits(node.body, mask, widths, arrays) and _fits(node.orelse, mask, widths, arrays)
    return False


# the largest shift count computed (an integer of 8 KiB); larger ones are a packet fault
MAX_SHIFT = 1 << 16


def _div(a: int, b: int) -> int:
    return a // b if b else 0


def _mod(a: int, b: int) -> int:
    return a % b if b else 0


class ExprCompiler:
    """Turns JSON expressions into Python expression strings over ``F`` (and ``A``, params)."""

    RUNTIME_HELPERS = {"_div": _div, "_mod": _mod}

    def __init__(self, layout: Layout, gen: CodeGen):
        self.layout = layout
        self.gen = gen
        self.array_widths: dict[str, int] = {}   # see _fits: filled with the register arrays
        self._depth = 0                          # ops being compiled, outermost first

    # -- deep expressions --------------------------------------------------------------------------
    # CPython refuses source with more than 200 nested parentheses, and p4c writes a chain
    # of n operators (a + b + ... ) as an expression n levels deep: every HOIST_DEPTH levels
    # the rest of the expression becomes a function of its own, called in its place.
    HOIST_DEPTH = 32

    def _nested(self, compile_op, x, params: bool) -> str:
        """``compile_op(x)`` one level deeper, or in a function of its own when deep."""
        if self._depth >= self.HOIST_DEPTH:
            saved, self._depth = self._depth, 0
            try:
                src = compile_op(x, params)
            finally:
                self._depth = saved
            name = self.gen.name("_X")
            self.gen.add_source(f"def {name}(F, A):\n    return {src}\n")
            return f"{name}(F, A)" if params else f"{name}(F, None)"
        self._depth += 1
        try:
            return compile_op(x, params)
        finally:
            self._depth -= 1

    # -- values --------------------------------------------------------------------------------
    def value(self, e, *, params: bool = False) -> str:
        """Python source of the value of JSON operand ``e``."""
        t = e.get("type") if isinstance(e, dict) else None
        v = e.get("value") if isinstance(e, dict) else None
        if t is None and isinstance(e, dict) and "op" in e:
            return self.expression(e, params=params)       # an op object not wrapped in "expression"
        if t == "field":
            return self.field_read(v[0], v[1])
        if t == "hexstr":
            return str(int(v, 16))
        if t == "bool":
            return "True" if v else "False"
        if t in ("runtime_data", "local"):
            if not params:
                raise LoadError(f"expression operand {t!r} outside an action")
            return f"A[{int(v)}]"
        if t == "expression":
            return self.expression(v, params=params)
        if t == "stack_field":
            return self._stack_field_read(v[0], v[1])
        if t == "header":
            return f"F[{self.layout.header(v).valid_slot}]"
        if t in ("string",):
            return repr(v)
        raise LoadError(f"unsupported expression operand type {t!r}")

    def field_read(self, hname: str, fname: str) -> str:
        slot = self.layout.slot(hname, fname)
        return self._signed_read(f"F[{slot}]", slot)

    def _signed_read(self, src: str, slot: int) -> str:
        if self.layout.signed[slot]:
            sign = 1 << (self.layout.widths[slot] - 1)
            return f"(({src} ^ {sign}) - {sign})"
        return src

    def _stack_field_read(self, sname: str, fname: str) -> str:
        st = self.layout.stack(sname)
        off = st.elements[0].field_offset(fname) if st.elements else 0
        bases = self.gen.const(tuple(h.base for h in st.elements), "S")
        src = f"F[{bases}[F[{st.next_slot}] - 1] + {off}]"
        slot = st.elements[0].base + off
        return self._signed_read(src, slot)

    # -- header expressions (stack dereference) -----------------------------------------------
    def header_base(self, e, *, params: bool) -> tuple[str, str]:
        """(Python source of a header's base slot, header type name) for a header operand."""
        t, v = e.get("type"), e.get("value")
        if t == "header":
            h = self.layout.header(v)
            return str(h.base), h.type_name
        if t == "expression":
            if "op" not in v and "type" in v:
                # p4c wraps a primitive's expression argument once more (ExpressionConverter
                # with wrap; BMv2's build_expression unwraps nested "expression" nodes)
                return self.header_base(v, params=params)
            op = v.get("op")
            if op == "?":
                return self._choice(v, params, lambda e: self.header_base(e, params=params))
            if op in ("dereference_header_stack", "dereference_stack"):     # BMv2: the same
                bases, tname = self._stack_bases(v["left"], params)
                idx = self.value(v["right"], params=params)
                return f"{bases}[{idx}]", tname
            if op == "access_union_header":
                return self._union_member(v, params)
            raise LoadError(f"unsupported header expression op {op!r}")
        raise LoadError(f"unsupported header operand type {t!r}")

    # -- operands of "?" that are headers, unions or stacks ----------------------------------------
    # BMv2's "?" evaluates its condition and pushes the operand it picks, whatever its kind
    # (expressions.cpp TERNARY_OP); p4c 1.2.4.8 writes one for an assignment of a header, a
    # union or a stack under an ``if`` inside an action (its Predication pass):
    # ``tmp1[0] = c ? tmp2[1] : tmp1[0]``. Such an operand is compiled as the operand picked.
    def _choice(self, x: dict, params: bool, resolve) -> tuple[str, str]:
        """(source choosing between ``resolve(left)`` and ``resolve(right)`` by the condition,
        their type): for header base slots, stack element bases, stack counts."""
        ls, lt = resolve(x["left"])
        rs, rt = resolve(x["right"])
        if self.fields_of(lt) != self.fields_of(rt):
            raise LoadError(f"'?' chooses between operands of different types {lt!r} and {rt!r}")
        return f"({ls} if {self.condition(x['cond'], params=params)} else {rs})", lt

    def fields_of(self, type_name: str) -> list | None:
        """What makes two header (or stack element) types interchangeable: the widths and
        signedness of their fields, in order (None for a type-less operand)."""
        return [f[1:] for f in self._type_fields(type_name)] if type_name else None

    def _stack_bases(self, e, params: bool) -> tuple[str, str]:
        """(source of the tuple of element base slots, element type) of a header stack operand."""
        x = mux(e)
        if x is not None:
            return self._choice(x, params, lambda s: self._stack_bases(s, params))
        st = self.layout.stack(aggregate_name(e, "header_stack"))
        if not st.elements:
            raise LoadError(f"header stack {st.name!r} has no elements")
        return self.gen.const(tuple(h.base for h in st.elements), "S"), st.elements[0].type_name

    def _union_member(self, x: dict, params: bool) -> tuple[str, str]:
        """(base slot source, type) of member ``right`` of the union operand ``left``."""
        idx = x["right"]
        idx = self._const_int(idx) if isinstance(idx, dict) else int(idx)
        m = mux(x["left"])
        if m is not None:
            pick = lambda u: self._union_member({"left": u, "right": idx}, params)  # noqa: E731
            return self._choice(m, params, pick)
        members = self.layout.union(aggregate_name(x["left"], "header_union"))
        if not 0 <= idx < len(members):
            raise LoadError(f"header union member {idx} out of range")
        return str(members[idx].base), members[idx].type_name

    def _type_fields(self, type_name: str):
        for h in self.layout.headers.values():
            if h.type_name == type_name:
                return h.fields
        raise LoadError(f"unknown header type {type_name!r}")

    def field_slot_dynamic(self, e, *, params: bool) -> tuple[str, int, bool]:
        """(slot source, width, signed) of an ``access_field`` l-value/r-value."""
        base, tname = self.header_base(e["left"], params=params)
        off = e["right"]
        if isinstance(off, dict):
            off = int(off["value"], 16) if off.get("type") == "hexstr" else int(off["value"])
        fields = self._type_fields(tname)
        if off == len(fields):
            return f"{base} + {off}", 1, False
        _, width, signed = fields[off]
        return f"{base} + {off}", width, signed

    # -- operators -----------------------------------------------------------------------------
    def expression(self, x, *, params: bool = False) -> str:
        if not isinstance(x, dict):
            raise LoadError(f"malformed expression {x!r}")
        if "op" not in x:
            return self.value(x, params=params)
        return self._nested(self._operation, x, params)

    def _operation(self, x: dict, params: bool) -> str:
        op = x["op"]
        L, R = x.get("left"), x.get("right")
        val = lambda e: self.value(e, params=params)  # noqa: E731
        if op in ("==", "!=") and _aggregate_kind(L) is not None:
            same = self._aggregate_equal(L, R, params)
            return same if op == "==" else f"(not {same})"
        if op in BINARY_OPS:
            if op in ("-", "+") and L is None:        # BMv2: 0 - right, 0 + right
                return f"({op}{val(R)})"
            if op in ("<<", ">>"):
                return self._shift(op, val(L), val(R))
            return f"({val(L)} {BINARY_OPS[op]} {val(R)})"
        if op in ("/", "%") and R is not None:
            divisor = val(R)
            if divisor.isdigit() and int(divisor):
                # a constant non-zero divisor needs no division-by-zero guard (p4c's usual case)
                return f"({val(L)} {'//' if op == '/' else '%'} {divisor})"
        if op == "b2d" and R is not None:       # the operand is only tested for truth
            return f"(1 if {self.condition(R, params=params)} else 0)"
        simple = SIMPLE_OPS.get(op)
        if simple is not None:
            return simple.format(L=val(L) if L is not None else "", R=val(R) if R is not None else "",
                                 C=self.condition(x["cond"], params=params) if op == "?" else "")
        method = getattr(self, "_op_" + op, None)
        if method is None:
            raise LoadError(f"unsupported expression op {op!r}")
        return method(x, L, R, params)

    def _shift(self, op: str, left: str, right: str) -> str:
        """``left << right`` (or ``>>``). Values are unbounded integers, as BMv2's, so a shift
        by a count read from the packet could ask for an integer of billions of bits: a count
        above MAX_SHIFT (or below 0) stops the packet as a fault instead (p4c masks a shifted
        value to its type's width, at most json_checks.MAX_WIDTH bits, so any count above
        that width already gives 0 there)."""
        if right.isdigit():
            if op == "<<" and int(right) > MAX_SHIFT:
                raise LoadError(f"shift left by {right} bits (at most {MAX_SHIFT})")
            return f"({left} {op} {right})"
        y = self.gen.name("_y")
        return f"({left} {op} {y} if 0 <= ({y} := {right}) <= {MAX_SHIFT} else _shift_fault({y}))"

    def condition(self, e, *, params: bool = False) -> str:
        """Python source of a boolean JSON expression used only for its truth (an ``if``):
        ``x != 0`` and ``d2b(x)`` are written ``x``, ``x == 0`` is ``not x``, through
        ``and``/``or``/``not``. An int is true exactly when it is non-zero, so the branch taken
        is the same; each comparison left out is two bytecodes less per evaluation."""
        x = e
        while isinstance(x, dict) and x.get("type") == "expression":
            x = x.get("value")
        if not isinstance(x, dict) or "op" not in x:
            return self.value(e, params=params)
        return self._nested(self._test, x, params)

    def _test(self, x: dict, params: bool) -> str:
        """condition() of an op object."""
        op, L, R = x["op"], x.get("left"), x.get("right")
        if op in ("and", "or") and L is not None and R is not None:
            return f"({self.condition(L, params=params)} {op} {self.condition(R, params=params)})"
        if op == "not" and R is not None:
            return f"(not {self.condition(R, params=params)})"
        if op == "d2b" and R is not None:
            return self.condition(R, params=params)
        if op in ("!=", "==") and L is not None and _is_zero(R):
            inner = self.condition(L, params=params)
            return inner if op == "!=" else f"(not {inner})"
        return self._operation(x, params)

    # -- whole-header and header-union comparison ----------------------------------------------
    def _aggregate_equal(self, L, R, params: bool) -> str:
        """``==`` on two header operands or two header-union operands, as BMv2 evaluates it
        (expressions.cpp EQ_HEADER/EQ_UNION): Header::cmp (headers.cpp) is true when both
        headers have the same header type, both are valid and every field value is equal, so
        two invalid headers are *not* equal; HeaderUnion::cmp (header_unions.cpp) is true when
        both unions are valid with the same member valid and those members compare equal.
        BMv2 refuses operands of different kinds (P4Objects::build_expression asserts it)."""
        kl, kr = _aggregate_kind(L), _aggregate_kind(R)
        if kl != kr:
            raise LoadError(f"'==' compares a {kl} with {kr or 'a non-header value'}")
        for x, other, left in ((mux(L), R, True), (mux(R), L, False)):
            if x is not None:           # the comparison of whichever operand "?" picks
                a, b = ((x["left"], other), (x["right"], other)) if left else \
                    ((other, x["left"]), (other, x["right"]))
                return (f"({self._aggregate_equal(*a, params)} if "
                        f"{self.condition(x['cond'], params=params)} else "
                        f"{self._aggregate_equal(*b, params)})")
        if kl == "header_union":
            lu = self.layout.union(aggregate_name(L, "header_union"))
            ru = self.layout.union(aggregate_name(R, "header_union"))
            terms = [self._headers_equal(str(a.base), a.type_name, str(b.base), b.type_name)
                     for a, b in zip(lu, ru)]
            return "(" + " or ".join(terms) + ")" if terms else "False"
        lb, lt = self.header_base(unwrap(L), params=params)
        rb, rt = self.header_base(unwrap(R), params=params)
        return self._headers_equal(lb, lt, rb, rt)

    def _headers_equal(self, lb: str, lt: str, rb: str, rt: str) -> str:
        """Header::cmp of the headers at base slots ``lb`` and ``rb`` (Python sources)."""
        if lt != rt:
            return "False"
        info = self._type_info(lt)
        n = len(info.fields)                  # the validity slot's offset
        # field values only: a varbit field's current length (our last slot) is no BMv2 field
        m = n - (1 if info.varbit is not None else 0)
        if not lb.isdigit():
            b = self.gen.name("_hb")
            lb, first_l = b, f"({b} := {lb})"
        else:
            first_l = lb
        if not rb.isdigit():
            b = self.gen.name("_hb")
            rb, first_r = b, f"({b} := {rb})"
        else:
            first_r = rb
        if lb.isdigit() and rb.isdigit():
            lo, ro = int(lb), int(rb)
            return (f"(F[{lo + n}] == 1 and F[{ro + n}] == 1 and "
                    f"F[{lo}:{lo + m}] == F[{ro}:{ro + m}])")
        return (f"(F[{first_l} + {n}] == 1 and F[{first_r} + {n}] == 1 and "
                f"F[{lb}:{lb} + {m}] == F[{rb}:{rb} + {m}])")

    def _type_info(self, type_name: str):
        for h in self.layout.headers.values():
            if h.type_name == type_name:
                return h
        raise LoadError(f"unknown header type {type_name!r}")

    def _op_valid(self, x, L, R, params: bool) -> str:
        return self._valid(R, params)

    def _op_two_comp_mod(self, x, L, R, params: bool) -> str:
        # the value modulo 2^w, read back as a w-bit two's complement number (P4 casts to int<w>)
        w = self._const_int(R)
        half, mask = 1 << (w - 1), (1 << w) - 1
        return f"((({self.value(L, params=params)} + {half}) & {mask}) - {half})"

    def _op_sat_cast(self, x, L, R, params: bool) -> str:
        # signed saturating arithmetic (P4 |+| |-| on int<w>): clamp to [-2^(w-1), 2^(w-1)-1]
        half = 1 << (self._const_int(R) - 1)
        s = self.gen.name("_s")       # comparisons, not min(max()): see _op_usat_cast
        return (f"({-half} if ({s} := {self.value(L, params=params)}) < {-half} else "
                f"({s} if {s} <= {half - 1} else {half - 1}))")

    def _op_usat_cast(self, x, L, R, params: bool) -> str:
        # unsigned saturating arithmetic (P4 |+| |-| on bit<w>): clamp to [0, 2^w-1]
        # written with comparisons instead of min(max()): two builtin calls less per evaluation
        # (the gateway's egress saturates its queue count on every packet); the temporary has a
        # name of its own, so nested casts cannot clash
        hi = (1 << self._const_int(R)) - 1
        u = self.gen.name("_u")
        return f"(0 if ({u} := {self.value(L, params=params)}) < 0 else ({u} if {u} <= {hi} else {hi}))"

    def _op_access_field(self, x, L, R, params: bool) -> str:
        slot, width, signed = self.field_slot_dynamic(x, params=params)
        if signed:
            sign = 1 << (width - 1)
            return f"((F[{slot}] ^ {sign}) - {sign})"
        return f"F[{slot}]"

    def _op_last_stack_index(self, x, L, R, params: bool) -> str:
        return f"({self._stack_count(R, params)} - 1)"

    def _op_size_stack(self, x, L, R, params: bool) -> str:
        return self._stack_count(R, params)

    def _stack_count(self, R, params: bool) -> str:
        """The next index (the count of elements in use) of a header stack or header union
        stack operand (p4c writes `u.lastIndex` of a union stack as last_stack_index of a
        header_union_stack; BMv2 reads the count of either kind of stack)."""
        x = mux(R)
        if x is not None:
            return self._choice(x, params, lambda s: (self._stack_count(s, params), ""))[0]
        u = unwrap(R)
        if isinstance(u, dict) and u.get("type") == "header_union_stack":
            return f"F[{self.layout.union_stack(u['value']).next_slot}]"
        return f"F[{self.layout.stack(aggregate_name(R, 'header_stack')).next_slot}]"

    def _op_dereference_header_stack(self, x, L, R, params: bool) -> str:
        return self.header_base({"type": "expression", "value": x}, params=params)[0]

    _op_dereference_stack = _op_dereference_header_stack

    def _op_valid_union(self, x, L, R, params: bool) -> str:
        # a union is valid when any of its members is
        m = mux(R)
        if m is not None:
            return (f"({self._op_valid_union(x, L, m['left'], params)} if "
                    f"{self.condition(m['cond'], params=params)} else "
                    f"{self._op_valid_union(x, L, m['right'], params)})")
        slots = [f"F[{h.valid_slot}] == 1" for h in self.layout.union(aggregate_name(R, "header_union"))]
        return "(" + " or ".join(slots) + ")" if slots else "False"

    def _op_access_union_header(self, x, L, R, params: bool) -> str:
        return self._union_member(x, params)[0]

    def _valid(self, R, params: bool) -> str:
        if R.get("type") == "header":
            return f"(F[{self.layout.header(R['value']).valid_slot}] == 1)"
        base, tname = self.header_base(R, params=params)
        n = len(self._type_fields(tname))
        return f"(F[{base} + {n}] == 1)"

    @staticmethod
    def _const_int(e) -> int:
        if isinstance(e, dict) and e.get("type") == "hexstr":
            return int(e["value"], 16)
        if isinstance(e, int):
            return e
        raise LoadError(f"expected a constant width, got {e!r}")

    # -- l-values ------------------------------------------------------------------------------
    def truncated(self, src_code: str, width: int) -> str:
        """``src_code`` truncated to ``width`` bits (BMv2 truncates on every store into a field).

        The mask is left out where the value provably fits already: a constant (folded here),
        an unsigned field no wider than the destination, a value already masked as narrowly,
        or a choice between two such constants. Everything else is masked."""
        mask = (1 << width) - 1
        try:
            tree = ast.parse(src_code, mode="eval").body
        except SyntaxError:                     # pragma: no cover - generated code always parses
            return f"({src_code}) & {mask}"
        if _fits(tree, mask, self.layout.widths, self.array_widths):
            return src_code
        if isinstance(tree, ast.Constant) and type(tree.value) is int:
            return str(tree.value & mask)
        return f"({src_code}) & {mask}"

    def assign(self, dst, src_code: str, *, params: bool) -> str:
        """A statement storing ``src_code`` into field operand ``dst`` (truncated to its width)."""
        t, v = dst.get("type"), dst.get("value")
        # JSON_format.md's l-value example wraps the access_field op twice:
        # {"type": "expression", "value": {"type": "expression", "value": {"op": ...}}}
        while t == "expression" and isinstance(v, dict) and v.get("type") == "expression":
            t, v = v.get("type"), v.get("value")
        if t == "field":
            slot = self.layout.slot(v[0], v[1])
            return f"F[{slot}] = {self.truncated(src_code, self.layout.widths[slot])}"
        if t == "expression" and isinstance(v, dict) and v.get("op") == "access_field":
            slot, width, _ = self.field_slot_dynamic(v, params=params)
            return f"F[{slot}] = {self.truncated(src_code, width)}"
        if t == "stack_field":
            st = self.layout.stack(v[0])
            off = st.elements[0].field_offset(v[1])
            bases = self.gen.const(tuple(h.base for h in st.elements), "S")
            width = st.elements[0].fields[off][1]
            return f"F[{bases}[F[{st.next_slot}] - 1] + {off}] = ({src_code}) & {(1 << width) - 1}"
        raise LoadError(f"unsupported assignment destination type {t!r}")


def index_range_known(src_code: str, layout: Layout, size: int) -> tuple[bool, bool]:
    """(never negative, always below ``size``) for the generated index expression
    ``src_code``: lets register accesses skip bound tests that cannot fail."""
    try:
        tree = ast.parse(src_code, mode="eval").body
    except SyntaxError:                         # pragma: no cover - generated code always parses
        return False, False
    below = size >= 1 and _fits(tree, size - 1, layout.widths)
    return below or _fits(tree, (1 << 4096) - 1, layout.widths), below


def unwrap(e):
    """A type-value operand without the extra "expression" wrappers p4c may put around it."""
    while (isinstance(e, dict) and e.get("type") == "expression" and isinstance(e.get("value"), dict)
           and "op" not in e["value"] and "type" in e["value"]):
        e = e["value"]
    return e


def mux(e) -> dict | None:
    """The op object of operand ``e`` when it is a ``?`` (under any "expression" wrappers)."""
    while isinstance(e, dict) and e.get("type") == "expression":
        e = e.get("value")
    return e if isinstance(e, dict) and e.get("op") == "?" else None


def aggregate_name(e, kind: str) -> str:
    """The name of operand ``e``, which must be of type ``kind`` (a header_union, a
    header_stack, a header_union_stack)."""
    u = unwrap(e)
    t = u.get("type") if isinstance(u, dict) else None
    if t != kind:
        raise LoadError(f"expected a {kind} operand, got {t or _kind_of(u)!r}")
    return u["value"]


def _kind_of(e) -> str:
    return e.get("op", "an expression") if isinstance(e, dict) else type(e).__name__


def _aggregate_kind(e) -> str | None:
    """"header" or "header_union" for an operand BMv2 types as a header (a header instance,
    a stack element, a union member, a "?" between headers) or a header union
    (JSON_format.md, expressions); None for data and boolean operands."""
    x = mux(e)
    if x is not None:
        return _aggregate_kind(x.get("left"))
    e = unwrap(e)
    if not isinstance(e, dict):
        return None
    t = e.get("type")
    if t in ("header", "header_union"):
        return t
    if t == "expression" and isinstance(e.get("value"), dict):
        if e["value"].get("op") in ("dereference_header_stack", "dereference_stack",
                                    "access_union_header"):
            return "header"
    return None


def _is_zero(e) -> bool:
    """Is JSON operand ``e`` the constant 0 (a hexstr)?"""
    try:
        return isinstance(e, dict) and e.get("type") == "hexstr" and int(e["value"], 16) == 0
    except (TypeError, ValueError):
        return False
