"""compiler package (see docs/architecture.md)."""
