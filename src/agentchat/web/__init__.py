"""The API's HTTP layer: middlewares, error handlers, health/info/auth routes, the page."""
