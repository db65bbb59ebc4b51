"""The accounts stack (tests/accounts/conftest.py) for the Tools page's tests."""

from tests.accounts.conftest import team  # noqa: F401 (fixture)
from tests.runs.conftest import bridge, scripted_url  # noqa: F401 (fixtures)
