"""The hermes toolsets an agent gets unless the operator says otherwise (none touches the host)."""

DEFAULT_TOOLSETS = ("clarify", "todo", "memory", "skills")
