"""Agent Chat: a self-hosted chat page for Hermes Agent."""

__version__ = "0.1.0"  # the one place: the wheel's metadata, `--version` and the API read it
