"""The simple_switch_CLI command language (behavioral-model ``tools/runtime_CLI.py`` and
``targets/simple_switch/sswitch_CLI.py``): same commands, syntax, output and messages.

``RuntimeCLI.onecmd(line)`` returns what simple_switch_CLI would print, errors included
(it never raises); ``run(line)`` raises ``CliError`` on a failed command instead, and
``run_commands`` runs a commands file, stopping at the first failing line.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

from .bm_sim.hash_algos import CrcParams
from .bm_sim.tables import MatchParam, TableOpError
from .errors import CliError
from .runtime import Runtime

__all__ = ["RuntimeCLI", "parse_param"]

MATCH_TYPE_STR = {"exact": "exact", "lpm": "lpm", "ternary": "ternary", "valid": "valid",
                  "range": "range", "optional": "optional"}


class _MatchKeyError(CliError):
    pass


class _RuntimeDataError(CliError):
    pass


class _BadParam(Exception):
    pass


def _ipv4(s: str) -> int | None:
    try:
        return int(ipaddress.IPv4Address(s))
    except ValueError:
        return None


def _mac(s: str) -> int | None:
    parts = s.split(":")
    if len(parts) != 6:
        return None
    try:
        vals = [int(p, 16) for p in parts]
    except ValueError:
        return None
    if any(not 0 <= v <= 255 or len(p) > 2 for v, p in zip(vals, parts)):
        return None
    return int.from_bytes(bytes(vals), "big")


def _ipv6(s: str) -> int | None:
    try:
        return int(ipaddress.IPv6Address(s))
    except ValueError:
        return None


def parse_param(text: str, bitwidth: int) -> int:
    """A CLI value: an IPv4 address for 32-bit, MAC for 48-bit, IPv6 for 128-bit, else int."""
    special = {32: _ipv4, 48: _mac, 128: _ipv6}.get(bitwidth)
    if special is not None:
        v = special(text)
        if v is not None:
            return v
    try:
        v = int(text, 0)
    except ValueError:
        raise _BadParam("Invalid input, could not cast to integer, try in hex with 0x prefix") from None
    if v < 0 or v >= 1 << (((bitwidth + 7) // 8) * 8):
        raise _BadParam("Parameter is too large")
    return v


def _byte_str(value: int, bitwidth: int) -> str:
    n = max((bitwidth + 7) // 8, 1)
    return ":".join(f"{b:02x}" for b in value.to_bytes(n, "big"))


def _int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise CliError(f"Error: Bad format for {what}") from None


class RuntimeCLI:
    """The command interpreter. ``commands()`` lists (name, help) for prompts and completion."""

    prompt = "RuntimeCmd: "

    def __init__(self, runtime: Runtime):
        self.rt = runtime

    # -- entry points -------------------------------------------------------------------------------
    def commands(self) -> list[tuple[str, str]]:
        return [(name[3:], (getattr(self, name).__doc__ or "").strip()) for name in sorted(dir(self))
                if name.startswith("do_")]

    def onecmd(self, line: str) -> str:
        try:
            return self.run(line)
        except CliError as e:
            return e.message

    def run(self, line: str) -> str:
        line = line.strip()
        if not line or line.startswith("#"):
            return ""
        cmd, _, rest = line.partition(" ")
        fn = getattr(self, f"do_{cmd}", None)
        if fn is None:
            raise CliError(f"*** Unknown syntax: {line}")
        out = fn(rest.strip())
        return "" if out is None else out

    def run_commands(self, path_or_text) -> str:
        text = self._commands_text(path_or_text)
        outputs = []
        for n, line in enumerate(text.splitlines(), start=1):
            try:
                outputs.append(self.run(line))
            except CliError as e:
                raise CliError(e.message, line=n, command=line.strip()) from None
        return "\n".join(o for o in outputs if o)

    def _commands_text(self, path_or_text) -> str:
        """The commands: the file's text for a path, else the text itself. A single word that
        is not a command is taken for a commands file (and its absence reported as such)."""
        word = "" if isinstance(path_or_text, os.PathLike) else path_or_text.strip()
        is_path = isinstance(path_or_text, os.PathLike) or (
            word and "\n" not in word and " " not in word and not hasattr(self, "do_" + word))
        if not is_path:
            return path_or_text
        try:
            return Path(path_or_text).read_text()
        except OSError as e:
            raise CliError(f"cannot read commands file {str(path_or_text)!r}: {e.strerror}") from None

    # -- argument helpers ---------------------------------------------------------------------------
    @staticmethod
    def _at_least(args: list, n: int) -> None:
        if len(args) < n:
            raise CliError("Error: Insufficient number of args")

    @staticmethod
    def _exactly(args: list, n: int) -> None:
        if len(args) != n:
            raise CliError(f"Error: Wrong number of args, expected {n} but got {len(args)}")

    def _runtime_data(self, action: str, params: list[str], table=None) -> list[int]:
        specs = self.rt.action_params(action, table)
        if len(params) != len(specs):
            raise CliError(f"Error: Action {action} needs {len(specs)} parameters")
        out = []
        for text, (_, bw) in zip(params, specs):
            try:
                out.append(parse_param(text, bw))
            except _BadParam as e:
                raise _RuntimeDataError(f"Invalid runtime data: Error while parsing {text} - {e}") from None
        return out

    def _match_key(self, table, fields: list[str]) -> list[MatchParam]:
        out = []
        for text, key in zip(fields, table.keys):
            out.append(self._match_param(text, key.match_type, key.width))
        return out

    def _match_param(self, text: str, mt: str, bw: int) -> MatchParam:
        def param(s: str) -> int:
            try:
                return parse_param(s, bw)
            except _BadParam as e:
                raise _MatchKeyError(f"Invalid match key: Error while parsing {s} - {e}") from None
        if mt == "lpm":
            if text.count("/") != 1:
                raise _MatchKeyError(f"Invalid match key: Invalid LPM value {text}, use '/' to separate prefix and length")
            prefix, length = text.split("/")
            return MatchParam("lpm", param(prefix), _int(length, "prefix length"))
        if mt == "ternary":
            if text.count("&&&") != 1:
                raise _MatchKeyError(f"Invalid match key: Invalid ternary value {text}, use '&&&' to separate key and mask")
            key, mask = text.split("&&&")
            return MatchParam("ternary", param(key), param(mask))
        if mt == "range":
            if text.count("->") != 1:
                raise _MatchKeyError(f"Invalid match key: Invalid range value {text}, use '->' to separate range start and range end")
            lo, hi = text.split("->")
            return MatchParam("range", param(lo), param(hi))
        if mt == "valid":
            if text.lower() in ("true", "false"):
                return MatchParam("valid", int(text.lower() == "true"))
            return MatchParam("valid", 1 if param(text) else 0)
        if mt == "optional":
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
            return f"VALID-{'01' if m.a else '00'}"
        if m.kind == "optional":
            return f"OPTIONAL-{_byte_str(m.a, bw)}"
        return f"EXACT-{_byte_str(m.a, bw)}"

    def _data_str(self, action: str, data: list[int], table=None) -> str:
        return "\t".join(_byte_str(v, bw) for v, (_, bw) in zip(data, self.rt.action_params(action, table)))

    # -- tables -------------------------------------------------------------------------------------
    def do_table_add(self, line: str):
        "Add entry to a match table: table_add <table name> <action name> <match fields> => <action parameters> [priority]"
        args = line.split()
        self._at_least(args, 3)
        table = self.rt.table(args[0])
        action = self.rt.action_of(table, args[1])
        priority = 0
        if table.kind == "ternary" and any(k.match_type in ("ternary", "range", "optional") for k in table.keys):
            try:
                priority = int(args.pop(-1))
            except ValueError:
                raise CliError("Error: Table is ternary, but could not extract a valid priority from args") from None
        rest = args[2:]
        idx = rest.index("=>") if "=>" in rest else len(rest)
        keys, params = rest[:idx], rest[idx + 1:]
        if len(keys) != len(table.keys):
            raise CliError(f"Error: Table {table.name} needs {len(table.keys)} key fields")
        data = self._runtime_data(action, params, table)
        match = self._match_key(table, keys)
        handle = self.rt.table_add(table.name, action, match, data, priority)
        mt = MATCH_TYPE_STR.get(table.spec.match_type, table.spec.match_type)
        return "\n".join([f"Adding entry to {mt} match table {table.name}",
                          f"{'match key:':20} " + "\t".join(self._key_str(m, k.width) for m, k in zip(match, table.keys)),
                          f"{'action:':20} {action}",
                          f"{'runtime data:':20} {self._data_str(action, data, table)}",
                          f"Entry has been added with handle {handle}"])

    def do_table_set_default(self, line: str):
        "Set default action for a match table: table_set_default <table name> <action name> <action parameters>"
        args = line.split()
        self._at_least(args, 2)
        table = self.rt.table(args[0])
        action = self.rt.action_of(table, args[1])
        data = self._runtime_data(action, args[2:], table)
        self.rt.table_set_default(table.name, action, data)
        return "\n".join([f"Setting default action of {table.name}", f"{'action:':20} {action}",
                          f"{'runtime data:':20} {self._data_str(action, data, table)}"])

    def do_table_modify(self, line: str):
        "Modify entry in a match table: table_modify <table name> <action name> <entry handle> [action parameters]"
        args = line.split()
        self._at_least(args, 3)
        table = self.rt.table(args[0])
        action = self.rt.action_of(table, args[1])
        handle = _int(args[2], "entry handle")
        data = self._runtime_data(action, args[3:], table)
        self.rt.table_modify(table.name, action, handle, data)
        return "\n".join([f"Modifying entry {handle} for {table.spec.match_type} match table {args[0]}",
                          f"{'action:':20} {action}", f"{'runtime data:':20} {self._data_str(action, data, table)}"])

    def do_table_delete(self, line: str):
        "Delete entry from a match table: table_delete <table name> <entry handle>"
        args = line.split()
        self._exactly(args, 2)
        table = self.rt.table(args[0])
        handle = _int(args[1], "entry handle")
        self.rt.table_delete(table.name, handle)
        return f"Deleting entry {handle} from {args[0]}"

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
        self.rt.table(args[0]).reset_default()

    def do_table_dump(self, line: str):
        "Display entries in a match-table: table_dump <table name>"
        args = line.split()
        self._exactly(args, 1)
        t = self.rt.table(args[0])
        out = ["==========", "TABLE ENTRIES"]
        for ent in sorted(t.entries.values(), key=lambda e: e.handle):
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
        ent = t.entries.get(_int(args[1], "entry handle"))
        if ent is None:
            raise CliError("Invalid table operation (INVALID_HANDLE)")
        return "\n".join(self._entry_lines(t, ent))

    def do_table_dump_entry_from_key(self, line: str):
        "Display some information about a table entry: table_dump_entry_from_key <table name> <match fields> [priority]"
        args = line.split()
        self._at_least(args, 1)
        t = self.rt.table(args[0])
        priority = 0
        if t.spec.match_type in ("ternary", "range"):
            try:
                priority = int(args.pop(-1))
            except ValueError:
                raise CliError("Error: Table is ternary, but could not extract a valid priority from args") from None
        keys = args[1:]
        if len(keys) != len(t.keys):
            raise CliError(f"Error: Table {args[0]} needs {len(t.keys)} key fields")
        try:
            wanted = t._check_match(self._match_key(t, keys))
        except TableOpError as e:
            raise CliError(f"Invalid table operation ({e.code})") from None
        for ent in sorted(t.entries.values(), key=lambda e: e.handle):
            if t.same_key(ent.match, wanted) and (t.kind != "ternary" or ent.priority == priority):
                return "\n".join(self._entry_lines(t, ent))
        raise CliError("Invalid table operation (BAD_MATCH_KEY)")

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
        if t.kind == "ternary":
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

    def do_show_tables(self, line: str):
        "List tables defined in the P4 program: show_tables"
        out = []
        for name in sorted(self.rt.sw.tables):
            t = self.rt.sw.tables[name]
            mk = ",\t".join(f"{k.cli_name}({k.match_type}, {k.width})" for k in t.keys)
            impl = t.profile.name if t.profile is not None else None
            out.append(f"{name:<30} [implementation={impl}, mk={mk}]")
        return "\n".join(out)

    def do_show_actions(self, line: str):
        "List actions defined in the P4 program: show_actions"
        out = []
        for name in sorted(self.rt.program.actions):
            params = ",\t".join(f"{p}({bw})" for p, bw in self.rt.program.actions[name].params)
            out.append(f"{name:<30} [{params}]")
        return "\n".join(out)

    def do_table_info(self, line: str):
        "Show info about a table: table_info <table name>"
        args = line.split()
        self._exactly(args, 1)
        t = self.rt.table(args[0])
        mk = ",\t".join(f"{k.cli_name}({k.match_type}, {k.width})" for k in t.keys)
        impl = t.profile.name if t.profile is not None else None
        out = [f"{t.name:<30} [implementation={impl}, mk={mk}]", "*" * 80]
        for a in t.spec.actions:
            params = ",\t".join(f"{p}({bw})" for p, bw in t.spec.action_specs[a].params)
            out.append(f"{a:<30} [{params}]")
        return "\n".join(out)

    def do_table_show_actions(self, line: str):
        "List one table's actions as per the P4 program: table_show_actions <table_name>"
        args = line.split()
        self._exactly(args, 1)
        t = self.rt.table(args[0])
        return "\n".join(f"{a:<30} [" + ",\t".join(f"{p}({bw})" for p, bw in t.spec.action_specs[a].params) + "]"
                         for a in t.spec.actions)

    # -- action profiles and selectors ---------------------------------------------------------------
    def do_act_prof_create_member(self, line: str):
        "Add a member to an action profile: act_prof_create_member <action profile name> <action_name> [action parameters]"
        args = line.split()
        self._at_least(args, 2)
        prof = self.rt.act_prof(args[0])
        action = self.rt.act_prof_action(prof, args[1])
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
        action = self.rt.act_prof_action(prof, args[1])
        handle = _int(args[2], "member handle")
        params = args[4:] if args[3:4] == ["=>"] else args[3:]      # "be more tolerant", as the real CLI
        self.rt.act_prof_modify_member(prof.name, action, handle, self._runtime_data(action, params))

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
        table = self.rt.indirect_table(args[0], with_selector=group)
        priority = 0
        if table.spec.match_type in ("ternary", "range"):
            try:
                priority = int(args.pop(-1))
            except ValueError:
                raise CliError("Error: Table is ternary, but could not extract a valid priority from args") from None
        rest = args[1:]
        idx = rest.index("=>") if "=>" in rest else len(rest)
        if len(rest) != idx + 2:
            raise CliError("Error: Invalid arguments, could not find handle")
        handle = _int(rest[idx + 1], "handle")
        if idx != len(table.keys):
            raise CliError(f"Error: Table {table.name} needs {len(table.keys)} key fields")
        return table, self._match_key(table, rest[:idx]), handle, priority

    def do_table_indirect_add(self, line: str):
        "Add entry to an indirect match table: table_indirect_add <table name> <match fields> => <member handle> [priority]"
        table, match, handle, priority = self._indirect_add_args(line, group=False)
        entry = self.rt.table_indirect_add(table.name, match, handle, priority)
        return f"Adding entry to indirect match table {table.name}\nEntry has been added with handle {entry}"

    def do_table_indirect_add_with_group(self, line: str):
        "Add entry to an indirect match table: table_indirect_add <table name> <match fields> => <group handle> [priority]"
        table, match, handle, priority = self._indirect_add_args(line, group=True)
        entry = self.rt.table_indirect_add(table.name, match, handle, priority, group=True)
        return f"Adding entry to indirect match table {table.name}\nEntry has been added with handle {entry}"

    def do_table_indirect_delete(self, line: str):
        "Delete entry from an indirect match table: table_indirect_delete <table name> <entry handle>"
        args = line.split()
        self._exactly(args, 2)
        table = self.rt.indirect_table(args[0])
        handle = _int(args[1], "entry handle")
        self.rt.table_delete(table.name, handle)
        return f"Deleting entry {handle} from {args[0]}"

    def do_table_indirect_modify(self, line: str):
        "Modify entry in an indirect match table: table_indirect_modify <table name> <entry handle> <member handle>"
        args = line.split()
        self._exactly(args, 3)
        self.rt.table_indirect_modify(args[0], _int(args[1], "entry handle"), _int(args[2], "member handle"))

    def do_table_indirect_modify_with_group(self, line: str):
        "Modify entry in an indirect match table: table_indirect_modify_with_group <table name> <entry handle> <group handle>"
        args = line.split()
        self._exactly(args, 3)
        self.rt.table_indirect_modify(args[0], _int(args[1], "entry handle"), _int(args[2], "group handle"),
                                      group=True)

    def do_table_indirect_set_default(self, line: str):
        "Set default member for indirect match table: table_indirect_set_default <table name> <member handle>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.table_indirect_set_default(args[0], _int(args[1], "handle"))

    def do_table_indirect_set_default_with_group(self, line: str):
        "Set default group for indirect match table: table_indirect_set_default <table name> <group handle>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.table_indirect_set_default(args[0], _int(args[1], "handle"), group=True)

    def do_table_indirect_reset_default(self, line: str):
        "Reset default entry for indirect match table: table_indirect_reset_default <table name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.table_indirect_reset_default(args[0])

    # the legacy table_indirect_* spellings of the act_prof_* commands: the table's own profile
    def _legacy(self, substitute: str, line: str, *, with_selector: bool = False) -> str | None:
        args = line.split()
        self._at_least(args, 1)
        table = self.rt.indirect_table(args[0], with_selector=with_selector)
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

    # -- registers, counters, meters ----------------------------------------------------------------
    def do_register_read(self, line: str):
        "Read register value: register_read <name> [index]"
        args = line.split()
        self._at_least(args, 1)
        # simple_switch_CLI echoes the name as typed
        full, _ = self.rt._register(args[0])
        if len(args) > 1:
            self._exactly(args, 2)
            idx = _int(args[1], "index")
            return f"{args[0]}[{idx}]= {self.rt.register_read(full, idx)}"
        return f"{args[0]}= " + ", ".join(str(v) for v in self.rt.register_read_all(full))

    def do_register_write(self, line: str):
        "Write register value: register_write <name> <index> <value>"
        args = line.split()
        self._exactly(args, 3)
        full, _ = self.rt._register(args[0])
        self.rt.register_write(full, _int(args[1], "index"), _int(args[2], "value"))

    def do_register_reset(self, line: str):
        "Reset all the cells in the register array to 0: register_reset <name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.register_reset(args[0])

    def do_counter_read(self, line: str):
        "Read counter value: counter_read <name> <index>"
        args = line.split()
        self._exactly(args, 2)
        typed, idx = args[0], _int(args[1], "index")
        name = self.rt._counter(typed).name
        table = self.rt._direct_counter_table(name)
        prefix = ""
        if table is not None:
            prefix = f"this is the direct counter for table {table.name}\n"
        packets, nbytes = self.rt.counter_read(name, idx)
        # runtime_CLI.py (since 2020, so every simple_switch 1.15): "%s[%d]= (%d bytes, %d packets)"
        return f"{prefix}{typed}[{idx}]= ({nbytes} bytes, {packets} packets)"

    def do_counter_reset(self, line: str):
        "Reset counter: counter_reset <name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.counter_reset(args[0])

    def do_counter_write(self, line: str):
        "Write counter value: counter_write <name> <index> <packets> <bytes>"
        args = line.split()
        self._exactly(args, 4)
        self.rt.counter_write(args[0], _int(args[1], "index"), _int(args[2], "packets"), _int(args[3], "bytes"))

    def do_meter_set_rates(self, line: str):
        "Configure rates for a meter: meter_set_rates <name> <index> <rate_1>:<burst_1> <rate_2>:<burst_2> ..."
        args = line.split()
        self._at_least(args, 2)
        rates = []
        for r in args[2:]:
            try:
                rate, burst = r.split(":")
                rates.append((float(rate), int(burst)))
            except ValueError:
                raise CliError("Error: Rate and burst must be separated by ':' (rate:burst)") from None
        self.rt.meter_set_rates(args[0], _int(args[1], "index"), rates)

    def do_meter_get_rates(self, line: str):
        "Retrieve rates for a meter: meter_get_rates <name> <index>"
        args = line.split()
        self._exactly(args, 2)
        rates = self.rt.meter_get_rates(args[0], _int(args[1], "index"))
        return "\n".join(f"{i}: info rate = {r}, burst size = {b}" for i, (r, b) in enumerate(rates))

    # -- traffic manager (sswitch_CLI) ----------------------------------------------------------------
    def do_set_queue_depth(self, line: str):
        "Set depth of one / all egress queue(s): set_queue_depth <nb_pkts> [<egress_port>]"
        args = line.split()
        if len(args) not in (1, 2):
            raise CliError(f"Error: Wrong number of args, expected 1 or 2 but got {len(args)}")
        port = _int(args[1], "egress_port") if len(args) == 2 else None
        self.rt.set_queue_depth(_int(args[0], "nb_pkts"), port)

    def do_set_queue_rate(self, line: str):
        "Set rate of one / all egress queue(s): set_queue_rate <rate_pps> [<egress_port>]"
        args = line.split()
        if len(args) not in (1, 2):
            raise CliError(f"Error: Wrong number of args, expected 1 or 2 but got {len(args)}")
        port = _int(args[1], "egress_port") if len(args) == 2 else None
        self.rt.set_queue_rate(_int(args[0], "rate_pps"), port)

    def do_mirroring_add(self, line: str):
        "Add mirroring session to unicast port: mirroring_add <mirror_id> <egress_port>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.mirroring_add(_int(args[0], "mirror_id"), _int(args[1], "egress_port"))

    def do_mirroring_add_mc(self, line: str):
        "Add mirroring session to multicast group: mirroring_add_mc <mirror_id> <mgrp>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.mirroring_add_mc(_int(args[0], "mirror_id"), _int(args[1], "mgrp"))

    def do_mirroring_delete(self, line: str):
        "Delete mirroring session: mirroring_delete <mirror_id>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.mirroring_delete(_int(args[0], "mirror_id"))

    def do_mirroring_get(self, line: str):
        "Display mirroring session: mirroring_get <mirror_id>"
        args = line.split()
        self._exactly(args, 1)
        sid = _int(args[0], "mirror_id")
        cfg = self.rt.mirroring_get(sid)
        port, mgid = cfg.get("port"), cfg.get("mgid")
        return (f"MirroringSessionConfig(mgid={mgid}, port={port})")

    # -- multicast (PRE) ----------------------------------------------------------------------------
    def do_mc_mgrp_create(self, line: str):
        "Create multicast group: mc_mgrp_create <group id>"
        args = line.split()
        self._exactly(args, 1)
        mgid = _int(args[0], "group id")
        self.rt.mc_mgrp_create(mgid)
        return f"Creating multicast group {mgid}"

    def do_mc_mgrp_destroy(self, line: str):
        "Destroy multicast group: mc_mgrp_destroy <group id>"
        args = line.split()
        self._exactly(args, 1)
        mgid = _int(args[0], "group id")
        self.rt.mc_mgrp_destroy(mgid)
        return f"Destroying multicast group {mgid}"

    @staticmethod
    def _port_map(ports: list[str], what: str = "port") -> tuple[list[int], str]:
        """The ports and runtime_CLI's bitmap string for them (port 0 is the last character)."""
        nums = []
        for text in ports:
            try:
                n = int(text)
            except ValueError:
                raise CliError(f"Error: '{text}' is not a valid {what} number") from None
            if n < 0:
                raise CliError(f"Error: '{text}' is not a valid {what} number")
            nums.append(n)
        nums.sort()
        if len(set(nums)) != len(nums):
            dup = next(n for n in nums if nums.count(n) > 1)
            raise CliError(f"Error: Found duplicate {what} number '{dup}'")
        bitmap = "".join("1" if n in nums else "0" for n in range(max(nums) + 1)) if nums else ""
        return nums, bitmap[::-1]

    def do_mc_node_create(self, line: str):
        "Create multicast node: mc_node_create <rid> <space-separated port list> [ | <space-separated lag list> ]"
        port_part, _, lag_part = line.partition("|")
        args = port_part.split()
        self._at_least(args, 1)
        try:
            rid = int(args[0])
        except ValueError:
            raise CliError("Error: Bad format for rid") from None
        ports, port_map = self._port_map(args[1:])
        lags, lag_map = self._port_map(lag_part.split(), "lag")
        handle = self.rt.mc_node_create(rid, ports, lags)
        return (f"Creating node with rid {rid} , port map {port_map} and lag map {lag_map}\n"
                f"node was created with handle {handle}")

    def do_mc_node_update(self, line: str):
        "Update multicast node: mc_node_update <node handle> <space-separated port list>"
        args = line.partition("|")[0].split()
        self._at_least(args, 1)
        handle = _int(args[0], "node handle")
        ports, _ = self._port_map(args[1:])
        self.rt.mc_node_update(handle, ports)
        return f"Updating node {handle}"

    def do_mc_node_destroy(self, line: str):
        "Destroy multicast node: mc_node_destroy <node handle>"
        args = line.split()
        self._exactly(args, 1)
        handle = _int(args[0], "node handle")
        self.rt.mc_node_destroy(handle)
        return f"Destroying node {handle}"

    def do_mc_node_associate(self, line: str):
        "Associate node to multicast group: mc_node_associate <group handle> <node handle>"
        args = line.split()
        self._exactly(args, 2)
        mgid, handle = _int(args[0], "group handle"), _int(args[1], "node handle")
        self.rt.mc_node_associate(mgid, handle)
        return f"Associating node {handle} to multicast group {mgid}"

    def do_mc_node_dissociate(self, line: str):
        "Dissociate node from multicast group: mc_node_dissociate <group handle> <node handle>"
        args = line.split()
        self._exactly(args, 2)
        mgid, handle = _int(args[0], "group handle"), _int(args[1], "node handle")
        self.rt.mc_node_dissociate(mgid, handle)
        return f"Dissociating node {handle} from multicast group {mgid}"

    def do_mc_dump(self, line: str):
        "Dump entries in multicast engine"
        out = ["==========", "MC ENTRIES"]
        for mgid, nodes in self.rt.mc_entries():
            out += ["**********", f"mgrp({mgid})"]
            for handle, rid, ports, lags in nodes:
                out.append(f"  -> (L1h={handle}, rid={rid}) -> (ports=[{', '.join(map(str, ports))}], "
                           f"lags=[{', '.join(map(str, lags))}])")
        # simple_switch's PRE is SimplePreLAG, whose dump has a LAGS section (no LAG is set here)
        out += ["==========", "LAGS", "=========="]
        return "\n".join(out)

    # -- parser value sets, hash parameters ---------------------------------------------------------
    def do_pvs_add(self, line: str):
        "Add a value to a parser value set: pvs_add <pvs_name> <value>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.pvs_add(args[0], _int(args[1], "value"))

    def do_pvs_remove(self, line: str):
        "Remove a value from a parser value set: pvs_remove <pvs_name> <value>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.pvs_remove(args[0], _int(args[1], "value"))

    def do_pvs_get(self, line: str):
        "Print all values from a parser value set: pvs_get <pvs_name>"
        args = line.split()
        self._exactly(args, 1)
        return "\n".join(hex(v) for v in self.rt.pvs_get(args[0]))

    def do_pvs_clear(self, line: str):
        "Remove all values from a parser value set: pvs_clear <pvs_name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.pvs_clear(args[0])

    def _crc(self, width: int, line: str) -> None:
        args = line.split()
        self._exactly(args, 6)
        flag = {"true": True, "false": False}
        try:
            params = CrcParams(width, int(args[1], 0), int(args[2], 0), int(args[3], 0),
                               flag[args[4].lower()], flag[args[5].lower()])
        except (ValueError, KeyError):
            raise CliError("Error: Invalid CRC parameters") from None
        self.rt.set_crc_parameters(width, args[0], params)

    def do_set_crc16_parameters(self, line: str):
        "Change the parameters for a custom crc16 hash: set_crc16_parameters <name> <polynomial> <initial remainder> <final xor value> <reflect data?> <reflect remainder?>"
        self._crc(16, line)

    def do_set_crc32_parameters(self, line: str):
        "Change the parameters for a custom crc32 hash: set_crc32_parameters <name> <polynomial> <initial remainder> <final xor value> <reflect data?> <reflect remainder?>"
        self._crc(32, line)

    def do_help(self, line: str):
        "List available commands with \"help\" or detailed help with \"help cmd\"."
        if line:
            fn = getattr(self, f"do_{line.strip()}", None)
            return (fn.__doc__ or "") if fn else f"*** No help on {line.strip()}"
        return "\n".join(name for name, _ in self.commands())


