"""simple_switch_CLI's table commands: match tables, their dumps, action profiles and selectors,
indirect tables (behavioral-model ``tools/runtime_CLI.py``), as a mixin of ``RuntimeCLI``."""

from __future__ import annotations

from .bm_sim.tables import HANDLE_INDEX_MASK, MatchParam
from .cli_parse import (MATCH_TYPE_STR, _BadParam, _byte_str, _Crash, _int, _MatchKeyError,
                        _RuntimeDataError, parse_param)
from .errors import CliError

__all__ = ["TableCommands"]


class TableCommands:
    """Argument helpers, match tables, action profiles (``self.rt``: the switch's Runtime)."""

    # -- argument helpers ---------------------------------------------------------------------------
    @staticmethod
    def _at_least(args: list, n: int) -> None:
        if len(args) < n:
            raise CliError("Error: Insufficient number of args")

    @staticmethod
    def _exactly(args: list, n: int) -> None:
        if len(args) != n:
            raise CliError(f"Error: Wrong number of args, expected {n} but got {len(args)}")

    def _runtime_data(self, action: str, params: list[str], table=None, *, shown: str | None = None) -> list[int]:
        """The action's parameters; ``shown`` is the action name the count error names (the
        real CLI names the action as typed in table_set_default, by its full name elsewhere)."""
        specs = self.rt.action_params(action, table)
        if len(params) != len(specs):
            raise CliError(f"Error: Action {shown or action} needs {len(specs)} parameters")
        out = []
        for text, (_, bw) in zip(params, specs):
            try:
                out.append(parse_param(text, bw))
            except _BadParam as e:
                raise _RuntimeDataError(f"Invalid runtime data: Error while parsing {text} - {e}") from None
        return out

    def _match_key(self, table, fields: list[str]) -> list[MatchParam]:
        if len(fields) > len(table.keys):      # runtime_CLI.parse_match_key indexes past the key
            raise _Crash("IndexError: list index out of range")
        return [self._match_param(text, key.match_type, key.width) for text, key in zip(fields, table.keys)]

    def _match_param(self, text: str, mt: str, bw: int) -> MatchParam:
        def param(s: str) -> int:
            try:
                return parse_param(s, bw)
            except _BadParam as e:
                raise _MatchKeyError(f"Invalid match key: Error while parsing {s} - {e}") from None
        if mt == "lpm":
            parts = text.split("/")
            if len(parts) != 2:
                raise _MatchKeyError(f"Invalid match key: Invalid LPM value {text}, use '/' to separate prefix and length")
            value = param(parts[0])
            try:
                length = int(parts[1])
            except ValueError:
                raise _Crash(f"ValueError: invalid literal for int() with base 10: {parts[1]!r}") from None
            return MatchParam("lpm", value, length)
        if mt == "ternary":
            parts = text.split("&&&")
            if len(parts) != 2:
                raise _MatchKeyError(f"Invalid match key: Invalid ternary value {text}, use '&&&' to separate key and mask")
            return MatchParam("ternary", param(parts[0]), param(parts[1]))
        if mt == "range":
            parts = text.split("->")
            if len(parts) != 2:
                raise _MatchKeyError(f"Invalid match key: Invalid range value {text}, use '->' to separate range start and range end")
            lo, hi = param(parts[0]), param(parts[1])
            if lo > hi:
                raise _MatchKeyError(f"Invalid match key: start is less than end in expression {text}")
            return MatchParam("range", lo, hi)
        if mt == "valid":
            try:
                return MatchParam("valid", int(bool(int(text))))
            except ValueError:
                raise _Crash(f"ValueError: invalid literal for int() with base 10: {text!r}") from None
        if mt == "optional":          # not in runtime_CLI.py (it cannot load such a program)
            if text == "*":
                return MatchParam("optional", 0, 0)
            return MatchParam("optional", param(text), (1 << bw) - 1)
        return MatchParam("exact", param(text))

    def _key_str(self, m: MatchParam, bw: int) -> str:
        if m.kind == "lpm":
            return f"LPM-{_byte_str(m.a, bw)}/{m.b}"
        if m.kind == "ternary":
            return f"TERNARY-{_byte_str(m.a, bw)} &&& {_byte_str(m.b, bw)}"
        if m.kind == "range":
            return f"RANGE-{_byte_str(m.a, bw)} -> {_byte_str(m.b, bw)}"
        if m.kind == "valid":
            return "VALID-"             # BmMatchParamValid.to_str is empty
        if m.kind == "optional":
            return f"OPTIONAL-{_byte_str(m.a, bw)}"
        return f"EXACT-{_byte_str(m.a, bw)}"

    def _data_str(self, action: str, data: list[int], table=None) -> str:
        return "\t".join(_byte_str(v, bw) for v, (_, bw) in zip(data, self.rt.action_params(action, table)))

    @staticmethod
    def _has_priority(table) -> bool:
        """runtime_CLI: a table whose JSON match_type is ternary or range takes a priority."""
        return table.spec.match_type in ("ternary", "range")

    def _pop_priority(self, table, args: list[str]) -> int:
        if not self._has_priority(table):
            return 0
        try:
            return int(args.pop(-1))
        except (ValueError, IndexError):
            raise CliError("Error: Table is ternary, but could not extract a valid priority from args") from None

    @staticmethod
    def _arrow_index(rest: list[str]) -> int:
        """Where "=>" splits match fields from what follows, as runtime_CLI.py finds it: its
        "for idx, ..." loop over ``rest`` stops there, else on the last word (so that word is
        dropped), and never binds idx when ``rest`` is empty."""
        if not rest:
            raise _Crash("UnboundLocalError: cannot access local variable 'idx' where it is not "
                         "associated with a value")
        return rest.index("=>") if "=>" in rest else len(rest) - 1

    @staticmethod
    def _modify_params(args: list[str]) -> list[str]:
        """The action parameters of table_modify/act_prof_modify_member (args[3:], an optional
        "=>" first: runtime_CLI.py's "be more tolerant"); it reads args[3] unconditionally."""
        if len(args) == 3:
            raise _Crash("IndexError: list index out of range")
        return args[4:] if args[3] == "=>" else args[3:]

    # -- tables -------------------------------------------------------------------------------------
    def do_table_add(self, line: str):
        "Add entry to a match table: table_add <table name> <action name> <match fields> => <action parameters> [priority]"
        args = line.split()
        self._at_least(args, 3)
        typed_table, typed_action = args[0], args[1]
        table = self.rt.table(typed_table)
        action = self.rt.action_of(table, typed_action, shown_table=typed_table)
        priority = self._pop_priority(table, args)
        rest = args[2:]
        idx = self._arrow_index(rest)
        keys, params = rest[:idx], rest[idx + 1:]
        if len(keys) != len(table.keys):
            raise CliError(f"Error: Table {typed_table} needs {len(table.keys)} key fields")
        data = self._runtime_data(action, params, table)
        match = self._match_key(table, keys)
        mt = MATCH_TYPE_STR.get(table.spec.match_type, table.spec.match_type)
        self._print("Adding entry to", mt, "match table", typed_table)
        self._print(f"{'match key:':20} " + "\t".join(self._key_str(m, k.width) for m, k in zip(match, table.keys)))
        self._print(f"{'action:':20} {typed_action}")
        self._print(f"{'runtime data:':20} {self._data_str(action, data, table)}")
        handle = self.rt.table_add(table.name, action, match, data, priority)
        return f"Entry has been added with handle {handle}"

    def do_table_set_default(self, line: str):
        "Set default action for a match table: table_set_default <table name> <action name> <action parameters>"
        args = line.split()
        self._at_least(args, 2)
        typed_table, typed_action = args[0], args[1]
        table = self.rt.table(typed_table)
        action = self.rt.action_of(table, typed_action, shown_table=typed_table)
        data = self._runtime_data(action, args[2:], table, shown=typed_action)
        self._print("Setting default action of", typed_table)
        self._print(f"{'action:':20} {typed_action}")
        self._print(f"{'runtime data:':20} {self._data_str(action, data, table)}")
        self.rt.table_set_default(table.name, action, data)

    def do_table_modify(self, line: str):
        "Add entry to a match table: table_modify <table name> <action name> <entry handle> [action parameters]"
        args = line.split()
        self._at_least(args, 3)
        typed_table = args[0]
        table = self.rt.table(typed_table)
        action = self.rt.action_of(table, args[1], shown_table=typed_table)
        handle = _int(args[2], "entry handle")
        data = self._runtime_data(action, self._modify_params(args), table)
        mt = MATCH_TYPE_STR.get(table.spec.match_type, table.spec.match_type)
        self._print("Modifying entry", handle, "for", mt, "match table", typed_table)
        self.rt.table_modify(table.name, action, handle, data)

    def do_table_delete(self, line: str):
        "Delete entry from a match table: table_delete <table name> <entry handle>"
        args = line.split()
        self._exactly(args, 2)
        table = self.rt.table(args[0])
        handle = _int(args[1], "entry handle")
        self._print("Deleting entry", handle, "from", args[0])
        self.rt.table_delete(table.name, handle)

    def do_table_clear(self, line: str):
        "Clear all entries in a match table (direct or indirect), but not the default entry: table_clear <table name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.table_clear(self.rt.table(args[0]).name)

    def do_table_num_entries(self, line: str):
        "Return the number of entries in a match table (direct or indirect): table_num_entries <table name>"
        args = line.split()
        self._exactly(args, 1)
        return str(self.rt.table_num_entries(args[0]))

    def do_table_reset_default(self, line: str):
        "Reset default entry for a match table: table_reset_default <table name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.table_reset_default(self.rt.table(args[0]).name)

    def do_table_set_timeout(self, line: str):
        "Set a timeout in ms for a given entry; the table has to support timeouts: table_set_timeout <table_name> <entry handle> <timeout (ms)>"
        args = line.split()
        self._exactly(args, 3)
        table = self.rt.table(args[0])
        if not table.spec.support_timeout:
            raise CliError(f"Error: Table {args[0]} does not support entry timeouts")
        handle = _int(args[1], "entry handle")
        timeout = _int(args[2], "timeout")
        self._print("Setting a", timeout, "ms timeout for entry", handle)
        # entry ageing is not modelled (no notifications): the handle is checked, the timeout kept
        self.rt.table_entry(table.name, handle).timeout_ms = timeout

    def do_table_dump(self, line: str):
        "Display entries in a match-table: table_dump <table name>"
        args = line.split()
        self._exactly(args, 1)
        t = self.rt.table(args[0])
        out = ["==========", "TABLE ENTRIES"]
        for ent in sorted(t.entries.values(), key=lambda e: e.handle & HANDLE_INDEX_MASK):
            out.append("**********")
            out.extend(self._entry_lines(t, ent))
        if t.profile is not None:
            out.extend(self._profile_lines(t.profile))
        out.append("==========")
        out.append("Dumping default entry")
        if t.profile is not None:
            out.append(self._index_line(t.indirect_default.index) if t.indirect_default is not None else "EMPTY")
        elif t.default_action is None:
            out.append("EMPTY")
        else:
            out.append(f"Action entry: {t.default_action} - {self._action_data_hex(t.default_action, t.default_data)}")
        out.append("==========")
        return "\n".join(out)

    def do_table_dump_entry(self, line: str):
        "Display some information about a table entry: table_dump_entry <table name> <entry handle>"
        args = line.split()
        self._exactly(args, 2)
        t = self.rt.table(args[0])
        ent = self.rt.table_entry(t.name, _int(args[1], "entry handle"))
        return "\n".join(self._entry_lines(t, ent))

    def do_table_dump_entry_from_key(self, line: str):
        "Display some information about a table entry: table_dump_entry_from_key <table name> <match fields> [priority]"
        args = line.split()
        self._at_least(args, 1)
        t = self.rt.table(args[0])
        priority = self._pop_priority(t, args)
        keys = args[1:]
        if len(keys) != len(t.keys):
            raise CliError(f"Error: Table {args[0]} needs {len(t.keys)} key fields")
        ent = self.rt.table_entry_from_key(t.name, self._match_key(t, keys), priority)
        return "\n".join(self._entry_lines(t, ent))

    @staticmethod
    def _action_data_hex(action: str, data: tuple) -> str:
        # dumps print the action data the switch returns: each value in as few bytes as hold it,
        # at least one (bm_sim Data::get_string, bignum export_size_in_bytes), e.g. a 9-bit 1 as 01
        return ", ".join(v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big").hex() for v in data)

    @staticmethod
    def _key_hex(m, width: int) -> str:
        w = (width + 7) // 8 * 2
        if m.kind == "lpm":
            return f"{m.a:0{w}x}/{m.b}"
        if m.kind in ("ternary", "optional"):
            return f"{m.a:0{w}x} &&& {m.b:0{w}x}"
        if m.kind == "range":
            return f"{m.a:0{w}x} -> {m.b:0{w}x}"
        if m.kind == "valid":
            return "01" if m.a else "00"
        return f"{m.a:0{w}x}"

    def _entry_lines(self, t, ent) -> list[str]:
        name_w = max([20] + [len(k.cli_name) for k in t.keys])
        lines = [f"Dumping entry {hex(ent.handle)}", "Match key:"]
        for m, k in zip(ent.match, t.keys):
            lines.append(f"* {k.cli_name:<{name_w}}: {m.kind.upper():<10}{self._key_hex(m, k.width)}")
        if self._has_priority(t):          # match_units: -1 (not shown) for exact and LPM keys
            lines.append(f"Priority: {ent.priority}")
        if ent.index is not None:
            lines.append(self._index_line(ent.index))
        else:
            lines.append(f"Action entry: {ent.action} - {self._action_data_hex(ent.action, ent.data)}")
        return lines

    @staticmethod
    def _index_line(index: tuple) -> str:
        kind, handle = index
        return f"Index: {'member' if kind == 'mbr' else 'group'}({handle})"

    def _profile_lines(self, prof) -> list[str]:
        out = ["==========", "MEMBERS"]
        for h in sorted(prof.members):
            out += ["**********"] + self._member_lines(prof, h)
        if prof.with_selection:
            out += ["==========", "GROUPS"]
            for h in sorted(prof.groups):
                out += ["**********"] + self._group_lines(prof, h)
        return out

    def _member_lines(self, prof, handle: int) -> list[str]:
        action, data = prof.members[handle]
        return [f"Dumping member {handle}", f"Action entry: {action} - {self._action_data_hex(action, data)}"]

    @staticmethod
    def _group_lines(prof, handle: int) -> list[str]:
        return [f"Dumping group {handle}", "Members: [" + ", ".join(str(m) for m in prof.groups[handle]) + "]"]

    def _action_str(self, name: str, params) -> str:
        return f"{name:<30} [" + ",\t".join(f"{p}({bw})" for p, bw in params) + "]"

    def _program_actions(self) -> dict:
        """runtime_CLI's ACTIONS: name -> runtime data, the JSON's last action of a name wins."""
        out = {}
        for a in self.rt.program.json.get("actions", []):
            out[a["name"]] = [(p["name"], p["bitwidth"]) for p in a.get("runtime_data", [])]
        return out

    def _table_str(self, t) -> str:
        mk = ",\t".join(f"{k.cli_name}({k.match_type}, {k.width})" for k in t.keys)
        impl = t.profile.name if t.profile is not None else None
        return f"{t.name:<30} [implementation={impl}, mk={mk}]"

    def do_show_tables(self, line: str):
        "List tables defined in the P4 program: show_tables"
        self._exactly(line.split(), 0)
        return "\n".join(self._table_str(self.rt.sw.tables[name]) for name in sorted(self.rt.sw.tables))

    def do_show_actions(self, line: str):
        "List actions defined in the P4 program: show_actions"
        self._exactly(line.split(), 0)
        actions = self._program_actions()
        return "\n".join(self._action_str(name, actions[name]) for name in sorted(actions))

    def _table_action_lines(self, t) -> list[str]:
        actions = self._program_actions()
        return [self._action_str(a, actions.get(a, t.spec.action_specs[a].params)) for a in sorted(t.spec.actions)]

    def do_table_info(self, line: str):
        "Show info about a table: table_info <table_name>"
        args = line.split()
        self._exactly(args, 1)
        t = self.rt.table(args[0])
        return "\n".join([self._table_str(t), "*" * 80] + self._table_action_lines(t))

    def do_table_show_actions(self, line: str):
        "List one table's actions as per the P4 program: table_show_actions <table_name>"
        args = line.split()
        self._exactly(args, 1)
        return "\n".join(self._table_action_lines(self.rt.table(args[0])))

    # -- action profiles and selectors ---------------------------------------------------------------
    def do_act_prof_create_member(self, line: str):
        "Add a member to an action profile: act_prof_create_member <action profile name> <action_name> [action parameters]"
        args = line.split()
        self._at_least(args, 2)
        prof = self.rt.act_prof(args[0])
        action = self.rt.act_prof_action(prof, args[1], shown_prof=args[0])
        data = self._runtime_data(action, args[2:])
        return f"Member has been created with handle {self.rt.act_prof_create_member(prof.name, action, data)}"

    def do_act_prof_delete_member(self, line: str):
        "Delete a member in an action profile: act_prof_delete_member <action profile name> <member handle>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.act_prof_delete_member(self.rt.act_prof(args[0]).name, _int(args[1], "member handle"))

    def do_act_prof_modify_member(self, line: str):
        "Modify member in an action profile: act_prof_modify_member <action profile name> <action_name> <member_handle> [action parameters]"
        args = line.split()
        self._at_least(args, 3)
        prof = self.rt.act_prof(args[0])
        action = self.rt.act_prof_action(prof, args[1], shown_prof=args[0])
        handle = _int(args[2], "member handle")
        self.rt.act_prof_modify_member(prof.name, action, handle,
                                       self._runtime_data(action, self._modify_params(args)))

    def do_act_prof_create_group(self, line: str):
        "Add a group to an action pofile: act_prof_create_group <action profile name>"
        args = line.split()
        self._exactly(args, 1)
        return f"Group has been created with handle {self.rt.act_prof_create_group(args[0])}"

    def do_act_prof_delete_group(self, line: str):
        "Delete a group from an action profile: act_prof_delete_group <action profile name> <group handle>"
        args = line.split()
        self._exactly(args, 2)
        self.rt._selector(args[0])
        self.rt.act_prof_delete_group(args[0], _int(args[1], "group handle"))

    def do_act_prof_add_member_to_group(self, line: str):
        "Add member to group in an action profile: act_prof_add_member_to_group <action profile name> <member handle> <group handle>"
        args = line.split()
        self._exactly(args, 3)
        self.rt._selector(args[0])
        self.rt.act_prof_add_member_to_group(args[0], _int(args[1], "member handle"), _int(args[2], "group handle"))

    def do_act_prof_remove_member_from_group(self, line: str):
        "Remove member from group in action profile: act_prof_remove_member_from_group <action profile name> <member handle> <group handle>"
        args = line.split()
        self._exactly(args, 3)
        self.rt._selector(args[0])
        self.rt.act_prof_remove_member_from_group(args[0], _int(args[1], "member handle"),
                                                  _int(args[2], "group handle"))

    def do_act_prof_dump_member(self, line: str):
        "Display some information about a member: act_prof_dump_member <action profile name> <member handle>"
        args = line.split()
        self._exactly(args, 2)
        prof = self.rt.act_prof(args[0])
        handle = _int(args[1], "member handle")
        if handle not in prof.members:
            raise CliError("Invalid table operation (INVALID_MBR_HANDLE)")
        return "\n".join(self._member_lines(prof, handle))

    def do_act_prof_dump_group(self, line: str):
        "Display some information about a group: table_dump_group <action profile name> <group handle>"
        args = line.split()
        self._exactly(args, 2)
        prof = self.rt.act_prof(args[0])
        handle = _int(args[1], "group handle")
        if handle not in prof.groups:
            raise CliError("Invalid table operation (INVALID_GRP_HANDLE)")
        return "\n".join(self._group_lines(prof, handle))

    def do_act_prof_dump(self, line: str):
        "Display entries in an action profile: act_prof_dump <action profile name>"
        args = line.split()
        self._exactly(args, 1)
        return "\n".join(self._profile_lines(self.rt.act_prof(args[0])))

    def _indirect_add_args(self, line: str, *, group: bool):
        args = line.split()
        self._at_least(args, 2)
        table = self.rt.table(args[0])
        self.rt.check_indirect(table, with_selector=group)
        priority = self._pop_priority(table, args)
        idx = self._arrow_index(args[1:]) + 1
        if len(args) != idx + 2:
            raise CliError("Error: Invalid arguments, could not find handle")
        handle = _int(args[idx + 1], "handle")
        # no key count check here in runtime_CLI.py: a short key is the switch's BAD_MATCH_KEY
        match = self._match_key(table, args[1:idx])
        self._print("Adding entry to indirect match table", table.name)
        return table, match, handle, priority

    def do_table_indirect_add(self, line: str):
        "Add entry to an indirect match table: table_indirect_add <table name> <match fields> => <member handle> [priority]"
        table, match, handle, priority = self._indirect_add_args(line, group=False)
        entry = self.rt.table_indirect_add(table.name, match, handle, priority)
        return f"Entry has been added with handle {entry}"

    def do_table_indirect_add_with_group(self, line: str):
        "Add entry to an indirect match table: table_indirect_add <table name> <match fields> => <group handle> [priority]"
        table, match, handle, priority = self._indirect_add_args(line, group=True)
        entry = self.rt.table_indirect_add(table.name, match, handle, priority, group=True)
        return f"Entry has been added with handle {entry}"

    def do_table_indirect_delete(self, line: str):
        "Delete entry from an indirect match table: table_indirect_delete <table name> <entry handle>"
        args = line.split()
        self._exactly(args, 2)
        table = self.rt.table(args[0])
        self.rt.check_indirect(table)
        handle = _int(args[1], "entry handle")
        self._print("Deleting entry", handle, "from", args[0])
        self.rt.table_delete(table.name, handle)

    def do_table_indirect_set_default(self, line: str):
        "Set default member for indirect match table: table_indirect_set_default <table name> <member handle>"
        args = line.split()
        self._exactly(args, 2)
        table = self.rt.table(args[0])
        self.rt.check_indirect(table)
        self.rt.table_indirect_set_default(table.name, _int(args[1], "handle"))

    def do_table_indirect_set_default_with_group(self, line: str):
        "Set default group for indirect match table: table_indirect_set_default <table name> <group handle>"
        args = line.split()
        self._exactly(args, 2)
        table = self.rt.table(args[0])
        self.rt.check_indirect(table, with_selector=True)
        self.rt.table_indirect_set_default(table.name, _int(args[1], "handle"), group=True)

    def do_table_indirect_reset_default(self, line: str):
        "Reset default entry for indirect match table: table_indirect_reset_default <table name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.table_indirect_reset_default(self.rt.table(args[0]).name)

    # the legacy table_indirect_* spellings of the act_prof_* commands: the table's own profile
    def _legacy(self, substitute: str, line: str, *, with_selector: bool = False) -> str | None:
        args = line.split()
        self._at_least(args, 1)
        table = self.rt.table(args[0])
        self.rt.check_indirect(table, with_selector=with_selector)
        users = [t for t in self.rt.sw.tables.values() if t.profile is table.profile]
        if substitute not in ("act_prof_dump_member", "act_prof_dump_group") and len(users) > 1:
            raise CliError("Error: Legacy command does not work with shared action profiles")
        return getattr(self, "do_" + substitute)(" ".join([table.profile.name] + args[1:]))

    def do_table_indirect_create_member(self, line: str):
        "[DEPRECATED!] Add a member to an indirect match table: table_indirect_create_member <table name> <action_name> [action parameters]\nUse 'act_prof_create_member' instead"
        return self._legacy("act_prof_create_member", line)

    def do_table_indirect_delete_member(self, line: str):
        "[DEPRECATED!] Delete a member in an indirect match table: table_indirect_delete_member <table name> <member handle>\nUse 'act_prof_delete_member' instead"
        return self._legacy("act_prof_delete_member", line)

    def do_table_indirect_modify_member(self, line: str):
        "[DEPRECATED!] Modify member in an indirect match table: table_indirect_modify_member <table name> <action_name> <member_handle> [action parameters]\nUse 'act_prof_modify_member' instead"
        return self._legacy("act_prof_modify_member", line)

    def do_table_indirect_create_group(self, line: str):
        "[DEPRECATED!] Add a group to an indirect match table: table_indirect_create_group <table name>\nUse 'act_prof_create_group' instead"
        return self._legacy("act_prof_create_group", line, with_selector=True)

    def do_table_indirect_delete_group(self, line: str):
        "[DEPRECATED!] Delete a group: table_indirect_delete_group <table name> <group handle>\nUse 'act_prof_delete_group' instead"
        return self._legacy("act_prof_delete_group", line, with_selector=True)

    def do_table_indirect_add_member_to_group(self, line: str):
        "[DEPRECATED!] Add member to group: table_indirect_add_member_to_group <table name> <member handle> <group handle>\nUse 'act_prof_add_member_to_group' instead"
        return self._legacy("act_prof_add_member_to_group", line, with_selector=True)

    def do_table_indirect_remove_member_from_group(self, line: str):
        "[DEPRECATED!] Remove member from group: table_indirect_remove_member_from_group <table name> <member handle> <group handle>\nUse 'act_prof_remove_member_from_group' instead"
        return self._legacy("act_prof_remove_member_from_group", line, with_selector=True)

    def do_table_dump_member(self, line: str):
        "Display some information about a member: table_dump_member <table name> <member handle>"
        return self._legacy("act_prof_dump_member", line)

    def do_table_dump_group(self, line: str):
        "Display some information about a group: table_dump_group <table name> <group handle>"
        return self._legacy("act_prof_dump_group", line)
