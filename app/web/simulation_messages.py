"""Simulator errors in the learner's language (the simulator itself speaks only English and codes)."""

from __future__ import annotations

import gettext

from app.i18n import _
from app.simulator import SimulationError

_TEMPLATES: dict[str, str] = {
    "out_of_range": _("%(parameter)s is out of range: allowed %(allowed)s."),
    "unknown_value": _("%(parameter)s has an unknown value: use one of %(allowed)s."),
    "invalid_type": _("%(parameter)s must be a whole number (allowed %(allowed)s)."),
    "unsupported": _("%(parameter)s is not possible with these settings: allowed %(allowed)s."),
}


def simulation_error_message(error: SimulationError, translations: gettext.GNUTranslations, language: str) -> str:
    """The simulator's own sentence in English (it names the specific reason); a translated one otherwise."""
    if language == "en":
        return error.message
    template = translations.gettext(_TEMPLATES[error.code])
    return template % {"parameter": error.parameter, "allowed": error.allowed}
