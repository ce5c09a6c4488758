"""rdtcp-switch: the embedded target as a switch process serving BMv2's Thrift runtime API (see README.md)."""
