"""The OpenAPI schema lists what the app answers: the 400 for a body that is not text, on every operation
that takes a body."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.web.openapi import UNREADABLE_BODY_STATUS

NOT_UTF8 = b"\t\xe9a\x7fk\x05\x0e\xff\xfe\x00"  # what schemathesis sent through nginx: no encoding reads it


def test_every_operation_with_a_body_documents_and_answers_the_400_for_a_body_that_is_not_text(
    client: TestClient,
) -> None:
    schema = client.get("/openapi.json").json()
    assert "ErrorOut" in schema["components"]["schemas"]
    with_body = [
        (method, path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    ]
    assert ("post", "/api/v1/credentials/verify") in with_body
    assert ("post", "/api/v1/attempts/{attempt_id}/answers") in with_body
    for method, path in with_body:
        assert UNREADABLE_BODY_STATUS in schema["paths"][path][method]["responses"], (method, path)
        answered = client.request(
            method,
            path.replace("{attempt_id}", "01J0000000000000000000000").replace("{quiz_id}", "nvlink"),
            content=NOT_UTF8,
            headers={"content-type": "application/json"},
        )
        assert answered.status_code == int(UNREADABLE_BODY_STATUS), (method, path, answered.text)
        assert answered.json() == {"detail": "The request could not be read."}
