"""The application layer: each use case once, below the entry points.

`use_cases` holds ingest, consolidate, undo, search, context, ask, show,
neighbours, export and stats; `workspaces` opens workspaces and picks their
providers; `service` runs use cases for a server (one writer thread, reader
threads, no SQLite call on the event loop); `keys` issues and checks API keys.
The CLI, the HTTP API and the MCP server import from here and never from the
stores or the composition layer (import-linter contract "Entry points are thin").
"""
