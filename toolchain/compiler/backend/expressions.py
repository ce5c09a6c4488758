"""Expression converter: typed mid-end expressions -> BMv2 JSON expression trees.

BMv2 evaluates expressions with unbounded integers and only truncates when a value is stored
(JSON_format.md, "General information"). P4 arithmetic is modular at the operand width, so
every operation that can leave the range of its type is followed by a reduction, as p4c does:
`& mask` for bit<W> and `two_comp_mod(x, W)` for int<W>; saturating operations use
`usat_cast` / `sat_cast`. Booleans and data are different kinds in BMv2 and never convert
implicitly, hence the explicit `d2b` / `b2d` (JSON_format.md, "d2b"/"b2d").
"""
from __future__ import annotations

from ..midend import ir

ARITH_OPS = {"+", "-", "*"}
BITWISE_OPS = {"&", "|", "^"}
COMPARE_OPS = {"==", "!=", "<", "<=", ">", ">="}
LOGIC_OPS = {"&&": "and", "||": "or"}
SATURATING_OPS = {"|+|": "+", "|-|": "-"}


class ExpressionError(ValueError):
    """An expression the back end cannot represent (a mid-end bug, not a user error)."""


def hexstr(value: int, width: int | None = None) -> str:
    """p4c's spelling of a constant: big-endian hex padded to whole bytes, '-' if negative."""
    digits = max(1, (width + 7) // 8 * 2) if width else 1
    sign = "-" if value < 0 else ""
    return f"{sign}0x{abs(value):0{digits}x}"


def hex_node(value: int, width: int | None = None) -> dict:
    return {"type": "hexstr", "value": hexstr(value, width)}


def op_node(op: str, left, right, **extra) -> dict:
    value = {"op": op, "left": left, "right": right}
    value.update(extra)
    return {"type": "expression", "value": value}


def field_node(header: str, field: str) -> dict:
    return {"type": "field", "value": [header, field]}


def _is_bool(e: ir.Expr) -> bool:
    return isinstance(e.type, ir.BoolType)


def _reduce(node: dict, t: ir.Bits) -> dict:
    """Bring an unbounded result back into the range of type t (wraparound)."""
    if t.signed:
        return op_node("two_comp_mod", node, hex_node(t.width))
    return op_node("&", node, hex_node(t.mask, t.width))


def _as_unsigned(node: dict, t: ir.Bits) -> dict:
    """The bit pattern of a value of type t as a non-negative number."""
    return op_node("&", node, hex_node(t.mask, t.width)) if t.signed else node


def _signed_one_bit(node: dict, t) -> dict:
    """An int<1> field is stored unsigned (headers.py: BMv2 asserts signed fields have two
    bits or more), so its value 1 is read back as -1 here."""
    if getattr(t, "signed", False) and t.width == 1:
        return op_node("two_comp_mod", node, hex_node(1))
    return node


class ExpressionConverter:
    """Converts one expression; `data` gives an integer-valued node, `boolean` a bool one."""

    def data(self, e: ir.Expr) -> dict:
        if _is_bool(e):
            return self._bool_as_data(e)
        method = getattr(self, "_data_" + type(e).__name__, None)
        if method is None:
            raise ExpressionError(f"no data conversion for {type(e).__name__}")
        return method(e)

    def boolean(self, e: ir.Expr) -> dict:
        if not _is_bool(e):
            raise ExpressionError(f"{type(e).__name__} of type {e.type} used as a condition")
        method = getattr(self, "_bool_" + type(e).__name__, None)
        if method is None:
            raise ExpressionError(f"no boolean conversion for {type(e).__name__}")
        return method(e)

    def condition(self, e: ir.Expr) -> dict:
        """A condition for conditionals / if_cond / verify: always an expression node."""
        node = self.boolean(e)
        if node.get("type") == "bool":
            return op_node("d2b", None, hex_node(1 if node["value"] else 0, 1))
        return node

    # -- booleans stored as data (1-bit fields, params, literals)
    def _bool_as_data(self, e: ir.Expr) -> dict:
        if isinstance(e, ir.FieldRef):
            return field_node(e.header, e.field)
        if isinstance(e, ir.ValidRef):
            return field_node(e.header, "$valid$")
        if isinstance(e, ir.ParamRef):
            return {"type": "local", "value": e.index}
        if isinstance(e, ir.Const):
            return hex_node(1 if e.value else 0, 1)
        return op_node("b2d", None, self.boolean(e))

    # -- data leaves
    def _data_Const(self, e: ir.Const) -> dict:
        return hex_node(e.value, e.type.width)

    def _data_FieldRef(self, e: ir.FieldRef) -> dict:
        return _signed_one_bit(field_node(e.header, e.field), e.type)

    def _data_ParamRef(self, e: ir.ParamRef) -> dict:
        node = {"type": "local", "value": e.index}
        # runtime data is unsigned in BMv2; an int<W> parameter is reinterpreted
        return op_node("two_comp_mod", node, hex_node(e.type.width)) if e.type.signed else node

    def _data_StackLastField(self, e: ir.StackLastField) -> dict:
        return _signed_one_bit({"type": "stack_field", "value": [e.stack, e.field]}, e.type)

    def _data_StackElementField(self, e: ir.StackElementField) -> dict:
        return _signed_one_bit(self.stack_element_field(e), e.type)

    def stack_element_field(self, e: ir.StackElementField) -> dict:
        """stack[index].field as an access_field node (also usable as a destination)."""
        return op_node("access_field", self.stack_element(e.stack, e.index), e.offset)

    def stack_element(self, stack_name: str, index) -> dict:
        """stack[index] (index None: stack.last) as a dereference_header_stack node, the
        header operand p4c writes for a run-time index (ExpressionConverter, ArrayIndex)."""
        stack = {"type": "header_stack", "value": stack_name}
        index = (op_node("last_stack_index", None, stack) if index is None
                 else self.data(index))
        return op_node("dereference_header_stack", stack, index)

    def _data_StackLastIndex(self, e: ir.StackLastIndex) -> dict:
        # as p4c's ExpressionConverter for `.lastIndex` (of a header union stack: the operand
        # is the header_union_stack, whose count BMv2 reads as a header stack's)
        kind = "header_union_stack" if e.union else "header_stack"
        return op_node("last_stack_index", None, {"type": kind, "value": e.stack})

    def _data_Lookahead(self, e: ir.Lookahead) -> dict:
        return {"type": "lookahead", "value": [e.offset, e.type.width]}

    # -- data operators
    def _data_Unary(self, e: ir.Unary) -> dict:
        x = self.data(e.operand)
        if e.op == "~":
            return op_node("~", None, x) if e.type.signed else _reduce(op_node("~", None, x), e.type)
        if e.op == "neg":
            return _reduce(op_node("-", hex_node(0, e.type.width), x), e.type)
        raise ExpressionError(f"unary {e.op} on {e.type}")

    def _data_Binary(self, e: ir.Binary) -> dict:
        t = e.type
        if e.op == "++":
            return self._concat(e)
        left, right = self.data(e.left), self.data(e.right)
        if e.op in ARITH_OPS or e.op == "<<":
            return _reduce(op_node(e.op, left, right), t)
        if e.op == ">>":
            node = op_node(">>", left, right)
            return _reduce(node, t) if t.signed else node
        if e.op in ("/", "%"):
            return op_node(e.op, left, right)
        if e.op in BITWISE_OPS:
            return op_node(e.op, left, right)
        if e.op in SATURATING_OPS:
            cast = "sat_cast" if t.signed else "usat_cast"
            return op_node(cast, op_node(SATURATING_OPS[e.op], left, right), hex_node(t.width))
        raise ExpressionError(f"binary {e.op} on {t}")

    def _concat(self, e: ir.Binary) -> dict:
        """a ++ b = (bits(a) << width(b)) | bits(b); the result has a's signedness."""
        lt, rt = e.left.type, e.right.type
        left = _as_unsigned(self.data(e.left), lt)
        right = _as_unsigned(self.data(e.right), rt)
        node = op_node("|", op_node("<<", left, hex_node(rt.width)), right)
        return op_node("two_comp_mod", node, hex_node(e.type.width)) if e.type.signed else node

    def _data_Slice(self, e: ir.Slice) -> dict:
        t = e.operand.type
        x = _as_unsigned(self.data(e.operand), t)
        if e.lo:
            x = op_node(">>", x, hex_node(e.lo))
        return op_node("&", x, hex_node(e.type.mask, e.type.width))

    def _data_Cast(self, e: ir.Cast) -> dict:
        src, dst = e.operand.type, e.type
        if isinstance(src, ir.BoolType):
            return self._bool_as_data(e.operand)
        x = self.data(e.operand)
        if dst.signed:
            fits = src.width < dst.width or (src.signed and src.width == dst.width)
            return x if fits else op_node("two_comp_mod", x, hex_node(dst.width))
        fits = not src.signed and src.width <= dst.width
        return x if fits else op_node("&", x, hex_node(dst.mask, dst.width))

    def _data_Mux(self, e: ir.Mux) -> dict:
        return op_node("?", self.data(e.then), self.data(e.other), cond=self.boolean(e.cond))

    # -- boolean forms
    def _bool_Const(self, e: ir.Const) -> dict:
        return {"type": "bool", "value": bool(e.value)}

    def _bool_FieldRef(self, e: ir.FieldRef) -> dict:
        return op_node("d2b", None, field_node(e.header, e.field))

    def _bool_ParamRef(self, e: ir.ParamRef) -> dict:
        return op_node("d2b", None, {"type": "local", "value": e.index})

    def _bool_ValidRef(self, e: ir.ValidRef) -> dict:
        return op_node("d2b", None, field_node(e.header, "$valid$"))

    def _bool_ElementValid(self, e: ir.ElementValid) -> dict:
        # `valid` on a header operand (JSON_format.md), here a dereference_header_stack node
        return op_node("valid", None, self.stack_element(e.element.stack, e.element.index))

    def _bool_Unary(self, e: ir.Unary) -> dict:
        if e.op != "!":
            raise ExpressionError(f"unary {e.op} on bool")
        return op_node("not", None, self.boolean(e.operand))

    def _bool_Binary(self, e: ir.Binary) -> dict:
        if e.op in LOGIC_OPS:
            return op_node(LOGIC_OPS[e.op], self.boolean(e.left), self.boolean(e.right))
        if e.op in COMPARE_OPS:
            return op_node(e.op, self.data(e.left), self.data(e.right))
        raise ExpressionError(f"binary {e.op} producing bool")

    def _bool_Cast(self, e: ir.Cast) -> dict:
        return op_node("d2b", None, self.data(e.operand))

    def _bool_Mux(self, e: ir.Mux) -> dict:
        return op_node("d2b", None, self._data_Mux(e))


CONVERTER = ExpressionConverter()


def argument(e: ir.Expr) -> dict:
    """A primitive / parser-op argument: plain leaves stay leaves, trees are wrapped once more
    ({"type": "expression", "value": <tree>}) as BMv2 expects for primitive parameters."""
    if isinstance(e, ir.ParamRef) and not getattr(e.type, "signed", False):
        return {"type": "runtime_data", "value": e.index}
    node = CONVERTER.data(e)
    if node["type"] == "expression":
        return {"type": "expression", "value": node}
    if node["type"] == "local":
        # "local" exists only inside expressions (JSON_format.md); as a primitive parameter
        # the loader wants "runtime_data" (P4Objects::process_single_param). A cast that
        # needs no masking (bit<8> param used as bit<32>) reaches here as a bare local.
        return {"type": "runtime_data", "value": node["value"]}
    return node


def lvalue(e: ir.Expr) -> dict:
    """A destination (a primitive's `Data &` / `Field &` argument, a parser set target):
    the storage itself, never a computed value such as the int<1> sign extension."""
    if isinstance(e, ir.FieldRef):
        return field_node(e.header, e.field)
    if isinstance(e, ir.StackLastField):
        return {"type": "stack_field", "value": [e.stack, e.field]}
    if isinstance(e, ir.StackElementField):
        return {"type": "expression", "value": CONVERTER.stack_element_field(e)}
    return argument(e)


def condition(e: ir.Expr) -> dict:
    return CONVERTER.condition(e)


def data(e: ir.Expr) -> dict:
    return CONVERTER.data(e)
