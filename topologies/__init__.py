"""topologies package (see docs/architecture.md)."""
