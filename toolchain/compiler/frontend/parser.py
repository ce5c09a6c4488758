"""Recursive-descent parser for P4_16 (spec appendix "P4 grammar"), producing `ast` nodes.

Like p4c's grammar, the parser knows which identifiers name types (declared earlier, or type
parameters in scope): that is what tells a cast `(T) x` from a parenthesised expression, a
declaration `T x;` from an expression statement, and `f<T>(...)` from `a < b`.

Operator precedence (spec 8, p4c's grammar), loosest first -- note that P4, unlike C, binds
`& ^ |` tighter than comparisons:
    ?:   ||   &&   == !=   < > <= >=   |   ^   &   << >>   ++ + - |+| |-|   * / %   prefix
Keyset-only operators `&&&` (mask) and `..` (range) are looser than all of these.

On a syntax error the parser records it and skips to the next `;` or `}` at the current
nesting level, so one run can report several errors.
"""
from __future__ import annotations

from typing import Optional

from . import ast as A
from ..diagnostics import CompileError, Diagnostics, Pos
from .lexer import Token, tokenize
from .parser_base import BASE_TYPES, DIRECTIONS, _SyntaxError
from .parser_expressions import ExpressionParser
from .parser_statements import StatementParser


def parse_text(text: str, filename: str, diags: Optional[Diagnostics] = None, *,
               recover_columns: bool = True) -> A.Program:
    """Parse preprocessed text; raises CompileError if there were syntax errors."""
    diags = diags or Diagnostics()
    tokens = tokenize(text, filename, diags, recover_columns=recover_columns)
    program = SyntaxParser(tokens, diags).parse_program()
    program.pos = Pos(filename, 1, 1)
    diags.raise_if_errors()
    return program


class Parse:
    """Pass: `ctx.text` -> `ctx.program`."""
    name = "Parse"

    def run(self, ctx) -> None:
        ctx.program = parse_text(ctx.text, ctx.path, ctx.diags,
                                 recover_columns=ctx.recover_columns)


def parse_source(text: str, filename: str = "test.p4") -> A.Program:
    """Parse text that has not been preprocessed (no #include); for tests and tools."""
    return parse_text(text, filename, recover_columns=False)
class SyntaxParser(StatementParser, ExpressionParser):
    """The whole grammar: declarations here, statements and expressions in their modules."""

    # ------------------------------------------------------------ program
    def parse_program(self) -> A.Program:
        start = self.tok.pos
        decls = []
        while self.tok.kind != "eof":
            if self.accept(";"):
                continue
            before = self.i
            try:
                d = self.top_declaration()
                if d is not None:
                    decls.append(d)
            except _SyntaxError:
                if self.i == before:
                    self.advance()
                self.skip_to_recovery()
        return A.Program(start, decls, all_annotations=self.all_annotations)

    def annotations(self) -> list:
        out = []
        while self.at("@"):
            at = self.advance()
            nm = self.name("an annotation name")
            ann = A.Annotation(at.pos, nm.text)
            if self.at("("):
                body_toks = self._balanced("(", ")")
                ann.body = " ".join(t.text for t in body_toks)
                self._annotation_args(ann, body_toks)
            elif self.at("["):
                body_toks = self._balanced("[", "]")
                ann.body = " ".join(t.text for t in body_toks)
                self._annotation_args(ann, body_toks)
            out.append(ann)
            self.all_annotations.append(ann)
        return out

    def _balanced(self, open_: str, close: str) -> list:
        self.expect(open_)
        depth = 1
        body = []
        while True:
            t = self.tok
            if t.kind == "eof":
                self.error(t.pos, f"unterminated annotation, expected '{close}'")
            self.advance()
            if t.kind == "op" and t.text == open_:
                depth += 1
            elif t.kind == "op" and t.text == close:
                depth -= 1
                if depth == 0:
                    return body
            body.append(t)

    def _annotation_args(self, ann: A.Annotation, body: list) -> None:
        """Parse an annotation body as `expr, ...` or `k = v, ...`; leave args empty if it is
        neither (unstructured annotations keep only `.body`)."""
        if not body:
            return
        eof = Token("eof", "<end>", body[-1].pos, "<end>")
        sub = SyntaxParser(body + [eof], Diagnostics(max_errors=1000))
        sub.type_names = self.type_names
        try:
            if len(body) >= 2 and body[0].kind == "id" and body[1].text == "=":
                while sub.tok.kind != "eof":
                    k = sub.name()
                    sub.expect("=")
                    ann.kv[k.text] = sub.expression()
                    if not sub.accept(","):
                        break
            else:
                while sub.tok.kind != "eof":
                    ann.args.append(sub.expression())
                    if not sub.accept(","):
                        break
            if sub.tok.kind != "eof":
                ann.args, ann.kv = [], {}
        except (_SyntaxError, CompileError):
            ann.args, ann.kv = [], {}

    def top_declaration(self):
        annos = self.annotations()
        t = self.tok
        pos = t.pos
        if t.kind == "kw":
            k = t.text
            if k == "const":
                return self.const_decl(annos)
            if k in ("typedef", "type"):
                return self.typedef_decl(annos)
            if k in ("header", "struct", "header_union"):
                return self.struct_like_decl(annos)
            if k == "enum":
                return self.enum_decl(annos)
            if k == "error":
                self.advance()
                return A.ErrorDecl(pos, "error", self.member_list(A.ErrorMember), annotations=annos)
            if k == "match_kind":
                self.advance()
                return A.MatchKindDecl(pos, "match_kind", self.member_list(A.MatchKindMember),
                                       annotations=annos)
            if k == "extern":
                return self.extern_decl(annos)
            if k == "parser":
                return self.parser_decl(annos)
            if k == "control":
                return self.control_decl(annos)
            if k == "package":
                return self.package_decl(annos)
            if k == "action":
                return self.action_decl(annos)
        if self.is_type_name(t) or (t.kind == "kw" and t.text in ("bit", "int", "varbit", "bool",
                                                                    "tuple", "void")):
            return self.type_led_declaration(annos, top_level=True)
        if t.kind == "id" and self.peek().kind == "id":
            # `Foo x ...` with an undeclared type name: report it clearly
            self.error(pos, f"unknown type '{t.text}'")
        self.error(pos, f"expected a declaration, found {self._describe(t)}")

    # ------------------------------------------------------------ types
    def type_ref(self) -> A.TypeRef:
        return self.nested(self._type_ref)

    def _type_ref(self) -> A.TypeRef:
        t = self.tok
        pos = t.pos
        if t.kind == "kw":
            if t.text in ("bit", "int"):
                self.advance()
                signed = t.text == "int"
                if self.accept("<"):
                    width = self.type_width()
                    self.expect_close_angle()
                    r = A.BitsTypeRef(pos, width, signed)
                elif signed:
                    r = A.BaseTypeRef(pos, "int")
                else:
                    r = A.BitsTypeRef(pos, A.IntLit(pos, 1, text="1"), False)
                return self.stack_suffix(r)
            if t.text == "varbit":
                self.advance()
                self.expect("<")
                width = self.type_width()
                self.expect_close_angle()
                return A.VarbitTypeRef(pos, width)
            if t.text in BASE_TYPES:
                self.advance()
                return A.BaseTypeRef(pos, t.text)
            if t.text == "tuple":
                self.advance()
                self.expect("<")
                elems = self.type_arg_list()
                self.expect_close_angle()
                return A.TupleTypeRef(pos, elems)
        if t.kind == "op" and t.text == "." and self.peek().kind == "id":
            self.advance()
            nm = self.advance()
            return self.stack_suffix(self._named_type_rest(pos, nm.text, True))
        if t.kind == "id":
            if not self.is_type_name(t):
                self.error(pos, f"unknown type '{t.text}'")
            self.advance()
            return self.stack_suffix(self._named_type_rest(pos, t.text, False))
        self.error(pos, f"expected a type, found {self._describe(t)}")

    def _named_type_rest(self, pos, name, is_global) -> A.NamedTypeRef:
        args = []
        if self.at("<"):
            self.advance()
            args = self.type_arg_list()
            self.expect_close_angle()
        return A.NamedTypeRef(pos, name, args, is_global)

    def stack_suffix(self, r: A.TypeRef) -> A.TypeRef:
        while self.at("["):
            self.advance()
            size = self.expression()
            self.expect("]")
            r = A.StackTypeRef(r.pos, r, size)
        return r

    def type_width(self) -> A.Expr:
        t = self.tok
        if t.kind == "int":
            self.advance()
            v, w, s = t.value
            return A.IntLit(t.pos, v, w, s, t.text)
        if t.kind == "id":
            self.advance()
            return A.PathExpr(t.pos, t.text)
        if self.at("("):
            self.advance()
            e = self.expression()
            self.expect(")")
            return e
        self.error(t.pos, f"expected a width, found {self._describe(t)}")

    def type_arg_list(self) -> list:
        args = [self.type_ref()]
        while self.accept(","):
            args.append(self.type_ref())
        return args

    def expect_close_angle(self) -> None:
        self.expect(">", "to close the type argument list")

    def starts_type(self, t: Token) -> bool:
        if t.kind == "kw":
            return t.text in ("bit", "int", "varbit", "bool", "error", "match_kind", "string",
                              "void", "tuple")
        return self.is_type_name(t)

    # ------------------------------------------------------------ simple declarations
    def const_decl(self, annos) -> A.ConstDecl:
        pos = self.expect("const").pos
        tr = self.type_ref()
        nm = self.name("a constant name")
        self.expect("=")
        value = self.expression()
        self.expect(";")
        return A.ConstDecl(pos, nm.text, tr, value, annotations=annos)

    def typedef_decl(self, annos) -> A.TypedefDecl:
        kw = self.advance()
        tr = self.type_ref()
        nm = self.name("a type name")
        self.expect(";")
        self.type_names.add(nm.text)
        return A.TypedefDecl(kw.pos, nm.text, tr, kw.text == "type", annotations=annos)

    def struct_like_decl(self, annos):
        kw = self.advance()
        nm = self.name(f"a {kw.text} name")
        self.type_names.add(nm.text)
        type_params = self.opt_type_params()
        self.expect("{")
        fields = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, f"unterminated {kw.text} '{nm.text}'")
            fa = self.annotations()
            fpos = self.tok.pos
            with self._type_params(type_params):
                ftype = self.type_ref()
            fname = self.name("a field name")
            if self.at("["):                         # `T f[N];`, p4c's declarator: T[N] f
                lb = self.advance()
                size = self.expression()
                self.expect("]")
                ftype = A.StackTypeRef(lb.pos, ftype, size)
            self.expect(";")
            fields.append(A.FieldDecl(fpos, fname.text, ftype, annotations=fa))
        self.expect("}")
        cls = {"header": A.HeaderDecl, "struct": A.StructDecl,
               "header_union": A.HeaderUnionDecl}[kw.text]
        return cls(kw.pos, nm.text, fields, type_params, annotations=annos)

    def enum_decl(self, annos) -> A.EnumDecl:
        pos = self.expect("enum").pos
        underlying = None
        if self.at("bit") or self.at("int") or (self.is_type_name(self.tok)
                                                 and self.peek().kind == "id"):
            underlying = self.type_ref()
        nm = self.name("an enum name")
        self.type_names.add(nm.text)
        self.expect("{")
        members = []
        while not self.at("}"):
            ma = self.annotations()
            mt = self.name("an enum member")
            init = None
            if self.accept("="):
                init = self.expression()
            members.append(A.EnumMember(mt.pos, mt.text, init, annotations=ma))
            if not self.accept(","):
                break
        self.expect("}")
        return A.EnumDecl(pos, nm.text, underlying, members, annotations=annos)

    def member_list(self, cls) -> list:
        self.expect("{")
        members = []
        while not self.at("}"):
            t = self.name("a member name")
            members.append(cls(t.pos, t.text))
            if not self.accept(","):
                break
        self.expect("}")
        return members

    def opt_type_params(self) -> list:
        if not self.at("<"):
            return []
        self.advance()
        names = [self.name("a type parameter").text]
        while self.accept(","):
            names.append(self.name("a type parameter").text)
        self.expect_close_angle()
        return names

    class _TypeParamScope:
        def __init__(self, parser, names):
            self.p, self.names = parser, set(names)

        def __enter__(self):
            self.p.scoped_type_params.append(self.names)

        def __exit__(self, *exc):
            self.p.scoped_type_params.pop()

    def _type_params(self, names):
        return SyntaxParser._TypeParamScope(self, names)

    def params(self) -> list:
        self.expect("(")
        out = []
        if self.accept(")"):
            return out
        while True:
            pa = self.annotations()
            pos = self.tok.pos
            direction = ""
            if self.tok.kind == "kw" and self.tok.text in DIRECTIONS:
                direction = self.advance().text
            tr = self.type_ref()
            nm = self.name("a parameter name")
            default = None
            if self.accept("="):
                default = self.expression()
            out.append(A.Param(pos, nm.text, direction, tr, default, annotations=pa))
            if not self.accept(","):
                break
        self.expect(")")
        return out

    # ------------------------------------------------------------ externs
    def extern_decl(self, annos):
        pos = self.expect("extern").pos
        # extern function: extern <type> name<...>(...);  extern object: extern Name<...> { }
        if (self.tok.kind == "id" and not self.is_type_name(self.tok)
                and (self.peek().text in ("{", "<"))):
            nm = self.advance()
            self.type_names.add(nm.text)
            type_params = self.opt_type_params()
            methods = []
            self.expect("{")
            with self._type_params(type_params):
                while not self.at("}"):
                    if self.tok.kind == "eof":
                        self.error(self.tok.pos, f"unterminated extern '{nm.text}'")
                    try:
                        methods.append(self.method_prototype(nm.text))
                    except _SyntaxError:
                        self.skip_to_recovery()
            self.expect("}")
            return A.ExternDecl(pos, nm.text, type_params, methods, annotations=annos)
        m = self.method_prototype(None, annos)
        m.pos = pos
        m.is_function = True
        return m

    def method_prototype(self, extern_name: Optional[str], annos=None) -> A.MethodDecl:
        annos = (annos or []) + self.annotations()
        pos = self.tok.pos
        is_abstract = bool(self.accept("abstract"))
        # constructor: Name(params);
        if extern_name is not None and self.at_id(extern_name) and self.peek().text == "(":
            self.advance()
            ps = self.params()
            self.expect(";")
            return A.MethodDecl(pos, extern_name, None, [], ps, annotations=annos)
        # the return type may use the method's own type parameters (T lookahead<T>())
        save = self.i
        ret_tok = self.tok
        if ret_tok.kind == "id" and not self.is_type_name(ret_tok):
            # look ahead for `name<T...>` to learn the method's type parameters first
            self.advance()
            self.name("a method name")
            tps = self.opt_type_params()
            if ret_tok.text not in tps:
                self.error(ret_tok.pos, f"unknown type '{ret_tok.text}'")
            self.i = save
            with self._type_params(tps):
                ret = self.type_ref()
        else:
            ret = self.type_ref()
        nm = self.name("a method name")
        tps = self.opt_type_params()
        with self._type_params(tps):
            ps = self.params()
        self.expect(";")
        return A.MethodDecl(pos, nm.text, ret, tps, ps, is_abstract, annotations=annos)

    # ------------------------------------------------------------ parsers, controls, packages
    def parser_decl(self, annos):
        pos = self.expect("parser").pos
        nm = self.name("a parser name")
        self.type_names.add(nm.text)
        tps = self.opt_type_params()
        with self._type_params(tps):
            ps = self.params()
            if self.accept(";"):
                return A.ParserTypeDecl(pos, nm.text, tps, ps, annotations=annos)
            ctor = self.params() if self.at("(") else []
            self.expect("{")
            locals_, states = [], []
            while not self.at("}"):
                if self.tok.kind == "eof":
                    self.error(self.tok.pos, f"unterminated parser '{nm.text}'")
                try:
                    la = self.annotations()
                    if self.at("state"):
                        states.append(self.parser_state(la))
                    else:
                        locals_.append(self.local_declaration(la, in_parser=True))
                except _SyntaxError:
                    self.skip_to_recovery()
            self.expect("}")
        return A.ParserDecl(pos, nm.text, tps, ps, ctor, locals_, states, annotations=annos)

    def parser_state(self, annos) -> A.ParserState:
        pos = self.expect("state").pos
        nm = self.name("a state name")
        self.expect("{")
        stmts = []
        transition = None
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, f"unterminated state '{nm.text}'")
            if self.at("transition"):
                self.advance()
                if self.at("select"):
                    transition = self.select_expr()
                else:
                    st = self.name("a state name")
                    transition = A.PathExpr(st.pos, st.text)
                    self.expect(";")
                if not self.at("}"):
                    self.error(self.tok.pos, "statements after 'transition' are not allowed")
                break
            try:
                stmts.append(self.statement(in_parser=True))
            except _SyntaxError:
                self.skip_to_recovery()
        self.expect("}")
        if transition is None:
            # spec 12.5: a state without transition goes to reject (p4c warns)
            transition = A.PathExpr(pos, "reject")
            self.diags.warning(pos, f"state '{nm.text}' has no transition; it goes to reject")
        return A.ParserState(pos, nm.text, stmts, transition, annotations=annos)

    def control_decl(self, annos):
        pos = self.expect("control").pos
        nm = self.name("a control name")
        self.type_names.add(nm.text)
        tps = self.opt_type_params()
        with self._type_params(tps):
            ps = self.params()
            if self.accept(";"):
                return A.ControlTypeDecl(pos, nm.text, tps, ps, annotations=annos)
            ctor = self.params() if self.at("(") else []
            self.expect("{")
            locals_ = []
            body = None
            while not self.at("}"):
                if self.tok.kind == "eof":
                    self.error(self.tok.pos, f"unterminated control '{nm.text}'")
                try:
                    la = self.annotations()
                    if self.at("apply"):
                        apos = self.advance().pos
                        body = self.block(apos, la)
                    elif self.at("action"):
                        locals_.append(self.action_decl(la))
                    elif self.at("table"):
                        locals_.append(self.table_decl(la))
                    else:
                        locals_.append(self.local_declaration(la, in_parser=False))
                except _SyntaxError:
                    self.skip_to_recovery()
            self.expect("}")
        if body is None:
            self.diags.error(pos, f"control '{nm.text}' has no apply block")
            body = A.BlockStmt(pos, [])
        return A.ControlDecl(pos, nm.text, tps, ps, ctor, locals_, body, annotations=annos)

    def package_decl(self, annos):
        pos = self.expect("package").pos
        nm = self.name("a package name")
        self.type_names.add(nm.text)
        tps = self.opt_type_params()
        with self._type_params(tps):
            ps = self.params()
        self.expect(";")
        return A.PackageTypeDecl(pos, nm.text, tps, ps, annotations=annos)

    def action_decl(self, annos) -> A.ActionDecl:
        pos = self.expect("action").pos
        nm = self.name("an action name")
        ps = self.params()
        body = self.block(self.tok.pos)
        return A.ActionDecl(pos, nm.text, ps, body, annotations=annos)

    def local_declaration(self, annos, *, in_parser: bool):
        """Locals of parsers/controls: const, variables, instantiations, value_set."""
        if self.at("const"):
            return self.const_decl(annos)
        if self.at("value_set"):
            pos = self.advance().pos
            self.expect("<")
            elem = self.type_ref()
            self.expect_close_angle()
            self.expect("(")
            size = self.expression()
            self.expect(")")
            nm = self.name("a value set name")
            self.expect(";")
            return A.ValueSetDecl(pos, nm.text, elem, size, annotations=annos)
        if self.starts_type(self.tok) or (self.at(".") and self.peek().kind == "id"):
            return self.type_led_declaration(annos, top_level=False)
        t = self.tok
        if t.kind == "id" and self.peek().kind == "id":
            self.error(t.pos, f"unknown type '{t.text}'")
        what = "a parser state or local declaration" if in_parser else \
            "an action, table, local declaration or apply block"
        self.error(t.pos, f"expected {what}, found {self._describe(t)}")

    def type_led_declaration(self, annos, *, top_level: bool):
        """`T name [= init];` or `T(args) name;` (instantiation)."""
        pos = self.tok.pos
        tr = self.type_ref()
        if self.at("("):
            args = self.arguments()
            nm = self.name("an instance name")
            self.expect(";")
            return A.Instantiation(pos, nm.text, tr, args, annotations=annos)
        nm = self.name("a variable name")
        if top_level and (self.at("(") or self.at("<")):
            return self.function_decl(annos, pos, tr, nm.text)
        init = None
        if self.accept("="):
            init = self.expression()
        self.expect(";")
        if top_level:
            self.diags.error(pos, "variable declarations are not allowed at top level "
                                  "(use const)")
        return A.VarDecl(pos, nm.text, tr, init, annotations=annos)

    def function_decl(self, annos, pos, ret, name) -> A.FunctionDecl:
        """`T f<...>(params) { body }` (spec 10.3): parsed so the checker can refuse it."""
        tps = self.opt_type_params()
        with self._type_params(tps):
            ps = self.params()
            body = self.block(self.tok.pos)
        return A.FunctionDecl(pos, name, ret, tps, ps, body, annotations=annos)

    # ------------------------------------------------------------ tables
    def table_decl(self, annos) -> A.TableDecl:
        pos = self.expect("table").pos
        nm = self.name("a table name")
        self.expect("{")
        props = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, f"unterminated table '{nm.text}'")
            try:
                props.append(self.table_property())
            except _SyntaxError:
                self.skip_to_recovery()
        self.expect("}")
        return A.TableDecl(pos, nm.text, props, annotations=annos)

    def table_property(self) -> A.TableProperty:
        annos = self.annotations()
        pos = self.tok.pos
        is_const = bool(self.accept("const"))
        nm = self.name("a table property")
        name = nm.text
        if name == "key":
            self.expect("=")
            self.expect("{")
            elems = []
            while not self.at("}"):
                epos = self.tok.pos
                e = self.expression()
                self.expect(":")
                mk = self.name("a match kind")
                ka = self.annotations()
                self.expect(";")
                elems.append(A.KeyElement(epos, e, mk.text, ka, mk.pos))
            self.expect("}")
            return A.KeyProperty(pos, name, is_const, elems, annotations=annos)
        if name == "actions":
            self.expect("=")
            self.expect("{")
            acts = []
            while not self.at("}"):
                aa = self.annotations()
                acts.append(self.action_ref(aa))
                self.expect(";")
            self.expect("}")
            return A.ActionsProperty(pos, name, is_const, acts, annotations=annos)
        if name == "entries":
            self.expect("=")
            self.expect("{")
            entries = []
            while not self.at("}"):
                ea = self.annotations()
                epos = self.tok.pos
                entry_const = bool(self.accept("const"))     # P4 1.2.4 per-entry const
                priority = None
                if self.at_id("priority") or self.at("priority"):
                    self.advance()
                    self.expect("=")
                    priority = self.expression()
                    self.expect(":")
                keyset = self.keyset_expression()
                self.expect(":")
                act = self.action_ref([])
                ea = ea + self.annotations()       # `k : a() @priority(3);` (p4c's grammar)
                self.expect(";")
                if priority is None:
                    prio = next((x for x in ea if x.name == "priority" and x.args), None)
                    priority = prio.args[0] if prio is not None else None
                entry = A.Entry(epos, keyset, act, priority, ea)
                entry.is_const = entry_const
                entries.append(entry)
            self.expect("}")
            return A.EntriesProperty(pos, name, is_const, entries, annotations=annos)
        self.expect("=")
        if name == "default_action":
            act = self.action_ref([])
            self.expect(";")
            return A.DefaultActionProperty(pos, name, is_const, act, annotations=annos)
        value = self.expression()
        self.expect(";")
        return A.ExprProperty(pos, name, is_const, value, annotations=annos)

    def action_ref(self, annos) -> A.ActionRef:
        pos = self.tok.pos
        is_global = bool(self.accept("."))
        nm = self.name("an action name")
        path = A.PathExpr(nm.pos, nm.text, is_global)
        args, has_parens = [], False
        if self.at("("):
            has_parens = True
            args = self.arguments()
        return A.ActionRef(pos, path, args, has_parens, annos)
