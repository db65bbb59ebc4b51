"""The agent's context window, in tokens: shared by the model registry and the bridge."""

MIN_CONTEXT_LENGTH = 64_000  # hermes-agent refuses smaller context windows
DEFAULT_CONTEXT_LENGTH = 131_072
MAX_CONTEXT_LENGTH = 100_000_000
