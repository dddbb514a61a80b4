from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from app.content.figures import UnknownFigureError

COURSE_YAML = """\
title: {en: Course, ko: 강좌}
description: {en: About links, ko: 링크에 대하여}
chapters:
  - slug: alpha
    title: {en: Alpha, ko: 알파}
  - slug: beta
    title: {en: Beta, ko: 베타}
  - slug: gamma
    planned: true
    title: {en: Gamma, ko: 감마}
"""

PAGE = """\
---
title: "{title}"
summary: A summary.
updated: 2026-11-30
sources:
  - id: src-a
    title: Source A
    url: https://example.com/a
faq:
  - question: Why?
    answer: Because.
  - question: How fast?
    answer: 450 GB/s per direction.
  - question: Both directions?
    answer: 900 GB/s.
  - question: Per link?
    answer: 25 GB/s per direction.
  - question: In bits?
    answer: 3,600 Gb/s per direction.
---

{{#overview}}
## Overview

NVLink 4 carries {{{{link:nvlink4:per_direction_GBps}}}} GB/s per direction[^src-a].

{{#details}}
### Details

::: note Careful
Units matter.
:::

::: diagram link-compare
:::

{{#deep-dive}}
## Deep dive

How it works.

{{#technical-insight}}
## Technical insight

Why it matters.

{{#real-world}}
## Real-world implementations

Where it runs.

{{#strategic-impact}}
## Strategic impact

What it costs.

{{#future}}
## The future

Where it goes.

{{#risks}}
## Risks and guardrails

What can go wrong.

{{#roadmap}}
## Implementation roadmap

How to roll it out.
"""


def fake_figure(kind: str, preset_id: str, field: str) -> float:
    if (kind, preset_id, field) == ("link", "nvlink4", "per_direction_GBps"):
        return 450.0
    if (kind, preset_id, field) == ("system", "dgx-h100", "gpus_per_node"):
        return 8
    raise UnknownFigureError(f"unknown {kind} '{preset_id}' field '{field}'")


ContentWriter = Callable[..., Path]


@pytest.fixture
def content_dir(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    (root / "guides").mkdir(parents=True)
    (root / "course.yaml").write_text(COURSE_YAML, "utf-8")
    for slug in ("alpha", "beta"):
        (root / "guides" / slug).mkdir()
        for language in ("en", "ko"):
            (root / "guides" / slug / f"{language}.md").write_text(PAGE.format(title=f"{slug} {language}"), "utf-8")
    return root
