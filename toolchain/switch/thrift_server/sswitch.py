"""The ``simple_switch`` service (behavioral-model ``targets/simple_switch/thrift/``):
mirroring sessions, egress queues, and the switch's clock. The queue calls answer 0 for
success as simple_switch does; the clock is the process's (the library never reads one)."""

from __future__ import annotations

import logging

from ..errors import CliError
from ..runtime import OpError
from .standard import _Base, api_call

log = logging.getLogger("rdtcp-switch.thrift")

__all__ = ["SimpleSwitchHandler"]


class SimpleSwitchHandler(_Base):
    """sswitch_runtime.SimpleSwitch.Iface over a ControlHost."""

    # -- mirroring ----------------------------------------------------------------------------
    # An id out of range is refused by the Runtime's check, the one the CLI language runs; as
    # simple_switch's handlers do, the call adds nothing, logs it and raises nothing. The
    # deprecated mapping calls answer simple_switch's bool: 1 done, 0 refused.
    def mirroring_mapping_add(self, mirror_id, egress_port):
        try:
            self.rt.mirroring_add(mirror_id, egress_port)
        except CliError as e:
            log.warning("mirroring_mapping_add: %s", e)
            return 0
        return 1

    def mirroring_mapping_delete(self, mirror_id):
        try:
            self.rt.mirroring_delete(mirror_id)
        except CliError:
            return 0
        return 1

    def mirroring_mapping_get_egress_port(self, mirror_id):
        cfg = self.sw.mirroring.get(mirror_id)
        return cfg["port"] if cfg is not None and "port" in cfg else -1

    @api_call
    def mirroring_session_add(self, mirror_id, config):
        try:
            if config is not None and config.mgid is not None:
                self.rt.mirroring_add_mc(mirror_id, config.mgid)
            elif config is not None and config.port is not None:
                self.rt.mirroring_add(mirror_id, config.port)
        except OpError:
            raise
        except CliError as e:
            log.warning("mirroring_session_add: %s", e)

    @api_call
    def mirroring_session_delete(self, mirror_id):
        self.rt.mirroring_delete(mirror_id)

    @api_call
    def mirroring_session_get(self, mirror_id):
        cfg = self.rt.mirroring_get(mirror_id)
        return self.m.ss.MirroringSessionConfig(port=cfg.get("port"), mgid=cfg.get("mgid"))

    # -- egress queues: one FIFO per port (no priority queues) ----------------------------------
    def _queue(self, fn, value, port=None) -> int:
        """simple_switch's answer: 0 done, non-zero refused (the CLI prints neither)."""
        try:
            fn(value, port)
        except CliError as e:
            log.warning("%s: %s", fn.__name__, e)
            return 1
        return 0

    def set_egress_queue_depth(self, port_num, depth_pkts):
        return self._queue(self.rt.set_queue_depth, depth_pkts, port_num)

    def set_all_egress_queue_depths(self, depth_pkts):
        return self._queue(self.rt.set_queue_depth, depth_pkts)

    def set_egress_queue_rate(self, port_num, rate_pps):
        return self._queue(self.rt.set_queue_rate, rate_pps, port_num)

    def set_all_egress_queue_rates(self, rate_pps):
        return self._queue(self.rt.set_queue_rate, rate_pps)

    def set_egress_priority_queue_depth(self, port_num, priority, depth_pkts):
        return self._queue(self.rt.set_queue_depth, depth_pkts, port_num)

    def set_egress_priority_queue_rate(self, port_num, priority, rate_pps):
        return self._queue(self.rt.set_queue_rate, rate_pps, port_num)

    # -- time ---------------------------------------------------------------------------------
    def get_time_elapsed_us(self):
        return self.host.now_us()

    def get_time_since_epoch_us(self):
        return self.host.epoch_us()
