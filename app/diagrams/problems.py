"""What a learner typed wrong, in their words: a diagram's form problem as a sentence in the learner's language.

The sentence names the field by the label the form shows ("Buffer to move", "GPU B (receiver)"), never by its
form name, and says what to type instead. The simulator's own errors (an algorithm the system lacks, too many
nodes) are matched by code and reason, and get the same treatment; one the table does not know falls back to a
sentence that still names the field.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping

from app.diagrams.fields import Form, Problem
from app.i18n import _
from app.simulator import SYSTEMS

RULES: dict[str, str] = {
    "choice": _("%(field)s: choose one of the options in the list."),
    "whole": _("%(field)s must be a whole number from %(low)s to %(high)s."),
    "number": _("%(field)s must be a number, such as 2.5 or 2,5."),
    "above_zero": _("%(field)s must be a number above 0 and at most %(high)s."),
    "bytes": _("%(field)s must be between 1 byte and %(high)s."),
    "order": _("%(field)s must not be larger than %(other)s."),
}
# The simulator's reasons, found by a phrase of its English message (app/simulator/collectives/validation.py).
MODEL_REASONS: tuple[tuple[str, str], ...] = (
    ("does not apply to", _("%(field)s: %(value)s does not apply to %(op)s; choose one of %(allowed)s.")),
    (
        "needs NVLink SHARP",
        _("%(field)s: NVLS needs NVLink SHARP (the reduction inside NVSwitch), which %(system)s does not have."),
    ),
    ("inside one NVLink domain", _("%(field)s: NVLS reduces inside one NVLink domain, so Nodes must be 1.")),
    ("combines nodes", _("%(field)s: hierarchical combines nodes, so Nodes must be at least 2.")),
)
NODES_ON_SYSTEM = _("%(field)s must be a whole number from %(low)s to %(high)s on %(system)s.")
NOT_POSSIBLE = _("%(field)s is not possible with these settings.")
SERIES = _("Series %(number)d: %(message)s")


def problem_message(
    problem: Problem, labels: Mapping[str, str], form: Form, translations: gettext.NullTranslations
) -> str:
    series = problem.series
    base = problem.field.rstrip("123") if series is not None else problem.field
    field = translations.gettext(labels.get(base, labels.get(problem.field, problem.field)))
    values = {"field": field, **problem.values}
    template = RULES.get(problem.kind)
    if problem.kind == "order":
        values["other"] = translations.gettext(labels[problem.values["other"]])
    elif problem.kind == "model":
        template, model_values = _model_reason(problem, form)
        values |= model_values
    message = translations.gettext(template or NOT_POSSIBLE) % values
    if series is not None:
        message = translations.gettext(SERIES) % {"number": series, "message": message}
    return message


def _model_reason(problem: Problem, form: Form) -> tuple[str, dict[str, str]]:
    error = problem.error
    suffix = str(problem.series) if problem.series is not None else ""
    system_id = form.get(f"system{suffix}", "")
    values = {
        "value": form.get(problem.field, ""),
        "op": form.get("op", ""),
        "allowed": error.allowed,
        "system": SYSTEMS[system_id].name if system_id in SYSTEMS else system_id,
    }
    if error.code == "out_of_range" and ".." in error.allowed:
        low, high = error.allowed.split("..")
        return NODES_ON_SYSTEM, values | {"low": low, "high": high}
    for phrase, template in MODEL_REASONS:
        if phrase in error.message:
            return template, values
    return NOT_POSSIBLE, values
