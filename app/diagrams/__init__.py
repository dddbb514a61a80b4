"""Server-rendered, accessible SVG diagrams of the simulator's model.

Each diagram is a module with ``ID``, ``DEFAULTS`` (its form fields and their default values, as text), ``LABELS``
(what the form calls each field, the words an error message uses), ``LIMITS`` (what the form's min/max and
hints show, from the constants ``build`` checks against) and ``build(form) -> view``: a pure function from
the learner's form to the geometry and numbers the template draws. ``build`` raises ``fields.FieldError`` for a bad
field. A module whose view settles some fields differently from the form (a new machine starts from its example
GPU pair) says so in ``state(form, view)``, the state an address should carry. Rendering, caching and languages
live in ``render``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType

from app.diagrams import busbw_sweep, link_compare, ring_allreduce, scaling, topology
from app.diagrams.fields import Form


@dataclass(frozen=True, slots=True)
class Diagram:
    id: str
    defaults: Mapping[str, str]
    build: Callable[[Form], object]
    labels: Mapping[str, str]
    limits: Mapping[str, object]  # the same limits the form's min/max and hints show
    state: Callable[[Form, object], dict[str, str]]

    @property
    def template(self) -> str:
        return f"diagrams/_{self.id.replace('-', '_')}.html"

    @property
    def root_id(self) -> str:
        """The fragment's root element id, its hx-target."""
        return f"diagram-{self.id}"


def _as_typed(form: Form, view: object) -> dict[str, str]:
    return dict(form)


def _diagram(module: ModuleType) -> Diagram:
    return Diagram(
        module.ID,
        module.DEFAULTS,
        module.build,
        module.LABELS,
        getattr(module, "LIMITS", {}),
        getattr(module, "state", _as_typed),
    )


DIAGRAMS: dict[str, Diagram] = {
    module.ID: _diagram(module) for module in (link_compare, topology, ring_allreduce, busbw_sweep, scaling)
}
