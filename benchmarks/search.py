"""Search: the cost of building the index at start-up, of answering a query the first time, and its throughput
under load against the framework's ceiling.

    .venv/bin/python benchmarks/search.py [--rounds 5] [--seconds 4] [--builds 15]

1. Start-up: CourseSearch over the whole rendered course (both languages), the median and worst of `--builds`
   builds, in this process (the content is loaded once beforehand; its rendering is not search's cost).
2. First answer: the search itself for each query below, before any cache has seen it (median of 200).
3. Throughput: wrk with 16 connections against `interconnects serve` and against a bare FastAPI app returning
   the same bytes and headers (benchmarks/_bare.py), in alternating rounds, the median of the rounds; a one-word
   and a three-word query in each language, gzip accepted as a browser does.
Targets (issue 26): the build adds <= 200 ms; each query >= 0.5 of the bare app.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.content import load_course
from app.search import CourseSearch
from benchmarks._server import PROJECT_ROOT, serve_process
from benchmarks.load import _SKIP_HEADERS, _slug, alternating, serve_bare

QUERIES = {
    "en one word": ("en", "busbw"),
    "en three words": ("en", "fat tree switches"),
    "ko one word": ("ko", "대역폭"),
    "ko three words": ("ko", "팻 트리 스위치"),
}
TITLES = {"en": "Glossary", "ko": "용어집"}


def record_raw(client: httpx.Client, folder: Path, name: str, path: str, headers: dict[str, str]) -> int:
    """The response exactly as sent (gzip left compressed), for the bare app to return; its size."""
    with client.stream("GET", path, headers=headers) as response:
        assert response.status_code == 200, (path, response.status_code)
        body = b"".join(response.iter_raw())
        lines = [f"status: {response.status_code}"]
        lines += [f"{k}: {v}" for k, v in response.headers.items() if k.lower() not in _SKIP_HEADERS]
    (folder / f"{name}.body").write_bytes(body)
    (folder / f"{name}.headers").write_text("\n".join(lines) + "\n")
    return len(body)


def build_times(builds: int) -> list[float]:
    course = load_course(PROJECT_ROOT / "content")
    times = []
    for _ in range(builds):
        started = time.perf_counter()
        CourseSearch(course, TITLES)
        times.append(time.perf_counter() - started)
    return times


def first_answer_times(repeats: int = 200) -> dict[str, float]:
    search = CourseSearch(load_course(PROJECT_ROOT / "content"), TITLES)
    medians = {}
    for name, (language, query) in QUERIES.items():
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            search.search(language, query)
            times.append(time.perf_counter() - started)
        medians[name] = statistics.median(times)
    return medians


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--builds", type=int, default=15)
    arguments = parser.parse_args()

    times = build_times(arguments.builds)
    print(
        f"index build (whole course, en + ko): median {statistics.median(times) * 1000:.0f} ms, "
        f"worst {max(times) * 1000:.0f} ms over {len(times)} builds"
    )
    for name, seconds in first_answer_times().items():
        print(f"first answer, {name:<15} {seconds * 1e6:>7.0f} µs (the search alone, before any cache)")

    gzip = {"Accept-Encoding": "gzip"}
    paths = {name: f"/{language}/search?q={quote(query)}" for name, (language, query) in QUERIES.items()}
    with tempfile.TemporaryDirectory() as bare_dir, serve_process(workers=1) as app_url:
        folder = Path(bare_dir)
        with httpx.Client(base_url=app_url) as client:
            sizes = {name: record_raw(client, folder, _slug(name), path, gzip) for name, path in paths.items()}
        with serve_bare(bare_dir, _slug(next(iter(paths)))) as bare_url:
            print(f"wrk 16 connections, {arguments.rounds} rounds of {arguments.seconds} s, alternating; median req/s")
            print(f"{'query':<16} {'bytes':>7} {'ours':>8} {'bare':>8} {'ratio':>6}  rounds (ours/bare)")
            for name, path in paths.items():
                ours, theirs = alternating(
                    f"{app_url}{path}", f"{bare_url}/{_slug(name)}", gzip, arguments.rounds, arguments.seconds
                )
                size = sizes[name]
                ratio = statistics.median(ours) / statistics.median(theirs)
                shown = " ".join(f"{a:.0f}/{b:.0f}" for a, b in zip(ours, theirs, strict=True))
                print(
                    f"{name:<16} {size:>7,} {statistics.median(ours):>8.0f} {statistics.median(theirs):>8.0f} "
                    f"{ratio:>6.2f}  {shown}"
                )


if __name__ == "__main__":
    main()
