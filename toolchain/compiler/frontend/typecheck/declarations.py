"""Types and the declarations that make them (P4_16 spec 7): type references, headers,
structs, unions, enums, constants, externs, parser/control/package types, instantiations.

Typing rules that matter for the back end (spec 8): a width is a compile-time integer in
1..MAX_WIDTH; header fields are bit<W>, int<W>, bool, serializable enums or structs of them
(flattened by the mid end as p4c's FlattenHeaders); a constant's value is known at compile
time (a struct constant is inlined at its uses by a later pass).
"""
from __future__ import annotations

from .. import ast as A
from .. import constfold as F
from .. import types as T
from .base import MAX_STACK, Ctx, TypingBase, non_header_leaf


class DeclarationTyping(TypingBase):
    """Type references and type-making declarations."""

    # ------------------------------------------------------------ types
    def lookup_type_var(self, name: str):
        for frame in reversed(self.type_vars):
            if name in frame:
                return frame[name]
        return None

    def resolve_type(self, r: A.TypeRef, ctx: Ctx) -> T.P4Type:
        t = self._resolve_type(r, ctx)
        r.resolved = t
        return t

    def _resolve_type(self, r: A.TypeRef, ctx: Ctx) -> T.P4Type:
        if isinstance(r, A.InferredTypeRef):
            return r.resolved if r.resolved is not None else T.UNKNOWN
        if isinstance(r, A.BitsTypeRef):
            w = self.const_int(r.width, ctx, "a width")
            kind = "int" if r.signed else "bit"
            if w == 0:
                self.refuse(r.pos, f"{kind}<0>")
            if w < 0:
                self.err(r.pos, f"width {F.text(w)} of {kind}<> must be positive")
            if w > T.MAX_WIDTH:
                self.err(r.pos, f"width {F.text(w)} of {kind}<> is too large (at most {T.MAX_WIDTH})")
            return T.Bits(w, r.signed)
        if isinstance(r, A.BaseTypeRef):
            return {"bool": T.BOOL, "error": T.ERROR, "match_kind": T.MATCH_KIND,
                    "string": T.STRING, "void": T.VOID, "int": T.INT, "_": T.DONTCARE}[r.name]
        if isinstance(r, A.VarbitTypeRef):
            w = self.const_int(r.width, ctx, "a width")
            return T.Varbit(w)
        if isinstance(r, A.StackTypeRef):
            elem = self.resolve_type(r.element, ctx)
            size = self.const_int(r.size, ctx, "a header stack size")
            if not isinstance(elem, (T.Header, T.HeaderUnion)):
                if isinstance(elem, (T.Bits, T.Varbit)) or elem == T.BOOL:
                    # p4c's front end takes any element type (spec 1.2.5 arrays); its BMv2 back
                    # end has header stacks only and stops on a bit<W> array field of a
                    # header with a compiler bug ("nested stack")
                    self.refuse(r.pos, f"an array of {elem} (BMv2 has arrays of headers and "
                                "header unions only; p4c-bm2-ss stops on such an array in a "
                                "header with a compiler bug, 'nested stack')")
                self.err(r.pos, f"header stack elements must be headers, not {elem}")
            if size < 1:
                self.err(r.pos, f"header stack size must be positive, not {F.text(size)}")
            if size > MAX_STACK:
                self.err(r.pos, f"header stack size {F.text(size)} is too large (at most {MAX_STACK})")
            return T.Stack(elem, size)
        if isinstance(r, A.TupleTypeRef):
            return T.Tuple(self.resolve_type(e, ctx) for e in r.elements)
        if isinstance(r, A.NamedTypeRef):
            return self.resolve_named_type(r, ctx)
        self.err(r.pos, "unknown type syntax")

    def resolve_named_type(self, r: A.NamedTypeRef, ctx: Ctx) -> T.P4Type:
        tv = None if r.is_global else self.lookup_type_var(r.name)
        if tv is not None:
            return tv
        d = self.resolved(r)
        if isinstance(d, A.TypedefDecl):
            base = d.p4type
            if r.args:
                self.err(r.pos, f"type '{r.name}' takes no type arguments")
            return base if base is not None else T.UNKNOWN
        base = getattr(d, "p4type", None)
        if base is None or not isinstance(base, T.P4Type):
            if isinstance(d, A.ErrorDecl):
                return T.ERROR
            if isinstance(d, A.MatchKindDecl):
                return T.MATCH_KIND
            self.err(r.pos, f"'{r.name}' is not a type")
        params = getattr(base, "type_params", ())
        if r.args:
            if len(r.args) != len(params):
                self.err(r.pos, f"type '{r.name}' takes {len(params)} type arguments, "
                                f"{len(r.args)} given")
            return T.Specialized(base, [self.resolve_type(a, ctx) for a in r.args])
        return base

    def const_int(self, e: A.Expr, ctx: Ctx, what: str) -> int:
        self.check_expr(e, ctx)
        if not isinstance(e.folded, int) or isinstance(e.folded, bool):
            self.err(e.pos, f"{what} must be a compile-time integer constant")
        return e.folded

    # ------------------------------------------------------------ type declarations
    def check_struct_like(self, d, ctx: Ctx) -> None:
        cls = {A.HeaderDecl: T.Header, A.StructDecl: T.Struct,
               A.HeaderUnionDecl: T.HeaderUnion}[type(d)]
        t = cls(d.name, d)
        d.p4type = t
        kind = t.kind
        if d.type_params:
            self.refuse(d.pos, f"generic {kind} '{d.name}'")
        for f in d.fields:
            ft = self.guarded(self.resolve_type, f.type_ref, ctx)
            if ft is None:
                continue
            f.p4type = ft
            if f.name in t.fields:
                self.diags.error(f.pos, f"duplicate field '{f.name}' in {kind} '{d.name}'")
                continue
            if kind == "header":
                if isinstance(ft, T.Varbit):
                    # BMv2 keeps one variable-length field per header (its header type has
                    # one "*" field and a max_length); p4c's back end refuses a second one
                    if any(isinstance(x, T.Varbit) for x in t.fields.values()):
                        self.refuse(f.pos, f"a second varbit field '{f.name}' in header "
                                           f"'{d.name}' (BMv2 holds one per header)")
                elif isinstance(ft, T.Struct):
                    # spec 7.2.2: a struct of bit<W>, int<W>, bool, serializable enums (and
                    # such structs); the mid end flattens it as p4c's FlattenHeaders
                    bad = non_header_leaf(ft)
                    if bad is not None:
                        self.diags.error(f.pos, f"header field '{f.name}' of struct type {ft} "
                                                f"holds a {bad}; a struct inside a header may "
                                                f"hold only bit<W>, int<W>, bool, serializable "
                                                f"enums and such structs")
                elif not (isinstance(ft, T.Bits) or ft == T.BOOL or
                          (isinstance(ft, T.Enum) and ft.underlying is not None)):
                    self.diags.error(f.pos, f"header field '{f.name}' has type {ft}; header "
                                            f"fields must be bit<W>, int<W>, bool or a "
                                            f"serializable enum")
            elif isinstance(d, A.HeaderUnionDecl):
                if not isinstance(ft, T.Header):        # spec 7.2.4
                    self.diags.error(f.pos, f"header_union '{d.name}': member '{f.name}' has "
                                            f"type {ft}; union members must be headers")
            else:
                # a varbit field is supported in the metadata struct (the mid end refuses
                # it elsewhere, with its position)
                if isinstance(ft, (T.Extern, T.Specialized, T.ParserType)) or \
                        ft in (T.STRING, T.VOID, T.INT, T.MATCH_KIND):
                    self.diags.error(f.pos, f"struct field '{f.name}' cannot have type {ft}")
            t.fields[f.name] = ft

    def check_enum(self, d: A.EnumDecl, ctx: Ctx) -> None:
        underlying = None
        if d.underlying is not None:
            underlying = self.resolve_type(d.underlying, ctx)
            if not isinstance(underlying, T.Bits):
                self.err(d.underlying.pos, f"enum '{d.name}': underlying type must be bit<W> "
                                           f"or int<W>, not {underlying}")
        t = T.Enum(d.name, d, underlying)
        d.p4type = t
        for i, m in enumerate(d.members):
            m.enum = d
            if m.name in t.members:
                self.diags.error(m.pos, f"duplicate member '{m.name}' in enum '{d.name}'")
                continue
            if underlying is None:
                if m.init is not None:
                    self.diags.error(m.pos, f"enum '{d.name}' has no underlying type; its "
                                            f"members cannot have values")
                m.value = i
            else:
                if m.init is None:
                    self.diags.error(m.pos, f"member '{m.name}' of serializable enum "
                                            f"'{d.name}' needs a value")
                    m.value = 0
                else:
                    v = self.guarded(self.const_int, m.init, ctx, "an enum value")
                    if v is None:
                        continue
                    self.coerce(m.init, underlying, ctx, "enum value")
                    m.value = m.init.folded
            t.members[m.name] = m.value

    def check_const(self, d: A.ConstDecl, ctx: Ctx) -> None:
        d.p4type = T.UNKNOWN
        t = self.resolve_type(d.type_ref, ctx)
        if isinstance(t, T.Struct):
            # spec 10.1: a constant of struct type; p4c folds `C.f` and inlines C's value at
            # each use of the whole constant (as its front end's ConstantFolding does)
            self.check_expr(d.value, ctx, expected=t)
            self.coerce(d.value, t, ctx, f"constant '{d.name}'")
            self.struct_constant_fields(d.value, t, d.name)
            d.fields = list(t.fields)
            d.p4type = t
            return
        if isinstance(t, (T.StructLike, T.Tuple, T.Stack)):
            self.refuse(d.pos, f"constant '{d.name}' of type {t} (only scalar and struct "
                               "constants)")
        self.check_expr(d.value, ctx, expected=t)
        self.coerce(d.value, t, ctx, f"constant '{d.name}'")
        if d.value.folded is None and not self.is_constant_member(d.value):
            self.err(d.value.pos, f"the value of constant '{d.name}' is not a compile-time "
                                  f"constant")
        d.folded = d.value.folded
        d.p4type = t

    def struct_constant_fields(self, value: A.Expr, t: T.Struct, name: str) -> dict:
        """Check that a struct constant's value is `{...}` or `{f = ...}` (nested likewise)
        with compile-time known scalars; {field: value expression}."""
        if isinstance(value, A.StructInitExpr):
            items = dict(value.fields)
        elif isinstance(value, A.ListExpr):
            items = dict(zip(t.fields, value.items))
        else:
            self.refuse(value.pos, f"the value of struct constant '{name}' other than a "
                                   "{...} expression")
        out = {}
        for f, ft in t.fields.items():
            v = items[f]
            if isinstance(ft, T.Struct):
                out[f] = self.struct_constant_fields(v, ft, name)
            elif not (isinstance(ft, (T.Bits, T.Enum)) or ft in (T.BOOL, T.ERROR)):
                self.refuse(v.pos, f"field '{f}' of type {ft} in struct constant '{name}'")
            elif v.folded is None:
                self.err(v.pos, f"field '{f}' of constant '{name}' is not a compile-time "
                                f"constant")
            else:
                out[f] = v
        return out

    @staticmethod
    def is_constant_member(e) -> bool:
        return isinstance(e, A.MemberExpr) and e.kind in ("enum", "error")

    # ------------------------------------------------------------ externs and block types
    def with_type_params(self, names, owner):
        frame = {n: T.TypeVar(n, owner) for n in names}
        self.type_vars.append(frame)
        return frame

    def method_signature(self, m: A.MethodDecl, ctx: Ctx) -> T.Method:
        frame = self.with_type_params(m.type_params, m)
        try:
            params = self.param_list(m.params, ctx)
            ret = self.resolve_type(m.return_type, ctx) if m.return_type is not None else T.VOID
            sig = T.Method(m.name, [frame[n] for n in m.type_params], params, ret, m)
        finally:
            self.type_vars.pop()
        m.signature = sig
        return sig

    def param_list(self, params, ctx: Ctx) -> list:
        out = []
        for i, p in enumerate(params):
            t = self.resolve_type(p.type_ref, ctx)
            p.p4type = t
            p.index = i
            if t == T.INT:
                # an `int` is a compile-time value: nothing is copied in or out of it, and an
                # action's parameters are run-time data or in/out places (p4c's TypeInference)
                if p.direction:
                    self.diags.error(p.pos, f"{p.name}: parameters with type int must be "
                                            f"directionless")
                elif ctx.kind == "action":
                    self.diags.error(p.pos, f"{p.name}: actions cannot have parameters with "
                                            f"type int")
            if p.default is not None:
                self.check_expr(p.default, ctx, expected=t)
                self.coerce(p.default, t, ctx, f"default of parameter '{p.name}'")
            optional = p.default is not None or A.annotation(p, "optional") is not None
            out.append(T.Param(p.name, p.direction, t, p, optional))
        return out

    def check_extern(self, d: A.ExternDecl, ctx: Ctx) -> None:
        t = T.Extern(d.name, d)
        d.p4type = t
        frame = self.with_type_params(d.type_params, d)
        t.type_params = tuple(frame[n] for n in d.type_params)
        try:
            for m in d.methods:
                m.extern = d
                sig = self.guarded(self.method_signature, m, ctx)
                if sig is None:
                    continue
                if m.return_type is None:
                    t.constructors.append(sig)
                else:
                    t.methods.setdefault(m.name, []).append(sig)
        finally:
            self.type_vars.pop()

    def check_extern_function(self, d: A.MethodDecl, ctx: Ctx) -> None:
        self.method_signature(d, ctx)

    def check_block_type(self, d, ctx: Ctx) -> None:
        cls = {A.ParserTypeDecl: T.ParserType, A.ControlTypeDecl: T.ControlType,
               A.PackageTypeDecl: T.PackageType}[type(d)]
        t = cls(d.name, d)
        frame = self.with_type_params(d.type_params, d)
        try:
            t.type_params = tuple(frame[n] for n in d.type_params)
            t.params = self.param_list(d.params, ctx)
        finally:
            self.type_vars.pop()
        d.p4type = t

    # ------------------------------------------------------------ instantiations
    def check_instantiation(self, d: A.Instantiation, ctx: Ctx) -> None:
        t = self.resolve_type(d.type_ref, ctx)
        d.p4type = t
        base = T.strip_specialization(t)
        d.decl_type = getattr(base, "decl", None)
        if isinstance(base, T.Extern):
            if base.name == "Checksum16":
                # declared (deprecated) by v1model.p4; BMv2 has no such extern and p4c's
                # BMv2 back end refuses it
                self.refuse(d.pos, "extern Checksum16 (deprecated in v1model.p4; BMv2 has no "
                                   "such extern: use verify_checksum/update_checksum)")
            self.check_extern_ctor(d, base, t, ctx)
            return
        if isinstance(base, T.PackageType):
            if ctx.kind != "top":
                self.err(d.pos, "packages can only be instantiated at top level")
            self.check_package_args(d, base, ctx)
            return
        if isinstance(base, (T.ParserType, T.ControlType)):
            if isinstance(base, T.ControlType):
                # the others were inlined before checking (inline_controls.py)
                self.refuse(d.pos, f"instance '{d.name}' of control '{base.name}' applied "
                                   "more than once while it has tables or extern instances")
            # the others were inlined before checking (inline_parsers.py)
            self.refuse(d.pos, f"instance '{d.name}' of parser '{base.name}' with constructor "
                               "arguments or non-variable header arguments")
        self.err(d.pos, f"cannot instantiate type {t}")

    def check_extern_ctor(self, d: A.Instantiation, base: T.Extern, t, ctx: Ctx) -> None:
        ctors = [c for c in base.constructors if self.arity_ok(c.params, len(d.args))]
        if not ctors:
            self.err(d.pos, f"extern {base.name} has no constructor taking {len(d.args)} "
                            f"arguments")
        if base.type_params and not isinstance(t, T.Specialized):
            self.err(d.pos, f"extern {base.name} needs type arguments: "
                            f"{base.name}<{', '.join(tp.name for tp in base.type_params)}>")
        bindings = t.bindings if isinstance(t, T.Specialized) else {}
        sig = ctors[0]
        for a, p in zip(d.args, sig.params):
            pt = T.substitute(p.type, bindings)
            self.check_expr(a, ctx, expected=pt)
            self.coerce(a, pt, ctx, f"argument '{p.name}' of {base.name}")
            if a.folded is None and not self.is_constant_member(a):
                self.err(a.pos, f"constructor argument '{p.name}' of {base.name} must be a "
                                f"compile-time constant")

    def check_package_args(self, d: A.Instantiation, pkg: T.PackageType, ctx: Ctx) -> None:
        if d.args and all(isinstance(a, A.Argument) and a.name for a in d.args):
            order = self.named_order(d.args, pkg.params)      # V1Switch(p = P(), ...)
            if order is None:
                self.err(d.pos, f"package {pkg.name}: the argument names do not match its "
                                f"parameters ({', '.join(p.name for p in pkg.params)})")
            d.args = order
        if len(d.args) != len(pkg.params):
            self.err(d.pos, f"package {pkg.name} takes {len(pkg.params)} arguments, "
                            f"{len(d.args)} given")
        bindings: dict = {}
        for a, p in zip(d.args, pkg.params):
            if not (isinstance(a, A.MethodCallExpr) and isinstance(a.callee, A.PathExpr)):
                self.err(a.pos, f"argument '{p.name}' of package {pkg.name} must be a "
                                f"parser or control instantiation like MyParser()")
            block = a.callee.decl
            if not isinstance(block, (A.ParserDecl, A.ControlDecl)):
                self.err(a.pos, f"'{a.callee.name}' is not a parser or control")
            if a.args:
                self.refuse(a.pos, "constructor arguments of parsers and controls")
            a.kind = "constructor"
            a.method = block
            a.callee.decl = block
            a.type = block.p4type
            a.callee.type = block.p4type
            self.match_block(a, block, p, bindings)

    def match_block(self, a, block, p: T.Param, bindings: dict) -> None:
        want = T.strip_specialization(p.type)
        have = block.p4type
        kind_ok = (isinstance(want, T.ControlType) and isinstance(have, T.ControlType)) or \
                  (type(want) is T.ParserType and type(have) is T.ParserType)
        if not kind_ok:
            have_kind = "control" if isinstance(have, T.ControlType) else "parser"
            want_kind = "control" if isinstance(want, T.ControlType) else "parser"
            self.err(a.pos, f"'{block.name}' is a {have_kind} but parameter '{p.name}' needs a "
                            f"{want_kind} of type {want.name}")
        if len(want.params) != len(have.params):
            self.err(a.pos, f"'{block.name}' has {len(have.params)} parameters but "
                            f"{want.name} has {len(want.params)}")
        spec_bindings = p.type.bindings if isinstance(p.type, T.Specialized) else {}
        for wp, hp in zip(want.params, have.params):
            wt = T.substitute(wp.type, spec_bindings)
            if wp.direction != hp.direction:
                self.err(hp.decl.pos, f"parameter '{hp.name}' of '{block.name}' must be "
                                      f"'{wp.direction or 'directionless'}' as in {want.name}")
            self.unify(wt, hp.type, bindings, hp.decl.pos, f"parameter '{hp.name}' of "
                                                          f"'{block.name}'")

    def unify(self, want: T.P4Type, have: T.P4Type, bindings: dict, pos, what: str) -> None:
        if isinstance(want, T.TypeVar):
            bound = bindings.get(want)
            if bound is None:
                bindings[want] = have
                return
            want = bound
        if want != have and not (want is T.UNKNOWN or have is T.UNKNOWN):
            self.err(pos, f"{what} has type {have}, expected {want}")
