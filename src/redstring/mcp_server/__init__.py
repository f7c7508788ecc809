"""The MCP server (`redstring mcp`, stdio): tools over `redstring.application`. Named so it
does not shadow the `mcp` SDK package."""
