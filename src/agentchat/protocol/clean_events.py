"""Events whose text every later step can carry (protocol.clean_text): the bridge cleans each one
as the agent emits it, so a lone surrogate or a NUL from the model or a tool can neither stop
its event stream nor keep the API from storing the answer."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from agentchat.protocol.clean_text import SurrogateJoiner, clean_value, is_clean
from agentchat.protocol.events import AnswerDelta, BridgeEvent

Model = TypeVar("Model", bound=BaseModel)


def clean_model(model: Model) -> Model:
    """`model` with every string in its fields cleaned; the same object when none needed it."""
    changed: dict[str, Any] = {}
    for name, value in model.__dict__.items():
        cleaned = clean_model(value) if isinstance(value, BaseModel) else clean_value(value)
        if cleaned is not value:
            changed[name] = cleaned
    return model.model_copy(update=changed) if changed else model


class StreamCleaner:
    """One per run: answer deltas through a SurrogateJoiner (a pair split over two deltas
    is one character again), every other event through `clean_model`."""

    def __init__(self) -> None:
        self._answer = SurrogateJoiner()

    def event(self, event: BridgeEvent) -> BridgeEvent | None:
        """The event to send, or None when nothing of it is left to send yet."""
        if isinstance(event, AnswerDelta):
            content = event.content
            text = self._answer.feed(content)
            if text is content or (text == content and is_clean(content)):
                return event
            return event.model_copy(update={"content": text}) if text else None
        return clean_model(event)

    def held(self) -> AnswerDelta | None:
        """The half pair still held back at the end of the answer, as a last delta."""
        rest = self._answer.flush()
        return AnswerDelta(content=rest) if rest else None
