"""Entry priorities of a table's `entries` list (P4_16 spec 14.2.1.4), after p4c's
EntryPriorities pass (frontends/p4/entryPriorities.cpp).

`priority = N :` gives an entry a priority; an entry without one takes the previous entry's
priority moved by `priority_delta` (default 1) towards the losing side: down when
`largest_priority_wins` (the default), else up. Without any written priority, entries are
numbered so that the first listed wins. A `const entries` list cannot have priorities, nor can a
table whose keys are all exact or lpm (they never overlap), and the first entry of a list with
priorities must have one.

These values are the P4Runtime ones. p4c's BMv2 back end does not write them into the JSON: it
writes an entry's `@priority(N)` annotation, else the entry's position (1, 2, ...: BMv2 lets the
smallest win, so the first listed wins; backends/bmv2/common/control.h, convertTableEntries).
So on BMv2 the source order decides, and the two warnings below (which p4c gives too) matter:
entries out of priority order, and two entries with the same priority.
"""
from __future__ import annotations

from typing import Callable, Optional

from . import ast as A

PRIORITY_KINDS_NOT_NEEDED = ("exact", "lpm")     # p4c: requiresPriority()


def written_priority(e: A.Entry) -> Optional[A.Expr]:
    """The `priority = N :` of an entry (not its @priority annotation, a BMv2 back-end
    annotation p4c writes into the JSON as it is)."""
    a = A.annotation(e, "priority")
    if e.priority is not None and a is not None and a.args and e.priority is a.args[0]:
        return None
    return e.priority


def check_entry_priorities(table: A.TableDecl, prop: A.EntriesProperty, *,
                           largest_wins: bool, delta: int,
                           error: Callable, warn: Callable) -> None:
    """Report what p4c's EntryPriorities reports; values were folded by the checker."""
    given = [(e, written_priority(e)) for e in prop.entries]
    first = next((e for e, p in given if p is not None), None)
    if first is None:
        if not prop.is_const and _overflows([None] * len(given), largest_wins, delta):
            error(table.pos, f"{table.name} Overflow in priority computation")
        return
    if prop.is_const:
        error(first.pos, f"table '{table.name}': a 'const entries' list cannot have "
                         "priorities")
        return
    if all(k.match_kind in PRIORITY_KINDS_NOT_NEEDED for k in table.key):
        error(first.pos, f"table '{table.name}': its exact and lpm keys need no priorities, "
                         "but some are given")
        return
    if given[0][1] is None:
        error(given[0][0].pos, f"table '{table.name}': the first entry must have a priority "
                               "when others have one")
        return
    if _overflows([w.folded if w is not None else None for _, w in given], largest_wins, delta):
        error(table.pos, f"{table.name} Overflow in priority computation")
        return
    _warn_order(table, prop, given, largest_wins, delta, warn)


PRIORITY_LIMIT = 1 << 64        # p4c computes priorities in a size_t


def _overflows(written: list, largest_wins: bool, delta: int) -> bool:
    """p4c's EntryPriorities computes each entry's priority and the next one's (the previous
    moved by priority_delta) in a 64-bit unsigned integer and refuses a table where that
    wraps: with largest_priority_wins a priority below 0, even after the last entry (p4c's
    init-entries-error3 case: 12 then 2 with a delta of 10). Without any written priority the
    numbering counts up from 1."""
    if all(w is None for w in written):
        return 1 + delta * len(written) >= PRIORITY_LIMIT
    current = 1
    for w in written:
        if w is not None:
            current = w
        nxt = current - delta if largest_wins else current + delta
        if not 0 <= nxt < PRIORITY_LIMIT:
            return True
        current = nxt
    return False


def _warn_order(table, prop, given, largest_wins: bool, delta: int, warn) -> None:
    used: dict = {}
    warned: set = set()         # one warning per repeated value, as p4c's reporter gives
    current = previous = None
    out_of_order = False
    for i, (entry, written) in enumerate(given):
        current = written.folded if written is not None else current
        if current in used and current not in warned \
                and not _no_warn(prop, "duplicate-priorities"):
            warn(entry.pos, f"table '{table.name}': this entry and the one on line "
                            f"{used[current].pos.line} have the same priority {current}")
            warned.add(current)
        used.setdefault(current, entry)
        wrong_way = previous is not None and (current > previous if largest_wins
                                              else current < previous)
        if i > 0 and wrong_way and not out_of_order \
                and not _no_warn(prop, "entries-out-of-priority-order"):
            warn(entry.pos, f"table '{table.name}': entries have priorities out of order "
                            f"({previous} then {current}); BMv2 matches them in source order")
            out_of_order = True
        previous = current
        current = current - delta if largest_wins else current + delta


def _no_warn(prop: A.EntriesProperty, kind: str) -> bool:
    """@noWarn("kind") on the entries property silences that warning (as p4c's)."""
    return any(a.name == "noWarn" and a.args and getattr(a.args[0], "value", None) == kind
               for a in prop.annotations)
