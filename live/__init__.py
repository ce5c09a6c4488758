"""Real-time networking: the project's parts on real interfaces.

- :mod:`live.host`: a host running the sans-IO TCP engine on AF_PACKET sockets in real time.
- :mod:`live.network`: builds a topology for real (network namespaces and veths, or Mininet),
  starts the P4 gateways and the hosts, and tears everything down.
"""
