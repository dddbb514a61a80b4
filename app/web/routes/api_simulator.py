"""JSON API of the simulator (DESIGN §4): presets, one collective, and nccl-tests-style sweeps."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.formatting import GiB
from app.simulator import (
    ALGORITHMS,
    LINKS,
    MAX_MESSAGE_BYTES,
    MIN_MESSAGE_BYTES,
    MODES,
    OPS,
    SYSTEMS,
    SimulationError,
    link_to_dict,
    simulate_collective,
    sweep,
    system_to_dict,
)
from app.simulator import CollectiveQuery as SimulatorQuery
from app.simulator.collectives import MAX_ALPHA_US, MAX_BANDWIDTH_OVERRIDE_GBPS, MIN_BANDWIDTH_OVERRIDE_GBPS
from app.web.cache_policy import SHARED_DATA, headers
from app.web.i18n import request_language
from app.web.simulation_messages import simulation_error_message
from app.web.state import app_state

router = APIRouter(prefix="/api/v1", tags=["simulator"])


class ErrorOut(BaseModel):
    detail: str = Field(description="What is wrong, in words a person understands.")


class LinkOut(BaseModel):
    id: str
    name: str
    kind: Literal["host", "scale-up", "scale-out"]
    per_direction_GBps: float = Field(
        description="One direction, 10^9 bytes/s (per GPU for NVLink, per x16 slot "
        "for PCIe, per port/NIC for InfiniBand and RoCE)."
    )
    bidirectional_GBps: float = Field(description="Both directions added, as vendors usually quote it.")
    year: int
    source: str = Field(description="URL of the primary source.")


class SystemOut(BaseModel):
    id: str
    name: str
    gpus_per_node: int
    scale_up: str = Field(description="Link id of the scale-up fabric.")
    scale_up_GBps: float = Field(description="Per GPU, per direction, 10^9 bytes/s.")
    nvls: bool = Field(description="Whether the NVSwitch fabric can reduce in the switch (NVLink SHARP).")
    scale_out: str = Field(description="Link id of the scale-out network.")
    scale_out_GBps: float = Field(
        description="Per GPU, per direction, 10^9 bytes/s: the node's NICs shared by its GPUs (one rail per GPU on "
        "DGX systems)."
    )
    max_nodes: int
    source: str


class PhaseOut(BaseModel):
    name: str
    link: str
    time_s: float


class CollectiveOut(BaseModel):
    op: str
    algorithm: str
    mode: str
    ranks: int
    message_bytes: int
    time_s: float
    algbw_GBps: float = Field(description="message_bytes / time_s, in 10^9 bytes/s, as nccl-tests prints it.")
    busbw_GBps: float = Field(description="algbw times the nccl-tests factor of the operation.")
    bottleneck: str = Field(description="The link id that limits the time, 'latency', or 'none' for one rank.")
    phases: list[PhaseOut]
    assumptions: list[str]
    error_percent: float = Field(
        description="Calibrated mode: the expected error for this size regime, in percent either way, from the "
        "model's residuals against published nccl-tests sweeps (larger where no sweep covers the query). "
        "0 in ideal mode."
    )


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorOut, "description": "A parameter is unknown or out of range; the detail names it."},
}

_MAX_NODES = max(system.max_nodes for system in SYSTEMS.values())
_MAX_GPUS_PER_NODE = max(system.gpus_per_node for system in SYSTEMS.values())

_BANDWIDTH_RANGE: dict[str, Any] = {
    "ge": MIN_BANDWIDTH_OVERRIDE_GBPS,
    "le": MAX_BANDWIDTH_OVERRIDE_GBPS,
    "allow_inf_nan": False,
}


class SystemQuery(BaseModel):
    """What every simulation takes. Ranges and choices are in the schema so that clients (and Schemathesis) know
    them; limits that depend on the chosen system (its nodes, its GPUs per node) are checked by the simulator,
    which names them in the 422."""

    op: str = Field(description="The collective.", json_schema_extra={"enum": list(OPS)})
    system: str = Field(
        "dgx-h100", description="A system id from /api/v1/systems.", json_schema_extra={"enum": list(SYSTEMS)}
    )
    nodes: int = Field(1, ge=1, le=_MAX_NODES, description="Nodes (servers or racks); 1 to the system's max_nodes.")
    gpus_per_node: int | None = Field(
        None, ge=1, le=_MAX_GPUS_PER_NODE, description="GPUs used per node; default all of the system's."
    )
    algorithm: str = Field(
        "auto",
        description="auto = the fastest the model knows for the system.",
        json_schema_extra={"enum": list(ALGORITHMS)},
    )
    mode: str = Field(
        "calibrated",
        description="calibrated (realistic) or ideal (alpha-beta at line rate).",
        json_schema_extra={"enum": list(MODES)},
    )
    scale_up_GBps: float | None = Field(
        None, description="Override: per-GPU per-direction scale-up GB/s.", **_BANDWIDTH_RANGE
    )
    scale_out_GBps: float | None = Field(
        None, description="Override: per-GPU per-direction scale-out GB/s.", **_BANDWIDTH_RANGE
    )
    alpha_us: float | None = Field(
        None, ge=0, le=MAX_ALPHA_US, allow_inf_nan=False, description="Override: per-step latency in microseconds."
    )

    def simulation(self) -> SimulatorQuery:
        """The simulator's query value: every field of this model but the sizes."""
        return SimulatorQuery(**self.model_dump(exclude=self._sizes))

    _sizes: ClassVar[set[str]] = set()


class CollectiveQuery(SystemQuery):
    message_bytes: int = Field(
        ge=MIN_MESSAGE_BYTES, le=MAX_MESSAGE_BYTES, description="The nccl-tests 'size' in bytes, 1 to 2^40."
    )

    _sizes: ClassVar[set[str]] = {"message_bytes"}


class SweepQuery(SystemQuery):
    min_bytes: int = Field(8, ge=MIN_MESSAGE_BYTES, le=MAX_MESSAGE_BYTES, description="First size in bytes.")
    max_bytes: int = Field(8 * GiB, ge=MIN_MESSAGE_BYTES, le=MAX_MESSAGE_BYTES, description="Last size in bytes.")

    _sizes: ClassVar[set[str]] = {"min_bytes", "max_bytes"}


def _error(request: Request, error: SimulationError) -> JSONResponse:
    state = app_state(request)
    language = request_language(request)
    message = simulation_error_message(error, state.translations[language], language)
    return JSONResponse({"detail": message}, status_code=422)


def _cached(content: Any) -> JSONResponse:
    return JSONResponse(content, headers=headers(SHARED_DATA))


@router.get("/links", response_model=list[LinkOut], summary="Link presets")
async def links() -> JSONResponse:
    return _cached([link_to_dict(link) for link in LINKS.values()])


@router.get("/systems", response_model=list[SystemOut], summary="System presets")
async def systems() -> JSONResponse:
    return _cached([system_to_dict(system) for system in SYSTEMS.values()])


@router.get(
    "/simulate/collective",
    response_model=CollectiveOut,
    responses=ERROR_RESPONSES,
    summary="One collective",
)
async def simulate(request: Request, query: Annotated[CollectiveQuery, Query()]) -> JSONResponse:
    try:
        result = simulate_collective(query.simulation(), query.message_bytes)
    except SimulationError as error:
        return _error(request, error)
    return _cached(result.to_dict())


@router.get(
    "/simulate/sweep",
    response_model=list[CollectiveOut],
    responses=ERROR_RESPONSES,
    summary="A sweep over powers of two, like all_reduce_perf -b MIN -e MAX -f 2",
)
async def simulate_sweep(request: Request, query: Annotated[SweepQuery, Query()]) -> JSONResponse:
    try:
        results = sweep(query.simulation(), query.min_bytes, query.max_bytes)
    except SimulationError as error:
        return _error(request, error)
    return _cached([result.to_dict() for result in results])
