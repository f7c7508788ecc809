"""Shared low-level storage plumbing (connection factories) used by every SQLite adapter."""
