"""The Jinja2 environments, one per language, with gettext and the filters every template uses."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from babel.dates import format_date
from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_eval_context, select_autoescape
from jinja2.nodes import EvalContext
from markupsafe import Markup

from app.formatting import binary_size, exact_binary_size
from app.i18n import LANGUAGE_NAMES, LANGUAGES
from app.web.templating.seo import faq_entity, json_ld


def install_direct_gettext(environment: Environment, translations: gettext.GNUTranslations) -> None:
    """Jinja's newstyle `_`, `gettext` and `ngettext`, each one call instead of three.

    Jinja's `_` is an alias that calls `gettext` through the template context, which calls the catalogue through
    the context again; on a quiz answer's fragment those layers cost as much as the rest of its rendering.
    The behaviour is the newstyle one: the translation is a format string (so %% is a literal %), safe markup
    under autoescape with its variables escaped (our own catalogue is trusted, as Jinja trusts it), and ngettext
    passes `num`.
    """

    @pass_eval_context
    def direct_gettext(eval_context: EvalContext, message: str, /, **variables: Any) -> str:
        translated = translations.gettext(message)
        return (Markup(translated) if eval_context.autoescape else translated) % variables  # noqa: S704

    @pass_eval_context
    def direct_ngettext(eval_context: EvalContext, singular: str, plural: str, num: int, /, **variables: Any) -> str:
        variables.setdefault("num", num)
        translated = translations.ngettext(singular, plural, num)
        return (Markup(translated) if eval_context.autoescape else translated) % variables  # noqa: S704

    environment.globals.update(_=direct_gettext, gettext=direct_gettext, ngettext=direct_ngettext)


def _date_filter(language: str) -> Callable[[date], str]:
    def format_for_language(value: date) -> str:
        return format_date(value, format="long", locale=language)

    return format_for_language


def build_environments(
    directory: Path, translations: Mapping[str, gettext.GNUTranslations], globals_per_language: Mapping[str, Any]
) -> dict[str, Environment]:
    environments: dict[str, Environment] = {}
    for language in LANGUAGES:
        environment = Environment(
            loader=FileSystemLoader(directory),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            extensions=["jinja2.ext.i18n"],
            # Templates do not change while the app runs; without this every include stats its file.
            auto_reload=False,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        environment.install_gettext_translations(translations[language], newstyle=True)  # type: ignore[attr-defined]
        install_direct_gettext(environment, translations[language])
        environment.globals.update(LANGUAGES=LANGUAGES, LANGUAGE_NAMES=LANGUAGE_NAMES, json_ld=json_ld, lang=language)
        environment.globals.update(globals_per_language.get(language, {}))
        environment.filters["date"] = _date_filter(language)
        environment.filters["faq_entity"] = faq_entity
        environment.filters["binary_size"] = binary_size
        environment.filters["exact_binary_size"] = lambda size, language=language: exact_binary_size(size, language)
        environments[language] = environment
    return environments
