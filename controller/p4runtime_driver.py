"""``P4RuntimeDriver``: the controller's commands over P4Runtime, for ``controller.Controller``.

    drv = P4RuntimeDriver("127.0.0.1:9559", p4info="build/rdtcp.p4info.txt",
                          bmv2_json="build/rdtcp.json", thrift_port=9090)
    Controller(drv, program="build/rdtcp.json").apply(cfg)

The controller speaks simple_switch_CLI's language (controller.commands); this driver writes
each command's meaning as P4Runtime updates: `table_add` an INSERT of a table entry (keys as
the CLI writes them: `10.0.1.0/24`, `v&&&mask`, `lo->hi`; a trailing priority for ternary
and range tables), `table_set_default` a MODIFY of the default entry, `table_clear` the
deletes of every entry read back, `register_write` / `register_reset` RegisterEntry MODIFYs
(one cell, every cell), `counter_reset` a CounterEntry MODIFY of every cell. P4Runtime has
no queue settings: `set_queue_depth` and `set_queue_rate` go over the switch's Thrift API
when a ``thrift_port`` is given (as simple_switch_grpc users do with simple_switch_CLI), else
they are refused with a DriverError naming them. Reads (registers, counters) are P4Runtime
Reads. With ``p4info`` and ``bmv2_json`` the driver installs that pipeline
(SetForwardingPipelineConfig); without, it reads the P4Info the switch runs.
"""
from __future__ import annotations

import shlex
from typing import Optional, Sequence

from controller.drivers import DriverError
from controller.p4runtime_client import P4RuntimeClient, P4RuntimeError

__all__ = ["P4RuntimeDriver", "THRIFT_ONLY"]

# commands P4Runtime has no message for (simple_switch's traffic manager)
THRIFT_ONLY = ("set_queue_depth", "set_queue_rate")


class P4RuntimeDriver:
    def __init__(self, address: str, *, p4info=None, bmv2_json=None, device_id: int = 0,
                 election_id: int = 1, thrift_port: Optional[int] = None,
                 timeout: float = 10.0):
        try:
            self.client = P4RuntimeClient(address, device_id=device_id,
                                          election_id=election_id, timeout=timeout)
            if p4info is not None and bmv2_json is not None:
                self.client.set_pipeline(p4info, bmv2_json)
            else:
                self.client.load_p4info()
        except P4RuntimeError as e:
            raise DriverError(str(e)) from None
        self.where = address
        self.thrift = None
        if thrift_port is not None:
            from controller.drivers import ThriftDriver
            self.thrift = ThriftDriver(thrift_port)

    def close(self) -> None:
        self.client.close()
        if self.thrift is not None:
            self.thrift.close()

    # -- Driver -------------------------------------------------------------------------------
    def run(self, commands: Sequence[str]) -> list[str]:
        out = []
        for cmd in commands:
            try:
                out.append(self._one(cmd.strip()))
            except P4RuntimeError as e:
                raise DriverError(f"{cmd!r} refused by the switch: {e}") from None
        return out

    def _one(self, cmd: str) -> str:
        words = shlex.split(cmd)
        if not words:
            return ""
        op, args = words[0], words[1:]
        c = self.client
        if op in THRIFT_ONLY:
            if self.thrift is None:
                raise DriverError(f"{cmd!r}: P4Runtime has no queue settings; give the driver "
                                  "the switch's Thrift port (thrift_port=) for them")
            return self.thrift.run([cmd])[0]
        if op == "table_add":
            self._table_add(args, cmd)
        elif op == "table_set_default" and args:
            t, a = args[0], args[1]
            c.table_set_default(t, a, self._params(a, args[2:], cmd))
        elif op == "table_clear" and len(args) == 1:
            c.table_clear(args[0])
        elif op == "register_write" and len(args) == 3:
            c.register_write(args[0], int(args[1], 0), int(args[2], 0))
        elif op == "register_reset" and len(args) == 1:
            c.register_write(args[0], None, 0)
        elif op == "counter_reset" and len(args) == 1:
            c.counter_reset(args[0])
        else:
            raise DriverError(f"{cmd!r}: not a command this driver writes over P4Runtime")
        return ""

    def _params(self, action: str, values: list[str], cmd: str) -> dict:
        a = self.client._find("actions", action)
        if len(values) != len(a.params):
            raise DriverError(f"{cmd!r}: action {action} takes {len(a.params)} parameters")
        return {p.name: v for p, v in zip(a.params, values)}

    def _table_add(self, args: list[str], cmd: str) -> None:
        if "=>" not in args or len(args) < 2:
            raise DriverError(f"{cmd!r}: table_add TABLE ACTION KEY... => PARAM... [PRIORITY]")
        i = args.index("=>")
        table, action, keys, rest = args[0], args[1], args[2:i], args[i + 1:]
        t = self.client._find("tables", table)
        if len(keys) != len(t.match_fields):
            raise DriverError(f"{cmd!r}: table {table} has {len(t.match_fields)} keys")
        a = self.client._find("actions", action)
        priority = 0
        if len(rest) == len(a.params) + 1:
            priority = int(rest.pop())
        match = {}
        for f, text in zip(t.match_fields, keys):
            if f.match_type == f.LPM:
                v, _, plen = text.partition("/")
                if int(plen or f.bitwidth) == 0:
                    continue                 # /0 matches everything: left out in P4Runtime
                match[f.name] = (v, int(plen or f.bitwidth))
            elif f.match_type == f.TERNARY:
                v, _, m = text.partition("&&&")
                if int(m or "1", 0) == 0 and m:
                    continue
                match[f.name] = (v, m or str((1 << f.bitwidth) - 1))
            elif f.match_type == f.RANGE:
                lo, _, hi = text.partition("->")
                match[f.name] = (lo, hi or lo)
            else:
                match[f.name] = text
        self.client.table_add(table, action, match, self._params(action, rest, cmd),
                              priority=priority)

    def read_registers(self, cells: Sequence[tuple[str, int]]) -> list[int]:
        try:
            return [self.client.register_read(name, index)[0] for name, index in cells]
        except P4RuntimeError as e:
            raise DriverError(str(e)) from None

    def read_register_array(self, name: str) -> list[int]:
        try:
            return self.client.register_read(name)
        except P4RuntimeError as e:
            raise DriverError(str(e)) from None

    def read_counters(self, cells: Sequence[tuple[str, int]]) -> list[tuple[int, int]]:
        try:
            return [self.client.counter_read(name, index)[0] for name, index in cells]
        except P4RuntimeError as e:
            raise DriverError(str(e)) from None
