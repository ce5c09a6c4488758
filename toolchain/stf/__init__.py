"""stf package (see docs/architecture.md)."""
