"""Requests per second of a chapter page against an endpoint of the same app returning the same bytes from memory.

Both are served by one uvicorn process with every middleware; they alternate round by round. Run:
    .venv/bin/python benchmarks/pages.py
Target (issue: foundation): chapter page >= 0.9 of the constant-bytes endpoint.
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._server import compare_in_turns, print_figures, serve, set_constant

CHAPTER = "/en/guides/nvlink"


def main() -> None:
    with serve() as base_url, httpx.Client(base_url=base_url) as client:
        page = client.get(CHAPTER)
        page.raise_for_status()
        set_constant(client, page.content)
        figures = compare_in_turns(
            client,
            {
                f"chapter page {CHAPTER}": lambda c: c.get(CHAPTER),
                "constant bytes (same size)": lambda c: c.get("/__benchmark/constant"),
            },
        )
    print(f"page size: {len(page.content):,} bytes; {len(figures[0].rounds)} rounds; keep-alive, one connection")
    print_figures(figures, baseline="constant bytes (same size)")


if __name__ == "__main__":
    main()
