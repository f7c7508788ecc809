"""projections."""
