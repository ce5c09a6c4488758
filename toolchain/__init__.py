"""toolchain package (see docs/architecture.md)."""
