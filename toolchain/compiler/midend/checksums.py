"""Checksum lowering: the verify-checksum and compute-checksum controls.

v1model's verify_checksum / update_checksum (and the *_with_payload forms) become a BMv2
calculation plus a `checksums` entry (JSON_format.md "checksums"): simple_switch verifies
`verify: true` entries after parsing (setting standard_metadata.checksum_error) and updates
`update: true` entries before deparsing, each under its `if_cond`.
"""
from __future__ import annotations

from ..frontend import ast
from . import ir
from .context import Context, construct_name, source_info
from .controls import block_env, flat_statements
from .extern_calls import enum_member_name
from .externs import CHECKSUM_ALGORITHMS
from .statements import StmtLowering
from .unsupported import Unsupported

CALLS = {
    "verify_checksum": (True, False),
    "verify_checksum_with_payload": (True, True),
    "update_checksum": (False, False),
    "update_checksum_with_payload": (False, True),
}


class ChecksumLowering:
    def __init__(self, ctx: Context, decl: ast.ControlDecl, verify: bool):
        self.ctx = ctx
        self.decl = decl
        self.verify = verify
        self.stmts = StmtLowering(ctx, block_env(ctx, decl.params))

    def run(self) -> None:
        for s in flat_statements(self.decl.body.stmts):
            call = s.call if isinstance(s, ast.CallStmt) else None
            name = call.method.name if call is not None and call.kind == "extern_function" else None
            if name not in CALLS:
                raise Unsupported(s.pos, f"{construct_name(s)} in {self.decl.name}: only "
                                         f"{' / '.join(CALLS)} calls are supported in the "
                                         "checksum controls")
            is_verify, payload = CALLS[name]
            if is_verify != self.verify:
                where = "verify" if self.verify else "compute"
                raise Unsupported(s.pos, f"{name} cannot be used in the {where}-checksum control")
            self._checksum(call, payload)

    def _checksum(self, call: ast.MethodCallExpr, payload: bool) -> None:
        cond_e, data, target_e, algo_e = call.args
        algo = enum_member_name(algo_e)
        if algo not in CHECKSUM_ALGORITHMS:
            raise Unsupported(algo_e.pos, f"checksum algorithm {algo} is not supported")
        pre, inputs = self.stmts.extern_calls.calc_inputs(data, flatten=True)
        if pre:
            raise Unsupported(data.pos, "checksum inputs must be fields, constants, "
                                        "concatenations of them or widening casts of "
                                        "unsigned ones")
        if payload:
            inputs.append("payload")
        src = source_info(call, call.method.name)
        out = self.ctx.out
        calc = self.ctx.calc_names.fresh("calc")
        out.calculations.append(ir.Calculation(calc, algo, inputs, src))
        cond = self.stmts.exprs.lower(cond_e)
        if isinstance(cond, ir.Const):
            if not cond.value:
                return                      # never computed
            cond = None
        target = self.stmts.exprs.lvalue(target_e)
        name = "cksum" if not out.checksums else f"cksum_{len(out.checksums) - 1}"
        out.checksums.append(ir.Checksum(name, target, calc, self.verify, not self.verify,
                                         cond, src))


class LowerChecksums:
    name = "LowerChecksums"

    def run(self, ctx: Context) -> None:
        ChecksumLowering(ctx, ctx.blocks.verify, verify=True).run()
        ChecksumLowering(ctx, ctx.blocks.compute, verify=False).run()
