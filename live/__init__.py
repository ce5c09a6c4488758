"""Real-time networking: the project's parts (and the real ones they stand in for) on real
interfaces.

- :mod:`live.host`: a host running the sans-IO TCP engine in real time, its frames through the
  struct codec on AF_PACKET sockets or through Scapy (:mod:`live.scapy_io`).
- :mod:`live.kernel_host`: Linux's own TCP as a live host (bulk sender, checking receiver).
- :mod:`live.plan`: a Topo's live plan and how it is run (:class:`~live.plan.Layout`).
- :mod:`live.network`: builds a plan for real (network namespaces and veths, or Mininet),
  starts the P4 gateways (rdtcp-switch or simple_switch), delay stages and hosts, and tears
  everything down; :mod:`live.processes` starts, waits for and stops their processes.
- :mod:`live.delay_stage`: a link's delay as a process between two interfaces (no netem).
- :mod:`live.mininet`: Mininet's P4 switch class, and a ``mn --custom`` file.
- :mod:`live.environment`: what a run needs from the machine, checked before anything is built.
"""
