"""The bottom layer: what the switch, the simulator, the hosts, the live networks and the analyzer
share. It imports nothing else of the project.

- :mod:`netbase.seq`: TCP sequence arithmetic modulo 2^32 (RFC 9293 §3.4).
- :mod:`netbase.segment`: a TCP segment as the engines exchange it (header fields, options, payload).
- :mod:`netbase.wire`: Ethernet/IPv4/TCP frames to and from segments (struct-based, lossless),
  including the EPDN option and the reorder bit.
- :mod:`netbase.scapy_epdn`: the same formats as Scapy layers (imports Scapy).
- :mod:`netbase.checksum`: the Internet checksum (RFC 1071, RFC 1624 incremental update).
- :mod:`netbase.pcap`: libpcap files (what Wireshark/tshark read), writer and reader.
- :mod:`netbase.units`: link rates, delays and sizes as Mininet writes them ("5Mbps", "10ms").
- :mod:`netbase.packet_socket`: Linux AF_PACKET ports (packet(7)) with a per-port delay line.
- :mod:`netbase.wakeup`: the self-pipe that wakes a selectors loop.
"""
