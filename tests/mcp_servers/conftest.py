"""The accounts stack (tests/accounts/conftest.py) for the Tools page's tests."""

from tests.accounts.conftest import team  # noqa: F401 (fixture)
