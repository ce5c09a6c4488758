"""Type checking and constant folding (P4_16 spec 6-14; p4c's TypeInference).

One walk over the declarations in order, after name resolution (`resolve.py`) set what each
name means. It sets the fields documented in `ast.py` (`.type`, `.folded`, call `.kind`...),
folds constants (constfold.py) and refuses constructs outside the compiler's subset with
the construct's name: "<construct> is not supported" (the list is in
`tests/toolchain/compiler/frontend`). Rewrites of the typed tree into forms the mid end
handles are the lowering passes that follow (`lowering.py`).

The checker is one class made of one part per kind of construct: declarations and types
(declarations.py), parsers and controls (blocks.py), tables (tables.py), statements
(statements.py), expressions (expressions.py), calls and conversions (calls.py); they share
the state and reporting in base.py.
"""
from __future__ import annotations

from ...diagnostics import Diagnostics
from .. import ast as A
from .. import types as T
from .base import Ctx
from .blocks import BlockTyping
from .calls import CallTyping
from .declarations import DeclarationTyping
from .expressions import ExpressionTyping
from .statements import StatementTyping
from .tables import TableTyping


class TypeChecker(DeclarationTyping, BlockTyping, TableTyping, StatementTyping,
                  ExpressionTyping, CallTyping):
    def __init__(self, program: A.Program, diags: Diagnostics):
        super().__init__(program, diags)

    def run(self, require_main: bool) -> None:
        ctx = Ctx("top")
        for d in self.program.decls:
            self.guarded(self.check_top, d, ctx)
        self.type_annotation_literals(ctx)
        main = self.top.get("main")
        if isinstance(main, A.Instantiation):
            self.program.main = main
        elif require_main:
            self.diags.error(self.program.pos, "the program has no 'main' package instantiation "
                                               "(e.g. V1Switch(...) main;)")

    def type_annotation_literals(self, ctx: Ctx) -> None:
        """Literal annotation arguments (@name("x"), @field_list(1), @priority(10)) get their
        types too, so every Expr in the tree is typed; names in annotations stay unresolved."""
        for n in self.program.all_annotations:
            if isinstance(n, A.Annotation):
                for a in list(n.args) + list(n.kv.values()):
                    if isinstance(a, (A.IntLit, A.StringLit, A.BoolLit)) or (
                            isinstance(a, A.UnaryExpr) and isinstance(a.operand, A.IntLit)):
                        self.guarded(self.check_expr, a, ctx)
                    elif n.name == "field_list":
                        # field list ids: constants or serializable enum members, which p4c
                        # evaluates (its issue1001-1-bmv2 sample), resolved at top level
                        self.guarded(self.check_expr, a, ctx)

    def check_top(self, d, ctx: Ctx) -> None:
        if isinstance(d, A.ErrorDecl):
            # members are visible from their declaration on (name resolution numbered them
            # and reported the duplicates)
            for m in d.members:
                if m.code is not None:
                    self.error_members.setdefault(m.name, m)
        elif isinstance(d, A.MatchKindDecl):
            for m in d.members:
                self.match_kinds.setdefault(m.name, m)
        elif isinstance(d, A.ConstDecl):
            self.check_const(d, ctx)
        elif isinstance(d, A.TypedefDecl):
            d.p4type = T.UNKNOWN          # uses of a typedef that fails stop quietly
            d.p4type = self.resolve_type(d.type_ref, ctx)
        elif isinstance(d, (A.HeaderDecl, A.StructDecl, A.HeaderUnionDecl)):
            self.check_struct_like(d, ctx)
        elif isinstance(d, A.EnumDecl):
            self.check_enum(d, ctx)
        elif isinstance(d, A.ExternDecl):
            self.check_extern(d, ctx)
        elif isinstance(d, A.MethodDecl):
            self.check_extern_function(d, ctx)
        elif isinstance(d, (A.ParserTypeDecl, A.ControlTypeDecl, A.PackageTypeDecl)):
            self.check_block_type(d, ctx)
        elif isinstance(d, A.ParserDecl):
            self.check_parser(d, ctx)
        elif isinstance(d, A.ControlDecl):
            self.check_control(d, ctx)
        elif isinstance(d, A.ActionDecl):
            self.check_action(d, ctx)
        elif isinstance(d, A.Instantiation):
            self.check_instantiation(d, ctx)
        elif isinstance(d, A.FunctionDecl):
            if not d.inlined:
                self.refuse(d.pos, f"generic function '{d.name}'")
            self.check_function(d, ctx)
        elif not isinstance(d, A.VarDecl):          # a top-level variable: the parser said so
            self.refuse(d.pos, f"top-level declaration '{type(d).__name__}'")


class TypeCheck:
    """Pass: types, constant folding and refusals (see the module doc)."""
    name = "TypeCheck"

    def run(self, ctx) -> None:
        TypeChecker(ctx.program, ctx.diags).run(ctx.require_main)
