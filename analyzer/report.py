"""What the analyzer reports: a dict per flow (the JSON), its text summary, the CSV rows.

The verdict follows TCPdebug's rule ([TCPDEBUG] §3.1.3): the profiles that
explain every out-of-sequence segment are the candidates; one is the identification, several
that classify every segment alike are reported together, several that differ are ambiguous
(TCPdebug discards such connections; we report them, so that they can be inspected, with the
counts of the first candidate).
"""

from __future__ import annotations

import csv

from analyzer.flow import NEEDED, UNNEEDED, UNKNOWN
from analyzer.frames import ip_text
from analyzer.machine import (EXPLICIT_CLASSES, IMPLICIT, RETRANSMISSION_CLASSES,
                              UNEXPLAINED)
from analyzer.rto_classes import class_counts

__all__ = ["flow_summary", "verdict", "render_text", "render_head", "render_flow", "CsvSink",
           "CSV_FIXED_COLUMNS"]

_CLASS_TITLES = {"fast_retransmit": "fast retransmit", "sack": "SACK",
                 "partial_ack": "partial ACK", "rto": "RTO", "implicit": "implicit",
                 "unexplained": "unexplained"}
_WHY_TITLES = {"dsack": "DSACK", "ack-too-soon": "ACK too soon",
               "acked-before-sent": "acked before sent"}


def endpoint_text(end: tuple) -> str:
    """``ip:port`` of an (address, port) end."""
    return f"{ip_text(end[0])}:{end[1]}"


_NO_EVIDENCE = "every profile fits: nothing in this direction tells them apart"


def verdict(flow) -> dict:
    """TCPdebug's verdict on a finished flow (see the module docstring): ``kind``, the
    ``profiles`` that explain it, the ``reported`` one (the first of them, else the closest)."""
    machines = flow.machines
    if machines is None:            # the flow gave the profiles nothing to judge (flow.py)
        names = [p.name for p in flow.profiles]
        return {"kind": "no-evidence", "profiles": names, "reported": names[0],
                "text": _NO_EVIDENCE, "differ": []}
    names = [m.p.name for m in machines]
    ok = [i for i, m in enumerate(machines) if m.explains()]
    if ok:
        reported = ok[0]
    else:   # the closest: fewest contradictions, then the configured order
        reported = min(range(len(machines)), key=lambda i: (
            machines[i].classes.get(UNEXPLAINED, 0) + machines[i].missed
            + machines[i].syn_unexplained, i))
    differ = [(names[a], names[b]) for a, b in sorted(flow.disagree or ())
              if a in ok and b in ok]
    if not ok:
        kind = "none"
        text = "no profile explains every out-of-sequence segment"
    elif len(ok) == 1:
        kind = "unique"
        text = f"{names[ok[0]]} (the only profile that explains every segment)"
    elif differ:
        kind = "ambiguous"
        text = (f"ambiguous: {', '.join(names[i] for i in ok)} explain every segment but "
                f"classify some differently ({', '.join('/'.join(p) for p in differ)})")
    elif not flow.retransmissions and not flow.syn_retransmissions \
            and len(ok) == len(machines):
        kind = "no-evidence"
        text = _NO_EVIDENCE
    else:
        kind = "consistent"
        text = (f"{', '.join(names[i] for i in ok)} (each explains every segment, with the "
                f"same classes)")
    return {"kind": kind, "profiles": [names[i] for i in ok], "reported": names[reported],
            "text": text, "differ": [list(p) for p in differ]}


def _profile_summary(m, need_by_class: dict) -> dict:
    return {
        "explains": m.explains(),
        "classes": {c: m.classes.get(c, 0) for c in RETRANSMISSION_CLASSES},
        "need": {c: dict(row) for c, row in sorted(need_by_class.items())},
        "tentative_fast_retransmits": m.tentative,
        "missed_fast_retransmits": m.missed,
        "rto_entering_fast_recovery": m.rto_to_recovery,
        # [NETRENO] §4.1's class of each RTO and the bytes outstanding when it fired
        "rto_causes": class_counts(m.rtos or ()),
        "rtos": [list(r) for r in m.rtos or ()],
        "observed_dupthresh": {str(n): c for n, c in sorted(m.dupthresh_seen.items())},
        "syn_retransmissions_unexplained": m.syn_unexplained,
        "unexplained_reasons": dict(sorted(m.reasons.items())),
        "srtt": m.srtt, "rto": m.rto,
    }


def _delays(sample: list) -> dict | None:
    """Median and maximum (seconds) of the reordered segments' resequencing delays (the
    first 10,000), [TCPDEBUG] Fig 3.6's measure."""
    if not sample:
        return None
    ordered = sorted(sample)
    return {"segments": len(ordered), "median": ordered[len(ordered) // 2],
            "max": ordered[-1]}


def flow_summary(flow) -> dict:
    """The JSON-ready summary of a finished flow. ``profiles`` (every profile's counts) is
    there when the flow gave the profiles something to judge (an out-of-sequence segment, a
    duplicate ACK, a resent SYN, or enough timer events: analyzer/flow.py); a flow without is
    summarised in its own fields and a ``no-evidence`` verdict, so the report grows with what
    it has to say, not with the number of profiles."""
    judged = verdict(flow)
    need = flow.need or {NEEDED: 0, UNNEEDED: 0, UNKNOWN: 0}
    out = {
        "connection": flow.conn_id,
        "sender": endpoint_text(flow.sender), "receiver": endpoint_text(flow.receiver),
        "first_time": flow.first_time, "last_time": flow.last_time,
        "handshake_seen": flow.handshake,
        "sack": flow.sack, "timestamps": flow.timestamps, "rdtcp": flow.rdtcp,
        "data_segments": flow.data_packets, "data_bytes": flow.data_bytes,
        "acks": flow.acks, "duplicate_acks": flow.dupack_total,
        "min_rtt": flow.min_rtt, "max_rtt": flow.max_rtt or None,
        "oos_segments": flow.oos, "retransmissions": flow.retransmissions,
        "network_reorder": flow.reorders, "network_duplicate": flow.duplicates,
        "syn_retransmissions": flow.syn_retransmissions,
        "dsacks": {"for_retransmitted_data": flow.dsack_retransmitted,
                   "for_data_sent_once": flow.dsack_other},
        "need": dict(need), "unneeded_by": dict(sorted((flow.unneeded_by or {}).items())),
        "holes_before_vantage": flow.gaps, "acks_for_unseen_data": flow.acks_beyond,
        "resequencing_delay": _delays(flow.reorder_delays),
        "verdict": judged,
    }
    if flow.machines is not None:
        by_class = flow.need_by_class or [{} for _ in flow.machines]
        out["profiles"] = {m.p.name: _profile_summary(m, nb)
                           for m, nb in zip(flow.machines, by_class)}
    return out


def _ms(x) -> str:
    return "-" if x is None else f"{x * 1000:.1f} ms"


def _need_split(rows: dict, need: str) -> tuple[int, int]:
    """(explicit, implicit) retransmissions with ``need`` (Table 3.8's split)."""
    explicit = sum(rows.get(c, {}).get(need, 0) for c in EXPLICIT_CLASSES)
    return explicit, rows.get(IMPLICIT, {}).get(need, 0)


def render_text(report: dict, *, trace: str = "") -> str:
    """The human-readable summary: the trace, then a block per flow that sent data."""
    return render_head(report, trace=trace) + "".join(render_flow(f) for f in report["flows"])


def render_head(report: dict, *, trace: str = "") -> str:
    """The trace's line (and a note when no flow sent data: ``flows_reported`` counts them)."""
    head = f"trace {trace}: " if trace else "trace: "
    out = [f"{head}{report['frames']:,} frames ({report['tcp_frames']:,} TCP, "
           f"{report['non_tcp_frames']:,} other, {report['malformed_frames']:,} malformed); "
           f"vantage: {report['vantage']}"]
    if not report.get("flows_reported", len(report["flows"])):
        out.append("no TCP connection sent data")
    return "\n".join(out) + "\n"


def render_flow(f: dict) -> str:
    """One flow's block: a blank line, then its lines (two when it had nothing to judge)."""
    out = [""]
    opts = [n for n, v in (("SACK", f["sack"]), ("timestamps", f["timestamps"]),
                           ("RD-TCP", f["rdtcp"])) if v]
    if f["sack"] is None:
        neg = "handshake not captured" if not f["handshake_seen"] else "no SYN-ACK seen"
    else:
        neg = ", ".join(opts) or "no SACK"
    first = "-" if f["first_time"] is None else f"{f['first_time']:.3f}"
    last = "-" if f["last_time"] is None else f"{f['last_time']:.3f}"
    out.append(f"connection {f['connection']}: {f['sender']} -> {f['receiver']} ({neg}), "
               f"{first}-{last} s")
    out.append(f"  data: {f['data_segments']:,} segments, {f['data_bytes']:,} bytes; "
               f"{f['acks']:,} ACKs ({f['duplicate_acks']:,} duplicate); RTT min "
               f"{_ms(f['min_rtt'])}, max {_ms(f['max_rtt'])}")
    if "profiles" not in f:         # nothing out of sequence, nothing to judge
        out.append(f"  verdict: {f['verdict']['text']}")
        return "\n".join(out) + "\n"
    out.append(f"  out of sequence: {f['oos_segments']:,} = {f['retransmissions']:,} "
               f"retransmissions + {f['network_reorder']:,} network reorder + "
               f"{f['network_duplicate']:,} network duplicate")
    d = f["resequencing_delay"]
    if d:
        out.append(f"  resequencing delay of reordered segments: median {_ms(d['median'])}, "
                   f"max {_ms(d['max'])}")
    v = f["verdict"]
    p = f["profiles"][v["reported"]]
    classes = ", ".join(f"{_CLASS_TITLES[c]} {p['classes'][c]:,}"
                        for c in RETRANSMISSION_CLASSES)
    out.append(f"  classes ({v['reported']}): {classes}")
    need = f["need"]
    ne, ni = _need_split(p["need"], NEEDED)
    ue, ui = _need_split(p["need"], UNNEEDED)
    why = ", ".join(f"{_WHY_TITLES.get(k, k)} {n:,}" for k, n in f["unneeded_by"].items())
    out.append(f"  need: needed {need[NEEDED]:,} (explicit {ne:,}, implicit {ni:,}), "
               f"unneeded {need[UNNEEDED]:,} (explicit {ue:,}, implicit {ui:,}"
               f"{'; ' + why if why else ''}), unknown {need[UNKNOWN]:,}")
    d = f["dsacks"]
    out.append(f"  DSACKs: {d['for_retransmitted_data']:,} for retransmitted data, "
               f"{d['for_data_sent_once']:,} for data sent once")
    if f["syn_retransmissions"]:
        out.append(f"  SYN retransmissions: {f['syn_retransmissions']:,}")
    seen = p["observed_dupthresh"]
    if seen:
        out.append("  observed dupthresh: " + ", ".join(f"{n} (x{c:,})"
                                                        for n, c in seen.items()))
    verdicts = []
    for name, q in f["profiles"].items():
        if q["explains"]:
            verdicts.append(f"{name} yes")
            continue
        bad = []
        if q["classes"][UNEXPLAINED]:
            bad.append(f"{q['classes'][UNEXPLAINED]:,} unexplained")
        if q["missed_fast_retransmits"]:
            bad.append(f"{q['missed_fast_retransmits']:,} missed fast retransmits")
        if q["syn_retransmissions_unexplained"]:
            bad.append(f"{q['syn_retransmissions_unexplained']:,} early SYN timers")
        verdicts.append(f"{name} no ({', '.join(bad)})")
    out.append("  profiles: " + "; ".join(verdicts))
    out.append(f"  verdict: {v['text']}")
    return "\n".join(out) + "\n"


CSV_FIXED_COLUMNS = ("connection", "sender", "receiver", "seq", "end", "len", "tx", "time",
                     "kind", "dupacks", "need", "why", "acked_at", "acked_by", "dsacks")


class CsvSink:
    """Writes a row per transmission of every segment once its history is final (so rows come
    segment by segment, about in sequence order; sort by ``time`` for a timeline). ``kind``:
    original, retransmission, network_reorder, network_duplicate, or syn (the SYN and its
    timer's resends, sequence 0); one ``class_<profile>`` column per profile for
    retransmissions."""

    def __init__(self, file, profile_names):
        self.writer = csv.writer(file, lineterminator="\n")
        self.writer.writerow(CSV_FIXED_COLUMNS + tuple(f"class_{n}" for n in profile_names))
        self.blank = ("",) * len(profile_names)
        self.rows = 0

    def __call__(self, flow, rec) -> None:
        if flow.labels is None:
            flow.labels = (endpoint_text(flow.sender), endpoint_text(flow.receiver))
        snd, rcv = flow.labels
        events = {ev.index: ev for ev in rec.events} if rec.events else {}
        acked = "" if rec.acked_at is None else f"{rec.acked_at:.6f}"
        write = self.writer.writerow
        fixed = (flow.conn_id, snd, rcv, rec.start, rec.end, rec.end - rec.start)
        first = "syn" if rec.start == 0 and flow.handshake else "original"
        for i, t in enumerate(rec.tx):
            ev = events.get(i)
            if ev is None:
                write(fixed + (i + 1, f"{t:.6f}", first, "", "", "", acked,
                               rec.acked_by, rec.dsacks) + self.blank)
            elif ev.kind is not None:
                write(fixed + (i + 1, f"{t:.6f}", ev.kind, ev.dupacks, "", "", acked,
                               rec.acked_by, rec.dsacks) + self.blank)
            else:
                write(fixed + (i + 1, f"{t:.6f}", "retransmission", ev.dupacks, ev.need,
                               ev.why, acked, rec.acked_by, rec.dsacks) + ev.classes)
        self.rows += len(rec.tx)
