"""Requests per second of a diagram fragment against an endpoint of the same app returning the same bytes.

The fragment is asked for as HTMX does (HX-Request) in a non-default state, i.e. what every control change on
the lab page costs. Both run on one real uvicorn with every middleware; they alternate round by round. Run:
    .venv/bin/python benchmarks/diagrams.py
Target (issue 3): diagram fragment >= 0.8 of the constant-bytes endpoint.
"""

from __future__ import annotations

import logging
import sys
import tempfile
from pathlib import Path

import httpx
from fastapi.responses import HTMLResponse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config import Environment, Settings
from app.main import create_app
from benchmarks._server import compare_in_turns, print_figures, serve

FRAGMENTS = {
    "topology": "/en/lab/topology?topology=rail-fat-tree&gpu_a=3&gpu_b=12&drawn=rail-fat-tree",
    "busbw-sweep": "/en/lab/busbw-sweep?op=all_reduce&mode=calibrated&min_bytes=1024&max_bytes=1073741824"
                   "&metric=busbw&system1=dgx-b200&algorithm1=auto&nodes1=2&system2=none&algorithm2=auto&nodes2=1"
                   "&system3=none&algorithm3=auto&nodes3=1",
}
HTMX = {"HX-Request": "true"}


def main() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one log line per request would be measured too
    with tempfile.TemporaryDirectory() as var_dir:
        app = create_app(Settings(env=Environment.TEST, var_dir=Path(var_dir), secret_key="b" * 40))
        with serve(app) as base_url, httpx.Client(base_url=base_url) as client:
            for name, path in FRAGMENTS.items():
                fragment = client.get(path, headers=HTMX)
                fragment.raise_for_status()
                constant = fragment.content
                route = f"/__benchmark/constant/{name}"

                async def constant_bytes(body: bytes = constant) -> HTMLResponse:
                    return HTMLResponse(body)

                app.add_api_route(route, constant_bytes, methods=["GET"])
                figures = compare_in_turns(client, {
                    f"{name} fragment": lambda c, path=path: c.get(path, headers=HTMX),  # type: ignore[misc]
                    "constant bytes (same size)": lambda c, route=route: c.get(route),  # type: ignore[misc]
                })
                print(f"\n{path}\nfragment size: {len(constant):,} bytes; {len(figures[0].rounds)} rounds; "
                      "keep-alive, one connection")
                print_figures(figures, baseline="constant bytes (same size)")


if __name__ == "__main__":
    main()
