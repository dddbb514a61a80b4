"""Requests per second of a chapter page against an endpoint of the same app returning the same bytes from memory.

Both run on one real uvicorn with every middleware; they alternate round by round. Run:
    .venv/bin/python benchmarks/pages.py
Target (issue: foundation): chapter page >= 0.9 of the constant-bytes endpoint.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import httpx
from fastapi.responses import HTMLResponse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config import Environment, Settings
from app.main import create_app
from benchmarks._server import compare_in_turns, print_figures, serve

CHAPTER = "/en/guides/nvlink"


def main() -> None:
    with tempfile.TemporaryDirectory() as var_dir:
        app = create_app(Settings(env=Environment.TEST, var_dir=Path(var_dir), secret_key="b" * 40))
        with serve(app) as base_url, httpx.Client(base_url=base_url) as client:
            page = client.get(CHAPTER)
            page.raise_for_status()
            constant = page.content

            @app.get("/__benchmark/constant")
            async def constant_bytes() -> HTMLResponse:
                return HTMLResponse(constant)

            figures = compare_in_turns(client, {
                f"chapter page {CHAPTER}": lambda c: c.get(CHAPTER),
                "constant bytes (same size)": lambda c: c.get("/__benchmark/constant"),
            })
        print(f"page size: {len(constant):,} bytes; {len(figures[0].rounds)} rounds; keep-alive, one connection")
        print_figures(figures, baseline="constant bytes (same size)")


if __name__ == "__main__":
    main()
