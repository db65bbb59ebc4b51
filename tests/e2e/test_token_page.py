"""Without accounts the page is as before issue 28: with AGENTCHAT_AUTH_TOKEN a 401 asks for
the token in a dialog (a wrong one is said), then the page works; no user menu, no sign-in
page (/signin leads to the chats), the Tools page is there (the one person administers). The
one person adds the first account on the Admin page, and from then on signs in.

This module runs its own API with a token (no bridge: the pages here need none)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.e2e.pages import tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import PageFactory, page_factory
from tests.support.databases import fresh_database_url, worker_tag
from tests.support.servers import serve_app

pytestmark = pytest.mark.e2e

TOKEN = "e2e-page-token-4821"


@pytest.fixture(scope="module")
def token_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[E2EStack]:
    root = tmp_path_factory.mktemp("e2e-token")
    database = Database(fresh_database_url("sqlite", root, tag=f"e2e_token_{worker_tag()}"))
    settings = Settings(
        data_dir=root / "data",
        bridge_url="http://127.0.0.1:9",
        start_bridge=False,
        start_scripted_llm=False,
        auth_token=TOKEN,
    )
    url, stop_app = serve_app(create_app(settings, database=database))
    stack = E2EStack(url, database, "http://127.0.0.1:9")
    stack.http.headers["Authorization"] = f"Bearer {TOKEN}"
    try:
        stack.register_model()
        yield stack
    finally:
        stack.close()
        stop_app()
        database.dispose()


@pytest.fixture
def page_stack(token_stack: E2EStack) -> E2EStack:
    return token_stack


def test_the_token_dialog_still_answers_a_401_without_accounts(make_page: PageFactory) -> None:
    page = make_page()
    page.goto("/signin")  # no accounts: nothing to sign in to
    page.wait_for_url(re.compile(r"/chat$"))

    page.goto("/models")
    dialog = tid(page, "auth-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Token").fill("not the token")
    tid(page, "auth-submit").click()
    expect(dialog.locator(".auth-error")).to_be_visible()
    dialog.get_by_label("Token").fill(TOKEN)
    tid(page, "auth-submit").click()
    expect(dialog).to_be_hidden()
    expect(tid(page, "model-row")).to_have_count(1)
    expect(tid(page, "model-edit")).to_be_visible()
    expect(tid(page, "model-scope")).to_have_count(0)
    expect(tid(page, "user-menu")).to_have_count(0)
    expect(tid(page, "nav-tools")).to_be_visible()
    expect(tid(page, "nav-admin")).to_have_count(0)


@pytest.fixture
def bare_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[E2EStack]:
    """A server without accounts and without a token (the machine's own user)."""
    root = tmp_path_factory.mktemp("e2e-first-account")
    database = Database(fresh_database_url("sqlite", root, tag=f"e2e_first_{worker_tag()}"))
    settings = Settings(
        data_dir=root / "data",
        bridge_url="http://127.0.0.1:9",
        start_bridge=False,
        start_scripted_llm=False,
    )
    url, stop_app = serve_app(create_app(settings, database=database))
    stack = E2EStack(url, database, "http://127.0.0.1:9")
    try:
        yield stack
    finally:
        stack.close()
        stop_app()
        database.dispose()


def test_the_one_person_adds_the_first_account_on_the_admin_page(
    browser: Browser, bare_stack: E2EStack
) -> None:
    with page_factory(browser, bare_stack) as make:
        page = make()
        page.goto("/admin")  # no link to it without accounts; the address works
        expect(tid(page, "admin-no-accounts")).to_be_visible()
        expect(tid(page, "tab-invitations")).to_have_count(0)
        tid(page, "person-add").click()
        tid(page, "person-username").fill("owner")
        tid(page, "person-password").fill("correct horse battery")
        tid(page, "person-save").click()
        # accounts are on: everyone signs in now, the first administrator too
        page.wait_for_url(re.compile(r"/signin\?next=(%2F|/)admin$"))
        tid(page, "signin-username").fill("owner")
        tid(page, "signin-password").fill("correct horse battery")
        tid(page, "signin-submit").click()
        page.wait_for_url(re.compile(r"/admin$"))
        expect(tid(page, "user-menu")).to_have_attribute("data-role", "admin")
        expect(tid(page, "tab-invitations")).to_be_visible()
