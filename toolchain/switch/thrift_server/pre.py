"""The ``simple_pre_lag`` service: BMv2's multicast engine with LAGs (``McSimplePreLAG``,
behavioral-model ``src/bm_runtime/SimplePreLAG_server.cpp``, ``src/bm_sim/simple_pre*.cpp``).
Port and LAG sets travel as strings of '0'/'1', the last character for port 0."""

from __future__ import annotations

import json

from .standard import _Base, api_call

__all__ = ["SimplePreLAGHandler", "bitmap_members"]

LAG_MAX_INDEX = 256                  # McSimplePreLAG::LAG_MAX_ENTRIES


def bitmap_members(bitmap: str) -> list[int]:
    """The set bits of a port map string, lowest first (bm::PortMap reads it right to left)."""
    return [i for i, ch in enumerate(reversed(bitmap or "")) if ch == "1"]


class SimplePreLAGHandler(_Base):
    """bm_runtime.simple_pre_lag.SimplePreLAG.Iface over a ControlHost."""

    @api_call
    def bm_mc_mgrp_create(self, cxt_id, mgrp):
        self.rt.mc_mgrp_create(mgrp)
        return mgrp                       # simple_pre.cpp: the group's handle is its id

    @api_call
    def bm_mc_mgrp_destroy(self, cxt_id, mgrp_handle):
        self.rt.mc_mgrp_destroy(mgrp_handle)

    @api_call
    def bm_mc_node_create(self, cxt_id, rid, port_map, lag_map):
        return self.rt.mc_node_create(rid, bitmap_members(port_map), bitmap_members(lag_map))

    @api_call
    def bm_mc_node_associate(self, cxt_id, mgrp_handle, l1_handle):
        self.rt.mc_node_associate(mgrp_handle, l1_handle)

    @api_call
    def bm_mc_node_dissociate(self, cxt_id, mgrp_handle, l1_handle):
        self.rt.mc_node_dissociate(mgrp_handle, l1_handle)

    @api_call
    def bm_mc_node_destroy(self, cxt_id, l1_handle):
        self.rt.mc_node_destroy(l1_handle)

    @api_call
    def bm_mc_node_update(self, cxt_id, l1_handle, port_map, lag_map):
        self.rt.mc_node_update(l1_handle, bitmap_members(port_map), bitmap_members(lag_map))

    @api_call
    def bm_mc_set_lag_membership(self, cxt_id, lag_index, port_map):
        self.rt.mc_set_lag_membership(lag_index, bitmap_members(port_map))

    @api_call
    def bm_mc_get_entries(self, cxt_id):
        """McSimplePreLAG::mc_get_entries' JSON: groups in the engine's order, each node's
        L2 handle equal to its L1 handle (they are allocated together)."""
        mgrps = []
        for mgid, members in self.rt.mc_entries():
            mgrps.append({"id": mgid, "l1_handles": [h for h, _, _, _ in members]})
        l1, l2 = [], []
        for handle in sorted(self.sw.mc_nodes):
            rid = self.sw.mc_nodes[handle][0]
            l1.append({"handle": handle, "rid": rid, "l2_handle": handle})
            l2.append({"handle": handle, "ports": list(self.rt._node_ports.get(handle, [])),
                       "lags": list(self.sw.mc_node_lags.get(handle, []))})
        lags = [{"id": lag, "ports": ports} for lag, ports in self.rt.mc_lags()]
        return json.dumps({"mgrps": mgrps, "l1_handles": l1, "l2_handles": l2, "lags": lags})
