"""The one error the simulator raises for bad input."""

from typing import Literal

ErrorCode = Literal["out_of_range", "unknown_value", "unsupported", "invalid_type"]


class SimulationError(ValueError):
    """A parameter is outside what the simulator accepts.

    ``parameter`` is the API parameter name (e.g. ``"gpus_per_node"``), ``message`` an English sentence that
    names the parameter and what is allowed, ``code`` a machine-usable reason and ``allowed`` the
    allowed range
    or values as text, so that the web layer can translate the message or map it to an HTTP status.
    """

    def __init__(self, parameter: str, message: str, *, code: ErrorCode, allowed: str) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.message = message
        self.code: ErrorCode = code
        self.allowed = allowed
