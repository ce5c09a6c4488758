"""controller package (see docs/architecture.md)."""
