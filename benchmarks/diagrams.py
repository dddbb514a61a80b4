"""Requests per second of a diagram fragment against an endpoint of the same app returning the same bytes.

The fragment is asked for as HTMX does (HX-Request) in a non-default state, i.e. what every control change on
the lab page costs. Both are served by one uvicorn process with every middleware; they alternate round by round. Run:
    .venv/bin/python benchmarks/diagrams.py
Target (issue 3): diagram fragment >= 0.8 of the constant-bytes endpoint.
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._server import compare_in_turns, print_figures, serve, set_constant

FRAGMENTS = {
    "topology": "/en/lab/topology?topology=rail-fat-tree&gpu_a=3&gpu_b=12&drawn=rail-fat-tree",
    "busbw-sweep": "/en/lab/busbw-sweep?op=all_reduce&mode=calibrated&min_bytes=1024&max_bytes=1073741824"
    "&metric=busbw&system1=dgx-b200&algorithm1=auto&nodes1=2&system2=none&algorithm2=auto&nodes2=1"
    "&system3=none&algorithm3=auto&nodes3=1",
}
HTMX = {"HX-Request": "true"}


def main() -> None:
    with serve() as base_url, httpx.Client(base_url=base_url) as client:
        for name, path in FRAGMENTS.items():
            fragment = client.get(path, headers=HTMX)
            fragment.raise_for_status()
            set_constant(client, fragment.content)
            figures = compare_in_turns(
                client,
                {
                    f"{name} fragment": lambda c, path=path: c.get(path, headers=HTMX),  # type: ignore[misc]
                    "constant bytes (same size)": lambda c: c.get("/__benchmark/constant"),
                },
            )
            print(
                f"\n{path}\nfragment size: {len(fragment.content):,} bytes; {len(figures[0].rounds)} rounds; "
                "keep-alive, one connection"
            )
            print_figures(figures, baseline="constant bytes (same size)")


if __name__ == "__main__":
    main()
