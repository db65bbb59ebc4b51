"""HTTP routes of the model registry (thin: parse, call the service, return)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Response, status
from starlette.concurrency import run_in_threadpool

from agentchat.core.deps import DatabaseDep, DbSession, SettingsDep
from agentchat.models import access, service
from agentchat.models.crypto import KeyCipher
from agentchat.models.hosts import check_host, host_policy
from agentchat.models.probe import probe
from agentchat.models.schemas import ModelCreate, ModelPublic, ModelTestResult, ModelUpdate
from agentchat.principal import PrincipalDep
from agentchat.protocol.camel import ERROR_RESPONSES
from agentchat.runtime import RuntimeDep

router = APIRouter(prefix="/api/models", tags=["models"], responses=ERROR_RESPONSES)


def get_cipher(settings: SettingsDep) -> KeyCipher:
    return KeyCipher.for_settings(settings)


CipherDep = Annotated[KeyCipher, Depends(get_cipher)]


@router.get("", operation_id="listModels")
def list_models(session: DbSession, who: PrincipalDep) -> list[ModelPublic]:
    """Every model (with accounts: the shared ones and the person's own), oldest first. API
    keys are never returned."""
    rows = service.list_models(session, who.owner_id)
    return [service.to_public(row, who.is_admin) for row in rows]


@router.post("", operation_id="createModel", status_code=status.HTTP_201_CREATED)
def create_model(
    data: ModelCreate,
    session: DbSession,
    cipher: CipherDep,
    settings: SettingsDep,
    who: PrincipalDep,
) -> ModelPublic:
    """Add a model; the first one becomes the default. An administrator's model is shared
    with everyone; another person's is private to them."""
    check_host(data.endpoint, settings)
    owner = access.owner_for_new(who)
    return service.to_public(service.create_model(session, cipher, data, owner_id=owner))


@router.get("/{model_id}", operation_id="getModel")
def get_model(model_id: int, session: DbSession, who: PrincipalDep) -> ModelPublic:
    return service.to_public(access.get_visible(session, model_id, who), who.is_admin)


@router.patch("/{model_id}", operation_id="updateModel")
def update_model(
    model_id: int,
    data: ModelUpdate,
    session: DbSession,
    cipher: CipherDep,
    settings: SettingsDep,
    who: PrincipalDep,
) -> ModelPublic:
    """Change the fields sent. apiKey omitted keeps the key, "" clears it; a new baseUrl or
    provider without an apiKey clears the stored key (it never follows the model elsewhere)."""
    access.get_editable(session, model_id, who)
    if data.base_url is not None:
        check_host(data.base_url, settings)
    return service.to_public(service.update_model(session, cipher, model_id, data))


@router.delete("/{model_id}", operation_id="deleteModel", status_code=status.HTTP_204_NO_CONTENT)
def delete_model(model_id: int, session: DbSession, who: PrincipalDep) -> Response:
    """Delete a model; sessions using it fall back to the default, another model is promoted."""
    access.get_editable(session, model_id, who)
    service.delete_model(session, model_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{model_id}/test", operation_id="testModel", response_model_exclude_none=True)
async def test_model(
    model_id: int,
    database: DatabaseDep,
    settings: SettingsDep,
    who: PrincipalDep,
    runtime: RuntimeDep,
) -> ModelTestResult:
    """Send one tiny request to the model: `ok` with the latency, or the provider's error."""
    live = runtime.scripted_url
    target = await run_in_threadpool(service.load_exact, database, model_id, settings, who, live)
    return await probe(target, host_policy(settings))
