"""The entry points: one collective at one size, and a sweep of sizes like nccl-tests' ``-b min -e max -f 2``.

Each validates the sizes, gets the (cached) plan of the query from ``planning`` and evaluates it per size with
``evaluation``; a sweep's results are cached per plan and size range.
"""

from functools import lru_cache

from app.simulator.collectives.evaluation import evaluate
from app.simulator.collectives.planning import Plan, get_plan
from app.simulator.collectives.query import CollectiveQuery
from app.simulator.collectives.results import CollectiveResult
from app.simulator.collectives.validation import check_message_bytes, check_size_range


def simulate_collective(query: CollectiveQuery, message_bytes: int) -> CollectiveResult:
    """Cost of one collective of ``message_bytes`` (the nccl-tests "size") for ``query`` (formulas: ``ideal``,
    ``calibrated``; terms of the result: ``results``).

    Raises ``SimulationError`` naming the first bad parameter.
    """
    check_message_bytes(message_bytes, "message_bytes")
    return evaluate(get_plan(query), message_bytes)


def sweep(query: CollectiveQuery, min_bytes: int = 8, max_bytes: int = 8 * 2**30) -> tuple[CollectiveResult, ...]:
    """``simulate_collective`` for every power of two from ``min_bytes`` to ``max_bytes`` inclusive.

    Like ``all_reduce_perf -b min -e max -f 2``: the sizes are min, 2*min, 4*min, ... up to max, so ``min_bytes``
    need not be a power of two. Both bounds must lie in [1, 2^40] and ``min_bytes <= max_bytes``.
    """
    check_message_bytes(min_bytes, "min_bytes")
    check_message_bytes(max_bytes, "max_bytes")
    check_size_range(min_bytes, max_bytes)
    return sweep_plan(get_plan(query), min_bytes, max_bytes)


@lru_cache(maxsize=256)
def sweep_plan(plan: Plan, min_bytes: int, max_bytes: int) -> tuple[CollectiveResult, ...]:
    # Results are immutable and depend only on the plan and the sizes, so a repeated sweep (the lab page
    # redraws the same curves) is served from here; building ~200 frozen results costs about a millisecond.
    results = []
    size = min_bytes
    while size <= max_bytes:
        results.append(evaluate(plan, size))
        size *= 2
    return tuple(results)
