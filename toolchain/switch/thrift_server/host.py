"""What the Thrift handlers serve: one switch and what the process around it knows.

``ControlHost`` holds the switch the runtime API acts on, the JSON it was loaded from (for
``bm_get_config``), the clock (read by the process, never by the library), and BMv2's
configuration swap (``bm_load_new_config`` then ``bm_swap_configs``; simple_switch allows it
only when started with ``--enable-swap``): after a load the API acts on the new program
while packets still run through the old one, until the swap (behavioral-model
``Context::load_new_config`` / ``swap_configs``).
"""

from __future__ import annotations

import hashlib
import time
from typing import Callable

from ..bm_sim.json_loader import DEFAULT_MAX_STATE, load_program_text
from ..errors import LoadError
from ..simple_switch.switch import SimpleSwitch

__all__ = ["ControlHost", "SwapError"]


class SwapError(Exception):
    """A swap refused; ``code`` is BMv2's SwapOperationErrorCode name."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


class ControlHost:
    """The switch behind the API. ``now_us``: microseconds since the switch started;
    ``on_swap(new_switch)``: the process takes the new switch into its data path;
    ``max_state``: the bytes a loaded config's arrays may take (as at start-up)."""

    def __init__(self, sw: SimpleSwitch, config_text: str, *, device_id: int = 0,
                 thrift_port: int = 0, enable_swap: bool = False, seed: int = 0,
                 now_us: Callable[[], int] = lambda: 0,
                 on_swap: Callable[[SimpleSwitch], None] | None = None,
                 max_state: int | None = DEFAULT_MAX_STATE):
        self.running = sw                   # the switch packets go through
        self.sw = sw                        # the switch the runtime API acts on
        self.config_text = config_text
        self.device_id = device_id
        self.thrift_port = thrift_port
        self.enable_swap = enable_swap
        self.seed = seed
        self.now_us = now_us
        self.on_swap = on_swap
        self.max_state = max_state

    def epoch_us(self) -> int:
        return int(time.time() * 1_000_000)

    def config_md5(self) -> bytes:
        return hashlib.md5(self.config_text.encode()).digest()

    # -- ports (the process overrides these: library mode has none) ---------------------------
    def port_info(self) -> list[tuple[int, str, bool]]:
        return []

    def add_port(self, iface: str, port: int, pcap: str) -> None:
        raise OSError("this switch has no device manager")

    def remove_port(self, port: int) -> None:
        raise OSError("this switch has no device manager")

    # -- configuration swap -------------------------------------------------------------------
    def load_new_config(self, text: str) -> None:
        """Load ``text`` as the runtime API's program; LoadError names what it refuses."""
        if not self.enable_swap:
            raise SwapError("CONFIG_SWAP_DISABLED")
        if self.sw is not self.running:
            raise SwapError("ONGOING_SWAP")
        self.sw = SimpleSwitch(load_program_text(text, "the new config",
                                                 max_state=self.max_state), seed=self.seed)
        self.config_text = text

    def swap_configs(self) -> None:
        if not self.enable_swap:
            raise SwapError("CONFIG_SWAP_DISABLED")
        if self.sw is self.running:
            raise SwapError("NO_ONGOING_SWAP")
        self.running = self.sw
        if self.on_swap is not None:
            self.on_swap(self.sw)
