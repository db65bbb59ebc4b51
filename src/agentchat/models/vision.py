"""Whether a model sees images: set per model on the Models page, else its provider's usual
answer (the big hosted APIs serve vision models by default; a local or unknown endpoint is
assumed not to, so an image goes to its workspace rather than to a model that refuses it)."""

from __future__ import annotations

SEES_IMAGES_BY_DEFAULT = frozenset({"openai", "anthropic", "openrouter"})


def sees_images(provider: str, vision: bool | None) -> bool:
    return vision if vision is not None else provider in SEES_IMAGES_BY_DEFAULT
