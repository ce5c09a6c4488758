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
from .lexer import Token, tokenize
from ..diagnostics import CompileError, Diagnostics, Pos


class _SyntaxError(Exception):
    pass


# binary operator -> precedence (higher binds tighter)
BINARY_PREC = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4,
    "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
    "++": 9, "+": 9, "-": 9, "|+|": 9, "|-|": 9, "*": 10, "/": 10, "%": 10,
}
TERNARY_PREC = 0

BASE_TYPES = {"bool", "error", "match_kind", "string", "void"}
DIRECTIONS = {"in", "out", "inout"}


def parse_text(text: str, filename: str, diags: Optional[Diagnostics] = None, *,
               recover_columns: bool = True) -> A.Program:
    """Parse preprocessed text; raises CompileError if there were syntax errors."""
    diags = diags or Diagnostics()
    tokens = tokenize(text, filename, diags, recover_columns=recover_columns)
    program = Parser(tokens, diags).parse_program()
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


class Parser:
    def __init__(self, tokens: list, diags: Diagnostics):
        self.toks = tokens
        self.i = 0
        self.diags = diags
        self.type_names: set = set()
        self.scoped_type_params: list = []
        self.all_annotations: list = []

    # ------------------------------------------------------------ token helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else self.toks[-1]

    def at(self, text: str) -> bool:
        t = self.toks[self.i]
        return t.text == text and t.kind in ("op", "kw")

    def at_id(self, text: Optional[str] = None) -> bool:
        t = self.toks[self.i]
        return t.kind == "id" and (text is None or t.text == text)

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def accept(self, text: str) -> Optional[Token]:
        if self.at(text):
            return self.advance()
        return None

    def expect(self, text: str, what: str = "") -> Token:
        if self.at(text):
            return self.advance()
        pos = self.tok.pos
        if text == ";" and self.i > 0:
            # like gcc: a missing ';' is reported right after the token it should follow
            prev = self.toks[self.i - 1]
            if prev.pos.line != pos.line or prev.pos.file != pos.file:
                pos = Pos(prev.pos.file, prev.pos.line, prev.pos.col + len(prev.text))
        self.error(pos, f"expected '{text}'{' ' + what if what else ''}, found "
                        f"{self._describe(self.tok)}")

    def _describe(self, t: Token) -> str:
        return "end of file" if t.kind == "eof" else f"'{t.text}'"

    def error(self, pos: Pos, message: str):
        self.diags.error(pos, message)
        raise _SyntaxError()

    def name(self, what: str = "a name") -> Token:
        """An identifier; a few keywords are allowed as names, as in p4c's `nonTypeName`."""
        t = self.tok
        if t.kind == "id" or (t.kind == "kw" and t.text in ("apply", "state", "type", "key",
                                                                "entries", "actions", "priority",
                                                                "list")):
            return self.advance()
        self.error(t.pos, f"expected {what}, found {self._describe(t)}")

    def is_type_name(self, t: Token) -> bool:
        if t.kind != "id":
            return False
        if t.text in self.type_names:
            return True
        return any(t.text in s for s in self.scoped_type_params)

    def skip_to_recovery(self) -> None:
        """After an error: skip to just past the next ';' or to a '}' at this level."""
        depth = 0
        while self.tok.kind != "eof":
            t = self.advance()
            if t.kind != "op":
                continue
            if t.text in "({[":
                depth += 1
            elif t.text in ")]":
                depth -= 1
            elif t.text == "}":
                depth -= 1
                if depth <= 0:
                    return
            elif t.text == ";" and depth <= 0:
                return

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
        sub = Parser(body + [eof], Diagnostics(max_errors=1000))
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
        return Parser._TypeParamScope(self, names)

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
            nm_tok = self.name("a method name")
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
                tpos = self.advance().pos
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

    def select_expr(self) -> A.SelectExpr:
        pos = self.expect("select").pos
        self.expect("(")
        exprs = [] if self.at(")") else [self.expression()]
        while self.accept(","):
            exprs.append(self.expression())
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, "unterminated select")
            cpos = self.tok.pos
            keyset = self.keyset_expression()
            self.expect(":")
            st = self.name("a state name")
            self.expect(";")
            cases.append(A.SelectCase(cpos, keyset, A.PathExpr(st.pos, st.text)))
        self.expect("}")
        return A.SelectExpr(pos, exprs, cases)

    def keyset_expression(self) -> list:
        """`k`, `(k1, k2)`, `default`, `_`, with &&& and .. in each element."""
        if self.at("(") and self._paren_is_tuple_keyset():
            self.advance()
            items = [self.simple_keyset()]
            while self.accept(","):
                items.append(self.simple_keyset())
            self.expect(")")
            return items
        return [self.simple_keyset()]

    def _paren_is_tuple_keyset(self) -> bool:
        """`(a, b)` or `(a)` followed by ':' is a tuple keyset; `(a + b) &&& m` is not."""
        depth = 0
        for j in range(self.i, len(self.toks)):
            t = self.toks[j]
            if t.kind == "eof":
                return False
            if t.kind != "op":
                continue
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
                if depth == 0:
                    return self.toks[j + 1].text == ":"
            elif t.text == "," and depth == 1:
                return True
        return False

    def simple_keyset(self) -> A.Expr:
        t = self.tok
        if self.at("default"):
            self.advance()
            return A.DefaultExpr(t.pos)
        if t.kind == "id" and t.text == "_":
            self.advance()
            return A.DontCareExpr(t.pos)
        e = self.expression()
        if self.at("&&&"):
            self.advance()
            return A.MaskExpr(t.pos, e, self.expression())
        if self.at(".."):
            self.advance()
            return A.RangeExpr(t.pos, e, self.expression())
        return e

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

    # ------------------------------------------------------------ statements
    def block(self, pos, annos=None) -> A.BlockStmt:
        self.expect("{", "to open a block")
        stmts = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, "unterminated block, expected '}'")
            try:
                stmts.append(self.statement())
            except _SyntaxError:
                self.skip_to_recovery()
        self.expect("}")
        return A.BlockStmt(pos, stmts, annos or [])

    def statement(self, in_parser: bool = False) -> A.Stmt:
        annos = self.annotations()
        t = self.tok
        pos = t.pos
        if t.kind == "op":
            if t.text == "{":
                return self.block(pos, annos)
            if t.text == ";":
                self.advance()
                return A.EmptyStmt(pos)
        if t.kind == "kw":
            k = t.text
            if k == "if":
                self.advance()
                self.expect("(")
                cond = self.expression()
                self.expect(")")
                then = self.statement()
                other = None
                if self.accept("else"):
                    other = self.statement()
                return A.IfStmt(pos, cond, then, other)
            if k == "switch":
                return self.switch_stmt()
            if k == "return":
                self.advance()
                value = None if self.at(";") else self.expression()
                self.expect(";")
                return A.ReturnStmt(pos, value)
            if k == "exit":
                self.advance()
                self.expect(";")
                return A.ExitStmt(pos)
            if k == "const":
                return self.const_decl(annos)
            if k in ("bit", "int", "varbit", "bool", "tuple") or (
                    k == "error" and self.peek().kind == "id"):
                return self.type_led_declaration(annos, top_level=False)
        if self.is_type_name(t) and self.peek().text not in (".", "(") or (
                self.is_type_name(t) and self.peek().text == "(" and self._instantiation_ahead()):
            return self.type_led_declaration(annos, top_level=False)
        if t.kind == "id" and t.text == "for" and self.peek().text == "(":
            if self._for_in_ahead():
                # p4c's BMv2 back end refuses them too (CheckUnsupported: ForInStatement)
                self.skip_for_loop()
                self.diags.error(pos, "for-in loop is not supported (BMv2 does not support "
                                      "for-in loops)")
                return A.EmptyStmt(pos)
            return self.for_stmt()
        if t.kind == "id" and t.text in ("break", "continue") and self.peek().text == ";":
            self.advance()
            self.advance()
            return A.BreakStmt(pos) if t.text == "break" else A.ContinueStmt(pos)
        # assignment or call
        lhs = self.expression()
        if self.at("="):
            self.advance()
            rhs = self.expression()
            self.expect(";")
            return A.AssignStmt(pos, lhs, rhs)
        op = self.compound_assignment()
        if op is not None:
            # `x op= e` means `x = x op e` (P4 1.2.4); the target is a side-effect-free
            # l-value, so evaluating it twice is the same as once
            import copy
            rhs = self.expression()
            self.expect(";")
            return A.AssignStmt(pos, lhs, A.BinaryExpr(t.pos, op, copy.deepcopy(lhs), rhs))
        self.expect(";")
        if not isinstance(lhs, A.MethodCallExpr):
            self.diags.error(pos, "expression statement must be a call or an assignment")
            return A.EmptyStmt(pos)
        return A.CallStmt(pos, lhs)

    COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "&=": "&", "|=": "|",
                "^=": "^", "<<=": "<<", "|+|=": "|+|", "|-|=": "|-|", "++=": "++"}

    def compound_assignment(self) -> Optional[str]:
        """The operator of a compound assignment at the current token, consumed; or None."""
        t = self.tok
        if t.kind == "op" and t.text in self.COMPOUND:
            self.advance()
            return self.COMPOUND[t.text]
        nxt = self.peek()
        if t.text == ">" and nxt.text == ">=" and nxt.pos.line == t.pos.line and \
                nxt.pos.col == t.pos.col + 1:
            self.advance()
            self.advance()
            return ">>"
        return None

    def _for_in_ahead(self) -> bool:
        """`for (T x in e)` / `for (x in e)`: an `in` before the first `;` inside the parens."""
        depth, k = 0, 1
        while True:
            t = self.peek(k)
            if t.kind == "eof":
                return False
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
                if depth == 0:
                    return False
            elif depth == 1 and t.kind == "op" and t.text == ";":
                return False
            elif depth == 1 and t.kind == "kw" and t.text == "in":
                return True
            k += 1

    def for_stmt(self) -> A.ForStmt:
        """`for (init, ...; cond; update, ...) statement` (spec 12.9)."""
        pos = self.advance().pos
        self.expect("(")
        init = self._for_list(";")
        self.expect(";")
        cond = None if self.at(";") else self.expression()
        self.expect(";")
        updates = self._for_list(")")
        self.expect(")")
        return A.ForStmt(pos, init, cond, updates, self.statement())

    def _for_list(self, end: str) -> list:
        out = []
        while not self.at(end):
            out.append(self._for_simple())
            if not self.accept(","):
                break
        return out

    def _for_simple(self) -> A.Stmt:
        """One element of a for loop's init/update list: a declaration with an initializer,
        an assignment (plain or compound) or a call, without its `;`."""
        t = self.tok
        pos = t.pos
        if (t.kind == "kw" and t.text in ("bit", "int", "varbit", "bool", "tuple")) or (
                self.is_type_name(t) and self.peek().text not in (".", "(")):
            tr = self.type_ref()
            nm = self.name("a variable name")
            init = self.expression() if self.accept("=") else None
            return A.VarDecl(pos, nm.text, tr, init)
        lhs = self.expression()
        if self.accept("="):
            return A.AssignStmt(pos, lhs, self.expression())
        op = self.compound_assignment()
        if op is not None:
            import copy
            rhs = self.expression()
            return A.AssignStmt(pos, lhs, A.BinaryExpr(t.pos, op, copy.deepcopy(lhs), rhs))
        if not isinstance(lhs, A.MethodCallExpr):
            self.diags.error(pos, "a for loop's init and update parts take declarations, "
                                  "assignments and calls")
            return A.EmptyStmt(pos)
        return A.CallStmt(pos, lhs)

    def skip_for_loop(self) -> None:
        """`for (...) stmt` (P4 1.2.5): skipped so the rest of the program is still checked."""
        self.advance()
        self._balanced("(", ")")
        if self.at("{"):
            self._balanced("{", "}")
        else:
            while not self.at(";") and self.tok.kind != "eof":
                self.advance()
            self.accept(";")

    def _instantiation_ahead(self) -> bool:
        """`T(args) name;` (instantiation) vs `T(args);` (call of a constructor: invalid)."""
        depth = 0
        j = self.i + 1
        while j < len(self.toks):
            t = self.toks[j]
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                depth -= 1
                if depth == 0:
                    return self.toks[j + 1].kind == "id"
            elif t.kind == "eof":
                return False
            j += 1
        return False

    def switch_stmt(self) -> A.SwitchStmt:
        pos = self.expect("switch").pos
        self.expect("(")
        e = self.expression()
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error(self.tok.pos, "unterminated switch")
            cpos = self.tok.pos
            if self.at("default"):
                label = A.DefaultExpr(self.advance().pos)
            else:
                label = self.expression()
            self.expect(":")
            body = None
            if self.at("{"):
                body = self.block(self.tok.pos)
            cases.append(A.SwitchCase(cpos, [label], body))
        self.expect("}")
        return A.SwitchStmt(pos, e, cases)

    # ------------------------------------------------------------ expressions
    def expression(self, min_prec: int = 0) -> A.Expr:
        left = self.unary()
        while True:
            t = self.tok
            if t.kind != "op":
                break
            op = t.text
            if op == "?" and min_prec <= TERNARY_PREC:
                self.advance()
                then = self.expression()
                self.expect(":", "in '?:'")
                other = self.expression(TERNARY_PREC)
                left = A.TernaryExpr(t.pos, left, then, other)
                continue
            if op == ">" and self._is_shift_right():
                op = ">>"
            elif op == ">" and self.peek().text == ">=" and \
                    self.peek().pos.col == t.pos.col + 1:
                break                      # `x >>= e`: a compound assignment follows
            prec = BINARY_PREC.get(op)
            if prec is None or prec < min_prec:
                break
            self.advance()
            if op == ">>":
                self.advance()
            right = self.expression(prec + 1)
            left = A.BinaryExpr(t.pos, op, left, right)
        return left

    def _is_shift_right(self) -> bool:
        a, b = self.tok, self.peek()
        return (b.kind == "op" and b.text == ">" and b.pos.line == a.pos.line
                and b.pos.col == a.pos.col + 1 and b.pos.file == a.pos.file)

    def unary(self) -> A.Expr:
        t = self.tok
        if t.kind == "op":
            if t.text in ("!", "~", "-", "+"):
                self.advance()
                operand = self.unary()
                if t.text == "-" and isinstance(operand, A.IntLit) and operand.width is None:
                    operand.value = -operand.value
                    operand.pos = t.pos
                    operand.text = "-" + operand.text
                    return operand
                return A.UnaryExpr(t.pos, t.text, operand)
            if t.text == "(" and self._is_cast():
                self.advance()
                tr = self.type_ref()
                self.expect(")")
                return A.CastExpr(t.pos, tr, self.unary())
        return self.postfix(self.primary())

    def _is_cast(self) -> bool:
        nxt = self.peek()
        if nxt.kind == "kw" and nxt.text in ("bit", "int", "varbit", "bool", "tuple"):
            return True
        if self.is_type_name(nxt) and self.peek(2).text in (")", "<", "["):
            return True
        return False

    def primary(self) -> A.Expr:
        t = self.tok
        pos = t.pos
        k = t.kind
        if k == "int":
            self.advance()
            v, w, s = t.value
            return A.IntLit(pos, v, w, s, t.text)
        if k == "id":
            self.advance()
            if t.text == "_":
                return A.DontCareExpr(pos)
            return A.PathExpr(pos, t.text)
        if k == "str":
            self.advance()
            return A.StringLit(pos, t.value)
        if k == "kw":
            if t.text in ("true", "false"):
                self.advance()
                return A.BoolLit(pos, t.text == "true")
            if t.text in ("error", "apply", "state", "key", "entries", "actions", "type",
                          "priority", "list"):
                self.advance()
                return A.PathExpr(pos, t.text)
            if t.text in ("bit", "int", "varbit", "bool"):
                tr = self.type_ref()
                return A.TypeNameExpr(pos, tr)
        if k == "op":
            if t.text == "(":
                self.advance()
                e = self.expression()
                self.expect(")")
                return e
            if t.text == "{":
                return self.brace_expression()
            if t.text == "." and self.peek().kind == "id":
                self.advance()
                nm = self.advance()
                return A.PathExpr(pos, nm.text, True)
        self.error(pos, f"expected an expression, found {self._describe(t)}")

    def brace_expression(self) -> A.Expr:
        pos = self.expect("{").pos
        if self.accept("}"):
            return A.ListExpr(pos, [])
        if self.tok.kind == "id" and self.peek().text == "=" and self.peek(2).text != "=":
            fields = []
            while not self.at("}"):
                nm = self.name("a field name")
                self.expect("=")
                fields.append((nm.text, self.expression()))
                if not self.accept(","):
                    break
            self.expect("}")
            return A.StructInitExpr(pos, fields)
        items = [self.expression()]
        while self.accept(","):
            if self.at("}"):
                break
            items.append(self.expression())
        self.expect("}")
        return A.ListExpr(pos, items)

    def postfix(self, e: A.Expr) -> A.Expr:
        while True:
            t = self.tok
            if t.kind != "op":
                return e
            if t.text == ".":
                self.advance()
                nm = self.name("a member name")
                e = A.MemberExpr(e.pos, e, nm.text, member_pos=nm.pos)
            elif t.text == "[":
                self.advance()
                first = self.expression()
                if self.accept(":"):
                    lo = self.expression()
                    self.expect("]")
                    e = A.SliceExpr(e.pos, e, first, lo)
                elif self.accept("+:"):              # e[L +: W] (spec 1.2.5)
                    width = self.expression()
                    self.expect("]")
                    e = A.SliceExpr(e.pos, e, width, first, plus=True)
                else:
                    self.expect("]")
                    e = A.IndexExpr(e.pos, e, first)
            elif t.text == "(":
                args = self.arguments()
                e = A.MethodCallExpr(e.pos, e, [], args)
            elif t.text == "<" and self._generic_call_ahead():
                self.advance()
                targs = self.type_arg_list()
                self.expect_close_angle()
                args = self.arguments()
                e = A.MethodCallExpr(e.pos, e, targs, args)
            else:
                return e

    def _generic_call_ahead(self) -> bool:
        """At '<': is this `f<types>(`? Try to parse type arguments without reporting."""
        if not self.starts_type(self.peek()):
            return False
        save_i, save_items = self.i, len(self.diags.items)
        try:
            self.advance()
            self.type_arg_list()
            ok = self.at(">") and self.peek().text == "("
        except (_SyntaxError, CompileError):
            ok = False
        self.i = save_i
        del self.diags.items[save_items:]
        return ok

    def arguments(self) -> list:
        self.expect("(")
        args = []
        if self.accept(")"):
            return args
        while True:
            t = self.tok
            if t.kind == "id" and self.peek().text == "=" and self.peek(2).text != "=":
                self.advance()
                self.advance()
                args.append(A.Argument(t.pos, t.text, self.expression()))
            else:
                args.append(self.expression())
            if not self.accept(","):
                break
        self.expect(")")
        return args
