"""The `redstring` command: argument parsing, progress and printing over the library."""

from redstring.cli.app import app, main

__all__ = ["app", "main"]
