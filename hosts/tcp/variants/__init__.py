"""variants package (see docs/architecture.md)."""
