"""The protocol: what the API, the Hermes Bridge and the page say to each other.

The event contract (`events`) and its SSE codec (`sse`), what the bridge accepts and answers
(`bridge_api`), a run's status (`status`) and token usage (`usage`), the error envelope
(`errors`), camelCase JSON (`camel`), and the values both processes must agree on (toolsets,
context length, the model-host policy, clean text, a bridge process's environment).

It imports nothing of ours outside itself, only pydantic and the standard library
(`error_responses` renders errors through FastAPI): the bridge shares it with the API without
loading a database, a bus or any domain code.
"""
