"""Every bad parameter is refused with a SimulationError that names it."""

import math

import pytest

from app.simulator import CollectiveQuery, SimulationError, simulate_collective, sweep, training_step, transfer_time_s


def refused(parameter: str, code: str, **kwargs: object) -> SimulationError:
    query: dict[str, object] = {"op": "all_reduce", "message_bytes": 1024}
    query.update(kwargs)
    message_bytes = query.pop("message_bytes")
    with pytest.raises(SimulationError) as caught:
        simulate_collective(CollectiveQuery(**query), message_bytes)  # type: ignore[arg-type]
    error = caught.value
    assert error.parameter == parameter
    assert error.code == code
    assert parameter in error.message
    assert error.allowed
    assert str(error) == error.message
    return error


@pytest.mark.parametrize("op", ["allreduce", "", "ALL_REDUCE"])
def test_unknown_op(op: str) -> None:
    error = refused("op", "unknown_value", op=op)
    assert "all_reduce" in error.allowed


def test_unknown_system() -> None:
    refused("system", "unknown_value", system="dgx-z100")


def test_unknown_algorithm_and_mode() -> None:
    refused("algorithm", "unknown_value", algorithm="butterfly")
    refused("mode", "unknown_value", mode="realistic")


@pytest.mark.parametrize("size", [0, -1, 2**40 + 1])
def test_message_bytes_out_of_range(size: int) -> None:
    refused("message_bytes", "out_of_range", message_bytes=size)


@pytest.mark.parametrize("size", [1.5, "1024", True, None])
def test_message_bytes_must_be_an_integer(size: object) -> None:
    refused("message_bytes", "invalid_type", message_bytes=size)


def test_message_bytes_bounds_are_inclusive() -> None:
    assert simulate_collective(CollectiveQuery("all_reduce"), 1).message_bytes == 1
    assert simulate_collective(CollectiveQuery("all_reduce"), 2**40).message_bytes == 2**40


@pytest.mark.parametrize("nodes", [0, -3, 129, 1.0])
def test_nodes_out_of_range(nodes: object) -> None:
    error = refused("nodes", "out_of_range", nodes=nodes)
    assert error.message == "nodes must be between 1 and 128 for dgx-h100"


@pytest.mark.parametrize("gpus", [0, 9])
def test_gpus_per_node_out_of_range(gpus: int) -> None:
    error = refused("gpus_per_node", "out_of_range", gpus_per_node=gpus)
    assert error.message == "gpus_per_node must be between 1 and 8 for dgx-h100"


def test_gpus_per_node_follows_the_system() -> None:
    assert simulate_collective(CollectiveQuery("all_reduce", system="gb200-nvl72", gpus_per_node=72), 1024).ranks == 72
    refused("gpus_per_node", "out_of_range", system="gb200-nvl72", gpus_per_node=73)


@pytest.mark.parametrize("parameter", ["scale_up_GBps", "scale_out_GBps"])
@pytest.mark.parametrize("value", [0.0, -1.0, 100_000.1, math.nan, math.inf, "fast"])
def test_bandwidth_overrides_out_of_range(parameter: str, value: object) -> None:
    refused(parameter, "out_of_range", **{parameter: value})


def test_bandwidth_override_upper_bound_is_inclusive() -> None:
    assert simulate_collective(CollectiveQuery("sendrecv", scale_up_GBps=100_000.0), 1024).time_s > 0
    slowest = simulate_collective(
        CollectiveQuery("all_reduce", nodes=2, scale_up_GBps=0.001, scale_out_GBps=0.001), 2**40
    )
    assert math.isfinite(slowest.time_s)
    for tiny in (5e-324, 0.000999):
        with pytest.raises(SimulationError, match=r"from 0\.001 to 100000"):
            simulate_collective(CollectiveQuery("sendrecv", scale_up_GBps=tiny), 1024)


@pytest.mark.parametrize("value", [-0.1, 1e6 + 1, math.nan])
def test_alpha_out_of_range(value: float) -> None:
    refused("alpha_us", "out_of_range", alpha_us=value)


def test_nvls_needs_nvlink_sharp() -> None:
    error = refused("algorithm", "unsupported", system="dgx-a100", algorithm="nvls")
    assert "nvls" not in error.allowed


def test_nvls_needs_a_single_nvlink_domain() -> None:
    refused("algorithm", "unsupported", nodes=2, algorithm="nvls")


def test_hierarchical_needs_two_nodes() -> None:
    refused("algorithm", "unsupported", algorithm="hierarchical")


@pytest.mark.parametrize(
    ("op", "algorithm"),
    [
        ("all_gather", "tree"),
        ("reduce_scatter", "nvls"),
        ("broadcast", "direct"),
        ("all_to_all", "ring"),
        ("sendrecv", "tree"),
        ("all_reduce", "direct"),
    ],
)
def test_algorithm_that_does_not_apply_to_the_op(op: str, algorithm: str) -> None:
    error = refused("algorithm", "unsupported", op=op, algorithm=algorithm)
    assert op in error.message


def test_sweep_bounds_are_validated() -> None:
    for kwargs, parameter in [
        ({"min_bytes": 0}, "min_bytes"),
        ({"max_bytes": 2**41}, "max_bytes"),
        ({"min_bytes": 1024, "max_bytes": 512}, "min_bytes"),
    ]:
        with pytest.raises(SimulationError) as caught:
            sweep(CollectiveQuery("all_reduce"), **kwargs)
        assert caught.value.parameter == parameter


def test_unhashable_arguments_are_refused_by_name() -> None:
    refused("op", "unknown_value", op=["all_reduce"])


def test_transfer_time_is_validated_and_computed() -> None:
    assert transfer_time_s(2**30, 50.0, latency_us=2.0) == pytest.approx(2e-6 + 2**30 / 50e9, rel=1e-15)
    with pytest.raises(SimulationError) as caught:
        transfer_time_s(2**30, 0.0)
    assert caught.value.parameter == "bandwidth_GBps"


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"parameters": 0}, "parameters"),
        ({"parameters": 2**40}, "parameters"),
        ({"bytes_per_gradient": 3}, "bytes_per_gradient"),
        ({"compute_time_s": 0.0}, "compute_time_s"),
        ({"compute_time_s": math.inf}, "compute_time_s"),
        ({"nodes": 0}, "nodes"),
    ],
)
def test_training_step_validation(kwargs: dict[str, object], parameter: str) -> None:
    query: dict[str, object] = {"parameters": 10**9, "system": "dgx-h100", "nodes": 4, "compute_time_s": 0.5}
    query.update(kwargs)
    with pytest.raises(SimulationError) as caught:
        training_step(**query)  # type: ignore[arg-type]
    assert caught.value.parameter == parameter


def test_a_cached_plan_never_answers_an_equal_query_of_another_type() -> None:
    # CollectiveQuery(nodes=1) == CollectiveQuery(nodes=True) == CollectiveQuery(nodes=1.0) as dataclasses; the
    # cache keys on the fields' types too, so the second and third are still refused after the first is cached.
    assert simulate_collective(CollectiveQuery("all_reduce", nodes=1), 1024).ranks == 8
    for odd in (True, 1.0):
        with pytest.raises(SimulationError) as caught:
            simulate_collective(CollectiveQuery("all_reduce", nodes=odd), 1024)  # type: ignore[arg-type]
        assert caught.value.parameter == "nodes"
