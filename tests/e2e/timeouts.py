"""How long the browser tests wait on the page by default (Playwright's actions and `expect`)."""

EXPECT_TIMEOUT_MS = 20_000
