"""Server-rendered, accessible SVG diagrams of the simulator's model.

Each diagram is a module with ``ID``, ``DEFAULTS`` (its form fields and their default values, as text) and
``build(form) -> view``: a pure function from the learner's form to the geometry and numbers the template draws.
``build`` raises ``fields.FieldError`` for a bad field. Rendering, caching and languages live in ``render``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from app.web.diagrams import busbw_sweep, link_compare, ring_allreduce, scaling, topology
from app.web.diagrams.fields import Form


@dataclass(frozen=True, slots=True)
class Diagram:
    id: str
    defaults: Mapping[str, str]
    build: Callable[[Form], object]

    @property
    def template(self) -> str:
        return f"diagrams/_{self.id.replace('-', '_')}.html"

    @property
    def root_id(self) -> str:
        """The fragment's root element id, its hx-target."""
        return f"diagram-{self.id}"


DIAGRAMS: dict[str, Diagram] = {
    module.ID: Diagram(module.ID, module.DEFAULTS, module.build)
    for module in (link_compare, topology, ring_allreduce, busbw_sweep, scaling)
}
