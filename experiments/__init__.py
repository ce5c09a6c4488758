"""experiments package (see docs/architecture.md)."""
