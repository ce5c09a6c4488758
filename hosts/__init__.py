"""hosts package (see docs/architecture.md)."""
