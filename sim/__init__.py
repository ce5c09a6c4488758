"""sim package (see docs/architecture.md)."""
