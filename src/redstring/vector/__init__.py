"""vector."""
