"""/api/auth/oidc: single sign-on. `start` sends the browser to the provider; the provider
sends it back to `callback`, which signs in and sends it to the page (or to
`/signin?error=CODE` when it cannot)."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.datastructures import URL

from agentchat.accounts.cookies import set_session_cookie
from agentchat.accounts.deps import GateDep, OriginDep, transact
from agentchat.accounts.errors import AccountsOff
from agentchat.accounts.oidc import Flow, Provider, SignOnFailed, recall, remember, sign_on
from agentchat.accounts.sessions import new_token
from agentchat.accounts.signin_routes import session_ttl
from agentchat.core.deps import DatabaseDep, SettingsDep
from agentchat.core.settings import Settings
from agentchat.protocol.errors import AppError, NotFound

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/auth/oidc", tags=["auth"])
BROWSER_COOKIE = "agentchat_oidc"
COOKIE_PATH = "/api/auth/oidc"
FLOW_S = 600


def provider(request: Request, settings: Settings) -> Provider:
    """The provider of the settings, made once per app (it caches the discovery document)."""
    if not settings.oidc_enabled:
        raise NotFound("Single sign-on is not configured on this server.", code="oidc_off")
    found: Provider | None = getattr(request.app.state, "oidc_provider", None)
    if found is None:
        found = request.app.state.oidc_provider = Provider(settings)
    return found


def callback_url(request: Request, settings: Settings) -> str:
    base = (settings.public_url or str(request.base_url)).rstrip("/")
    return f"{base}{COOKIE_PATH}/callback"


def safe_next(path: str) -> str:
    """A path on this server only (never `//host` or a full URL: no open redirect)."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path


@router.get("/start", operation_id="oidcStart", status_code=302, response_class=RedirectResponse)
async def start(
    request: Request,
    database: DatabaseDep,
    settings: SettingsDep,
    gate: GateDep,
    next_path: Annotated[str, Query(alias="next", max_length=2000)] = "/",
) -> RedirectResponse:
    """302 to the provider's sign-in (404 `oidc_off` when not configured, 409 `accounts_off`
    before the first account exists)."""
    idp = provider(request, settings)
    if not await gate.accounts_on():
        raise AccountsOff("Create the first account before signing on.")
    redirect_uri = callback_url(request, settings)
    try:
        found = await idp.authorization(redirect_uri)
    except Exception as exc:  # the provider's discovery document could not be read
        raise SignOnFailed(f"The sign-on provider does not answer: {exc}") from exc
    flow = Flow(found["nonce"], found["code_verifier"], redirect_uri, safe_next(next_path))
    browser = new_token()
    await transact(database, lambda db: remember(db, found["state"], browser, flow))
    response = RedirectResponse(found["url"], status_code=302)
    response.set_cookie(
        BROWSER_COOKIE,
        browser,
        max_age=FLOW_S,
        httponly=True,
        samesite="lax",  # the provider's redirect back is a navigation from its site
        path=COOKIE_PATH,
        secure=request.url.scheme == "https",
    )
    return response


@router.get(
    "/callback", operation_id="oidcCallback", status_code=302, response_class=RedirectResponse
)
async def callback(
    request: Request,
    database: DatabaseDep,
    settings: SettingsDep,
    origin: OriginDep,
    code: Annotated[str | None, Query(max_length=4000)] = None,
    state: Annotated[str | None, Query(max_length=1000)] = None,
    error: Annotated[str | None, Query(max_length=200)] = None,
) -> RedirectResponse:
    """Sign in with the provider's answer; 302 to the page (`next` of the start), or to
    `/signin?error=CODE`."""
    try:
        idp = provider(request, settings)
        if error or not code or not state:
            raise SignOnFailed(f"The provider did not sign you in ({error or 'no code'}).")
        browser = request.cookies.get(BROWSER_COOKIE)
        flow = await transact(database, lambda db: recall(db, state, browser))
        claims = await idp.claims(code, flow)
        outcome = await transact(
            database, lambda db: sign_on(db, idp.issuer, claims, settings, origin)
        )
        if outcome.refusal is not None:
            raise outcome.refusal
        token = outcome.token
        assert token is not None
    except AppError as exc:
        log.info("single sign-on refused: %s (%s)", exc.code, exc.message)
        return _leave(RedirectResponse(str(URL("/signin").include_query_params(error=exc.code))))
    response = _leave(RedirectResponse(flow.next_path, status_code=302))
    set_session_cookie(response, request, token, int(session_ttl(settings).total_seconds()))
    return response


def _leave(response: RedirectResponse) -> RedirectResponse:
    response.status_code = 302
    response.delete_cookie(BROWSER_COOKIE, path=COOKIE_PATH, httponly=True, samesite="lax")
    return response
