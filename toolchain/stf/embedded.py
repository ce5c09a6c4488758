"""Run a parsed STF test on the embedded target (toolchain.switch.SimpleSwitch)."""

from __future__ import annotations

from ..switch import CliError, SimpleSwitch
from ..switch.bm_sim.tables import MatchParam
from .stf_parser import (Add, CheckCounter, CliCommand, Expect, IgnoredCommand, PacketIn, RegisterCheck, SetDefault,
                         StfAddError, StfCommand, Wait, add_priority, parse_key_value, stf_key_index,
                         stf_name)

__all__ = ["EmbeddedRun", "compare_packet", "STF_PACKET_INTERVAL"]

# Virtual time between two STF packets (meters and timestamps see time passing).
STF_PACKET_INTERVAL = 0.001


def compare_packet(pattern: str, exact: bool, received: bytes) -> str | None:
    """None if ``received`` matches the expected hex pattern, else what differs (p4c's wording)."""
    got = received.hex().upper()
    if len(got) < len(pattern):
        return f"Received packet too short {len(got)} vs {len(pattern)}"
    for i, ch in enumerate(pattern):
        if ch != "*" and ch != got[i]:
            return f"Packet different at position {i}: expected {ch}, received {got[i]}"
    if exact and len(got) > len(pattern):
        return f"Received packet too long {len(got)} vs {len(pattern)}"
    return None


class EmbeddedRun:
    def __init__(self, program, seed: int = 0):
        self.sw = SimpleSwitch(program, seed=seed)
        self.failures: list[str] = []
        self.warnings: list[str] = []    # what p4c's runner would not fail on, but a user should see
        self.received: dict[int, list[bytes]] = {}
        self.expected: dict[int, list[Expect]] = {}
        self.now = 0.0

    def fail(self, cmd: StfCommand, msg: str) -> None:
        self.failures.append(f"line {cmd.lineno}: {msg}")

    # -- commands -------------------------------------------------------------------------------
    def run(self, cmds: list[StfCommand]) -> list[str]:
        # as p4c's runner, only the ports a packet or expect line names have an interface
        # (bmv2stf.py, generate_model_inputs): output on any other port goes nowhere
        self.ports = {c.port for c in cmds if isinstance(c, (PacketIn, Expect))}
        for cmd in cmds:
            try:
                self._one(cmd)
            except CliError as e:
                if isinstance(cmd, CliCommand):
                    # p4c's runner pipes these lines to simple_switch_CLI and does not read back
                    self.warnings.append(f"line {cmd.lineno}: {cmd.line}: {e}")
                else:
                    self.fail(cmd, str(e))
        self._check_outputs()
        return self.failures

    def _one(self, cmd: StfCommand) -> None:
        if isinstance(cmd, Add):
            self._add(cmd)
        elif isinstance(cmd, SetDefault):
            t, action = self._table_and_action(cmd.table, cmd.action)
            self.sw.runtime.table_set_default(t.name, action, self._args(action, cmd.args, t))
        elif isinstance(cmd, PacketIn):
            for port, frame in self.sw.process(cmd.port, cmd.data, now=self.now):
                self.received.setdefault(port, []).append(frame)
            self.now += STF_PACKET_INTERVAL
        elif isinstance(cmd, Expect):
            self.expected.setdefault(cmd.port, []).append(cmd)
        elif isinstance(cmd, Wait):
            pass        # the embedded target is synchronous: every packet is already out
        elif isinstance(cmd, CheckCounter):
            self._check_counter(cmd)
        elif isinstance(cmd, RegisterCheck):
            got = self.sw.runtime.register_read(cmd.register, cmd.index)
            if got != cmd.value:
                self.fail(cmd, f"register {cmd.register}[{cmd.index}] is {got}, expected {cmd.value}")
        elif isinstance(cmd, CliCommand):
            self.sw.cli(cmd.line)
        elif isinstance(cmd, IgnoredCommand):
            self.warnings.append(f"line {cmd.lineno}: ignored, as p4c's runner ignores it: {cmd.line}")

    def _args(self, action: str, args: list, table=None) -> list[int]:
        params = self.sw.runtime.action_params(action, table)
        by_name = {n: v for n, v in args if n is not None}
        if by_name:
            missing = [p for p, _ in params if p not in by_name]
            if missing:
                raise CliError(f"action {action}: missing parameter(s) {', '.join(missing)}")
            return [int(by_name[p], 0) for p, _ in params]
        return [int(v, 0) for _, v in args]

    def _key_index(self, table, name: str) -> int:
        i = stf_key_index([k.name for k in table.keys], name)
        if i is None:
            i = stf_key_index([k.cli_name for k in table.keys], name)     # runtime_CLI's spelling
        if i is None:
            raise CliError(f"table {table.name} has no key {name}")
        return i

    def _table_and_action(self, table: str, action: str):
        rt = self.sw.runtime
        try:
            t = rt.table(stf_name("table", rt.sw.tables, table))
            return t, stf_name("action", t.bind, action)
        except KeyError as e:
            raise CliError(str(e).strip('"')) from None

    def _add(self, cmd: Add) -> None:
        rt = self.sw.runtime
        t, action = self._table_and_action(cmd.table, cmd.action)
        try:
            priority = add_priority(t.name, t.spec.match_type,
                                    [(k.name, k.match_type) for k in t.keys], cmd.priority)
        except StfAddError as e:
            raise CliError(str(e)) from None
        match = [None] * len(t.keys)
        for name, text in cmd.keys:
            i = self._key_index(t, name)
            match[i] = self._match_param(t.keys[i], text)
        for i, k in enumerate(t.keys):
            if match[i] is None:
                match[i] = self._wildcard(k, t.name)
        rt.table_add(t.name, action, match, self._args(action, cmd.args, t), priority or 0)

    @staticmethod
    def _wildcard(key, table: str) -> MatchParam:
        """The value of a key the STF line leaves out, as p4c's runner fills it in (bmv2stf.py,
        TableKeyInstance): ternary 0&&&0 and lpm 0/0 match anything; exact and valid keys
        become 0 (they match the value 0, not anything)."""
        if key.match_type == "lpm":
            return MatchParam("lpm", 0, 0)
        if key.match_type in ("ternary", "optional"):
            return MatchParam(key.match_type, 0, 0)
        return MatchParam(key.match_type, 0)

    @staticmethod
    def _match_param(key, text: str) -> MatchParam:
        value, mask = parse_key_value(text, key.width)
        full = (1 << key.width) - 1
        if key.match_type == "lpm":
            plen = bin(mask).count("1")
            if mask != (full ^ ((1 << (key.width - plen)) - 1)):
                raise CliError(f"LPM key {text} is not a prefix")
            return MatchParam("lpm", value, plen)
        if key.match_type in ("ternary", "optional"):
            return MatchParam(key.match_type, value, mask)
        if mask != full:
            raise CliError(f"exact key {text} has wildcards")
        return MatchParam(key.match_type, value)

    def _check_counter(self, cmd: CheckCounter) -> None:
        packets, nbytes = self.sw.runtime.counter_read(cmd.counter, cmd.index)
        got = packets if cmd.kind == "packets" else nbytes
        ok = {"==": got == cmd.value, "!=": got != cmd.value, "<": got < cmd.value,
              "<=": got <= cmd.value, ">": got > cmd.value, ">=": got >= cmd.value}[cmd.op]
        if not ok:
            self.fail(cmd, f"counter {cmd.counter}({cmd.index}) {cmd.kind} is {got}, expected {cmd.op} {cmd.value}")

    # -- outputs --------------------------------------------------------------------------------
    def _check_outputs(self) -> None:
        for port in sorted(set(self.received) | set(self.expected)):
            if port not in self.ports:
                continue
            got = self.received.get(port, [])
            want = self.expected.get(port, [])
            if any(not e.pattern for e in want):
                # "expect <port>" without data: anything (or nothing) may leave the port (bmv2stf.py)
                continue
            if len(got) != len(want):
                self.failures.append(f"Expected {len(want)} packets on port {port} got {len(got)}"
                                     + "".join(f"\n  received: {g.hex().upper()}" for g in got))
                continue
            for exp, frame in zip(want, got):
                diff = compare_packet(exp.pattern, exp.exact, frame)
                if diff:
                    self.failures.append(f"line {exp.lineno}: port {port}: {diff}\n  expected: {exp.pattern}"
                                         f"{'$' if exp.exact else ''}\n  received: {frame.hex().upper()}")
