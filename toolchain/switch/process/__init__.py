"""rdtcp-switch and rdtcp-switch-cli: the embedded target as a switch process (see README.md)."""
