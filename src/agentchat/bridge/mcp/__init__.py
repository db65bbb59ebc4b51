"""MCP tool servers in the bridge: hermes-agent's own client (tools/mcp_tool.py) fed with the
servers each run request carries, an approval gate per call, and the media its tools return."""
