"""The networks of [TCPDEBUG] ch. 4-5's study in the simulator (experiments.studies.dbce.scenario):
[RDTCP]'s dumbbell (``topologies.PaperTopo``) with its bottleneck rate, delay and R1's buffer varied,
and random drops in the P4 gateway or cross traffic added, standing in for [TCPDEBUG]'s Internet
traces (the reference values are sanity ranges for 2002-2006 traffic).

Pure data, which the scenario registers one Scenario for each of and the driver's options
list. Each: ``bw`` (Mb/s) and ``delay`` of R1-R2, ``queue`` (R1's drop-tail buffer,
packets), ``drop`` (probability R1's P4 program drops a data packet on its bottleneck port,
the gateway's ``drop_prob`` knob), ``cross`` (long-lived bulk transfers beside the measured
connections: a -> b sharing the bottleneck queue, b -> a sharing the ACKs' path).
"""

__all__ = ["NETWORKS"]

NETWORKS = {
    "dbce-dumbbell": {"bw": 5.0, "delay": "50ms", "queue": 65, "drop": 0.0, "cross": False,
                      "what": "[RDTCP]'s dumbbell: 5 Mb/s, 50 ms, 65-packet buffer"},
    "dbce-shallow": {"bw": 5.0, "delay": "50ms", "queue": 10, "drop": 0.0, "cross": False,
                     "what": "a 10-packet buffer, far below the path's 21-packet BDP"},
    "dbce-deep": {"bw": 2.0, "delay": "20ms", "queue": 150, "drop": 0.0, "cross": False,
                  "what": "2 Mb/s, 20 ms behind a 150-packet buffer (0.9 s of queue)"},
    "dbce-fast": {"bw": 20.0, "delay": "10ms", "queue": 50, "drop": 0.0, "cross": False,
                  "what": "20 Mb/s, 10 ms, 50-packet buffer"},
    "dbce-cross": {"bw": 5.0, "delay": "50ms", "queue": 65, "drop": 0.0, "cross": True,
                   "what": "the dumbbell with a bulk transfer each way beside the connections"},
    "dbce-drop": {"bw": 5.0, "delay": "50ms", "queue": 65, "drop": 0.01, "cross": False,
                  "what": "the dumbbell with 1 % of data packets dropped by the P4 gateway"},
}
