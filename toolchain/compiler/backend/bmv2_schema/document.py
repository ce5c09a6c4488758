"""Rules on the document as a whole: checksums, force_arith, required fields and blocks, the
keys simple_switch_CLI and p4c's STF runner read, every field list used."""
from __future__ import annotations

from .reader import HeaderTypeInfo, JsonReader
from .vocabulary import BOOL, QUEUEING_FIELDS, REQUIRED_BLOCKS, REQUIRED_FIELDS


class DocumentRules(JsonReader):
    # ------------------------------------------------------------------ the rest
    def checksums(self) -> None:
        """init_checksums: target field, type ipv4|generic (assert), calculation, if_cond."""
        for path, c in self.named_objects("checksums", "checksum",
                                          unique_name=lambda c: False):
            self.field_ref(c.get("target"), f"{path}.target")
            kind = c.get("type")
            if kind not in ("ipv4", "generic"):
                self.bad(path, f"checksum type {kind!r} (the loader asserts 'generic')")
            if kind == "generic" and c.get("calculation") not in self.ctx.calculations:
                self.bad(path, f"invalid reference to calculation {c.get('calculation')!r}")
            self.boolean(c, "update", path)
            self.boolean(c, "verify", path)
            if c.get("if_cond") is not None:
                self.expect_kind(c["if_cond"], f"{path}.if_cond", BOOL, None)

    def force_arith(self) -> None:
        for i, f in enumerate(self.items(self.doc, "force_arith", "$")):
            self.field_ref(f, f"force_arith[{i}]", aliases=True)

    def required_fields(self) -> None:
        for header, field in REQUIRED_FIELDS:
            known = f"{header}.{field}" in self.ctx.aliases or (
                header in self.ctx.headers and field in self.ctx.header_types.get(
                    self.ctx.headers[header][0], HeaderTypeInfo({})).fields)
            if not known:
                self.bad("headers", f"field {header}.{field} is required by switch target "
                                    "but is not defined")
        present = [f for f in QUEUEING_FIELDS if f"queueing_metadata.{f}" in self.ctx.aliases]
        if present and len(present) != len(QUEUEING_FIELDS):
            # check_queueing_metadata: warns and disables all queueing metadata
            self.bad("field_aliases", "defines some but not all queueing metadata fields")

    def runtime_cli_keys(self) -> None:
        """simple_switch_CLI reads the same JSON (tools/runtime_CLI.py, load_json_str) and
        indexes some keys the switch itself treats as optional; a missing one is a KeyError
        that leaves the CLI unable to program anything."""
        for i, a in enumerate(self.items(self.doc, "actions", "$")):
            if isinstance(a, dict) and "runtime_data" not in a:
                self.bad(f"actions[{i}]", "simple_switch_CLI needs 'runtime_data'")
        for i, p in enumerate(self.items(self.doc, "pipelines", "$")):
            for k, t in enumerate(self.items(p, "tables", f"pipelines[{i}]")):
                for key in ("support_timeout", "actions", "match_type", "type", "key"):
                    if isinstance(t, dict) and key not in t:
                        self.bad(f"pipelines[{i}].tables[{k}]", f"simple_switch_CLI needs {key!r}")
        needs = {"counter_arrays": lambda o: ["is_direct", "binding" if o.get("is_direct")
                                              else "size"],
                 "meter_arrays": lambda o: ["type", "rate_count", "binding" if o.get("is_direct")
                                            else "size"],
                 "register_arrays": lambda o: ["size", "bitwidth"]}
        for kind, keys in needs.items():
            for i, o in enumerate(self.items(self.doc, kind, "$")):
                for key in keys(o) if isinstance(o, dict) else []:
                    if key not in o:
                        self.bad(f"{kind}[{i}]", f"simple_switch_CLI needs {key!r}")

    def stf_runner_shape(self) -> None:
        """p4c's STF runner (backends/bmv2/bmv2stf.py, RunBMV2.readJson) -- the one the
        conformance kit's expectations come from -- reads the tables of pipelines[0] and
        pipelines[1] and pairs "actions" with "action_ids" by position."""
        pipes = self.items(self.doc, "pipelines", "$")
        if len(pipes) < 2:
            self.bad("pipelines", "p4c's STF runner reads pipelines[0] and pipelines[1]")
        for i, p in enumerate(pipes[:2]):
            for k, t in enumerate(self.items(p, "tables", f"pipelines[{i}]")):
                if not isinstance(t, dict):
                    continue
                if "action_ids" not in t or "actions" not in t:
                    self.bad(f"pipelines[{i}].tables[{k}]", "p4c's STF runner needs both "
                                                           "'actions' and 'action_ids'")
                elif len(t["actions"]) != len(t["action_ids"]):
                    self.bad(f"pipelines[{i}].tables[{k}]", "'actions' and 'action_ids' "
                                                           "differ in length")

    def required_blocks(self) -> None:
        for key, names in REQUIRED_BLOCKS.items():
            have = {o.get("name") for o in self.items(self.doc, key, "$") if isinstance(o, dict)}
            for name in names:
                if name not in have:
                    self.bad(key, f"simple_switch looks up {key[:-1]} {name!r}, which is "
                                  "missing")

    def field_list_uses(self) -> None:
        for path, param in self.ctx.field_list_uses:
            learn = path.endswith("(learn list)")
            if not isinstance(param, dict) or param.get("type") != "hexstr":
                self.bad(path, "the field/learn list id should be a constant")
                continue
            try:
                ident = int(param.get("value"), 16)
            except (TypeError, ValueError):
                continue    # already reported as a bad hexstr
            ids = self.ctx.learn_list_ids if learn else self.ctx.field_list_ids
            if ident == 0 and not learn:
                self.bad(path, "field list id 0: resubmit/recirculate flags test non-zero, "
                               "and cloning looks id 0 up in field_lists")
            elif ident not in ids:
                self.bad(path, f"{'learn' if learn else 'field'} list id {ident} does not "
                               "exist (simple_switch: field_lists.at throws)")
