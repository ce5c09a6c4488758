"""target package (see docs/architecture.md)."""
