"""Architecture passes: find the V1Switch package's six blocks; finish the program (errors,
enums, the scalars header type)."""
from __future__ import annotations

from ..frontend import ast
from .context import Blocks, Context, is_library_node
from .scalars import SCALARS_TYPE
from .unsupported import Unsupported

V1SWITCH_BLOCKS = ["parser", "verify", "ingress", "egress", "compute", "deparser"]


class ResolveArchitecture:
    """Pass: `V1Switch(P(), VC(), I(), E(), CC(), D()) main;` -> the six declarations."""
    name = "ResolveArchitecture"

    def run(self, ctx: Context) -> None:
        main = ctx.program.main
        if main is None:
            raise Unsupported(ctx.program.pos, "the program has no `main` package instance")
        package = getattr(main.decl_type, "name", None)
        if package != "V1Switch":
            raise Unsupported(main.pos, f"package {package} is not supported; the BMv2 back end "
                                        "supports v1model's V1Switch")
        if len(main.args) != 6:
            raise Unsupported(main.pos, "V1Switch takes six blocks")
        decls = [self._block(a) for a in main.args]
        kinds = [ast.ParserDecl] + [ast.ControlDecl] * 5
        for d, kind, role, arg in zip(decls, kinds, V1SWITCH_BLOCKS, main.args):
            if not isinstance(d, kind):
                raise Unsupported(arg.pos, f"the {role} block of V1Switch must be a "
                                           f"{'parser' if kind is ast.ParserDecl else 'control'}")
            if d.ctor_params:
                raise Unsupported(d.pos, f"{d.name}: constructor parameters are not supported")
        ctx.blocks = Blocks(*decls)

    def _block(self, arg):
        if isinstance(arg, ast.MethodCallExpr):
            decl = getattr(arg.callee, "decl", None) or arg.method
            if arg.args:
                raise Unsupported(arg.pos, "constructor arguments are not supported")
            return decl
        decl = getattr(arg, "decl", None)
        if isinstance(decl, ast.Instantiation):
            return decl.decl_type
        raise Unsupported(arg.pos, "V1Switch arguments must be parser/control instantiations")


class FinishProgram:
    """Pass: errors and user enums, the final scalars header type."""
    name = "FinishProgram"

    def run(self, ctx: Context) -> None:
        ctx.out.errors = [(name, code) for code, name in enumerate(ctx.program.errors or [])]
        for d in ctx.program.decls:
            if isinstance(d, ast.EnumDecl) and d.underlying is None and not is_library_node(d):
                members = [(m.name, m.value) for m in d.members]
                ctx.out.enums.append((d.name, members))
        scalars = ctx.scalars.header_type()
        for i, ht in enumerate(ctx.out.header_types):
            if ht.name == SCALARS_TYPE:
                ctx.out.header_types[i] = scalars
        ctx.out.field_lists.sort(key=lambda fl: fl.id)
