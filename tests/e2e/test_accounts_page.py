"""The page with accounts (issue 28): the sign-in page (a wrong password said in words, back to
where the person was), the user menu (sign out, change password), a user kept off the Admin
and Tools pages, an administrator adding a person who then signs in, an invitation link that
works once, a sign-up waiting for approval, single sign-on through a real OIDC provider
(oidc-provider-mock), shared and private models. Desktop and phone,
light and dark, English and Chinese, axe-core on each.

This module runs its own API (with accounts) and bridge: accounts, once on, stay on."""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect
from pydantic import SecretStr

from agentchat.local_stack import free_port
from tests.e2e.own_stack import own_stack
from tests.e2e.pages import last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory, run_axe, sideways_overflow

# the first test starts a bridge and an OIDC provider besides the shared stack
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

PASSWORD = "correct horse battery"
ADMIN = "root"
VIEWS = [("en", "desktop", "light"), ("zh", "phone", "dark")]
WRONG = {"en": "Wrong user name or password.", "zh": "用户名或密码错误。"}
_names = itertools.count(1)


def new_name(prefix: str) -> str:
    return f"{prefix}{next(_names)}"


OSCAR = {"sub": "sub-oscar", "preferred_username": "oscar", "groups": ["agentchat-admin"]}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real OpenID Connect provider (oidc-provider-mock) on a free loopback port."""
    port = free_port()
    log = (tmp_path_factory.mktemp("e2e-oidc") / "provider.out").open("wb")
    command = [sys.executable, "-m", "oidc_provider_mock", "--port", str(port)]
    command += ["--require-nonce", "--user-claims", json.dumps(OSCAR)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/.well-known/openid-configuration", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            assert time.monotonic() < deadline, "the OIDC provider did not start"
            time.sleep(0.1)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def accounts_stack(
    tmp_path_factory: pytest.TempPathFactory, e2e_stack: E2EStack, provider: str
) -> Iterator[E2EStack]:
    with own_stack(
        tmp_path_factory,
        "accounts",
        e2e_stack.scripted_url,
        signup="approval",
        auth_failures_per_minute=0,  # every test signs in from 127.0.0.1
        oidc_issuer=provider,
        oidc_client_id="agentchat",
        oidc_client_secret=SecretStr("client-secret"),
        oidc_name="Company SSO",
    ) as stack:
        # without accounts the one person registered the model (shared) and adds the first account
        admin = {"username": ADMIN, "password": PASSWORD}
        stack.call("POST", "/api/admin/users", admin, expect=201)
        yield stack


@pytest.fixture
def page_stack(accounts_stack: E2EStack) -> E2EStack:
    return accounts_stack


def admin_http(stack: E2EStack) -> httpx.Client:
    response = httpx.post(
        f"{stack.url}/api/auth/login", json={"username": ADMIN, "password": PASSWORD}, timeout=30
    )
    assert response.status_code == 200, response.text
    token = response.cookies["agentchat_session"]
    return httpx.Client(
        base_url=stack.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def add_person(stack: E2EStack, name: str, role: str = "user") -> None:
    with admin_http(stack) as admin:
        body = {"username": name, "password": PASSWORD, "role": role}
        created = admin.post("/api/admin/users", json=body)
        assert created.status_code == 201, created.text


def sign_in(page: Page, name: str, password: str = PASSWORD) -> None:
    page.goto("/signin")
    tid(page, "signin-username").fill(name)
    tid(page, "signin-password").fill(password)
    tid(page, "signin-submit").click()
    expect(tid(page, "user-menu")).to_have_attribute("data-username", name)


def signed_in(page: Page, name: str, path: str = "/chat") -> None:
    """Signed in through the API (its cookie lands in the page's context), then at `path`: for
    the tests about something else than signing in, the sign-in page's steps skipped."""
    body = {"username": name, "password": PASSWORD}
    response = page.context.request.post("/api/auth/login", data=body)
    assert response.ok, response.text()
    page.goto(path)
    expect(tid(page, "user-menu")).to_have_attribute("data-username", name)


def goto_or_signed_out(page: Page, path: str) -> None:
    """Open `path` on a page whose sign-in has ended: it lands on the sign-in page. The page may
    get there first by itself (its cut stream or next request answered 401), which aborts
    the navigation started here."""
    with contextlib.suppress(PlaywrightError):
        page.goto(path)
    page.wait_for_url(re.compile(r"/signin"))


def menu(page: Page, item: str) -> None:
    tid(page, "user-menu").click()
    tid(page, item).click()


@pytest.mark.parametrize(("locale", "size", "scheme"), VIEWS)
def test_sign_in_says_a_wrong_password_and_returns_to_the_page_then_signs_out(
    make_page: PageFactory,
    accounts_stack: E2EStack,
    screenshots: Path,
    locale: str,
    size: str,
    scheme: str,
) -> None:
    name = new_name("ann")
    add_person(accounts_stack, name)
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})

    page.goto("/models")  # signed out: the sign-in page, which comes back here afterwards
    page.wait_for_url(re.compile(r"/signin\?next=(%2F|/)models$"))
    expect(tid(page, "nav-chat")).to_have_count(0)
    expect(tid(page, "signup-link")).to_be_visible()  # AGENTCHAT_SIGNUP=approval
    page.screenshot(path=screenshots / f"signin-{locale}-{size}-{scheme}.png")
    assert run_axe(page) == []
    assert sideways_overflow(page) == 0

    tid(page, "signin-username").fill(name)
    tid(page, "signin-password").fill("not the password")
    tid(page, "signin-submit").click()
    expect(tid(page, "signin-error")).to_have_text(WRONG[locale])
    expect(tid(page, "signin-password")).to_have_value("")

    tid(page, "signin-password").fill(PASSWORD)
    tid(page, "signin-submit").click()
    page.wait_for_url(re.compile(r"/models$"))
    expect(tid(page, "models-page")).to_be_visible()
    expect(tid(page, "user-menu")).to_have_attribute("data-username", name)
    expect(tid(page, "user-menu")).to_have_attribute("data-role", "user")
    assert run_axe(page) == []
    assert sideways_overflow(page) == 0

    menu(page, "menu-signout")
    page.wait_for_url(re.compile(r"/signin$"))
    page.goto("/chat")  # the session ended on the server: signed out for good
    page.wait_for_url(re.compile(r"/signin"))


def test_a_user_sees_no_admin_page_and_cannot_change_a_shared_model(
    make_page: PageFactory, accounts_stack: E2EStack
) -> None:
    name = new_name("bob")
    add_person(accounts_stack, name)
    page = make_page()
    signed_in(page, name)
    expect(tid(page, "nav-chat")).to_be_visible()
    expect(tid(page, "nav-admin")).to_have_count(0)
    expect(tid(page, "nav-tools")).to_have_count(0)
    tid(page, "user-menu").click()
    expect(tid(page, "menu-signout")).to_be_visible()
    expect(tid(page, "menu-admin")).to_have_count(0)
    page.keyboard.press("Escape")

    page.goto("/admin")
    page.wait_for_url(re.compile(r"/chat$"))
    expect(tid(page, "admin-page")).to_have_count(0)

    page.goto("/models")  # the administrator's model: shared, usable, not changeable here
    row = tid(page, "model-row").first
    expect(tid(row, "model-scope")).to_have_attribute("data-shared", "true")
    expect(tid(row, "model-edit")).to_have_count(0)
    expect(tid(row, "model-delete")).to_have_count(0)

    open_chat(page)  # the person's own chat answers on the shared model, with no refusal shown
    send(page, "#say hello from a user")
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    expect(reply).to_contain_text("hello from a user")
    expect(page.locator(".n-message--error-type")).to_have_count(0)


@pytest.mark.parametrize(("locale", "size", "scheme"), [*VIEWS, ("en", "phone", "light")])
def test_an_administrator_adds_a_person_who_then_signs_in(
    make_page: PageFactory,
    accounts_stack: E2EStack,
    screenshots: Path,
    locale: str,
    size: str,
    scheme: str,
) -> None:
    name = new_name("cara")
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    signed_in(page, ADMIN)
    if size == "phone":  # the header keeps the Admin page in the user menu
        menu(page, "menu-admin")
    else:
        tid(page, "nav-admin").click()
    expect(tid(page, "admin-people")).to_be_visible()
    # the header holds the pages, the language, the theme and the user menu side by side
    links = page.locator(".app-nav a:visible")
    last = links.nth(links.count() - 1).bounding_box()
    tools = page.locator(".app-tools").bounding_box()
    assert last and tools and last["x"] + last["width"] <= tools["x"] + 1, (last, tools)

    tid(page, "person-add").click()
    tid(page, "person-username").fill(name)
    tid(page, "person-password").fill("short")
    tid(page, "person-save").click()
    expect(tid(page, "person-form-error")).to_be_visible()  # said before it is sent
    tid(page, "person-password").fill(PASSWORD)
    tid(page, "person-save").click()
    row = page.locator(f'[data-testid="person-row"][data-username="{name}"]')
    expect(row).to_have_attribute("data-role", "user")
    page.screenshot(path=screenshots / f"admin-people-{locale}-{size}-{scheme}.png")
    assert run_axe(page) == []
    assert sideways_overflow(page) == 0

    other = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    sign_in(other, name)
    expect(tid(other, "user-menu")).to_have_attribute("data-role", "user")

    # disabling the person ends their sign-in at once: their next request goes to sign-in
    tid(row, "person-disable").click()
    expect(row).to_have_attribute("data-disabled", "true")
    goto_or_signed_out(other, "/models")

    tid(page, "tab-audit").click()
    expect(
        page.locator('[data-testid="audit-row"][data-action="user_disabled"]').first
    ).to_be_visible()
    assert run_axe(page) == []
    assert sideways_overflow(page) == 0


def test_an_invitation_link_works_once(make_page: PageFactory, accounts_stack: E2EStack) -> None:
    name = new_name("dan")
    page = make_page()
    signed_in(page, ADMIN, "/admin")
    tid(page, "tab-invitations").click()
    tid(page, "invite-create").click()
    link = tid(page, "invite-link").inner_text().strip()
    assert re.fullmatch(rf"{re.escape(accounts_stack.url)}/invite/[\w-]+", link), link
    expect(tid(page, "invitation-row")).not_to_have_count(0)

    guest = make_page(SIZES["phone"], "dark")
    guest.goto(link)
    expect(tid(guest, "invite-info")).to_contain_text("a user")
    assert run_axe(guest) == []
    assert sideways_overflow(guest) == 0
    tid(guest, "invite-username").fill(name)
    tid(guest, "invite-password").fill(PASSWORD)
    tid(guest, "invite-again").fill(PASSWORD)
    tid(guest, "invite-submit").click()
    expect(tid(guest, "user-menu")).to_have_attribute("data-username", name)

    again = make_page()
    again.goto(link)
    expect(tid(again, "invite-invalid")).to_be_visible()


def test_a_sign_up_waits_for_approval(make_page: PageFactory, accounts_stack: E2EStack) -> None:
    name = new_name("eve")
    page = make_page(SIZES["phone"], "light")
    page.goto("/signin")
    tid(page, "signup-link").click()
    tid(page, "signup-username").fill(name)
    tid(page, "signup-password").fill(PASSWORD)
    tid(page, "signup-again").fill(PASSWORD)
    tid(page, "signup-submit").click()
    expect(tid(page, "signup-pending")).to_contain_text(name)
    assert run_axe(page) == []

    page.goto("/signin")  # not approved yet: said in words
    tid(page, "signin-username").fill(name)
    tid(page, "signin-password").fill(PASSWORD)
    tid(page, "signin-submit").click()
    expect(tid(page, "signin-error")).to_contain_text("not approved this account yet")

    admin = make_page()
    signed_in(admin, ADMIN, "/admin")
    row = admin.locator(f'[data-testid="person-row"][data-username="{name}"]')
    expect(row).to_have_attribute("data-role", "pending")
    tid(row, "person-approve").click()
    expect(row).to_have_attribute("data-role", "user")

    sign_in(page, name)


def test_single_sign_on_failures_and_own_password_change(
    make_page: PageFactory, accounts_stack: E2EStack
) -> None:
    page = make_page(storage={"agentchat.locale": "zh"})
    page.goto("/signin?error=oidc_state_invalid")
    expect(tid(page, "signin-error")).to_have_text("单点登录耗时过长或来自其他标签页，请重试。")  # noqa: RUF001

    name = new_name("fay")
    add_person(accounts_stack, name)
    page = make_page()
    signed_in(page, name)
    elsewhere = make_page(SIZES["phone"], "dark")
    signed_in(elsewhere, name)
    menu(page, "menu-sessions")  # two sign-ins: this one, and the other one to end
    expect(tid(page, "my-session")).to_have_count(2)
    assert run_axe(page) == []
    tid(page, "my-session-end").click()
    expect(tid(page, "my-session")).to_have_count(1)
    expect(tid(page, "my-session")).to_have_attribute("data-current", "true")
    page.keyboard.press("Escape")
    expect(tid(page, "my-sessions")).to_be_hidden()
    goto_or_signed_out(elsewhere, "/models")

    menu(page, "menu-password")
    tid(page, "password-current").fill("wrong password")
    tid(page, "password-new").fill("a new password")
    tid(page, "password-again").fill("a new password")
    tid(page, "password-save").click()
    expect(tid(page, "password-error")).to_have_text("The current password is wrong.")
    tid(page, "password-current").fill(PASSWORD)
    tid(page, "password-save").click()
    expect(tid(page, "password-form")).to_be_hidden()
    menu(page, "menu-signout")
    page.wait_for_url(re.compile(r"/signin$"))
    sign_in(page, name, "a new password")


def test_usage_per_person_and_deleting_a_person(
    make_page: PageFactory, accounts_stack: E2EStack
) -> None:
    name = new_name("gus")
    add_person(accounts_stack, name)
    login = httpx.post(
        f"{accounts_stack.url}/api/auth/login",
        json={"username": name, "password": PASSWORD},
        timeout=30,
    )
    token = login.cookies["agentchat_session"]
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=accounts_stack.url, headers=headers, timeout=30) as person:
        created = person.post("/api/chat/sessions", json={"title": "counted"})
        session_id = created.json()["sessionId"]
        body = {"message": "#usage 4321\n#say counted"}
        started = person.post(f"/api/chat/sessions/{session_id}/runs", json=body)
        assert started.status_code == 201, started.text
        deadline = time.monotonic() + 60
        while person.get(f"/api/chat/sessions/{session_id}").json()["session"]["hasActiveRun"]:
            assert time.monotonic() < deadline, "the answer did not finish"
            time.sleep(0.1)

    page = make_page(SIZES["phone"], "dark")
    signed_in(page, ADMIN, "/admin")
    tid(page, "tab-usage").click()
    row = page.locator(f'[data-testid="usage-person"][data-username="{name}"]')
    expect(tid(row, "usage-total")).to_contain_text("4,3")  # prompt 4,321 + the completion
    assert run_axe(page) == []
    assert sideways_overflow(page) == 0

    tid(page, "tab-people").click()
    person_row = page.locator(f'[data-testid="person-row"][data-username="{name}"]')
    tid(person_row, "person-delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(person_row).to_have_count(0)
    tid(page, "tab-audit").click()
    expect(
        page.locator('[data-testid="audit-row"][data-action="user_deleted"]').first
    ).to_be_visible()


def test_single_sign_on_from_the_sign_in_page(make_page: PageFactory) -> None:
    page = make_page(SIZES["phone"], "light")
    page.goto("/skills")
    page.wait_for_url(re.compile(r"/signin\?next="))
    sso = tid(page, "signin-sso")
    expect(sso).to_have_text("Sign in with Company SSO")
    sso.click()
    page.locator('input[name="sub"]').fill("sub-oscar")  # the provider's own form
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(re.compile(r"/skills$"))
    expect(tid(page, "user-menu")).to_have_attribute("data-username", "oscar")
    expect(tid(page, "user-menu")).to_have_attribute("data-role", "admin")  # from the claim
