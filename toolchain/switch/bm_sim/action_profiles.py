"""Action profiles and action selectors (BMv2 ``ActionProfile``, JSON ``action_profiles``).

An indirect table's entries hold a *member* handle (an action and its data, kept in the
profile) instead of an action; with a selector (table type ``indirect_ws``) an entry may hold
a *group* of members instead, and each packet picks one member of the group by hashing the
selector's input fields: member number ``hash % group size`` among the group's members in
increasing handle order (BMv2 ``GroupMgr::get_from_hash`` over a ``RandAccessUIntSet``).

Handles are allocated from 0 upwards and reused after deletion, lowest first, as BMv2's
handle managers do. Members and groups that an entry (or a group, for a member) still uses
cannot be deleted. Failures raise ``TableOpError`` with BMv2's ``MatchErrorCode`` name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .pipeline import ActionProfileSpec
from .tables import TableOpError

__all__ = ["ActionProfileSpec", "ActionProfile"]


class _Handles:
    """The lowest free handle first (BMv2's HandleMgr)."""

    def __init__(self):
        self.used: set[int] = set()

    def get(self) -> int:
        h = 0
        while h in self.used:
            h += 1
        self.used.add(h)
        return h

    def release(self, h: int) -> None:
        self.used.discard(h)


@dataclass
class ActionProfile:
    spec: ActionProfileSpec
    actions: set[str]                              # actions of the tables using the profile
    select: Callable | None = None                 # (F, P) -> hash, for selectors
    members: dict[int, tuple[str, tuple]] = field(default_factory=dict)
    groups: dict[int, list[int]] = field(default_factory=dict)   # member handles, sorted
    refs: dict[tuple[str, int], int] = field(default_factory=dict)

    def __post_init__(self):
        self._mbr_handles = _Handles()
        self._grp_handles = _Handles()

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def with_selection(self) -> bool:
        return self.spec.selector is not None

    # -- members ----------------------------------------------------------------------------------
    def add_member(self, action: str, data: tuple) -> int:
        if action not in self.actions:
            raise TableOpError("INVALID_ACTION_NAME")
        if len(self.members) >= self.spec.max_size:
            raise TableOpError("TABLE_FULL")
        h = self._mbr_handles.get()
        self.members[h] = (action, tuple(data))
        return h

    def modify_member(self, handle: int, action: str, data: tuple) -> None:
        self.member(handle)
        if action not in self.actions:
            raise TableOpError("INVALID_ACTION_NAME")
        self.members[handle] = (action, tuple(data))

    def delete_member(self, handle: int) -> None:
        self.member(handle)
        if self.refs.get(("mbr", handle)):
            raise TableOpError("MBR_STILL_USED")
        del self.members[handle]
        self._mbr_handles.release(handle)

    def member(self, handle: int) -> tuple[str, tuple]:
        try:
            return self.members[handle]
        except KeyError:
            raise TableOpError("INVALID_MBR_HANDLE") from None

    # -- groups -----------------------------------------------------------------------------------
    def create_group(self) -> int:
        self._need_selector()
        h = self._grp_handles.get()
        self.groups[h] = []
        return h

    def delete_group(self, handle: int) -> None:
        members = self.group(handle)
        if self.refs.get(("grp", handle)):
            raise TableOpError("GRP_STILL_USED")
        for m in members:
            self._unref("mbr", m)
        del self.groups[handle]
        self._grp_handles.release(handle)

    def add_member_to_group(self, mbr: int, grp: int) -> None:
        self.member(mbr)
        members = self.group(grp)
        if mbr in members:
            raise TableOpError("MBR_ALREADY_IN_GRP")
        members.append(mbr)
        members.sort()
        self.ref("mbr", mbr)

    def remove_member_from_group(self, mbr: int, grp: int) -> None:
        self.member(mbr)
        members = self.group(grp)
        if mbr not in members:
            raise TableOpError("MBR_NOT_IN_GRP")
        members.remove(mbr)
        self._unref("mbr", mbr)

    def group(self, handle: int) -> list[int]:
        self._need_selector()
        try:
            return self.groups[handle]
        except KeyError:
            raise TableOpError("INVALID_GRP_HANDLE") from None

    def _need_selector(self) -> None:
        if not self.with_selection:
            raise TableOpError("ERROR")

    # -- references from table entries ------------------------------------------------------------
    def check(self, kind: str, handle: int) -> None:
        (self.member if kind == "mbr" else self.group)(handle)

    def ref(self, kind: str, handle: int) -> None:
        self.refs[(kind, handle)] = self.refs.get((kind, handle), 0) + 1

    def _unref(self, kind: str, handle: int) -> None:
        n = self.refs.get((kind, handle), 0) - 1
        if n > 0:
            self.refs[(kind, handle)] = n
        else:
            self.refs.pop((kind, handle), None)

    unref = _unref

    # -- data plane -------------------------------------------------------------------------------
    def choose(self, grp: int, F: list, P) -> int | None:
        """The member of group ``grp`` this packet uses, or None for an empty group."""
        members = self.groups.get(grp)
        if not members:
            return None
        h = self.select(F, P) if self.select is not None else 0
        return members[h % len(members)]
