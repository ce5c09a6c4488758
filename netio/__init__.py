"""Packet I/O helpers shared by the embedded switch, the simulator and the hosts.

- :mod:`netio.pcap`: libpcap files (what Wireshark/tshark read), writer and reader.
- :mod:`netio.checksum`: the Internet checksum (RFC 1071) used by IPv4, TCP and UDP.
"""
