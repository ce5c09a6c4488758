"""Header types and instances, stacks, unions, aliases, enums, errors, extern instances,
value sets, calculations, counters, meters, registers, field lists and learn lists
(init_objects, in the loader's order)."""
from __future__ import annotations

from .reader import HeaderTypeInfo, JsonReader
from .vocabulary import CUSTOM_CRC, HASH_ALGORITHMS, MAX_MINOR_VERSION, REQUIRED_MAJOR_VERSION


class ObjectRules(JsonReader):
    def version(self) -> None:
        """check_json_version: __meta__.version, when present, is [2, minor <= 24]."""
        meta = self.doc.get("__meta__")
        if meta is None or "version" not in meta:
            return
        version = meta["version"]
        if not isinstance(version, list) or len(version) != 2:
            self.bad("__meta__.version", "must be a JSON array of size 2")
            return
        major, minor = version
        if major != REQUIRED_MAJOR_VERSION:
            self.bad("__meta__.version", f"major version {major}, the loader requires "
                                         f"{REQUIRED_MAJOR_VERSION}")
        if not isinstance(minor, int) or minor > MAX_MINOR_VERSION:
            self.bad("__meta__.version", f"minor version {minor!r}, the newest supported is "
                                         f"{MAX_MINOR_VERSION}")

    def enums(self) -> None:
        """init_enums: EnumMap rejects a repeated enum name, entry name or entry value."""
        names = set()
        for i, enum in enumerate(self.items(self.doc, "enums", "$")):
            path = f"enums[{i}]"
            name = self.string(enum, "name", path)
            if name in names:
                self.bad(path, f"enum {name!r} declared twice")
            names.add(name)
            entry_names, values = set(), set()
            for j, entry in enumerate(self.items(enum, "entries", path)):
                if (not isinstance(entry, list) or len(entry) != 2
                        or not isinstance(entry[0], str) or not isinstance(entry[1], int)):
                    self.bad(f"{path}.entries[{j}]", f"an entry is [name, int], got {entry!r}")
                    continue
                if entry[0] in entry_names or entry[1] in values:
                    self.bad(f"{path}.entries[{j}]", "repeated enum entry name or value")
                entry_names.add(entry[0])
                values.add(entry[1])

    def header_types(self) -> None:
        """init_header_types, and HeaderType::push_back_field / push_back_VL_field."""
        for path, t in self.named_objects("header_types", "header type"):
            fields, total, var_length = {}, 0, 0
            for j, f in enumerate(self.items(t, "fields", path)):
                fpath = f"{path}.fields[{j}]"
                if (not isinstance(f, list) or not 2 <= len(f) <= 4
                        or not isinstance(f[0], str)):
                    self.bad(fpath, f"a field is [name, width(, signed(, saturating))], got {f!r}")
                    continue
                name, width = f[0], f[1]
                signed = len(f) > 2 and f[2]
                if len(f) > 2 and not isinstance(f[2], bool):
                    self.bad(fpath, "the signedness flag must be true or false")
                if name in fields or name == "$valid$":
                    # get_field_offset returns the first match: the second is unreachable
                    self.bad(fpath, f"field name {name!r} repeated (or the hidden $valid$)")
                if width == "*":
                    var_length += 1
                elif isinstance(width, bool) or not isinstance(width, int) or width <= 0:
                    self.bad(fpath, f"field width must be a positive integer or \"*\", "
                                    f"got {width!r}")
                    continue
                else:
                    total += width
                    if signed and width < 2:   # JSON_format.md header_types
                        self.bad(fpath, "a signed field needs a bitwidth of at least 2")
                fields[name] = (width, bool(signed))
            if var_length > 1:   # assert in push_back_VL_field
                self.bad(path, "a header type has at most one variable-length field")
            if var_length == 0 and total % 8:
                # headers are extracted/emitted in whole bytes; p4c pads metadata types
                # with `_padding` fields to keep every type byte-aligned
                self.bad(path, f"fields add up to {total} bits, not a whole number of bytes")
            if t.get("name") is not None:
                self.ctx.header_types[t["name"]] = HeaderTypeInfo(fields)

    def headers(self) -> None:
        """init_headers: header type must exist; metadata is a bool."""
        for path, h in self.named_objects("headers", "header", dense=True):
            type_name = self.string(h, "header_type", path)
            if type_name is not None and type_name not in self.ctx.header_types:
                self.bad(path, f"invalid reference to header type {type_name!r}")
            self.boolean(h, "metadata", path)      # asBool(): absent means false
            if h.get("name") is not None:
                self.ctx.headers[h["name"]] = (type_name, bool(h.get("metadata")))
                self.ctx.header_ids[h.get("id")] = h["name"]

    def header_stacks(self) -> None:
        """init_header_stacks: members are header ids of the stack's type, in order."""
        members_seen = set()
        for path, s in self.named_objects("header_stacks", "header stack", dense=True):
            type_name = self.string(s, "header_type", path)
            if type_name is not None and type_name not in self.ctx.header_types:
                self.bad(path, f"invalid reference to header type {type_name!r}")
            ids = self.items(s, "header_ids", path)
            if not ids:
                self.bad(path, "a header stack needs at least one element")
            if "size" in s and s["size"] != len(ids):
                self.bad(path, f"size {s['size']} but {len(ids)} header_ids")
            for hid in ids:
                name = self.ctx.header_ids.get(hid)
                if name is None:
                    self.bad(path, f"header id {hid!r} does not exist")
                elif self.ctx.headers[name][0] != type_name:
                    self.bad(path, f"element '{name}' is not of type {type_name!r}")
                if hid in members_seen:
                    self.bad(path, f"header id {hid} belongs to two stacks")
                members_seen.add(hid)
            if s.get("name") is not None:
                self.ctx.stacks[s["name"]] = type_name

    def header_unions(self) -> None:
        """init_header_unions / init_header_union_stacks (union_type looked up with .at)."""
        for i, ut in enumerate(self.items(self.doc, "header_union_types", "$")):
            members = []
            for member in self.items(ut, "headers", f"header_union_types[{i}]"):
                if (not isinstance(member, list) or len(member) != 2
                        or member[1] not in self.ctx.header_types):
                    self.bad(f"header_union_types[{i}]", f"bad member {member!r}")
                    continue
                members.append(tuple(member))
            self.ctx.union_types[ut.get("name")] = members
        for path, u in self.named_objects("header_unions", "header union", dense=True):
            if u.get("union_type") not in self.ctx.union_types:
                self.bad(path, f"unknown union_type {u.get('union_type')!r}")
            for hid in self.items(u, "header_ids", path):
                if hid not in self.ctx.header_ids:
                    self.bad(path, f"header id {hid!r} does not exist")
            self.ctx.unions[u.get("name")] = u.get("union_type")
        union_ids = {u.get("id") for u in self.items(self.doc, "header_unions", "$")}
        for path, s in self.named_objects("header_union_stacks", "header union stack",
                                          dense=True):
            if s.get("union_type") not in self.ctx.union_types:
                self.bad(path, f"unknown union_type {s.get('union_type')!r}")
            for uid in self.items(s, "header_union_ids", path):
                if uid not in union_ids:
                    self.bad(path, f"header union id {uid!r} does not exist")
            self.ctx.union_stacks[s.get("name")] = s.get("union_type")

    def field_aliases(self) -> None:
        """init_objects: `assert(field_exists(header, field))` for every alias target."""
        for i, alias in enumerate(self.items(self.doc, "field_aliases", "$")):
            path = f"field_aliases[{i}]"
            if (not isinstance(alias, list) or len(alias) != 2
                    or not isinstance(alias[0], str)):
                self.bad(path, f"an alias is [name, [header, field]], got {alias!r}")
                continue
            if self.field_ref(alias[1], path) is not None:
                self.ctx.aliases[alias[0]] = tuple(alias[1])

    def extern_instances(self) -> None:
        """init_extern_instances: the type must be registered by the target; simple_switch
        registers none (no BM_REGISTER_EXTERN in targets/simple_switch)."""
        for path, e in self.named_objects("extern_instances", "extern"):
            self.bad(path, f"extern type {e.get('type')!r} is not provided by simple_switch")
            self.ctx.externs.add(e.get("name"))

    def parse_vsets(self) -> None:
        for path, v in self.named_objects("parse_vsets", "parser vset"):
            self.integer(v, "compressed_bitwidth", path, minimum=0)

    def errors(self) -> None:
        """init_errors: ErrorCodeMap::add rejects a repeated name or value."""
        names = set()
        for i, e in enumerate(self.items(self.doc, "errors", "$")):
            if (not isinstance(e, list) or len(e) != 2 or not isinstance(e[0], str)
                    or isinstance(e[1], bool) or not isinstance(e[1], int)):
                self.bad(f"errors[{i}]", f"an error is [name, int], got {e!r}")
                continue
            if e[0] in names or e[1] in self.ctx.errors:
                self.bad(f"errors[{i}]", "invalid errors specification: repeated name or value")
            names.add(e[0])
            self.ctx.errors[e[1]] = e[0]

    # ------------------------------------------------------------------ deparsers & externs
    def deparsers(self) -> None:
        for path, d in self.named_objects("deparsers", "deparser"):
            for k, prim in enumerate(self.items(d, "primitives", path)):
                self.primitive(prim, f"{path}.primitives[{k}]", 0, None)
            for k, h in enumerate(self.items(d, "order", path)):
                self.header_ref(h, f"{path}.order[{k}]")
                # Header::is_valid() is true for metadata: it would be emitted into the packet
                if h in self.ctx.headers and self.ctx.headers[h][1]:
                    self.bad(f"{path}.order[{k}]", f"metadata header {h!r} would be deparsed")

    def calculations(self) -> None:
        """init_calculations: inputs field/hexstr(+bitwidth)/header/payload; check_hash."""
        for path, c in self.named_objects("calculations", "calculation"):
            algo = c.get("algo")
            if algo not in HASH_ALGORITHMS and not (isinstance(algo, str)
                                                    and CUSTOM_CRC.match(algo)):
                self.bad(path, f"unknown hash algorithm: {algo!r}")
            for k, item in enumerate(self.items(c, "input", path)):
                ipath = f"{path}.input[{k}]"
                kind = item.get("type") if isinstance(item, dict) else None
                if kind == "field":
                    self.field_ref(item.get("value"), ipath, aliases=True)
                elif kind == "hexstr":
                    self.hexstring(item.get("value"), ipath, signed=False)
                    self.integer(item, "bitwidth", ipath, minimum=1)
                elif kind == "header":
                    self.header_ref(item.get("value"), ipath)
                elif kind != "payload":
                    self.bad(ipath, f"unsupported input type {kind!r}")
            self.ctx.calculations.add(c.get("name"))

    def counters(self) -> None:
        for path, c in self.named_objects("counter_arrays", "counter",
                                          unique_name=lambda c: not c.get("is_direct")):
            if not c.get("is_direct") or "size" in c:   # a direct counter's size is unused
                self.integer(c, "size", path, minimum=0, unsigned=True)
            self.boolean(c, "is_direct", path)
            if not c.get("is_direct"):     # direct counters are not counter arrays
                self.ctx.counters.add(c.get("name"))

    def meters(self) -> None:
        for path, m in self.named_objects("meter_arrays", "meter"):
            if m.get("type") not in ("packets", "bytes"):
                self.bad(path, f"invalid meter type {m.get('type')!r}")
            self.integer(m, "rate_count", path, minimum=1, unsigned=True)
            self.integer(m, "size", path, minimum=0, unsigned=True)
            self.boolean(m, "is_direct", path)
            if m.get("is_direct"):
                self.field_ref(m.get("result_target"), f"{path}.result_target")
            self.ctx.meters[m.get("name")] = bool(m.get("is_direct"))

    def registers(self) -> None:
        for path, r in self.named_objects("register_arrays", "register"):
            self.integer(r, "size", path, minimum=0, unsigned=True)
            self.integer(r, "bitwidth", path, minimum=1)
            self.ctx.registers.add(r.get("name"))

    def field_lists(self) -> None:
        """init_field_lists: elements are fields or hexstr constants with a bitwidth."""
        seen = set()
        for i, fl in enumerate(self.items(self.doc, "field_lists", "$")):
            path = f"field_lists[{i}]"
            ident = self.integer(fl, "id", path, minimum=1)
            if ident in seen:
                self.bad(path, f"several field lists have the same id {ident}")
            seen.add(ident)
            for k, e in enumerate(self.items(fl, "elements", path)):
                kind = e.get("type") if isinstance(e, dict) else None
                if kind == "field":
                    self.field_ref(e.get("value"), f"{path}.elements[{k}]")
                elif kind == "hexstr":
                    self.hexstring(e.get("value"), f"{path}.elements[{k}]", signed=False)
                    self.integer(e, "bitwidth", f"{path}.elements[{k}]", minimum=1)
                else:
                    self.bad(f"{path}.elements[{k}]", f"invalid entry type {kind!r}")
        self.ctx.field_list_ids = seen

    def learn_lists(self) -> None:
        seen = set()
        for i, ll in enumerate(self.items(self.doc, "learn_lists", "$")):
            path = f"learn_lists[{i}]"
            ident = self.integer(ll, "id", path, minimum=1)
            if ident in seen:
                self.bad(path, f"several learn lists have the same id {ident}")
            seen.add(ident)
            for k, e in enumerate(self.items(ll, "elements", path)):
                if not isinstance(e, dict) or e.get("type") != "field":   # assert(type == field)
                    self.bad(f"{path}.elements[{k}]", "learn list elements must be fields")
                else:
                    self.field_ref(e.get("value"), f"{path}.elements[{k}]")
        self.ctx.learn_list_ids = seen
