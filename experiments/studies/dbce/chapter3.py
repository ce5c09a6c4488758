"""[TCPDEBUG] ch. 3's tables and figures on the simulated traces: what the analyzer ([TCPDEBUG]'s
TCPdebug, ``analyzer``) makes of every connection's out-of-sequence (OOS) segments, one row per
traffic condition (network and reordering injection) where [TCPDEBUG] has one per Internet trace.

- Table 3.2: connections of 10 or more data segments, those with an OOS segment, and those
  whose every OOS segment one profile (or several alike) explains: TCPdebug's accepted ones;
- Table 3.4: the sender's OS identified from its OOS segments against the stack it really ran
  ([TCPDEBUG] checked against p0f; the simulation knows the truth);
- Tables 3.5 and 3.7: the OOS segments by class (network reordering, RTO, duplicate ACKs,
  partial ACK, SACK, implicit), over the accepted connections (3.5) and over all (3.7, with
  the unexplained ones);
- Table 3.8: the retransmissions of the accepted connections, needed and unneeded, each
  explicit and implicit, and those without an inference;
- Fig. 3.5: the unexplained OOS segments per OOS connection (cumulative).

- Table 3.6: the same OOS segments of the accepted connections as an OS-insensitive, RFC-based
  tool reads them: [TCPDEBUG] ran tcpflows [JID+04], not here; the analyzer's RFC-only profile
  (rfc5681: RFC 5681/6675/6582/6298, every connection read as that sender) stands in for it,
  in tcpflows' categories as [TCPDEBUG] maps them onto its own (§3.3: tcpflows' FR/R recovery is
  TCPdebug's partial-ACK and SACK classes together, its RTO recovery TCPdebug's implicit one).

Table 3.8's LEAST columns compare with another tool, which is not here; Fig. 3.4 (the RTO predicted against TBIT's) needs [TCPDEBUG]'s testbed; Fig. 3.6 (the
resequencing delays of segments reordered between the sender and the monitor) has nothing to
show: the traces are captured at the sender, before any reordering of the path (the network
reorder columns are 0 for that reason).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from analyzer.machine import EXPLICIT_CLASSES, IMPLICIT
from experiments.runner.plots import save_figure
from experiments.studies.dbce.figures import curve_styles

__all__ = ["ACCEPTED", "TRUE_PROFILE", "chapter3_tables", "chapter3_markdown",
           "chapter3_figures"]

# the verdicts TCPdebug accepts: one profile explains every OOS segment, or several classify
# them alike, or there is nothing to tell the profiles apart (analyzer.report.verdict)
ACCEPTED = ("unique", "consistent", "no-evidence")
# the analyzer's profile of each simulated stack (experiments.studies.dbce.scenario)
TRUE_PROFILE = {"linux-2.4": "linux24", "windows-xp": "winxp", "freebsd-4.10": "freebsd410",
                "solaris": "solaris"}
CLASSES = (("RTO", "rto"), ("Dupack", "fast_retransmit"), ("PA", "partial_ack"),
           ("SACK", "sack"), ("Implicit", "implicit"))


def _trace(c: dict) -> str:
    return f"{c['network']}, {c['reordering']}"


def _with_ch3(connections: list) -> list:
    return [c for c in connections if c.get("ch3") and c["segments"] >= 10]


def _share(part: float, whole: float):
    return part / whole if whole else None


def _classify(conns: list, *, unexplained: bool) -> dict:
    oos = sum(c["ch3"]["oos"] for c in conns)
    row = {"oos_segments": oos,
           "reorder": _share(sum(c["ch3"]["reorder"] for c in conns), oos)}
    retrans = 0
    for name, key in CLASSES:
        n = sum(c["ch3"]["classes"].get(key, 0) for c in conns)
        retrans += n
        row[name] = _share(n, oos)
    row["retransmissions"] = _share(retrans, oos)
    if unexplained:
        row["Unexplained"] = _share(sum(c["ch3"]["classes"].get("unexplained", 0)
                                        for c in conns), oos)
    return row


def _need(conns: list) -> dict:
    tot = {(w, n): 0 for w in ("explicit", "implicit") for n in ("needed", "unneeded",
                                                                 "unknown")}
    for c in conns:
        for cls, counts in c["ch3"]["need"].items():
            where = "implicit" if cls == IMPLICIT else ("explicit" if cls in EXPLICIT_CLASSES
                                                        else None)
            if where is None:
                continue
            for need in ("needed", "unneeded", "unknown"):
                tot[(where, need)] += counts.get(need, 0)
    total = sum(tot.values())
    row = {"retransmissions": total}
    for need in ("needed", "unneeded"):
        row[f"{need}"] = _share(tot[("explicit", need)] + tot[("implicit", need)], total)
        row[f"{need}_implicit"] = _share(tot[("implicit", need)], total)
        row[f"{need}_explicit"] = _share(tot[("explicit", need)], total)
    row["no_inference"] = _share(tot[("explicit", "unknown")] + tot[("implicit", "unknown")],
                                 total)
    return row


def chapter3_tables(connections: list) -> dict:
    """{table: [row]} for Tables 3.2, 3.4-3.8, one row per traffic condition (Table 3.4: per
    stack) and one for all of them; Table 3.6 empty when the rows lack the RFC-only profile's
    classes (an older analysis)."""
    conns = _with_ch3(connections)
    groups: dict = {}
    for c in conns:
        groups.setdefault(_trace(c), []).append(c)
    groups = dict(sorted(groups.items()))
    if conns:
        groups["all"] = conns
    t32, t35, t36, t37, t38 = [], [], [], [], []
    for trace, cs in groups.items():
        oos = [c for c in cs if c["ch3"]["oos"]]
        ok = [c for c in oos if c["ch3"]["verdict"] in ACCEPTED]
        t32.append({"trace": trace, "connections": len(cs),
                    "bytes": sum(c["data_bytes"] for c in cs),
                    "segments": sum(c["segments"] for c in cs), "oos_connections": len(oos),
                    "oos_bytes": sum(c["data_bytes"] for c in oos),
                    "accepted": len(ok), "accepted_share": _share(len(ok), len(oos)),
                    "accepted_bytes": sum(c["data_bytes"] for c in ok)})
        t35.append({"trace": trace, **_classify(ok, unexplained=False)})
        if ok and all(c["ch3"].get("rfc_classes") is not None for c in ok):
            t36.append({"trace": trace, **_rfc_classify(ok)})
        t37.append({"trace": trace, **_classify(oos, unexplained=True)})
        t38.append({"trace": trace, **_need(ok)})
    t34 = []
    for os_name, truth in TRUE_PROFILE.items():
        oos = [c for c in conns if c["os"] == os_name and c["ch3"]["oos"]]
        unique = [c for c in oos if c["ch3"]["verdict"] == "unique"]
        alike = [c for c in oos if c["ch3"]["verdict"] == "consistent"]
        t34.append({"os": os_name, "oos_connections": len(oos),
                    "identified": len(unique), "identified_share": _share(len(unique), len(oos)),
                    "correct": _share(sum(c["ch3"]["reported"] == truth for c in unique),
                                      len(oos)),
                    "wrong": _share(sum(c["ch3"]["reported"] != truth for c in unique),
                                    len(oos)),
                    "alike": _share(len(alike), len(oos)),
                    "alike_with_truth": _share(sum(truth in c["ch3"]["explains"]
                                                   for c in alike), len(oos)),
                    "unexplained": _share(len(oos) - len(unique) - len(alike), len(oos))})
    return {"table_3_2": t32, "table_3_4": t34, "table_3_5": t35, "table_3_6": t36,
            "table_3_7": t37, "table_3_8": t38}


# Table 3.6's categories (tcpflows'), each the RFC-only profile's classes it gathers
RFC_CATEGORIES = (("RTO", ("rto",)), ("Dupack", ("fast_retransmit",)),
                  ("RTO recovery", ("implicit",)), ("FR/R recovery", ("partial_ack", "sack")),
                  ("Unexplained", ("unexplained",)))


def _rfc_classify(conns: list) -> dict:
    """Table 3.6's row: the OOS segments of ``conns`` as the RFC-only profile classifies them,
    in tcpflows' categories (shares of the OOS segments)."""
    oos = sum(c["ch3"]["oos"] for c in conns)
    row = {"oos_segments": oos,
           "reorder": _share(sum(c["ch3"]["reorder"] for c in conns), oos)}
    for name, keys in RFC_CATEGORIES:
        row[name] = _share(sum(c["ch3"]["rfc_classes"].get(k, 0) for c in conns for k in keys),
                           oos)
    return row


def _p(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _k(n: int) -> str:
    return f"{n:,}"


def chapter3_markdown(tables: dict) -> str:
    """Tables 3.2, 3.4-3.8 as [TCPDEBUG] prints them (percentages without the sign)."""
    out = ["**[TCPDEBUG] ch. 3 on these traces** (the analyzer's classification of every connection's "
           "OOS segments; one row per network and reordering injection where [TCPDEBUG] has one per "
           "Internet trace; accepted: every OOS segment explained by one profile, or by "
           "several alike, TCPdebug's filter).", "",
           "**Table 3.2: connections of 10 or more data segments**", "",
           "| trace | connections | data bytes | data segments | OOS connections | their bytes "
           "| accepted | accepted share of OOS ([TCPDEBUG]: 62-95 %) | their bytes |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in tables["table_3_2"]:
        out.append(f"| {r['trace']} | {_k(r['connections'])} | {_k(r['bytes'])} | "
                   f"{_k(r['segments'])} | {_k(r['oos_connections'])} | {_k(r['oos_bytes'])} "
                   f"| {_k(r['accepted'])} | {_p(r['accepted_share'])} | "
                   f"{_k(r['accepted_bytes'])} |")
    out += ["", "**Table 3.4: the sender's OS from its OOS segments, against the stack it ran** "
            "([TCPDEBUG]: against p0f, > 99 % match); % of the stack's OOS connections", "",
            "| stack | OOS connections | identified (one profile) | correct | wrong | several "
            "profiles alike | the stack among them | not explained or ambiguous |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in tables["table_3_4"]:
        out.append(f"| {r['os']} | {_k(r['oos_connections'])} | {_p(r['identified_share'])} | "
                   f"{_p(r['correct'])} | {_p(r['wrong'])} | {_p(r['alike'])} | "
                   f"{_p(r['alike_with_truth'])} | {_p(r['unexplained'])} |")
    for key, title, extra in (
            ("table_3_5", "Table 3.5: OOS segments by class, accepted connections ([TCPDEBUG]: "
                          "network reorder 0.2-14.1 %, implicit 16-40 %)", ()),
            ("table_3_7", "Table 3.7: OOS segments by class, every OOS connection",
             ("Unexplained",))):
        names = [n for n, _ in CLASSES] + list(extra)
        out += ["", f"**{title}**; % of the OOS segments", "",
                "| trace | OOS segments | network reorder | retransmissions | "
                + " | ".join(names) + " |", "|---|" + "---:|" * (3 + len(names))]
        for r in tables[key]:
            out.append(f"| {r['trace']} | {_k(r['oos_segments'])} | {_p(r['reorder'])} | "
                       f"{_p(r['retransmissions'])} | "
                       + " | ".join(_p(r[n]) for n in names) + " |")
    if tables.get("table_3_6"):
        names = [n for n, _ in RFC_CATEGORIES]
        out += ["", "**Table 3.6: the same OOS segments as an RFC-based tool classifies them** "
                "(accepted connections; [TCPDEBUG] ran tcpflows, not here: the analyzer's RFC-only "
                "profile, rfc5681, stands in for it; FR/R recovery is its partial-ACK and SACK "
                "classes, RTO recovery its implicit one); % of the OOS segments, to set beside "
                "Table 3.5", "",
                "| trace | OOS segments | network reorder | " + " | ".join(names) + " |",
                "|---|" + "---:|" * (2 + len(names))]
        for r in tables["table_3_6"]:
            out.append(f"| {r['trace']} | {_k(r['oos_segments'])} | {_p(r['reorder'])} | "
                       + " | ".join(_p(r[n]) for n in names) + " |")
    out += ["", "**Table 3.8: needed and unneeded retransmissions, accepted connections** ([TCPDEBUG]: "
            "3.7-18.9 % unneeded; its LEAST columns compare with a tool not here); % of the "
            "retransmissions", "",
            "| trace | retransmissions | needed | implicit | explicit | unneeded | implicit | "
            "explicit | no inference |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in tables["table_3_8"]:
        out.append(f"| {r['trace']} | {_k(r['retransmissions'])} | {_p(r['needed'])} | "
                   f"{_p(r['needed_implicit'])} | {_p(r['needed_explicit'])} | "
                   f"{_p(r['unneeded'])} | {_p(r['unneeded_implicit'])} | "
                   f"{_p(r['unneeded_explicit'])} | {_p(r['no_inference'])} |")
    return "\n".join(out)


def _step_cdf(ax, values: list, label: str, style: dict) -> None:
    if not values:
        return
    values = sorted(values)
    n = len(values)
    ax.step(values, [(i + 1) / n for i in range(n)], where="post", label=f"{label} ({n:,})",
            **style)


def chapter3_figures(connections: list, out: Path) -> list[str]:
    """fig3_5_unexplained.png; the names written."""
    conns = _with_ch3(connections)
    oos = [c for c in conns if c["ch3"]["oos"]]
    written = []
    if oos:
        by_network: dict = {}
        for c in oos:
            by_network.setdefault(c["network"], []).append(c["ch3"]["classes"].get(
                "unexplained", 0))
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for network, style in curve_styles(sorted(by_network)).items():
            _step_cdf(ax, by_network[network], network, style)
        ax.set_xlabel("unexplained OOS segments in the connection")
        ax.set_ylabel("fraction of OOS connections")
        ax.set_ylim(0, 1.02)
        ax.set_title("[TCPDEBUG] Fig. 3.5: unexplained OOS segments per OOS connection "
                     "([TCPDEBUG]: none in 62-95 %)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
        save_figure(fig, out / "fig3_5_unexplained.png")
        written.append("fig3_5_unexplained.png")
    return written
