"""tcp package (see docs/architecture.md)."""
