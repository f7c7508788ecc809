"""composition."""
