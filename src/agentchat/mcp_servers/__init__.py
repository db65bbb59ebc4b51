"""The MCP tool servers the agent may use: added, changed and tested on the Tools page."""
