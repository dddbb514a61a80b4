"""The simulator's data files (``app/simulator/data/*.json``), read once and checked against the dataclasses they
fill.

Each file is ``{"about": "...", "items": [...]}``: ``about`` says what the figures mean (units, direction, scope)
for a person editing it, and each item is one record whose keys are exactly the fields of its dataclass. A
record is checked field by field against the dataclass's annotations (str, int, float, bool, a Literal, a
``Source``, None where the type allows it, tuples of those), so a typo in the data fails at import with the file,
the record and the field named, not later as a wrong figure.
"""

import json
import types
from dataclasses import MISSING, fields, is_dataclass
from importlib import resources
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from app.simulator.source import Source

T = TypeVar("T")


class CatalogueError(ValueError):
    """A data file does not match the dataclass it fills."""


def load_items(filename: str) -> list[dict[str, Any]]:
    """The ``items`` of ``app/simulator/data/<filename>``."""
    text = resources.files("app.simulator").joinpath("data", filename).read_text(encoding="utf-8")
    document = json.loads(text)
    if not isinstance(document, dict) or not isinstance(document.get("items"), list):
        raise CatalogueError(f"{filename}: expected an object with an 'items' list")
    items: list[dict[str, Any]] = document["items"]
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise CatalogueError(f"{filename}: item {index} is not an object")
    return items


def build(cls: type[T], record: dict[str, Any], where: str) -> T:
    """``cls(**record)`` after checking that the keys are exactly the fields read from a file (``init=False``
    fields are derived, not read) and each value has its field's type; an error the dataclass raises while
    deriving names ``where``."""
    assert is_dataclass(cls)
    hints = get_type_hints(cls)
    read = [field for field in fields(cls) if field.init]
    names = [field.name for field in read]
    missing = [name for name in names if name not in record]
    unknown = [key for key in record if key not in names]
    required = [field.name for field in read if field.name in missing and _has_no_default(field)]
    if required or unknown:
        raise CatalogueError(f"{where}: missing {required or '-'}, unknown {unknown or '-'}")
    values = {name: _value(hints[name], record[name], f"{where}.{name}") for name in names if name in record}
    try:
        return cls(**values)
    except CatalogueError as error:
        raise CatalogueError(f"{where}: {error}") from None


def api_item(record: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """A catalogue record as an ``/api/v1`` item (DESIGN §4): the fields ``names``, then ``source`` as its URL."""
    item = {name: getattr(record, name) for name in names}
    item["source"] = record.source.url
    return item


def _has_no_default(field: Any) -> bool:
    return bool(field.default is MISSING and field.default_factory is MISSING)


def _value(annotation: Any, value: Any, where: str) -> Any:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        options = get_args(annotation)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _value(option, value, where)
            except CatalogueError as error:
                errors.append(str(error))
        raise CatalogueError("; ".join(errors))
    if origin is Literal:
        if value not in get_args(annotation):
            raise CatalogueError(f"{where}: {value!r} is not one of {get_args(annotation)}")
        return value
    if origin is tuple:
        item_types = get_args(annotation)
        if not isinstance(value, list):
            raise CatalogueError(f"{where}: expected a list")
        if len(item_types) == 2 and item_types[1] is Ellipsis:
            return tuple(_value(item_types[0], item, f"{where}[{i}]") for i, item in enumerate(value))
        if len(value) != len(item_types):
            raise CatalogueError(f"{where}: expected {len(item_types)} items")
        return tuple(
            _value(t, item, f"{where}[{i}]") for i, (t, item) in enumerate(zip(item_types, value, strict=True))
        )
    if annotation is Source:
        if not isinstance(value, dict):
            raise CatalogueError(f"{where}: expected {{title, url}}")
        return build(Source, value, where)
    if annotation is float:
        # JSON writes 50.0 as 50; both are a float here. A bool is not a number.
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise CatalogueError(f"{where}: expected a number, got {value!r}")
    if annotation in (str, int, bool):
        if type(value) is annotation:
            return value
        raise CatalogueError(f"{where}: expected {annotation.__name__}, got {value!r}")
    raise CatalogueError(f"{where}: unsupported field type {annotation!r}")
