"""simple_switch_CLI's commands for the switch's state outside tables: registers, counters,
meters, queues, mirroring and the clock (``sswitch_CLI.py``), the multicast engine, parser
value sets and hash parameters (behavioral-model ``tools/runtime_CLI.py``), as a mixin of
``RuntimeCLI``."""

from __future__ import annotations

from .bm_sim.hash_algos import CrcParams
from .cli_parse import _Crash, _int, _parse_int
from .errors import CliError
from .runtime import OpError

__all__ = ["StateCommands"]


class StateCommands:
    """Registers, counters, meters, queues, mirroring, multicast, value sets, hashes."""

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
        elif args[0] != name:
            # runtime_CLI.py sends the name as typed here (bm_counter_write), and the switch
            # knows counters by their full names only
            raise OpError("counter", "INVALID_COUNTER_NAME")
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

    @staticmethod
    def _pvs_as_typed(typed: str, full: str) -> str:
        """runtime_CLI.py sends a value set's name as typed (bm_parse_vset_*), and the switch
        knows value sets by their full names only."""
        if typed != full:
            raise OpError("pvs", "INVALID_PARSE_VSET_NAME")
        return full

    def do_pvs_add(self, line: str):
        "Add a value to a parser value set: pvs_add <pvs_name> <value>\nbmv2 will not report an error if the value already exists."
        args = line.split()
        self._exactly(args, 2)
        full, value = self._pvs_value(args[0], args[1])
        self.rt.pvs_add(self._pvs_as_typed(args[0], full), value)

    def do_pvs_remove(self, line: str):
        "Remove a value from a parser value set: pvs_remove <pvs_name> <value>\nbmv2 will not report an error if the value does not exist."
        args = line.split()
        self._exactly(args, 2)
        full, value = self._pvs_value(args[0], args[1])
        self.rt.pvs_remove(self._pvs_as_typed(args[0], full), value)

    def do_pvs_get(self, line: str):
        "Print all values from a parser value set: pvs_get <pvs_name>\nValues are displayed in no particular order, one per line."
        args = line.split()
        self._exactly(args, 1)
        full = self._pvs_as_typed(args[0], self.rt.pvs_name(args[0]))
        n = self.rt.pvs_value_bytes(full)
        return "\n".join(v.to_bytes(n, "big").hex() for v in self.rt.pvs_get(full))

    def do_pvs_clear(self, line: str):
        "Remove all values from a parser value set: pvs_clear <pvs_name>"
        args = line.split()
        self._exactly(args, 1)
        self.rt.pvs_clear(self._pvs_as_typed(args[0], self.rt.pvs_name(args[0])))

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

    # -- the whole switch ---------------------------------------------------------------------------
    def do_reset_state(self, line: str):
        "Reset all state in the switch (table entries, registers, ...), but P4 config is preserved: reset_state"
        self._exactly(line.split(), 0)
        self.rt.reset_state()
