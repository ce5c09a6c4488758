"""[TCPDEBUG] Table 4.6 in the thesis' form: per OS, its fast retransmits (FR/R) and timeouts
(RTO) under its own timer, and what changing the dupACK threshold D does to them: D = 2
(Windows, whose D is 2: D = 3) turns RTOs into FR/Rs and causes spurious FR/Rs; D = 4 turns
FR/Rs into RTOs and avoids spurious FR/Rs. Each count in brackets as a share of the OS's
FR/Rs and RTOs together ("the percentage of total losses represented by that column").

From the timer replay (``analyzer.rto_replay``) of each connection against its own stack's
timer (``analyzer.study``'s ``rto_by_stack``). The replay varies D of Linux's estimator and
of RFC 2988's: Linux's row is [TCPDEBUG]'s comparison exactly; the others take RFC 2988's estimator
with D varied, whose change of estimator (Solaris' m = 1.25, FreeBSD's 1.2 s minimum) is in
their counts too.
"""

from __future__ import annotations

__all__ = ["PAPER_TABLE_4_6", "table_4_6", "table_4_6_markdown"]

# [TCPDEBUG] Table 4.6: # FR/R, # RTO, then (D = 2; Windows D = 3) RTO to FR/R, spurious caused,
# (D = 4) FR/R to RTO, spurious avoided
PAPER_TABLE_4_6 = {"Windows": (155770, 918327, -35417, -30622, 54016, 37561),
                   "Linux": (123735, 186680, 19115, 37673, 22280, 3709),
                   "Solaris": (6613, 20491, 911, 1122, 2533, 992),
                   "FreeBSD": (271, 2041, 42, 21, 25, 85)}
# OS -> (its stack in the replay, the setting of the first pair of columns, of the second,
# True when the first pair is D raised (Windows: 2 -> 3), so its counts are negated)
ROWS = {"Windows": ("Windows XP (Table 4.5)", "RFC 2988", "RFC 2988, D = 4", True),
        "Linux": ("Linux 2.4 (Table 4.5)", "Linux, D = 2", "Linux, D = 4", False),
        "Solaris": ("Solaris (Table 4.5)", "RFC 2988, D = 2", "RFC 2988, D = 4", False),
        "FreeBSD": ("FreeBSD 4.10 (Table 4.5)", "RFC 2988, D = 2", "RFC 2988, D = 4", False)}


def _own(connections: list, stack: str) -> tuple[int, int]:
    """(FR/Rs, RTOs) of the connections whose stack is ``stack`` under their own timer,
    spurious ones included (the replay's base outcome: index 1 by fast retransmit, 2 by the
    timer, 3 spurious timeouts, 4 spurious fast retransmits)."""
    fast = rto = 0
    for c in connections:
        rto_ = c.get("rto") or {}
        if rto_.get("rtts") and rto_.get("baseline") == stack:
            base = rto_["base"]
            fast += base[1] + base[4]
            rto += base[2] + base[3]
    return fast, rto


def table_4_6(study: dict, connections: list) -> list[dict]:
    """One row per OS: its connections, FR/Rs, RTOs, the four changes (None where the replay
    has no such setting or connection) and [TCPDEBUG]'s numbers."""
    out = []
    for os_name, (stack, first, second, raised) in ROWS.items():
        rows = {r["setting"]: r for r in study.get("rto_by_stack", {}).get(stack, [])}
        fast, rto = _own(connections, stack)
        a, b = rows.get(first), rows.get(second)
        sign = -1 if raised else 1
        if raised and a:
            to_fast, caused = sign * a["fast_to_rto"], sign * a["spurious_avoided"]
        elif a:
            to_fast, caused = a["rto_to_fast"], a["spurious_caused"]
        else:
            to_fast = caused = None
        out.append({"os": os_name, "stack": stack,
                    "connections": next(iter(rows.values()))["connections"] if rows else 0,
                    "fr": fast, "rto": rto, "first": first, "second": second,
                    "rto_to_fr": to_fast, "spurious_caused": caused,
                    "fr_to_rto": b["fast_to_rto"] if b else None,
                    "spurious_avoided": b["spurious_avoided"] if b else None,
                    "paper": PAPER_TABLE_4_6[os_name]})
    return out


def _cell(value, total: int) -> str:
    if value is None:
        return "-"
    share = f" ({100 * value / total:.1f}%)" if total else ""
    return f"{value:,}{share}"


def _paper_cell(value: int, total: int) -> str:
    return f"{value:,} ({100 * value / total:.1f}%)"


def table_4_6_markdown(rows: list[dict]) -> str:
    """Table 4.6 as [TCPDEBUG] prints it, ours above [TCPDEBUG]'s in each cell."""
    lines = ["**Table 4.6 ([TCPDEBUG] §4.4.3): impact of the dupACK threshold.** First pair of "
             "columns: D from 3 to 2 (Windows: from 2 to 3); second pair: D = 4. In brackets "
             "the share of the OS's FR/Rs and RTOs together. Ours (the replay of each "
             "connection against its own stack's timer) above, [TCPDEBUG]'s below; Linux's row varies "
             "D of Linux's estimator, the others take RFC 2988's estimator with D varied, whose "
             "change of estimator is in their counts too.", "",
             "| OS | connections | # FR/R | # RTO | D = 2 (Win: D = 3): RTO to FR/R | "
             "spurious caused | D = 4: FR/R to RTO | spurious avoided |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        total = r["fr"] + r["rto"]
        p = r["paper"]
        ptotal = p[0] + p[1]
        ours = [_cell(r[k], total) for k in ("rto_to_fr", "spurious_caused", "fr_to_rto",
                                              "spurious_avoided")]
        paper = [_paper_cell(v, ptotal) for v in p[2:]]
        cells = [f"{o}<br>[TCPDEBUG]: {q}" for o, q in zip(ours, paper)]
        lines.append(f"| {r['os']} | {r['connections']} | {r['fr']:,}<br>[TCPDEBUG]: {p[0]:,} | "
                     f"{r['rto']:,}<br>[TCPDEBUG]: {p[1]:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
