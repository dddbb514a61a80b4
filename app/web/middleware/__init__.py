"""Pure ASGI middleware, one concern each; they share `on_response_start` to touch the response's headers."""
