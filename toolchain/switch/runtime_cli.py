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
from .bm_sim.tables import HANDLE_INDEX_MASK, MatchParam, TableOpError
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


class _Crash(CliError):
    """Input on which the real runtime_CLI.py dies with a Python exception (it prints a
    traceback and the session ends); we print the exception's last line and go on."""


def _addr_bytes(text: str, bitwidth: int) -> bytes | None:
    """runtime_CLI.parse_param's address forms: IPv4 for 32 bits (text with '.'), MAC for 48
    bits and IPv6 for 128 bits (text with ':'); None when the text is not in that form."""
    if bitwidth == 32 and "." in text:
        parts = text.split(".")
        try:
            if len(parts) != 4:
                raise ValueError
            vals = [int(b) for b in parts]
        except ValueError:
            raise _BadParam("Invalid IPv4 address") from None
    elif bitwidth == 48 and ":" in text:
        parts = text.split(":")
        try:
            if len(parts) != 6:
                raise ValueError
            vals = [int(b, 16) for b in parts]
        except ValueError:
            raise _BadParam("Invalid MAC address") from None
    elif bitwidth == 128 and ":" in text:
        try:
            return ipaddress.IPv6Address(text).packed
        except ValueError:
            raise _BadParam("Invalid IPv6 address") from None
    else:
        return None
    if any(not 0 <= v <= 255 for v in vals):       # struct.pack('B', ...) in the real CLI
        raise _Crash("struct.error: ubyte format requires 0 <= number <= 255")
    return bytes(vals)


def parse_param(text: str, bitwidth: int) -> int:
    """A CLI value as runtime_CLI.py parses it: an IPv4 address for 32-bit, MAC for 48-bit,
    IPv6 for 128-bit, else an integer (Python ``int(text, 0)``) in (bitwidth + 7) // 8 bytes;
    a negative integer becomes 0 (its int_to_bytes emits zero bytes for it)."""
    raw = _addr_bytes(text, bitwidth)
    if raw is not None:
        return int.from_bytes(raw, "big")
    try:
        v = int(text, 0)
    except ValueError:
        raise _BadParam("Invalid input, could not cast to integer, try in hex with 0x prefix") from None
    if v <= 0:
        return 0
    if (v.bit_length() + 7) // 8 > (bitwidth + 7) // 8:
        raise _BadParam("Parameter is too large")
    return v


def _byte_str(value: int, bitwidth: int) -> str:
    n = max((bitwidth + 7) // 8, 1)
    return ":".join(f"{b:02x}" for b in value.to_bytes(n, "big"))


def _int(text: str, what: str) -> int:
    """runtime_CLI.py's handle parsing: Python ``int(text)`` (decimal), "Bad format for <what>"."""
    try:
        return int(text)
    except ValueError:
        raise CliError(f"Error: Bad format for {what}") from None


def _parse_int(text: str, what: str) -> int:
    """runtime_CLI.RuntimeAPI.parse_int (sswitch_CLI's queue and mirroring commands)."""
    try:
        return int(text)
    except ValueError:
        raise CliError(f"Error: Bad format for {what}, expected integer") from None


_IDENTCHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class RuntimeCLI:
    """The command interpreter. ``commands()`` lists (name, help) for prompts and completion."""

    prompt = "RuntimeCmd: "

    def __init__(self, runtime: Runtime):
        self.rt = runtime
        self.lastcmd = ""
        self._out: list[str] = []

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
        """One line as simple_switch_CLI's ``cmd.Cmd`` reads it: the command is the leading
        run of identifier characters; an empty line repeats the last command (cmd.Cmd's
        ``emptyline``); anything else that is not a command, '#' comments included, is
        "*** Unknown syntax". What a command prints before failing stays in the message."""
        line = line.strip()
        if not line:
            if not self.lastcmd:
                return ""
            line = self.lastcmd
        if line[0] == "?":
            line = "help " + line[1:]
        elif line[0] == "!":
            line = "shell " + line[1:]
        i = 0
        while i < len(line) and line[i] in _IDENTCHARS:
            i += 1
        cmd, arg = line[:i], line[i:].strip()
        self.lastcmd = "" if line == "EOF" else line
        fn = getattr(self, f"do_{cmd}", None) if cmd else None
        if fn is None:
            if line.startswith("#"):
                # a comment: simple_switch_CLI prints this too, but it is not counted as a
                # failed command (rdtcp-switch-cli's exit status, run_commands)
                return f"*** Unknown syntax: {line}"
            raise CliError(f"*** Unknown syntax: {line}")
        self._out = []
        try:
            out = fn(arg)
        except CliError as e:
            raise CliError("\n".join(self._out + [e.message])) from None
        except Exception as e:  # noqa: BLE001 -- the real CLI dies with a traceback here
            raise _Crash("\n".join(self._out + [f"{type(e).__name__}: {e}"])) from None
        finally:
            printed, self._out = self._out, []
        if out:
            printed.append(out)
        return "\n".join(printed)

    def _print(self, *parts) -> None:
        """print(*parts) of the real CLI, for lines printed before a call that may fail."""
        self._out.append(" ".join(str(p) for p in parts))

    def run_commands(self, path_or_text) -> str:
        """A commands file as a script: blank lines and '#' lines are skipped (a convenience
        of the library: simple_switch_CLI would repeat the previous command on a blank line
        and print "*** Unknown syntax" for a comment); stops at the first failing line."""
        text = self._commands_text(path_or_text)
        outputs = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
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
        match = self._match_key(t, keys)
        try:
            wanted = t._check_match(match)
        except TableOpError as e:
            raise CliError(f"Invalid table operation ({e.code})") from None
        for ent in sorted(t.entries.values(), key=lambda e: e.handle & HANDLE_INDEX_MASK):
            if t.same_key(ent.match, wanted) and (not self._has_priority(t) or ent.priority == priority):
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

    # -- registers, counters, meters ----------------------------------------------------------------
    def do_register_read(self, line: str):
        "Read register value: register_read <name> [index]"
        args = line.split()
        self._at_least(args, 1)
        full, _ = self.rt._register(args[0])
        if len(args) > 1:
            self._exactly(args, 2)
            idx = _int(args[1], "index")
            return f"{args[0]}[{idx}]= {self.rt.register_read(full, idx)}"
        # ("register index omitted, reading entire array" goes to stderr)
        return f"{args[0]}= " + ", ".join(str(v) for v in self.rt.register_read_all(full))

    def do_register_write(self, line: str):
        "Write register value: register_write <name> <index> <value>"
        args = line.split()
        self._exactly(args, 3)
        full, _ = self.rt._register(args[0])
        idx = _int(args[1], "index")
        value = _int(args[2], "value, must be an integer")
        self.rt.register_write(full, idx, value)

    def do_register_reset(self, line: str):
        "Reset all the cells in the register array to 0: register_reset <name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.register_reset(args[0])

    def do_counter_read(self, line: str):
        "Read counter value: counter_read <name> <index>"
        args = line.split()
        self._exactly(args, 2)
        typed = args[0]
        name = self.rt._counter(typed).name
        idx = _int(args[1], "index")
        table = self.rt._direct_counter_table(name)
        if table is not None:
            self._print("this is the direct counter for table", table.name)
        packets, nbytes = self.rt.counter_read(name, idx)
        return f"{typed}[{idx}]= ({nbytes} bytes, {packets} packets)"

    def do_counter_reset(self, line: str):
        "Reset counter: counter_reset <name>"
        args = line.split()
        self._exactly(args, 1)
        name = self.rt._counter(args[0]).name
        table = self.rt._direct_counter_table(name)
        if table is not None:
            self._print("this is the direct counter for table", table.name)
        self.rt.counter_reset(name)

    def do_counter_write(self, line: str):
        "Write counter value: counter_write <name> <index> <packets> <bytes>"
        args = line.split()
        self._exactly(args, 4)
        name = self.rt._counter(args[0]).name
        idx = _int(args[1], "index")
        packets, nbytes = _int(args[2], "packets"), _int(args[3], "bytes")
        table = self.rt._direct_counter_table(name)
        if table is not None:
            self._print("writing to direct counter for table", table.name)
        self.rt.counter_write(name, idx, packets, nbytes)
        return f"{args[0]}[{idx}] has been updated"

    @staticmethod
    def _rates(texts: list[str], count: int) -> list[tuple[float, int]]:
        if len(texts) != count:
            raise CliError(f"Error: Invalid number of rates, expected {count} but got {len(texts)}")
        rates = []
        for r in texts:
            try:
                rate, burst = r.split(":")
                rates.append((float(rate), int(burst)))
            except ValueError:
                raise CliError("Error: Error while parsing rates") from None
        return rates

    def do_meter_array_set_rates(self, line: str):
        "Configure rates for an entire meter array: meter_array_set_rates <name> <rate_1>:<burst_1> <rate_2>:<burst_2> ..."
        args = line.split()
        self._at_least(args, 1)
        m = self.rt._meter(args[0])
        self.rt.meter_array_set_rates(m.name, self._rates(args[1:], m.rate_count))

    def do_meter_set_rates(self, line: str):
        "Configure rates for a meter: meter_set_rates <name> <index> <rate_1>:<burst_1> <rate_2>:<burst_2> ...\nRate uses units/microsecond and burst uses units where units is bytes or packets"
        args = line.split()
        self._at_least(args, 2)
        m = self.rt._meter(args[0])
        idx = _int(args[1], "index")
        self.rt.meter_set_rates(m.name, idx, self._rates(args[2:], m.rate_count))

    def do_meter_get_rates(self, line: str):
        "Retrieve rates for a meter: meter_get_rates <name> <index>"
        args = line.split()
        self._exactly(args, 2)
        m = self.rt._meter(args[0])
        rates = self.rt.meter_get_rates(m.name, _int(args[1], "index"))
        out = []
        if len(rates) != m.rate_count:
            out.append(f"WARNING: expected {m.rate_count} rates but only received {len(rates)}")
        out += [f"{i}: info rate = {float(r)}, burst size = {b}" for i, (r, b) in enumerate(rates)]
        return "\n".join(out)

    # -- traffic manager, mirroring, clock (sswitch_CLI.py) ------------------------------------------
    def _queue_args(self, line: str, what: str):
        args = line.split()
        self._at_least(args, 1)
        value = _parse_int(args[0], what)
        port = _parse_int(args[1], "egress_port") if len(args) > 1 else None
        if len(args) > 2:
            _parse_int(args[2], "priority")     # priority queues are not modelled: one FIFO a port
        return value, port

    def do_set_queue_depth(self, line: str):
        "Set depth of one / all egress queue(s): set_queue_depth <nb_pkts> [<egress_port> [<priority>]]"
        depth, port = self._queue_args(line, "nb_pkts")
        self.rt.set_queue_depth(depth, port)

    def do_set_queue_rate(self, line: str):
        "Set rate of one / all egress queue(s): set_queue_rate <rate_pps> [<egress_port> [<priority>]]"
        rate, port = self._queue_args(line, "rate_pps")
        self.rt.set_queue_rate(rate, port)

    def do_mirroring_add(self, line: str):
        "Add mirroring session to unicast port: mirroring_add <mirror_id> <egress_port>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.mirroring_add(_parse_int(args[0], "mirror_id"), _parse_int(args[1], "egress_port"))

    def do_mirroring_add_mc(self, line: str):
        "Add mirroring session to multicast group: mirroring_add_mc <mirror_id> <mgrp>"
        args = line.split()
        self._exactly(args, 2)
        self.rt.mirroring_add_mc(_parse_int(args[0], "mirror_id"), _parse_int(args[1], "mgrp"))

    def do_mirroring_delete(self, line: str):
        "Delete mirroring session: mirroring_delete <mirror_id>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.mirroring_delete(_parse_int(args[0], "mirror_id"))

    def do_mirroring_get(self, line: str):
        "Display mirroring session: mirroring_get <mirror_id>"
        args = line.split()
        self._exactly(args, 1)
        cfg = self.rt.mirroring_get(_parse_int(args[0], "mirror_id"))
        # the Thrift struct's repr, fields in declaration order, unset ones None
        return f"MirroringSessionConfig(port={cfg.get('port')}, mgid={cfg.get('mgid')})"

    def do_get_time_elapsed(self, line: str):
        "Get time elapsed (in microseconds) since the switch started: get_time_elapsed"
        return str(int(self.rt.time_elapsed_us()))

    def do_get_time_since_epoch(self, line: str):
        "Get time elapsed (in microseconds) since the switch clock's epoch: get_time_since_epoch"
        return str(int(self.rt.time_elapsed_us()))

    # -- multicast (PRE: simple_switch_CLI uses SimplePreLAG) ---------------------------------------
    def do_mc_mgrp_create(self, line: str):
        "Create multicast group: mc_mgrp_create <group id>"
        args = line.split()
        self._exactly(args, 1)
        mgid = _int(args[0], "multicast group id")
        self._print("Creating multicast group", mgid)
        self.rt.mc_mgrp_create(mgid)

    def do_mc_mgrp_destroy(self, line: str):
        "Destroy multicast group: mc_mgrp_destroy <group id>"
        args = line.split()
        self._exactly(args, 1)
        mgid = _int(args[0], "multicast group id")
        self._print("Destroying multicast group", mgid)
        self.rt.mc_mgrp_destroy(mgid)

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
        bitmap, last = "", 0
        for n in nums:
            if n == last - 1:
                raise CliError(f"Error: Found duplicate {what} number '{n}'")
            bitmap += "0" * (n - last) + "1"
            last = n + 1
        return nums, bitmap[::-1]

    def _ports_and_lags(self, args: list[str]):
        i = 1
        while i < len(args) and args[i] != "|":
            i += 1
        ports, port_map = self._port_map(args[1:i])
        lags, lag_map = self._port_map(args[i + 1:], "lag")
        return ports, port_map, lags, lag_map

    def do_mc_node_create(self, line: str):
        "Create multicast node: mc_node_create <rid> <space-separated port list> [ | <space-separated lag list> ]"
        args = line.split()
        self._at_least(args, 1)
        rid = _int(args[0], "rid")
        ports, port_map, lags, lag_map = self._ports_and_lags(args)
        self._print("Creating node with rid", rid, ", port map", port_map, "and lag map", lag_map)
        handle = self.rt.mc_node_create(rid, ports, lags)
        return f"node was created with handle {handle}"

    def do_mc_node_update(self, line: str):
        "Update multicast node: mc_node_update <node handle> <space-separated port list> [ | <space-separated lag list> ]"
        args = line.split()
        self._at_least(args, 2)
        handle = _int(args[0], "node handle")
        ports, port_map, lags, lag_map = self._ports_and_lags(args)
        self._print("Updating node", handle, "with port map", port_map, "and lag map", lag_map)
        self.rt.mc_node_update(handle, ports, lags)

    def do_mc_node_destroy(self, line: str):
        "Destroy multicast node: mc_node_destroy <node handle>"
        args = line.split()
        self._exactly(args, 1)
        try:
            handle = int(args[0])
        except ValueError:              # int(...) outside the CLI's error handling
            raise _Crash(f"ValueError: invalid literal for int() with base 10: {args[0]!r}") from None
        self._print("Destroying node", handle)
        self.rt.mc_node_destroy(handle)

    def do_mc_node_associate(self, line: str):
        "Associate node to multicast group: mc_node_associate <group handle> <node handle>"
        args = line.split()
        self._exactly(args, 2)
        mgid, handle = _int(args[0], "multicast group id"), _int(args[1], "node handle")
        self._print("Associating node", handle, "to multicast group", mgid)
        self.rt.mc_node_associate(mgid, handle)

    def do_mc_node_dissociate(self, line: str):
        "Dissociate node from multicast group: mc_node_associate <group handle> <node handle>"
        args = line.split()
        self._exactly(args, 2)
        mgid, handle = _int(args[0], "multicast group id"), _int(args[1], "node handle")
        self._print("Dissociating node", handle, "from multicast group", mgid)
        self.rt.mc_node_dissociate(mgid, handle)

    def do_mc_set_lag_membership(self, line: str):
        "Set lag membership of port list: mc_set_lag_membership <lag index> <space-separated port list>"
        args = line.split()
        self._at_least(args, 2)
        lag = _int(args[0], "lag index")
        ports, port_map = self._port_map(args[1:], "lag")
        self._print("Setting lag membership:", lag, "<-", port_map)
        self.rt.mc_set_lag_membership(lag, ports)

    def do_mc_dump(self, line: str):
        "Dump entries in multicast engine"
        out = ["==========", "MC ENTRIES"]
        last_ports = None
        for mgid, nodes in self.rt.mc_entries():
            out += ["**********", f"mgrp({mgid})"]
            for handle, rid, ports, lags in nodes:
                out.append(f"  -> (L1h={handle}, rid={rid}) -> (ports=[{', '.join(map(str, ports))}], "
                           f"lags=[{', '.join(map(str, lags))}])")
                last_ports = ports
        out += ["==========", "LAGS"]
        for lag, _members in self.rt.mc_lags():
            # runtime_CLI.py prints the `ports` variable left over from the node loop above
            # (the last node it printed), not the LAG's members
            if last_ports is None:
                out.append(f"lag({lag})")
                raise _Crash("\n".join(out + ["UnboundLocalError: cannot access local variable 'ports' "
                                               "where it is not associated with a value"]))
            out.append(f"lag({lag}) -> ports=[{', '.join(map(str, last_ports))}]")
        out.append("==========")
        return "\n".join(out)

    # -- parser value sets, hash parameters ---------------------------------------------------------
    def _pvs_value(self, name: str, text: str) -> tuple[str, int]:
        full = self.rt.pvs_name(name)
        bw = self.rt.program.vsets[full]
        try:
            v = int(text, 0)
        except ValueError:
            raise CliError("Error: Invalid input, could not cast to integer, try in hex with 0x prefix") from None
        if v > (1 << bw) - 1:
            raise CliError(f"Error: Input is too large, it should fit within {bw} bits")
        return full, max(v, 0)

    def do_show_pvs(self, line: str):
        "List parser value sets defined in the P4 program: show_pvs"
        self._exactly(line.split(), 0)
        return "\n".join(f"{name:<30} [compressed bitwidth:{bw}]" for name, bw in sorted(self.rt.program.vsets.items()))

    def do_pvs_add(self, line: str):
        "Add a value to a parser value set: pvs_add <pvs_name> <value>\nbmv2 will not report an error if the value already exists."
        args = line.split()
        self._exactly(args, 2)
        self.rt.pvs_add(*self._pvs_value(args[0], args[1]))

    def do_pvs_remove(self, line: str):
        "Remove a value from a parser value set: pvs_remove <pvs_name> <value>\nbmv2 will not report an error if the value does not exist."
        args = line.split()
        self._exactly(args, 2)
        self.rt.pvs_remove(*self._pvs_value(args[0], args[1]))

    def do_pvs_get(self, line: str):
        "Print all values from a parser value set: pvs_get <pvs_name>\nValues are displayed in no particular order, one per line."
        args = line.split()
        self._exactly(args, 1)
        full = self.rt.pvs_name(args[0])
        bw = self.rt.program.vsets[full]
        # runtime_CLI.py sends each value in ceil((bw + 7) / 8) bytes (a float division) and
        # bmv2 stores and returns the bytes unmodified
        n = -(-(bw + 7) // 8) if (bw + 7) % 8 == 0 else (bw + 7) // 8 + 1
        return "\n".join(v.to_bytes(n, "big").hex() for v in self.rt.pvs_get(full))

    def do_pvs_clear(self, line: str):
        "Remove all values from a parser value set: pvs_clear <pvs_name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.pvs_clear(self.rt.pvs_name(args[0]))

    def _crc(self, width: int, line: str) -> None:
        args = line.split()
        self._exactly(args, 6)
        name = args[0]
        # runtime_CLI.py: the calculation's exact JSON name (no suffixes) of a crc<width>_custom
        if not any(c.get("name") == name and c.get("algo") == f"crc{width}_custom"
                   for c in self.rt.program.json.get("calculations", [])):
            raise CliError(f"Error: Invalid crc{width}_custom name ({name})")
        values = []
        for text in args[1:4]:
            try:
                v = int(text, 0)
            except ValueError:
                raise _Crash(f"ValueError: invalid literal for int() with base 0: {text!r}") from None
            if v > (1 << width) - 1:
                raise CliError(f"Error: Integer cannot fit within {width} bits")
            values.append(v & ((1 << width) - 1))
        flags = []
        for text in args[4:6]:
            if text in ("true", "True", "false", "False"):
                flags.append(text in ("true", "True"))
                continue
            try:
                flags.append(bool(int(text, 0)))
            except ValueError:
                raise CliError("Error: Invalid bool parameter") from None
        self.rt.set_crc_parameters(width, name, CrcParams(width, *values, *flags))

    def do_set_crc16_parameters(self, line: str):
        "Change the parameters for a custom crc16 hash: set_crc16_parameters <name> <polynomial> <initial remainder> <final xor value> <reflect data?> <reflect remainder?>"
        self._crc(16, line)

    def do_set_crc32_parameters(self, line: str):
        "Change the parameters for a custom crc32 hash: set_crc32_parameters <name> <polynomial> <initial remainder> <final xor value> <reflect data?> <reflect remainder?>"
        self._crc(32, line)

    def do_help(self, line: str):
        "List available commands with \"help\" or detailed help with \"help cmd\"."
        # NOTE: simple_switch_CLI prints cmd.Cmd's columnized help here; one name a line is kept
        # because rdtcp-switch-cli's completion reads the command names from this output
        if line:
            fn = getattr(self, f"do_{line.strip()}", None)
            return (fn.__doc__ or "") if fn else f"*** No help on {line.strip()}"
        return "\n".join(name for name, _ in self.commands())

    def do_shell(self, line: str):
        "Run a shell command"
        raise CliError("Error: shell commands are not run by this switch")
