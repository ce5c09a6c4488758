"""Bmv2Target: what p4c's BMv2 back end (p4c-bm2-ss 1.2.4, simple_switch) refuses in a
program that is otherwise valid P4_16, refused here with p4c's message at the construct's line,
so that a program this compiler accepts builds with real p4c too.

p4c applies these checks after its mid end, in `backends/bmv2/common` and
`backends/bmv2/simple_switch`; its mid end has simplified the program by then, so each check
here first asks whether p4c's passes would have removed the construct (a shift by 0, a shift
under a slice, a constant expression) and refuses only what reaches the back end:

* shifts (`LowerExpressions`, lower.cpp): BMv2 takes a shift amount of at most 8 bits; an
  `int` amount (no width) may be at most 256. p4c's StrengthReduction first merges `(a << 2)
  << 3` into `a << 5` when both amounts are `int`, turns `x * 2^k` and `x / 2^k` into shifts
  by `k`, and folds a constant shift under a slice into the slice;
* parser statements (parser.cpp, `convertParserStatement`): only packet_in methods, `verify`,
  `assert`/`assume`, `log_msg` and header and stack methods; any other extern call ("not
  supported in parser on this target");
* v1model's block-bound externs (simpleSwitch.cpp): `clone(I2E)` only in ingress,
  `clone(E2E)` only in egress, `resubmit_preserving_field_list` only in ingress,
  `recirculate_preserving_field_list` only in egress;
* a register of size 0 ("direct registers are not supported in bmv2");
* direct meters (metermap.cpp, simpleSwitch.cpp): a table's `meters` needs a `read` of that
  meter, a `read` needs a table whose `meters` names the meter, and every `read` of one meter
  writes the same place; a direct counter no table names is ignored (warning);
* a `default_action` of a table with an action profile or selector (warning: ignored).

Portability (warning): p4c 1.2.4 predicates an `if` in an action into `?:` (midend
Predication) and refuses a method call, `exit` or `return` under such an `if` ("Conditional
execution in actions unsupported on this target", also for a call after a `return` taken
under an `if`); p4c 1.2.5 and later compile it to jumps, as this compiler does. Nor can p4c
before 1.2.4.12 parse a `for` statement. `--Werror` makes these errors, so a program kept
valid for p4c 1.2.4.8 (the gateway, p4src/) does not gain one.
"""
from __future__ import annotations

from . import ast as A
from . import types as T
from .p4text import p4_text
from .typecheck.base import report_pos as start_pos

MAX_SHIFT_BITS = 8                      # p4c: LowerExpressions::maxShiftWidth
MAX_INT_SHIFT = 1 << MAX_SHIFT_BITS     # an `int` amount: at most 2^8 (lower.cpp)
V1SWITCH_BLOCKS = ("parser", "verify_checksum", "ingress", "egress", "compute_checksum",
                   "deparser")
PARSER_FUNCTIONS = {"verify", "assert", "assume", "log_msg"}
BLOCK_BOUND = {         # extern function -> (block it must be in, p4c's message), per CloneType
    ("clone", "I2E"): ("ingress", "'clone(I2E, ...) not invoked in ingress {}"),
    ("clone", "E2E"): ("egress", "'clone(E2E, ...) not invoked in egress {}"),
    ("clone_preserving_field_list", "I2E"):
        ("ingress", "'clone_preserving_field_list(I2E, ...) not invoked in ingress {}"),
    ("clone_preserving_field_list", "E2E"):
        ("egress", "'clone_preserving_field_list(E2E, ...) not invoked in egress {}"),
    ("resubmit_preserving_field_list", None): ("ingress",
                                               "'resubmit' can only be invoked in ingress {}"),
    # p4c 1.2.4 names 'resubmit' in this one too, a slip of its own
    ("recirculate_preserving_field_list", None): ("egress",
                                                  "'recirculate' can only be invoked in egress {}"),
}


def shift_limit_error(e: A.BinaryExpr, under_slice: bool = False):
    """p4c's message for a shift (or a multiplication/division by 2^k p4c turns into one) that
    BMv2 cannot take, or None. `under_slice`: `e` is the operand of a slice."""
    if e.folded is not None:
        return None                             # folded to a constant: no shift remains
    if e.op in ("*", "/"):
        return _power_of_two_error(e)
    if e.op not in ("<<", ">>"):
        return None
    amount = e.right
    if amount.folded is not None:
        if amount.folded == 0:
            return None                         # ConstantFolding: a << 0 is a
        if under_slice:
            return None                         # StrengthReduction folds it into the slice
        if e.int_amount:
            total, text = _merged_int_shift(e)
            if total > MAX_INT_SHIFT:
                return f"{text}: shift amount limited to {MAX_INT_SHIFT} on this target"
            return None
    width = amount.type.width if isinstance(amount.type, T.Bits) else 0
    if width > MAX_SHIFT_BITS:
        return f"{p4_text(e)}: shift amount limited to {MAX_SHIFT_BITS} bits on this target"
    return None


def _merged_into(e: A.BinaryExpr) -> list:
    """The shifts StrengthReduction merges into `e`: same direction, `int` amounts ((a << b)
    << c is a << (b + c)); `e` first, then the one it shifts, and so on."""
    out = []
    while (isinstance(e, A.BinaryExpr) and e.op in ("<<", ">>") and e.int_amount
           and e.folded is None and e.right.folded is not None
           and (not out or e.op == out[0].op)):
        out.append(e)
        e = e.left
    return out


def _merged_int_shift(e: A.BinaryExpr):
    """The amount of `e` with the shifts merged into it, and the merged shift as p4c prints
    it."""
    chain = _merged_into(e)
    total = sum(x.right.folded for x in chain)
    if len(chain) == 1:
        return total, p4_text(e)
    return total, f"{p4_text(chain[-1].left, 11)} {e.op} {total}"


def _power_of_two_error(e: A.BinaryExpr):
    sides = (e.left, e.right) if e.op == "*" else (e.right,)
    for k, side in enumerate(sides):
        v = side.folded
        if isinstance(v, int) and not isinstance(v, bool) and v > 0 and v & (v - 1) == 0:
            if v.bit_length() - 1 > MAX_INT_SHIFT:
                other = e.right if (e.op == "*" and k == 0) else e.left
                op = "<<" if e.op == "*" else ">>"
                return (f"{p4_text(other, 11)} {op} {v.bit_length() - 1}: shift amount limited "
                        f"to {MAX_INT_SHIFT} on this target")
            return None
    return None


class Bmv2Target:
    """Pass: the checks in the module doc, over what main's blocks contain."""
    name = "Bmv2Target"

    def run(self, ctx) -> None:
        program, self.diags = ctx.program, ctx.diags
        main = program.main
        if main is None or getattr(main.decl_type, "name", "") != "V1Switch":
            return                               # another architecture: not for BMv2
        blocks = [(arg.method, V1SWITCH_BLOCKS[i]) for i, arg in enumerate(main.args)
                  if i < len(V1SWITCH_BLOCKS)
                  and isinstance(getattr(arg, "method", None), (A.ParserDecl, A.ControlDecl))]
        self.meter_reads: dict = {}              # id(direct_meter Instantiation) -> [call]
        self.meter_tables: dict = {}             # id(Instantiation) -> [TableDecl]
        self.counter_tables: set = set()
        self.instances: dict = {}                # id -> Instantiation (direct meters, counters)
        self.merged: set = set()                 # shifts merged into an enclosing one
        seen_actions: set = set()
        for decl, block in blocks:
            self.check_block(decl, block, seen_actions)
        self.check_direct_meters()

    # ------------------------------------------------------------ one block
    def check_block(self, decl, block, seen_actions: set) -> None:
        top_actions = []
        slice_operands = set()
        for n in A.walk(decl):
            if isinstance(n, A.SliceExpr) and isinstance(n.expr, A.BinaryExpr):
                if n.expr.op == "<<" or (n.expr.op == ">>" and not _signed(n.expr)
                                        and n.hi_value is not None
                                        and n.hi_value + (n.expr.right.folded or 0)
                                        < getattr(n.expr.left.type, "width", 0)):
                    slice_operands.add(id(n.expr))
            elif isinstance(n, A.BinaryExpr) and id(n) not in self.merged:
                self.merged.update(id(x) for x in _merged_into(n))
                msg = shift_limit_error(n, id(n) in slice_operands)
                if msg:
                    self.diags.error(start_pos(n), msg)
            elif isinstance(n, A.Instantiation):
                self.check_instance(n)
            elif isinstance(n, A.TableDecl):
                self.check_table(n)
            elif isinstance(n, A.ActionDecl):
                self.check_action(n)
            elif isinstance(n, A.ParserState):
                for s in n.stmts:
                    self.check_parser_statement(s)
            elif isinstance(n, A.MethodCallExpr):
                self.check_call(n, block)
                if n.kind == "action" and isinstance(n.method, A.ActionDecl):
                    top_actions.append(n.method)
            elif isinstance(n, A.ActionRef) and isinstance(n.action, A.ActionDecl):
                top_actions.append(n.action)
        # actions declared at the top level run in the block that names them (p4c copies
        # them into each control that uses them)
        for act in top_actions:
            if act.control is None and (id(act), block) not in seen_actions:
                seen_actions.add((id(act), block))
                self.check_block(act, block, seen_actions)

    # ------------------------------------------------------------ declarations
    def check_instance(self, inst: A.Instantiation) -> None:
        kind = getattr(inst.decl_type, "name", "")
        if kind == "register" and inst.args and inst.args[0].folded == 0:
            self.diags.error(inst.pos, f"{inst.name}: direct registers are not supported in "
                                       f"bmv2")
        elif kind in ("direct_meter", "direct_counter"):
            self.instances[id(inst)] = inst

    def check_table(self, table: A.TableDecl) -> None:
        for prop in table.properties:
            if prop.name in ("meters", "counters") and isinstance(prop, A.ExprProperty):
                inst = getattr(prop.value, "decl", None)
                if not isinstance(inst, A.Instantiation):
                    continue
                if prop.name == "meters":
                    self.meter_tables.setdefault(id(inst), []).append(table)
                    self.instances[id(inst)] = inst
                else:
                    self.counter_tables.add(id(inst))
        if table.prop("implementation") is not None and table.default_action is not None:
            self.diags.warning(table.default_action.pos,
                               f"Target does not support default_action for {table.name} (due "
                               f"to action profiles)")

    def check_action(self, action: A.ActionDecl) -> None:
        """Portability to p4c 1.2.4 (module doc): what its Predication refuses, and `for`."""
        self._conditional_calls(action.body.stmts, False, set())
        for n in A.walk(action.body):
            if isinstance(n, A.ForStmt):
                self.diags.warning(n.pos, "for statement: p4c before 1.2.4.12 cannot parse it "
                                          "(P4_16 1.2.5)")

    def _conditional_calls(self, stmts, conditional: bool, inlining: set) -> bool:
        """Warn at each call or exit that runs only under a condition; True when a `return`
        may have been taken (p4c's RemoveReturns then puts what follows under an `if`)."""
        returned = False
        for s in stmts:
            under = conditional or returned
            if isinstance(s, A.BlockStmt):
                returned = self._conditional_calls(s.stmts, under, inlining) or returned
            elif isinstance(s, A.IfStmt):
                for branch in (s.then, s.other):
                    if branch is not None:
                        returned = self._conditional_calls([branch], True, inlining) or returned
            elif isinstance(s, A.ReturnStmt):
                if not under:
                    break                       # unconditional: nothing after it runs
                returned = True
            elif isinstance(s, A.ExitStmt) and under:
                self._predication_warning(s, "exit")
            elif isinstance(s, A.CallStmt):
                c = s.call
                if c.kind == "action" and isinstance(c.method, A.ActionDecl):
                    if id(c.method) not in inlining:
                        # p4c inlines the callee's body, whose returns end only the callee
                        self._conditional_calls(c.method.body.stmts, under,
                                                inlining | {id(c.method)})
                elif under:
                    self._predication_warning(s, p4_text(c.callee))
        return returned

    def _predication_warning(self, s, what: str) -> None:
        self.diags.warning(s.pos, f"{what}: Conditional execution in actions unsupported on "
                                  f"this target (p4c 1.2.4; p4c 1.2.5 and later accept it)")

    # ------------------------------------------------------------ calls
    def check_parser_statement(self, s) -> None:
        if not isinstance(s, A.CallStmt):
            return
        c = s.call
        if c.kind == "extern_method" and c.builtin is None:
            bad = True
        elif c.kind == "extern_function":
            bad = getattr(c.method, "name", "") not in PARSER_FUNCTIONS
        else:
            bad = False
        if bad:
            self.diags.error(s.pos, f"{p4_text(c.callee)}: not supported in parser on this "
                                    f"target")

    def check_call(self, c: A.MethodCallExpr, block) -> None:
        name = getattr(c.method, "name", "")
        if c.kind == "extern_function":
            clone_type = None
            if name.startswith("clone") and c.args:
                clone_type = getattr(c.args[0], "member", None)
            rule = BLOCK_BOUND.get((name, clone_type))
            if rule and block in ("ingress", "egress") and block != rule[0]:
                self.diags.error(start_pos(c), rule[1].format(name))
        elif c.kind == "extern_method" and name == "read" and c.receiver is not None:
            inst = getattr(c.receiver, "decl", None)
            if isinstance(inst, A.Instantiation) and \
                    getattr(inst.decl_type, "name", "") == "direct_meter":
                self.meter_reads.setdefault(id(inst), []).append(c)
                self.instances[id(inst)] = inst

    # ------------------------------------------------------------ direct meters and counters
    def check_direct_meters(self) -> None:
        for key, inst in self.instances.items():
            kind = getattr(inst.decl_type, "name", "")
            if kind == "direct_counter":
                if key not in self.counter_tables:
                    self.diags.warning(inst.pos, f"{inst.name}: Direct counter not used; "
                                                 f"ignoring")
                continue
            tables = self.meter_tables.get(key, [])
            reads = self.meter_reads.get(key, [])
            for table in tables:
                if not reads:
                    self.diags.error(table.pos, f"{table.name}: table with direct meter "
                                                f"{inst.name} must have at least one action "
                                                f"with a read method call")
            if len(tables) > 1:
                self.diags.error(inst.pos, f"{inst.name}: Direct meters cannot be attached to "
                                           f"multiple tables {tables[1].name} and "
                                           f"{tables[0].name}")
            if reads and not tables:
                self.diags.error(inst.pos, f"{inst.name}: direct meter is not associated with "
                                           f"any table via 'meters' table property")
            first = reads[0].args[0] if reads and reads[0].args else None
            for r in reads[1:]:
                if r.args and first is not None and p4_text(r.args[0]) != p4_text(first):
                    self.diags.error(start_pos(r), f"all meter operations must write to the same "
                                                   f"destination, however {p4_text(r.args[0])} "
                                                   f"and {p4_text(first)} are different")


def _signed(e: A.BinaryExpr) -> bool:
    return isinstance(e.left.type, T.Bits) and e.left.type.signed

