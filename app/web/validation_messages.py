"""Request validation errors as sentences in the learner's language, one per invalid field."""

from __future__ import annotations

import gettext
from collections.abc import Mapping, Sequence
from typing import Any

from app.i18n import _

_BY_TYPE: dict[str, str] = {
    "missing": _("%(parameter)s is required."),
    "int_parsing": _("%(parameter)s must be a whole number."),
    "int_type": _("%(parameter)s must be a whole number."),
    "int_from_float": _("%(parameter)s must be a whole number."),
    "float_parsing": _("%(parameter)s must be a number."),
    "float_type": _("%(parameter)s must be a number."),
    "finite_number": _("%(parameter)s must be a finite number."),
    "greater_than_equal": _("%(parameter)s must be at least %(limit)s."),
    "greater_than": _("%(parameter)s must be greater than %(limit)s."),
    "less_than_equal": _("%(parameter)s must be at most %(limit)s."),
    "less_than": _("%(parameter)s must be less than %(limit)s."),
    "literal_error": _("%(parameter)s must be one of: %(limit)s."),
    "enum": _("%(parameter)s must be one of: %(limit)s."),
    "string_type": _("%(parameter)s must be text."),
    "string_too_long": _("%(parameter)s is too long (at most %(limit)s characters)."),
    "string_too_short": _("%(parameter)s is too short (at least %(limit)s characters)."),
    "list_type": _("%(parameter)s must be a list."),
    "too_short": _("%(parameter)s needs at least %(limit)s items."),
    "too_long": _("%(parameter)s allows at most %(limit)s items."),
    "bool_parsing": _("%(parameter)s must be true or false."),
    "json_invalid": _("The request body is not valid JSON."),
    "model_attributes_type": _("The request body must be a JSON object."),
    "dict_type": _("The request body must be a JSON object."),
    "extra_forbidden": _("%(parameter)s is not an accepted field."),
}
_GENERIC = _("%(parameter)s is not valid.")
_LIMIT_KEYS = ("ge", "gt", "le", "lt", "expected", "max_length", "min_length")
_TRANSPORT_LOCATIONS = frozenset({"query", "body", "path", "header", "cookie"})


def validation_message(errors: Sequence[Mapping[str, Any]], translations: gettext.GNUTranslations) -> str:
    sentences: list[str] = []
    for error in errors:
        location = [str(part) for part in error.get("loc", ()) if part not in _TRANSPORT_LOCATIONS]
        parameter = ".".join(location) or translations.gettext("The request")
        context = error.get("ctx") or {}
        limit = next((context[key] for key in _LIMIT_KEYS if key in context), "")
        template = translations.gettext(_BY_TYPE.get(str(error.get("type")), _GENERIC))
        sentence = template % {"parameter": parameter, "limit": limit}
        if sentence not in sentences:
            sentences.append(sentence)
    return " ".join(sentences) or translations.gettext(_GENERIC) % {"parameter": translations.gettext("The request")}
