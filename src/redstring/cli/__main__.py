"""`python -m redstring.cli` runs the command (the tests drive it this way)."""

from redstring.cli.app import main

main()
