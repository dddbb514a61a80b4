"""The simulator's JSON API (DESIGN §4): exact fields, exact formulas through HTTP, clear 422s, and conformance
with its own OpenAPI schema (Schemathesis generates requests from the schema and checks every response)."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from app.simulator import LINKS, SYSTEMS, CollectiveQuery, simulate_collective

LINK_FIELDS = {"id", "name", "kind", "per_direction_GBps", "bidirectional_GBps", "year", "source"}
SYSTEM_FIELDS = {
    "id",
    "name",
    "gpus_per_node",
    "scale_up",
    "scale_up_GBps",
    "nvls",
    "scale_out",
    "scale_out_GBps",
    "max_nodes",
    "source",
}
RESULT_FIELDS = {
    "op",
    "algorithm",
    "mode",
    "ranks",
    "message_bytes",
    "time_s",
    "algbw_GBps",
    "busbw_GBps",
    "bottleneck",
    "phases",
    "assumptions",
    "error_percent",
}
GiB = 2**30


def test_links_have_exactly_the_design_ids_and_fields(client: TestClient) -> None:
    links = client.get("/api/v1/links").json()
    assert [link["id"] for link in links] == [
        "pcie3",
        "pcie4",
        "pcie5",
        "pcie6",
        "nvlink1",
        "nvlink2",
        "nvlink3",
        "nvlink4",
        "nvlink5",
        "ib-edr",
        "ib-hdr",
        "ib-ndr",
        "ib-xdr",
        "roce-400g",
        "roce-800g",
        "efa",  # after DESIGN's ids: the AWS presets' scale-out (issue 21 item 7)
    ]
    for link in links:
        assert set(link) == LINK_FIELDS
        assert link["bidirectional_GBps"] == pytest.approx(2 * link["per_direction_GBps"])
        assert link["source"].startswith("https://")
    by_id = {link["id"]: link for link in links}
    assert by_id["nvlink4"]["per_direction_GBps"] == 450
    assert by_id["ib-ndr"]["per_direction_GBps"] == 50  # 400 Gb/s = 50 GB/s


def test_systems_have_the_design_fields(client: TestClient) -> None:
    systems = client.get("/api/v1/systems").json()
    ids = {system["id"] for system in systems}
    assert {"dgx-a100", "dgx-h100", "dgx-b200", "gb200-nvl72", "pcie-gen4-8gpu", "pcie-gen5-8gpu"} <= ids
    for system in systems:
        assert set(system) == SYSTEM_FIELDS
        assert system["scale_up"] in LINKS
        assert system["scale_out"] in LINKS


def test_ideal_ring_all_reduce_matches_the_formula(client: TestClient) -> None:
    size = GiB
    response = client.get(
        "/api/v1/simulate/collective",
        params={
            "op": "all_reduce",
            "message_bytes": size,
            "system": "dgx-h100",
            "algorithm": "ring",
            "mode": "ideal",
            "alpha_us": 2,
        },
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == RESULT_FIELDS
    n, bandwidth, alpha = 8, SYSTEMS["dgx-h100"].scale_up_GBps * 1e9, 2e-6
    expected = 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / bandwidth
    assert body["time_s"] == pytest.approx(expected, rel=1e-12)
    assert body["algbw_GBps"] == pytest.approx(size / expected / 1e9, rel=1e-12)
    assert body["busbw_GBps"] == pytest.approx(body["algbw_GBps"] * 2 * (n - 1) / n, rel=1e-12)
    assert (body["ranks"], body["algorithm"], body["mode"]) == (8, "ring", "ideal")
    assert body["error_percent"] == 0
    assert response.headers["cache-control"].startswith("public")


def test_overrides_replace_the_preset_bandwidth(client: TestClient) -> None:
    body = client.get(
        "/api/v1/simulate/collective",
        params={
            "op": "sendrecv",
            "message_bytes": 10**9,
            "mode": "ideal",
            "scale_up_GBps": 100,
        },
    ).json()
    assert body["time_s"] == pytest.approx(10**9 / 100e9)


def test_calibrated_result_is_the_models(client: TestClient) -> None:
    params: dict[str, Any] = {"op": "all_gather", "message_bytes": 64 * 2**20, "system": "gb200-nvl72"}
    body = client.get("/api/v1/simulate/collective", params=params).json()
    query = CollectiveQuery(op=params["op"], system=params["system"])
    assert body == simulate_collective(query, params["message_bytes"]).to_dict()  # JSON round-trips floats exactly


def test_calibrated_results_carry_their_expected_error(client: TestClient) -> None:
    validated: dict[str, Any] = {"op": "all_reduce", "message_bytes": GiB, "system": "dgx-h100", "algorithm": "nvls"}
    body = client.get("/api/v1/simulate/collective", params=validated).json()
    unvalidated = client.get("/api/v1/simulate/collective", params={**validated, "scale_up_GBps": 2000}).json()
    assert 0 < body["error_percent"] <= 10
    assert unvalidated["error_percent"] > body["error_percent"]
    sweep = client.get("/api/v1/simulate/sweep", params={"op": "all_reduce", "system": "dgx-h100"}).json()
    assert all(item["error_percent"] > 0 for item in sweep)


def test_sweep_is_every_power_of_two_like_nccl_tests(client: TestClient) -> None:
    body = client.get(
        "/api/v1/simulate/sweep",
        params={
            "op": "all_reduce",
            "system": "dgx-a100",
            "min_bytes": 8,
            "max_bytes": 8 * GiB,
        },
    ).json()
    assert [item["message_bytes"] for item in body] == [8 * 2**k for k in range(31)]
    times = [item["time_s"] for item in body]
    assert times == sorted(times)


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"op": "all_reduce", "message_bytes": 0}, "message_bytes"),
        ({"op": "all_reduce", "message_bytes": -5}, "message_bytes"),
        ({"op": "all_reduce", "message_bytes": 2**40 + 1}, "message_bytes"),
        ({"op": "all_reduce", "message_bytes": "lots"}, "message_bytes"),
        ({"op": "all_reduce"}, "message_bytes"),
        ({"op": "allreduce", "message_bytes": 8}, "op"),
        ({"op": "all_reduce", "message_bytes": 8, "system": "dgx-z9"}, "system"),
        ({"op": "all_reduce", "message_bytes": 8, "gpus_per_node": 9}, "gpus_per_node"),
        ({"op": "all_reduce", "message_bytes": 8, "nodes": 0}, "nodes"),
        ({"op": "all_reduce", "message_bytes": 8, "system": "dgx-a100", "algorithm": "nvls"}, "algorithm"),
        ({"op": "all_gather", "message_bytes": 8, "algorithm": "tree"}, "algorithm"),
        ({"op": "all_reduce", "message_bytes": 8, "mode": "fast"}, "mode"),
        ({"op": "all_reduce", "message_bytes": 8, "scale_up_GBps": 0}, "scale_up_GBps"),
        ({"op": "all_reduce", "message_bytes": 8, "scale_out_GBps": "nan"}, "scale_out_GBps"),
        ({"op": "all_reduce", "message_bytes": 8, "alpha_us": -1}, "alpha_us"),
        ({"op": "all_reduce", "message_bytes": 8, "scale_up_GBps": -400}, "scale_up_GBps"),
        ({"op": "all_reduce", "message_bytes": 8, "scale_out_GBps": 0}, "scale_out_GBps"),
        ({"op": "all_reduce", "message_bytes": 8, "alpha_us": 2_000_000}, "alpha_us"),
    ],
)
def test_bad_parameters_are_422_naming_the_parameter(
    client: TestClient, params: dict[str, Any], parameter: str
) -> None:
    response = client.get("/api/v1/simulate/collective", params=params)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert isinstance(detail, str)
    assert parameter in detail


def test_absurd_sweep_bounds_are_refused(client: TestClient) -> None:
    for params in ({"min_bytes": 0}, {"max_bytes": 2**41}, {"min_bytes": 4096, "max_bytes": 8}):
        response = client.get("/api/v1/simulate/sweep", params={"op": "all_reduce", **params})
        assert response.status_code == 422, params


def test_errors_follow_the_learners_language(client: TestClient) -> None:
    korean = {"accept-language": "ko-KR"}
    too_small: dict[str, str | int] = {"op": "all_reduce", "message_bytes": 0}
    response = client.get("/api/v1/simulate/collective", params=too_small, headers=korean)
    assert response.status_code == 422
    assert response.json()["detail"] == "message_bytes 값은 1 이상이어야 합니다."
    english = client.get("/api/v1/simulate/collective", params=too_small)
    assert english.json()["detail"] == "message_bytes must be at least 1."
    by_query = client.get("/api/v1/simulate/collective", params={**too_small, "lang": "ko"})
    assert by_query.json()["detail"] == "message_bytes 값은 1 이상이어야 합니다."
    model_error: dict[str, str | int] = {
        "op": "all_reduce",
        "message_bytes": 8,
        "system": "dgx-a100",
        "algorithm": "nvls",
    }
    assert "NVLink SHARP" in client.get("/api/v1/simulate/collective", params=model_error).json()["detail"]
    korean_model = client.get("/api/v1/simulate/collective", params=model_error, headers=korean).json()["detail"]
    assert korean_model.startswith("현재 설정에서는 이 algorithm 값을 쓸 수 없습니다")


def test_openapi_declares_every_status_and_the_error_shape(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path in ("/api/v1/simulate/collective", "/api/v1/simulate/sweep"):
        responses = schema["paths"][path]["get"]["responses"]
        assert set(responses) == {"200", "422"}
        error_ref = responses["422"]["content"]["application/json"]["schema"]["$ref"]
        assert error_ref.endswith("/ErrorOut")
    assert set(schema["components"]["schemas"]["CollectiveOut"]["properties"]) == RESULT_FIELDS


def test_api_conforms_to_its_openapi_schema(shared_app: FastAPI) -> None:
    """Requests generated from the schema: no 5xx, every status declared, every body valid against the schema."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", shared_app).include(
        path_regex=r"^/api/v1/(links|systems|simulate)"
    )
    checked = []
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]  # an Err here means the schema itself is broken

        @given(case=operation.as_strategy())
        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case: Any) -> None:
            # Cross-parameter limits (a system's node count, NVLS only where it exists) are not expressible in
            # the schema, so a schema-valid request may rightly get a 422; every other check applies.
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        check()
        checked.append(operation.label)
    assert sorted(checked) == [
        "GET /api/v1/links",
        "GET /api/v1/simulate/collective",
        "GET /api/v1/simulate/sweep",
        "GET /api/v1/systems",
    ]
