"""The templates' one-call gettext renders exactly what Jinja's newstyle gettext renders."""

from __future__ import annotations

import pytest
from jinja2 import Environment

from app.web.i18n import load_translations
from app.web.templating.environment import install_direct_gettext

TEMPLATES = [
    '{{ _("Sources") }}',
    '{{ _("100%% of the bandwidth") }}',
    '{{ _("Question %(num)d", num=3) }}',
    '{{ _("Hello %(name)s", name="<script>x</script>") }}',
    '{{ gettext("Sources") }}',
    '{{ ngettext("%(num)d minute", "%(num)d minutes", 1) }} / {{ ngettext("%(num)d minute", "%(num)d minutes", 5) }}',
    '{{ ngettext("%(num)d hour for %(who)s", "%(num)d hours for %(who)s", 2, who="<b>") }}',
]


def _environment(language: str, autoescape: bool, direct: bool) -> Environment:
    environment = Environment(autoescape=autoescape, extensions=["jinja2.ext.i18n"])
    catalog = load_translations()[language]
    environment.install_gettext_translations(catalog, newstyle=True)  # type: ignore[attr-defined]
    if direct:
        install_direct_gettext(environment, catalog)
    return environment


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("autoescape", [True, False])
@pytest.mark.parametrize("source", TEMPLATES)
def test_same_output_as_jinjas_newstyle_gettext(language: str, autoescape: bool, source: str) -> None:
    stock = _environment(language, autoescape, direct=False).from_string(source).render()
    direct = _environment(language, autoescape, direct=True).from_string(source).render()
    assert direct == stock


def test_it_is_installed_and_translates() -> None:
    environment = _environment("ko", autoescape=True, direct=True)
    assert environment.from_string('{{ _("Sources") }}').render() == "출처"
    assert environment.globals["_"] is environment.globals["gettext"]
    escaped = environment.from_string('{{ _("Hello %(name)s", name="<i>") }}').render()
    assert "&lt;i&gt;" in escaped
