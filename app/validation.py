"""Shared shapes of validated data: the strict YAML base model and the kebab-case identifier pattern."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

# Slugs, heading ids and question ids: lowercase words joined by single hyphens (they appear in URLs).
KEBAB_ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class StrictModel(BaseModel):
    """A YAML mapping with no unknown keys (a typo is an error, not a silently ignored field), immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)
