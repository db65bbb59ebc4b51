"""The model registry: CRUD with exactly one default, key encryption, and model resolution."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from pydantic_core import PydanticCustomError
from sqlalchemy import case, false, func, select, true, update
from sqlalchemy.orm import Session

from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.models.access import get_visible, usable, visible_to
from agentchat.models.crypto import KeyCipher
from agentchat.models.hosts import check_host, host_problem
from agentchat.models.schemas import ModelCreate, ModelPublic, ModelUpdate, check_temperature
from agentchat.models.tables import AiModelConfig
from agentchat.models.vision import sees_images
from agentchat.principal import SINGLE, Principal
from agentchat.protocol.errors import Conflict, Invalid, NotFound

SCRIPTED_MODEL_NAME = "Scripted demo model (offline, not a real LLM)"
SCRIPTED_MODEL_ID = "scripted-demo"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
_BUILTIN_LOCKED = ("provider", "base_url", "model_name")
_COMPATIBLE = "openai-compatible"


@dataclass(frozen=True)
class ResolvedModel:
    """What a run needs to call a model. `api_key` is decrypted (may be "") and kept out of repr."""

    id: int
    name: str
    base_url: str
    api_key: str = field(repr=False)
    model_name: str
    provider: str
    context_length: int
    max_output_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    fallback: ResolvedModel | None = None
    sees_images: bool = False


def list_models(session: Session, owner_id: int | None = None) -> list[AiModelConfig]:
    """Every model (`owner_id`: the shared ones and that person's own), oldest first."""
    query = select(AiModelConfig).order_by(AiModelConfig.created_at, AiModelConfig.id)
    return list(session.scalars(visible_to(query, owner_id)))


def get_model(session: Session, model_id: int) -> AiModelConfig:
    row = session.get(AiModelConfig, model_id)
    if row is None:
        raise NotFound(f"Model {model_id} not found")
    return row


def to_public(row: AiModelConfig, admin: bool = True) -> ModelPublic:
    """`admin`: whether the viewer manages the shared models (others do not get a shared
    model's key ending)."""
    shared = row.owner_id is None
    return ModelPublic(
        id=row.id,
        name=row.name,
        provider=row.provider,
        base_url=row.base_url,
        model_name=row.model_name,
        context_length=row.context_length,
        max_output_tokens=row.max_output_tokens,
        temperature=row.temperature,
        reasoning_effort=row.reasoning_effort,
        fallback_model_id=row.fallback_model_id,
        is_default=row.is_default,
        is_builtin=row.is_builtin,
        can_summarize=row.can_summarize,
        vision=row.vision,
        sees_images=sees_images(row.provider, row.vision),
        has_api_key=bool(row.api_key_encrypted),
        api_key_last4=row.api_key_last4 if admin or not shared else None,
        shared=shared,
        created_at=row.created_at,
    )


def create_model(
    session: Session,
    cipher: KeyCipher,
    data: ModelCreate,
    *,
    builtin: bool = False,
    owner_id: int | None = None,
) -> AiModelConfig:
    """Add a model; the first shared one, or one sent with isDefault, becomes the default.
    `owner_id`: a person's private model (never the default)."""
    if owner_id is not None and data.is_default:
        raise Invalid("isDefault: a private model cannot be the server's default")
    row = AiModelConfig(
        name=data.name,
        provider=data.provider,
        base_url=data.endpoint,
        model_name=data.model_name,
        context_length=data.context_length,
        max_output_tokens=data.max_output_tokens,
        temperature=data.temperature,
        reasoning_effort=data.reasoning_effort,
        is_default=False,
        is_builtin=builtin,
        can_summarize=data.can_summarize,
        vision=data.vision,
        owner_id=owner_id,
    )
    if data.fallback_model_id is not None:
        row.fallback_model_id = _check_fallback(session, row, data.fallback_model_id)
    _set_api_key(row, cipher, data.api_key)
    session.add(row)
    session.flush()
    if owner_id is None and (data.is_default or _current_default(session) is None):
        _make_default(session, row)
    return row


def update_model(
    session: Session, cipher: KeyCipher, model_id: int, data: ModelUpdate
) -> AiModelConfig:
    row = get_model(session, model_id)
    changes = data.model_dump(exclude_unset=True)
    _check_builtin_changes(row, changes)
    if "api_key" not in changes and _host_changes(row, changes):
        changes["api_key"] = None  # a stored key never follows the model to another host
    if "api_key" in changes:
        _set_api_key(row, cipher, changes.pop("api_key"))
    is_default = changes.pop("is_default", None)
    if is_default and row.owner_id is not None:
        raise Invalid("isDefault: a private model cannot be the server's default")
    if changes.get("fallback_model_id") is not None:
        _check_fallback(session, row, changes["fallback_model_id"])
    for name, value in changes.items():
        setattr(row, name, value)
    try:
        check_temperature(row.provider, row.temperature)
    except PydanticCustomError as exc:
        field = {"field": "temperature", "code": exc.type, "message": str(exc)}
        raise Invalid(str(exc), fields=[field]) from exc
    session.flush()
    if is_default:
        _make_default(session, row)
    elif is_default is False and row.is_default:
        raise Conflict("One model must be the default: make another model the default instead.")
    return row


def _host_changes(row: AiModelConfig, changes: dict[str, object]) -> bool:
    moved = "base_url" in changes and changes["base_url"] != row.base_url
    return moved or ("provider" in changes and changes["provider"] != row.provider)


def delete_model(session: Session, model_id: int) -> None:
    """Delete a model; the oldest one left becomes the default if it was. (The chat listens for
    the deletion: sessions that used it fall back to the default.)"""
    row = get_model(session, model_id)
    was_default = row.is_default
    session.execute(
        update(AiModelConfig)
        .where(AiModelConfig.fallback_model_id == model_id)
        .values(fallback_model_id=None)
        .execution_options(synchronize_session="fetch")
    )
    session.delete(row)
    session.flush()
    if was_default:
        successor = _oldest(session)
        if successor is not None:
            _make_default(session, successor)


def resolve_model(
    session: Session,
    model_id: int | None,
    settings: Settings,
    *,
    strict: bool = False,
    owner_id: int | None = None,
    scripted_url: str | None = None,
) -> ResolvedModel:
    """The model a run uses: `model_id` when it exists and the chat's owner (`owner_id`) may
    use it (when `strict`, 422 when not), else the default. NotFound when none; 422 when the
    operator's host lists refuse it. `scripted_url`: this process's scripted model, which the
    built-in demo model uses."""
    row = usable(session, model_id, owner_id) if model_id is not None else None
    if strict and row is None:
        raise Invalid(f"Model {model_id} does not exist.", code="unknown_model")
    row = row or default_row(session)
    if row is None:
        raise NotFound("No model is configured: add one in the model settings.", code="no_model")
    check_host(row.base_url, settings)
    return _resolved(row, KeyCipher.for_settings(settings), session, settings, scripted_url)


def load_exact(
    database: Database,
    model_id: int,
    settings: Settings,
    who: Principal = SINGLE,
    scripted_url: str | None = None,
) -> ResolvedModel:
    """The model `model_id` (no fallback) if `who` sees it, read in a short transaction."""
    with database.session() as session:
        row = get_visible(session, model_id, who)
        check_host(row.base_url, settings)
        cipher = KeyCipher.for_settings(settings)
        return _resolved(row, cipher, settings=settings, scripted_url=scripted_url)


def ensure_default_model(
    session: Session, settings: Settings, scripted_base_url: str | None
) -> AiModelConfig | None:
    """On first start (no model yet) register a default model; returns it, or None.

    OPENAI_API_KEY (with OPENAI_BASE_URL and AGENTCHAT_MODEL) wins; otherwise the scripted
    demo model at `scripted_base_url`, marked built-in. An existing table without a default
    (edited by hand) gets its oldest model promoted.
    """
    if session.scalar(select(func.count()).select_from(AiModelConfig)):
        oldest = _oldest(session)
        if _current_default(session) is None and oldest is not None:
            _make_default(session, oldest)
        return None
    cipher = KeyCipher.for_settings(settings)
    api_key = os.environ.get("OPENAI_API_KEY", "").strip()
    if api_key:
        model_name = os.environ.get("AGENTCHAT_MODEL", "").strip() or OPENAI_DEFAULT_MODEL
        base_url = os.environ.get("OPENAI_BASE_URL", "").strip() or OPENAI_DEFAULT_BASE_URL
        data = ModelCreate(
            name=model_name,
            provider="openai" if base_url.rstrip("/") == OPENAI_DEFAULT_BASE_URL else _COMPATIBLE,
            base_url=base_url,
            model_name=model_name,
            api_key=api_key,
            is_default=True,
        )
        return create_model(session, cipher, data)
    if scripted_base_url:
        data = ModelCreate(
            name=SCRIPTED_MODEL_NAME,
            base_url=scripted_base_url,
            model_name=SCRIPTED_MODEL_ID,
            is_default=True,
        )
        return create_model(session, cipher, data, builtin=True)
    return None


def update_builtin_base_url(session: Session, url: str) -> int:
    """Point the built-in scripted model at the live endpoint (its port may change per start)."""
    base_url = ModelUpdate(base_url=url).base_url
    result = session.execute(
        update(AiModelConfig)
        .where(AiModelConfig.is_builtin.is_(True))
        .values(base_url=base_url)
        .execution_options(synchronize_session="fetch")
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def _resolved(
    row: AiModelConfig,
    cipher: KeyCipher,
    session: Session | None = None,
    settings: Settings | None = None,
    scripted_url: str | None = None,
) -> ResolvedModel:
    """The model with its key decrypted; with `session`, its fallback model (one level), left
    out when the operator's host lists refuse the fallback's host."""
    api_key = cipher.decrypt(row.api_key_encrypted) if row.api_key_encrypted else ""
    fallback = None
    if session is not None and settings is not None and row.fallback_model_id is not None:
        other = session.get(AiModelConfig, row.fallback_model_id)
        if other is not None and not host_problem(other.base_url, settings):
            fallback = _resolved(other, cipher, settings=settings, scripted_url=scripted_url)
    return ResolvedModel(
        id=row.id,
        name=row.name,
        base_url=_live_base_url(row, scripted_url),
        api_key=api_key,
        model_name=row.model_name,
        provider=row.provider,
        context_length=row.context_length,
        max_output_tokens=row.max_output_tokens,
        temperature=row.temperature,
        reasoning_effort=row.reasoning_effort,
        fallback=fallback,
        sees_images=sees_images(row.provider, row.vision),
    )


def _live_base_url(row: AiModelConfig, live: str | None) -> str:
    """The built-in demo model runs inside each API process: the row holds the port of the
    process that started last, so a turn uses this process's own endpoint (`live`)."""
    if row.is_builtin and live:
        return ModelUpdate(base_url=live).base_url or row.base_url
    return row.base_url


def _check_fallback(session: Session, row: AiModelConfig, fallback_id: int) -> int:
    """A fallback the model's owner may use: a shared model, or another of their own."""
    if fallback_id == row.id:
        raise Invalid("A model cannot be its own fallback.")
    fallback = usable(session, fallback_id, row.owner_id)
    if fallback is None or (row.owner_id is None and fallback.owner_id is not None):
        raise Invalid(f"Fallback model {fallback_id} not found")
    return fallback_id


def _set_api_key(row: AiModelConfig, cipher: KeyCipher, api_key: str | None) -> None:
    if not api_key:
        row.api_key_encrypted = None
        row.api_key_last4 = None
        return
    row.api_key_encrypted = cipher.encrypt(api_key)
    # Short keys would be mostly revealed by their last four characters.
    row.api_key_last4 = api_key[-4:] if len(api_key) >= 12 else None


def _check_builtin_changes(row: AiModelConfig, changes: dict[str, object]) -> None:
    if not row.is_builtin:
        return
    for name in _BUILTIN_LOCKED:
        if name in changes and changes[name] != getattr(row, name):
            raise Conflict(
                f"The built-in demo model's {name} is managed by the server; "
                "add a new model instead."
            )


def default_row(session: Session) -> AiModelConfig | None:
    """The model a chat without its own runs on: the default, else the oldest shared one."""
    return _current_default(session) or _oldest(session)


def _current_default(session: Session) -> AiModelConfig | None:
    query = select(AiModelConfig).where(
        AiModelConfig.is_default.is_(True), AiModelConfig.owner_id.is_(None)
    )
    return session.scalars(query.order_by(AiModelConfig.id).limit(1)).first()


def _oldest(session: Session) -> AiModelConfig | None:
    """The oldest shared model (a person's private model is never the server's default)."""
    query = (
        select(AiModelConfig)
        .where(AiModelConfig.owner_id.is_(None))
        .order_by(AiModelConfig.created_at, AiModelConfig.id)
    )
    return session.scalars(query.limit(1)).first()


def _make_default(session: Session, row: AiModelConfig) -> None:
    """Set the default in one statement over every row, so concurrent calls serialise on the
    row locks and the last one wins instead of leaving two defaults."""
    session.execute(
        update(AiModelConfig)
        .values(is_default=case((AiModelConfig.id == row.id, true()), else_=false()))
        .execution_options(synchronize_session="fetch")
    )
    session.flush()
