"""Keep the gettext catalogs in step with the code.

    .venv/bin/python scripts/translations.py update            # extract messages, add new ones to en and ko
    .venv/bin/python scripts/translations.py set ko FILE.json  # set Korean msgstr from {"msgid": "번역", ...}
    .venv/bin/python scripts/translations.py missing           # list messages without Korean; exit 1 if any

A lock file serialises concurrent runs, so two people (or tools) adding strings at once do not lose each other's.
"""

from __future__ import annotations

import fcntl
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "app" / "web" / "translations"
LANGUAGES = ("en", "ko")
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None}
METHOD_MAP = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
OPTIONS = {"templates/**.html": {"extensions": "jinja2.ext.i18n"}}


def po_path(language: str) -> Path:
    return TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"


@contextmanager
def locked() -> Iterator[None]:
    with (TRANSLATIONS / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def read(language: str) -> Catalog:
    with po_path(language).open("rb") as handle:
        return read_po(handle, locale=language)


def write(language: str, catalog: Catalog) -> None:
    catalog.fuzzy = False
    with po_path(language).open("wb") as handle:
        write_po(handle, catalog, width=110, no_location=True, sort_output=True)


def extract() -> Catalog:
    template = Catalog()
    for _filename, _line, message, _comments, context in extract_from_dir(
        str(ROOT), METHOD_MAP, OPTIONS, keywords=KEYWORDS
    ):
        template.add(message, None, context=context, flags=("python-format",) if "%(" in str(message) else ())
    return template


def update() -> None:
    template = extract()
    for language in LANGUAGES:
        catalog = read(language)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        write(language, catalog)
    print(f"{len(template)} messages")


def set_translations(language: str, mapping_path: Path) -> None:
    mapping: dict[str, str] = json.loads(mapping_path.read_text("utf-8"))
    catalog = read(language)
    unknown = []
    for msgid, translation in mapping.items():
        message = next((m for m in catalog if (m.id[0] if isinstance(m.id, tuple) else m.id) == msgid), None)
        if message is None or not msgid:
            unknown.append(msgid)
            continue
        message.string = tuple(translation for _ in message.id) if isinstance(message.id, tuple) else translation
    write(language, catalog)
    if unknown:
        print("not in the catalog (run `update` first):", *unknown, sep="\n  ", file=sys.stderr)
        raise SystemExit(1)


def missing() -> None:
    catalog = read("ko")
    absent = [m.id for m in catalog if m.id and not (m.string and all(m.string))]
    for msgid in absent:
        print(msgid)
    raise SystemExit(1 if absent else 0)


def main(arguments: list[str]) -> None:
    with locked():
        match arguments:
            case ["update"]:
                update()
            case ["set", language, path] if language in LANGUAGES:
                set_translations(language, Path(path))
            case ["missing"]:
                missing()
            case _:
                print(__doc__, file=sys.stderr)
                raise SystemExit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
