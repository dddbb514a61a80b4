"""HTTP throughput under load: each of our endpoints against the framework's ceiling, measured with wrk.

wrk (Debian's package) saturates the server with 16 connections from its own process; a Python client would be
slower than the server and hide the server's cost. The ceiling is a bare FastAPI app (benchmarks/_bare.py) in its
own uvicorn process, returning the very bytes and headers our endpoint returned, from memory, with no middleware.
The two alternate round by round, so machine noise hits both alike; the median of the rounds is reported.
    .venv/bin/python benchmarks/load.py [--rounds 5] [--seconds 4]
Targets (issue 10): chapter >= 0.7 of the ceiling (identity and gzip); diagram fragment >= 0.6; a 304
revalidation >= 0.8 of a bare 304; two workers >= 1.6x one on the chapter page.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._server import PROJECT_ROOT, free_port, serve_process

CHAPTER = "/en/guides/nvlink"
FRAGMENT = "/en/lab/busbw-sweep?op=all_reduce&mode=calibrated&system1=dgx-b200&nodes1=2"
_RATE = re.compile(r"Requests/sec:\s+([\d.]+)")
_SKIP_HEADERS = {"content-length", "date", "server", "connection"}


def wrk(url: str, headers: dict[str, str], seconds: int, threads: int = 1) -> float:
    command = ["wrk", f"-t{threads}", "-c16", f"-d{seconds}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run([*command, url], check=True, capture_output=True, text=True).stdout
    match = _RATE.search(output)
    if match is None:
        raise RuntimeError(f"wrk printed no rate:\n{output}")
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        raise RuntimeError(f"{url}: {errors.group(1)} error responses")
    return float(match.group(1))


def uvicorn_factory(factory: str, port: int) -> list[str]:
    """The command that serves the app `factory` builds on `port`, quietly (the benchmark measures, not logs)."""
    quiet = ["--log-level", "warning", "--no-access-log"]
    return [sys.executable, "-m", "uvicorn", "--factory", factory, "--port", str(port), *quiet]


@contextmanager
def serve_bare(
    bare_dir: str, probe: str, factory: str = "benchmarks._bare:create", environment: dict[str, str] | None = None
) -> Iterator[str]:
    """The bare FastAPI app (benchmarks._bare, or another `factory`) in its own uvicorn process, serving the
    bytes recorded in `bare_dir`; yields its base URL once `probe` (a recorded name, or a path) answers."""
    port = free_port()
    process = subprocess.Popen(
        uvicorn_factory(factory, port),
        cwd=PROJECT_ROOT,
        env=os.environ | (environment or {}) | {"BARE_DIR": bare_dir},
    )
    try:
        base_url = f"http://127.0.0.1:{port}"
        _wait(f"{base_url}/{probe}")
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=10)


def alternating(
    ours_url: str, bare_url: str, headers: dict[str, str], rounds: int, seconds: int
) -> tuple[list[float], list[float]]:
    """wrk against ours and the bare app in turns, the order swapped each round so machine noise hits both."""
    ours: list[float] = []
    theirs: list[float] = []
    for index in range(rounds):
        pair = [(ours, ours_url), (theirs, bare_url)]
        for results, url in pair if index % 2 == 0 else reversed(pair):
            results.append(wrk(url, headers, seconds))
    return ours, theirs


def record(folder: Path, name: str, response: httpx.Response) -> None:
    """The response's bytes and headers, for the bare app to return exactly."""
    (folder / f"{name}.body").write_bytes(response.content if response.status_code != 304 else b"")
    lines = [f"status: {response.status_code}"]
    lines += [f"{k}: {v}" for k, v in response.headers.items() if k.lower() not in _SKIP_HEADERS]
    (folder / f"{name}.headers").write_text("\n".join(lines) + "\n")


def raw(client: httpx.Client, path: str, headers: dict[str, str]) -> httpx.Response:
    """The response as sent, without httpx decoding the gzip body."""
    with client.stream("GET", path, headers=headers) as response:
        body = b"".join(response.iter_raw())
    return httpx.Response(response.status_code, headers=response.headers, content=body)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=4)
    arguments = parser.parse_args()
    gzip = {"Accept-Encoding": "gzip"}
    htmx = {"HX-Request": "true", "Accept-Encoding": "gzip"}
    with tempfile.TemporaryDirectory() as bare_dir, serve_process(workers=1) as app_url:
        folder = Path(bare_dir)
        with httpx.Client(base_url=app_url) as client:
            chapter = raw(client, CHAPTER, {"Accept-Encoding": "identity"})
            etag = raw(client, CHAPTER, gzip).headers["etag"]
            cases = {
                "chapter (identity)": (CHAPTER, {"Accept-Encoding": "identity"}),
                "chapter (gzip)": (CHAPTER, gzip),
                "diagram fragment (gzip)": (FRAGMENT, htmx),
                "304 revalidation": (CHAPTER, gzip | {"If-None-Match": etag}),
            }
            for name, (path, headers) in cases.items():
                record(folder, _slug(name), raw(client, path, headers))
        with serve_bare(bare_dir, _slug("chapter (identity)")) as bare_url:
            print(
                f"chapter: {len(chapter.content):,} B; wrk 16 connections, {arguments.rounds} rounds of "
                f"{arguments.seconds} s each, alternating; median req/s"
            )
            print(f"{'endpoint':<26} {'ours':>9} {'bare':>9} {'ratio':>7}  rounds (ours/bare)")
            for name, (path, headers) in cases.items():
                ours, theirs = alternating(
                    f"{app_url}{path}", f"{bare_url}/{_slug(name)}", headers, arguments.rounds, arguments.seconds
                )
                ratio = statistics.median(ours) / statistics.median(theirs)
                shown = " ".join(f"{a:.0f}/{b:.0f}" for a, b in zip(ours, theirs, strict=True))
                print(
                    f"{name:<26} {statistics.median(ours):>9.0f} {statistics.median(theirs):>9.0f} "
                    f"{ratio:>7.2f}  {shown}"
                )
    one: list[float] = []
    two: list[float] = []
    for index in range(max(1, arguments.rounds // 2)):
        for workers, results in ((1, one), (2, two)) if index % 2 == 0 else ((2, two), (1, one)):
            with serve_process(workers=workers) as url:
                _wait(f"{url}{CHAPTER}")
                wrk(f"{url}{CHAPTER}", gzip, 1, threads=1)  # warm every worker's page cache
                results.append(wrk(f"{url}{CHAPTER}", gzip, arguments.seconds, threads=1))
    print(
        f"chapter (gzip), wrk -t2: 1 worker {statistics.median(one):.0f} req/s, 2 workers "
        f"{statistics.median(two):.0f} req/s: {statistics.median(two) / statistics.median(one):.2f}x"
    )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _wait(url: str) -> None:
    for _ in range(100):
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.TransportError:
            pass
        subprocess.run(["sleep", "0.1"], check=True)
    raise RuntimeError(f"{url} did not answer")


if __name__ == "__main__":
    main()
