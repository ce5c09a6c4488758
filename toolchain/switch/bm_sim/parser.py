"""Parser compilation (JSON "parsers"): one generated Python function per parse state.

Semantics follow BMv2 (``src/bm_sim/parser.cpp``) as simple_switch runs it:

* ``extract`` past the end of the packet raises ``PacketTooShort``; extracting into a full
  header stack or header union stack (``.next``) raises ``StackOutOfBounds``; ``verify``
  raises its error.
* An extract into a header union stack (``{"type": "union_stack", "value": [stack, member]}``,
  BMv2's ParserOpExtractUnionStack) fills that member of the next union, which makes its
  siblings invalid as any union member's extract does, and advances the stack's next index.
  A ``union_stack_field`` transition key reads the member's field in the last union
  extracted (``stack_field`` does the same for a header stack); before any extract there is
  no last element: BMv2 asserts, this target ends the parse with ``StackOutOfBounds``.
* On an error the parser stops. Headers extracted before stay valid, the header being
  extracted does not, and the packet's payload is everything from the current offset on;
  the packet still goes through ingress with ``standard_metadata.parser_error`` set.
* ``select`` keys are built by concatenating each key component padded to whole bytes,
  which is how p4c writes the transition values and masks (``0x0506`` for ``(ihl, proto)``).
"""

from __future__ import annotations

import struct

from ..errors import LoadError
from .codegen import CodeGen, FunctionBuilder
from .expressions import ExprCompiler
from .phv import HeaderInfo, Layout

__all__ = ["ParserError", "ParserCompiler", "DEFAULT_ERRORS", "varbit_layout", "byte_chunks", "struct_codes"]

DEFAULT_ERRORS = {"NoError": 0, "PacketTooShort": 1, "NoMatch": 2, "StackOutOfBounds": 3,
                  "HeaderTooShort": 4, "ParserTimeout": 5, "ParserInvalidArgument": 6}

PARSER_OPS = {"extract", "set", "verify", "shift", "advance", "primitive"}
# A parser that loops without consuming bytes (lookahead only) would never stop; after this many
# state visits the parse ends with ParserTimeout (BMv2 has no such guard; it would hang).
MAX_PARSER_STATES = 10_000


class ParserError(Exception):
    """Raised by generated parser code; carries the error code and the offset reached."""

    def __init__(self, code: int, off: int):
        self.code = code
        self.off = off


def byte_chunks(h: HeaderInfo) -> list[list[tuple[int, int]]]:
    """The header's fields grouped into runs that end on byte boundaries: [[(index, width)]]."""
    chunks, cur, bits = [], [], 0
    for k, _, w, _ in h.packet_fields:
        cur.append((k, w))
        bits += w
        if bits % 8 == 0:
            chunks.append(cur)
            cur, bits = [], 0
    return chunks


def _split_chunk(chunk, value: str, width: int, slot) -> list[str]:
    """Statements storing each field of a chunk whose bits are in ``value`` (``width`` bits)."""
    out, shift = [], width
    for k, w in chunk:
        shift -= w
        src = f"{value} >> {shift}" if shift else value
        if shift + w < width:                  # not the topmost field: mask the high bits off
            src = f"({src}) & {(1 << w) - 1}"
        out.append(f"F[{slot(k)}] = {src}")
    return out


def struct_codes(nbytes: int) -> list[tuple[str, int]]:
    """struct codes covering ``nbytes`` bytes, widest first: 6 -> I H, 3 -> H B, 16 -> Q Q."""
    out = []
    for code, size in (("Q", 8), ("I", 4), ("H", 2), ("B", 1)):
        while nbytes >= size:
            out.append((code, size))
            nbytes -= size
    return out


def varbit_layout(h: HeaderInfo, length: str) -> list[tuple[int, str, str]]:
    """(field index, shift source, mask source) of each wire field of a header with a varbit
    field whose current length in bits is the Python expression ``length``."""
    out, after = [], 0
    for k, _, width, _ in reversed(h.packet_fields):
        if k == h.varbit:
            out.append((k, str(after), f"((1 << {length}) - 1)"))
            after = f"{after} + {length}"
        else:
            out.append((k, str(after), str((1 << width) - 1)))
            after = f"{after} + {width}" if isinstance(after, str) else after + width
    return list(reversed(out))


class ParserCompiler:
    def __init__(self, layout: Layout, gen: CodeGen, expr: ExprCompiler, errors: dict[str, int],
                 emit_primitive):
        self.layout, self.gen, self.expr = layout, gen, expr
        self.errors = errors
        self.emit_primitive = emit_primitive   # callable(prim_json) -> list[str] (parser context)
        self.state_names: dict[str, str] = {}   # state name -> its number in the dispatch loop
        self.vsets: set[str] = set()

    def error_code(self, name: str) -> int:
        return self.errors.get(name, DEFAULT_ERRORS.get(name, 0))

    # -- whole parser -----------------------------------------------------------------------------
    def compile(self, p: dict, fname: str) -> None:
        """``fname(F, data, P) -> payload offset``: one function, states dispatched by number
        in a loop (a Python call per state would cost more).

        Two things keep the dispatch cheap, without changing what the parser does:

        * the loop tests the state number with a binary tree of ``if st < k`` instead of a
          chain of ``if st == k`` (an Ethernet/IPv4/TCP parse of the gateway program went
          through 35 comparisons);
        * in a parser without cycles, a state that exactly one transition leads to is written
          in place of that transition, so a chain of states runs without going round the loop.
          Without cycles a parse visits each state at most once, so the ParserTimeout guard
          (MAX_PARSER_STATES visits) can never fire and counting loop turns instead of state
          visits changes nothing; parsers with cycles keep one loop turn per state.
        """
        states = p["parse_states"]
        for k, st in enumerate(states):
            self.state_names[st["name"]] = str(k)
        init = p.get("init_state")
        fb = FunctionBuilder(f"{fname}(F, data, P)")
        fb.emit("n = len(data)")
        fb.emit("off = 0")
        if init is None:
            fb.emit("return 0")
            self.gen.add(fb)
            return
        self._states = states
        self._inline_ok = self._inlinable(states, init)
        # the states the loop dispatches; the list grows while bodies are generated when a
        # chain is too deep to inline further
        self._loop_states = [int(self.state_names[init])] + [
            k for k in range(len(states)) if not self._inline_ok[k]]
        bodies: dict[int, list[str]] = {}
        for k in self._loop_states:
            if k not in bodies:
                bodies[k] = self._state_body(fb, k)
        first = int(self.state_names[init])
        fb.emit(f"st = {first}")
        fb.emit("try:")
        fb.emit(f"    for _ in range({MAX_PARSER_STATES}):")
        fb.depth += 2
        others = sorted(k for k in bodies if k != first)
        if others:
            fb.emit(f"if st == {first}:")
            fb.indent()
            fb.emit_all(bodies[first])
            fb.dedent()
            fb.emit("else:")
            fb.indent()
            self._dispatch(fb, others, bodies)
            fb.dedent()
        else:
            fb.emit_all(bodies[first])
        fb.depth -= 2
        fb.emit("    else:")
        fb.emit(f"        raise _PErr({self.error_code('ParserTimeout')}, off)")
        fb.emit("except _PErr as e:")
        if self.layout.has_field("standard_metadata", "parser_error"):
            fb.emit(f"    F[{self.layout.slot('standard_metadata', 'parser_error')}] = e.code")
        fb.emit("    off = e.off")
        fb.emit("return off")
        self.gen.add(fb)

    # Python refuses source nested deeper than 100 blocks: a longer chain of inlined states goes
    # back through the loop instead
    MAX_INLINE_DEPTH = 24

    def _inlinable(self, states: list, init: str) -> list[bool]:
        """Per state: may it be written in place of the one transition that leads to it?
        Only in a parser without cycles, and not the initial state."""
        preds = [0] * len(states)
        succ: list[list[int]] = []
        for st in states:
            out = []
            for t in st.get("transitions", []):
                nxt = t.get("next_state")
                if nxt:
                    k = self.state_names.get(nxt)
                    if k is None:
                        raise LoadError(f"parser transition to unknown state {nxt!r}")
                    out.append(int(k))
                    preds[int(k)] += 1
            succ.append(out)
        if _has_cycle(succ):
            return [False] * len(states)
        first = int(self.state_names[init])
        return [preds[k] == 1 and k != first for k in range(len(states))]

    def _state_body(self, fb: FunctionBuilder, k: int, depth: int = 0) -> list[str]:
        """The lines of state ``k`` (its ops, then its transitions with any inlined states),
        indented from 0; temporaries are numbered by ``fb`` so names stay unique."""
        sub = fb.sub()
        st = self._states[k]
        for op in st.get("parser_ops", []):
            self._op(sub, op)
        self._transition(sub, st, fb, depth)
        return sub.lines

    def _dispatch(self, fb: FunctionBuilder, ks: list[int], bodies: dict[int, list[str]]) -> None:
        """A binary tree of comparisons over the (sorted) state numbers ``ks``: only those are
        ever assigned to ``st``, so a single remaining candidate needs no test."""
        if len(ks) == 1:
            fb.emit_all(bodies[ks[0]])
            return
        mid = len(ks) // 2
        fb.emit(f"if st < {ks[mid]}:")
        fb.indent()
        self._dispatch(fb, ks[:mid], bodies)
        fb.dedent()
        fb.emit("else:")
        fb.indent()
        self._dispatch(fb, ks[mid:], bodies)
        fb.dedent()

    def _goto(self, next_state: str | None) -> str:
        if not next_state:
            return "break"
        k = self.state_names.get(next_state)
        if k is None:
            raise LoadError(f"parser transition to unknown state {next_state!r}")
        return f"st = {k}; continue"

    def _emit_goto(self, sub: FunctionBuilder, next_state: str | None, fb: FunctionBuilder,
                   depth: int) -> None:
        """Go to ``next_state``: its body in place when it may be inlined, else through the
        loop (then it becomes one of the loop's states)."""
        if next_state:
            k = self.state_names.get(next_state)
            if k is not None and self._inline_ok[int(k)]:
                if depth < self.MAX_INLINE_DEPTH:
                    sub.emit_all(self._state_body(fb, int(k), depth + 1))
                    return
                self._inline_ok[int(k)] = False
                self._loop_states.append(int(k))
        sub.emit(self._goto(next_state))

    # -- parser ops -------------------------------------------------------------------------------
    def _op(self, fb: FunctionBuilder, op: dict) -> None:
        name = op.get("op")
        params = op.get("parameters", [])
        if name == "extract":
            self._extract(fb, params[0])
        elif name == "extract_VL":
            self._extract_vl(fb, params[0], params[1])
        elif name == "set":
            src = params[1]
            if self._is_varbit_field(params[0]):
                self._set_varbit(fb, params[0], src)
                return
            if src.get("type") == "lookahead":
                code = self._lookahead(fb, src["value"][0], src["value"][1])
            else:
                code = self.expr.value(src)
            fb.emit(self.expr.assign(params[0], code, params=False))
        elif name == "verify":
            cond = self.expr.value(params[0])
            if type(params[1]) is int:          # an error code as a plain integer (older JSON)
                if params[1] not in self.errors.values():
                    raise LoadError(f"Invalid error code {params[1]} in verify statement")
                err = str(params[1])
            else:
                err = self.expr.value(params[1])
            fb.emit(f"if not ({cond}): raise _PErr({err}, off)")
        elif name == "shift":
            # BMv2 reads the byte count as a plain integer; a hexstr is accepted too
            n = params[0] if type(params[0]) is int else int(params[0]["value"], 16)
            if n < 0:
                raise LoadError(f"parser op 'shift' by {n} bytes")
            self._advance_bytes(fb, str(n))
        elif name == "advance":
            bits = fb.tmp("adv")
            fb.emit(f"{bits} = {self.expr.value(params[0])}")
            # a negative count cannot move back (BMv2 reads it unsigned: far past the end)
            fb.emit(f"if {bits} < 0: raise _PErr({self.error_code('PacketTooShort')}, off)")
            self._advance_bytes(fb, f"({bits} >> 3)")
        elif name == "primitive":
            fb.emit_all(self.emit_primitive(params[0]))
        else:
            raise LoadError(f"unsupported parser op {name!r}")

    def _is_varbit_field(self, operand: dict) -> bool:
        if operand.get("type") != "field":
            return False
        h = self.layout.header(operand["value"][0])
        return h.varbit is not None and h.fields[h.varbit][0] == operand["value"][1]

    def _set_varbit(self, fb: FunctionBuilder, dst: dict, src: dict) -> None:
        """A varbit destination takes the source varbit's value and current length (BMv2's
        ParserOpSet<field_t> uses assign_VL when the destination is variable-length)."""
        if not self._is_varbit_field(src):
            raise LoadError(f"parser set of varbit field {'.'.join(dst['value'])} "
                            "from something other than a varbit field")
        d, s = self.layout.header(dst["value"][0]), self.layout.header(src["value"][0])
        fb.emit(f"F[{self.layout.slot(*dst['value'])}] = F[{self.layout.slot(*src['value'])}]")
        fb.emit(f"F[{d.len_slot}] = F[{s.len_slot}]")

    def _advance_bytes(self, fb: FunctionBuilder, nbytes: str) -> None:
        e = fb.tmp("e")
        fb.emit(f"{e} = off + {nbytes}")
        fb.emit(f"if {e} > n: raise _PErr({self.error_code('PacketTooShort')}, off)")
        fb.emit(f"off = {e}")

    def _extract(self, fb: FunctionBuilder, target: dict) -> None:
        t, v = target.get("type"), target.get("value")
        if t == "regular":
            h = self.layout.header(v)
            self._check_extractable(h)
            self._extract_into(fb, h, str(h.base))
            fb.emit(f"F[{h.valid_slot}] = 1")
            for v in h.union_siblings:      # a union holds at most one valid member
                fb.emit(f"F[{v}] = 0")
        elif t in ("stack", "union_stack"):
            h0, b, done = self._next_element(fb, t, v)
            self._check_extractable(h0)
            self._extract_into(fb, h0, b)
            fb.emit(f"F[{b} + {len(h0.fields)}] = 1")
            fb.emit_all(done)
        else:
            raise LoadError(f"unsupported extract target type {t!r}")

    def _next_elements(self, t: str, v) -> tuple[list[HeaderInfo], int, str]:
        """The headers an extract into the next element of a header stack (``stack``) or of
        a header union stack (``union_stack``, ``[stack, member]``) may fill, element 0
        first; the stack's next-index slot; its description for errors."""
        if t == "stack":
            st = self.layout.stack(v)
            elements, next_slot, what = st.elements, st.next_slot, f"header stack {v!r}"
        else:
            if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)):
                raise LoadError(f"a union_stack extract is [stack, member], got {v!r}")
            us = self.layout.union_stack(v[0])
            elements, next_slot, what = us.member_elements(v[1]), us.next_slot, \
                f"header union stack {v[0]!r}"
        if not elements:
            raise LoadError(f"{what} has no elements")
        return elements, next_slot, what

    def _next_element(self, fb: FunctionBuilder, t: str, v) -> tuple[HeaderInfo, str, list[str]]:
        """Emit the bound check of an extract into the next element (a full stack is
        StackOutOfBounds before anything is read, as BMv2's is_full test); returns the layout
        every element shares (element 0's), the element's base slot (source) and the lines
        that finish the extract:
        a union member's siblings made invalid, then the next index advanced (BMv2's
        push_back, after the header was extracted)."""
        elements, next_slot, _ = self._next_elements(t, v)
        bases = self.gen.const(tuple(h.base for h in elements), "S")
        i, b = fb.tmp("i"), fb.tmp("b")
        fb.emit(f"{i} = F[{next_slot}]")
        full = self.error_code('StackOutOfBounds')
        fb.emit(f"if {i} >= {len(elements)}: raise _PErr({full}, off)")
        fb.emit(f"{b} = {bases}[{i}]")
        done = []
        if any(h.union_siblings for h in elements):
            sibs = self.gen.const(tuple(h.union_siblings for h in elements), "SIB")
            s = fb.tmp("s")
            done.append(f"for {s} in {sibs}[{i}]: F[{s}] = 0")
        done.append(f"F[{next_slot}] = {i} + 1")
        return elements[0], b, done

    def _check_extractable(self, h: HeaderInfo) -> None:
        if h.varbit is not None:
            raise LoadError(f"header {h.name!r} has a varbit field: extract it with 'extract_VL'")
        if h.nbits % 8:
            raise LoadError(f"header {h.name!r} is {h.nbits} bits, not a whole number of bytes (extract)")

    def _extract_into(self, fb: FunctionBuilder, h: HeaderInfo, base: str) -> None:
        nb = h.nbytes
        e, v = fb.tmp("e"), fb.tmp("v")
        fb.emit(f"{e} = off + {nb}")
        fb.emit(f"if {e} > n: raise _PErr({self.error_code('PacketTooShort')}, off)")
        if nb <= 256:
            self._extract_struct(fb, h, base)
            fb.emit(f"off = {e}")
            return
        fb.emit(f"{v} = int.from_bytes(data[off:{e}], 'big')")
        shift = h.nbits
        for k, _, width, _ in h.packet_fields:
            shift -= width
            slot = f"{int(base) + k}" if base.isdigit() else f"{base} + {k}"
            src = f"{v} >> {shift}" if shift else v
            if k:
                src = f"({src}) & {(1 << width) - 1}"
            fb.emit(f"F[{slot}] = {src}")
        fb.emit(f"off = {e}")

    def _extract_struct(self, fb: FunctionBuilder, h: HeaderInfo, base: str) -> None:
        """Unpack the header with one precompiled ``struct`` call straight into its F slots.

        Fields are grouped into chunks that end on byte boundaries; a chunk that is one field
        of 1, 2, 4 or 8 bytes lands in its slot directly, other chunks are unpacked into
        temporaries and split with shifts (several times faster than shifting one big int).
        """
        slot = (lambda k: str(int(base) + k)) if base.isdigit() else (lambda k: f"{base} + {k}")
        fmt, targets, post = "!", [], []
        for chunk in byte_chunks(h):
            nbytes = sum(w for _, w in chunk) // 8
            codes = struct_codes(nbytes)
            fmt += "".join(c for c, _ in codes)
            if len(chunk) == 1 and len(codes) == 1:
                targets.append(f"F[{slot(chunk[0][0])}]")
                continue
            temps = [fb.tmp("c") for _ in codes]
            targets += temps
            value, width = temps[0], codes[0][1] * 8
            for t, (_, size) in zip(temps[1:], codes[1:]):
                value, width = f"({value} << {size * 8} | {t})", width + size * 8
            if len(temps) > 1:
                if len(chunk) == 1:
                    post.append(f"F[{slot(chunk[0][0])}] = {value}")
                    continue
                post.append(f"{temps[0]} = {value}")
                value = temps[0]
            post += _split_chunk(chunk, value, width, slot)
        if not targets:     # a header without fields (`header h_t {}`): nothing to unpack
            return
        unpack = self.gen.const(struct.Struct(fmt).unpack_from, "U")
        target = targets[0] + "," if len(targets) == 1 else ", ".join(targets)
        fb.emit(f"{target} = {unpack}(data, off)")
        fb.emit_all(post)

    def _extract_vl(self, fb: FunctionBuilder, target: dict, length) -> None:
        """extract(hdr, bits): the varbit field takes ``bits`` bits (at most its maximum,
        else HeaderTooShort; a total that is not whole bytes is ParserInvalidArgument).
        Into a header or the next element of a header stack or header union stack (BMv2's
        ParseState add_extract_VL / add_extract_to_stack_VL / add_extract_to_union_stack_VL:
        a full stack is StackOutOfBounds first)."""
        t, name = target.get("type"), target.get("value")
        if t == "regular":
            h = self.layout.header(name)
            base, done = str(h.base), [f"F[{v}] = 0" for v in h.union_siblings]
        elif t in ("stack", "union_stack"):
            h, base, done = self._next_element(fb, t, name)
        else:
            raise LoadError(f"unsupported extract_VL target type {t!r}")
        if h.varbit is None:
            raise LoadError(f"extract_VL of header {h.name!r}, which has no varbit field")
        at = (lambda k: str(int(base) + k)) if base.isdigit() else (lambda k: f"{base} + {k}")
        vmax = h.fields[h.varbit][1]
        L, e, v = fb.tmp("L"), fb.tmp("e"), fb.tmp("v")
        fb.emit(f"{L} = {self.expr.value(length)}")
        fb.emit(f"if {L} < 0 or {L} > {vmax}: raise _PErr({self.error_code('HeaderTooShort')}, off)")
        fb.emit(f"if ({L} + {h.nbits}) % 8: raise _PErr({self.error_code('ParserInvalidArgument')}, off)")
        fb.emit(f"{e} = off + ({L} + {h.nbits}) // 8")
        fb.emit(f"if {e} > n: raise _PErr({self.error_code('PacketTooShort')}, off)")
        fb.emit(f"{v} = int.from_bytes(data[off:{e}], 'big')")
        for k, shift, width in varbit_layout(h, L):
            fb.emit(f"F[{at(k)}] = ({v} >> ({shift})) & {width}")
        fb.emit(f"F[{at(h.len_slot - h.base)}] = {L}")
        fb.emit(f"F[{at(h.valid_slot - h.base)}] = 1")
        fb.emit_all(done)        # union siblings invalid; a stack's next index advanced
        fb.emit(f"off = {e}")

    def _lookahead(self, fb: FunctionBuilder, bit_off: int, width: int) -> str:
        a, b = bit_off // 8, (bit_off + width + 7) // 8
        rshift = b * 8 - bit_off - width
        fb.emit(f"if off + {b} > n: raise _PErr({self.error_code('PacketTooShort')}, off)")
        src = f"int.from_bytes(data[off + {a}:off + {b}], 'big')"
        if rshift:
            src = f"({src} >> {rshift})"
        return f"({src} & {(1 << width) - 1})"

    # -- transitions ------------------------------------------------------------------------------
    def _key(self, fb: FunctionBuilder, key: list) -> str:
        parts: list[tuple[str, int]] = []
        for k in key:
            t, v = k.get("type"), k.get("value")
            if t == "field":
                slot = self.layout.slot(v[0], v[1])
                parts.append((f"F[{slot}]", self.layout.widths[slot]))
            elif t == "stack_field":
                st = self.layout.stack(v[0])
                parts.append(self._last_field(fb, st.elements, st.next_slot, v[1],
                                              f"header stack {v[0]!r}"))
            elif t == "union_stack_field":
                # [union stack, member, field]: the field of that member of the last union
                # extracted (BMv2: get_last().at(member offset).get_field(offset))
                if not (isinstance(v, list) and len(v) == 3):
                    raise LoadError(f"union_stack_field value is [stack, member, field], got {v!r}")
                us = self.layout.union_stack(v[0])
                parts.append(self._last_field(fb, us.member_elements(v[1]), us.next_slot, v[2],
                                              f"header union stack {v[0]!r}"))
            elif t == "lookahead":
                parts.append((self._lookahead(fb, v[0], v[1]), v[1]))
            elif t == "expression":
                # p4c gives no width for expression keys; it uses them for values of <= 32 bits
                parts.append((self.expr.value(k), int(k.get("bitwidth", 32))))
            else:
                raise LoadError(f"unsupported parser transition key type {t!r}")
        code, total = None, 0
        for src, width in reversed(parts):
            nbits = (width + 7) // 8 * 8
            code = src if code is None else f"({src} << {total}) | {code}"
            total += nbits
        return code or "0"

    def _last_field(self, fb: FunctionBuilder, elements: list[HeaderInfo], next_slot: int,
                    fname: str, what: str) -> tuple[str, int]:
        """(source, width) of field ``fname`` of the last extracted element (index next - 1);
        an empty stack has none: StackOutOfBounds."""
        if not elements:
            raise LoadError(f"{what} has no elements")
        h0 = elements[0]
        try:
            off = h0.field_offset(fname)
        except KeyError:
            raise LoadError(f"{what}: header type {h0.type_name!r} has no field "
                            f"{fname!r}") from None
        width = h0.fields[off][1] if off < len(h0.fields) else 1     # $valid$: 1 bit
        bases = self.gen.const(tuple(h.base for h in elements), "S")
        idx = fb.tmp("li")
        fb.emit(f"{idx} = F[{next_slot}] - 1")
        fb.emit(f"if {idx} < 0: raise _PErr({self.error_code('StackOutOfBounds')}, off)")
        return f"F[{bases}[{idx}] + {off}]", width

    def _transition(self, fb: FunctionBuilder, st: dict, top: FunctionBuilder | None = None,
                    depth: int = 0) -> None:
        """The state's select: each matching case goes to its next state (``_emit_goto``)."""
        top = top or fb
        trans = st.get("transitions", [])
        key = st.get("transition_key", [])
        k = None
        if key and any(t.get("type") != "default" for t in trans):
            k = fb.tmp("k")
            fb.emit(f"{k} = {self._key(fb, key)}")
        for t in trans:
            nxt = t.get("next_state")
            ttype = t.get("type")
            if ttype is None:
                # JSON written by p4c before format 2.23 omits "type": "default" is the value
                ttype = "default" if t.get("value") == "default" else "hexstr"
            if ttype == "default":
                self._emit_goto(fb, nxt, top, depth)
                return
            if ttype == "hexstr":
                self._check_case_width(st, key, t)
                val = int(t["value"], 16)
                mask = t.get("mask")
                cond = f"({k} & {int(mask, 16)}) == {val & int(mask, 16)}" if mask else f"{k} == {val}"
            elif ttype == "parse_vset":
                if not key:
                    raise LoadError(f"parser state {st.get('name')!r}: a value set case without "
                                    "a transition key")
                vs = self.gen.const(t["value"], "vsname")
                self.vsets.add(t["value"])
                mask = t.get("mask")
                kk = f"({k} & {int(mask, 16)})" if mask else k
                cond = f"{kk} in _VSETS[{vs}]"
            else:
                raise LoadError(f"unsupported parser transition type {ttype!r}")
            fb.emit(f"if {cond}:")
            fb.indent()
            self._emit_goto(fb, nxt, top, depth)
            fb.dedent()
        # no transition matched: NoMatch error (p4c always emits a default; this is a safeguard)
        fb.emit(f"raise _PErr({self.error_code('NoMatch')}, off)")

    def _check_case_width(self, st: dict, key: list, t: dict) -> None:
        """A case's value (and mask) has the key's size in bytes, each key component padded
        to whole bytes, as BMv2 requires (P4Objects::init_parsers: "Parser transition value
        has incorrect width"); a state without a key has no case but the default."""
        want = sum((w + 7) // 8 for w in self._key_widths(key))
        for what in ("value", "mask"):
            text = t.get(what)
            if text is not None and _hex_bytes(text) != want:
                raise LoadError(f"parser state {st.get('name')!r}: Parser transition {what} has "
                                f"incorrect width, expected width is {want} bytes but actual "
                                f"width is {_hex_bytes(text)} bytes")

    def _key_widths(self, key: list) -> list[int]:
        """The bit width of each component of a transition key (as _key reads them)."""
        out = []
        for k in key:
            t, v = k.get("type"), k.get("value")
            if t == "field":
                out.append(self.layout.widths[self.layout.slot(v[0], v[1])])
            elif t in ("stack_field", "union_stack_field"):
                if t == "stack_field":
                    elements = self.layout.stack(v[0]).elements
                else:
                    elements = self.layout.union_stack(v[0]).member_elements(v[1])
                h0 = elements[0] if elements else None
                fname = v[-1]
                if h0 is None or fname not in [f[0] for f in h0.fields] + ["$valid$"]:
                    out.append(0)          # refused with its own message by _key
                else:
                    off = h0.field_offset(fname)
                    out.append(h0.fields[off][1] if off < len(h0.fields) else 1)
            elif t == "lookahead":
                out.append(v[1])
            else:
                out.append(int(k.get("bitwidth", 32)))
        return out


def _hex_bytes(text: str) -> int:
    """Bytes of BMv2's ByteContainer built from hex string ``text`` (an odd number of digits
    gets a leading zero)."""
    digits = len(text) - (2 if text[:2] in ("0x", "0X") else 0)
    return (digits + 1) // 2


def _has_cycle(succ: list[list[int]]) -> bool:
    """Does the directed graph (successor lists) have a cycle? Iterative three-colour DFS."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = [WHITE] * len(succ)
    for root in range(len(succ)):
        if colour[root] != WHITE:
            continue
        colour[root] = GREY
        stack = [(root, iter(succ[root]))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if colour[nxt] == GREY:
                    return True
                if colour[nxt] == WHITE:
                    colour[nxt] = GREY
                    stack.append((nxt, iter(succ[nxt])))
                    break
            else:
                colour[node] = BLACK
                stack.pop()
    return False
