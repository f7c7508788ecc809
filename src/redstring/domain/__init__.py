"""Pure types and functions: no I/O, no third-party I/O libraries."""
