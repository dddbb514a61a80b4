"""The OpenAPI schema: FastAPI's own, plus the one refusal FastAPI makes without documenting it.

FastAPI documents the 422 it answers for a body that fails validation or is not JSON, but a JSON body whose
bytes are not text (not UTF-8, as RFC 8259 §8.1 requires) fails to decode before JSON parsing starts, and FastAPI
answers that with a 400 that no operation's responses list. Every operation that takes a body can answer it, so
it is added to every such operation here, including one added tomorrow.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

UNREADABLE_BODY_STATUS = "400"
UNREADABLE_BODY: dict[str, Any] = {
    "description": "The body could not be read: its bytes are not text (JSON must be UTF-8).",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
}


def document_unreadable_bodies(app: FastAPI) -> None:
    """Make `app.openapi` list the 400 for an unreadable body on every operation with a request body."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        schema = generate()  # built once and kept by FastAPI; adding the entries again changes nothing
        for path in schema.get("paths", {}).values():
            for operation in path.values():
                if "requestBody" in operation:
                    operation["responses"].setdefault(UNREADABLE_BODY_STATUS, UNREADABLE_BODY)
        return schema

    # FastAPI's documented way to extend the schema it generates is to replace this method.
    app.openapi = openapi  # type: ignore[method-assign]
