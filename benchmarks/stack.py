"""Load through the whole stack (nginx with TLS and its cache, app hosts, PostgreSQL), as `deploy/local-stack up`
runs it, with one app host and then two (two workers each):

- a chapter from nginx's cache, against nginx serving a static file of the same size from disk (the ceiling);
- a certificate's verification page (`no-cache`: every request reaches an app worker and PostgreSQL);
- a quiz answer (a write: lock the answer, grade it, return the verdict).

wrk (16 connections, keep-alive, TLS) for the reads. The answers need a fresh (attempt, question) each and are
rate-limited per client address and per learner, so 16 Python client threads send them instead, each learner
from its own loopback address, with the latencies measured by the client. Figures only, never asserted.

    .venv/bin/python benchmarks/stack.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deploy import local_stack
from tests.deploy.site import CERTIFICATE_LOCATION, Oracle, Site, pass_exam

CONNECTIONS = 16
# wrk's own --latency table has no 95th percentile; its Lua `done` hook reads any percentile (microseconds).
PERCENTILES_LUA = """
done = function(summary, latency, requests)
  for _, p in pairs({50, 95, 99}) do io.write(string.format("P%d %d\\n", p, latency:percentile(p))) end
end
"""
PERCENTILE = re.compile(r"^P(\d+) (\d+)$", re.MULTILINE)


def wrk(url: str, seconds: int, headers: dict[str, str] | None = None) -> dict[str, float]:
    script = Path(tempfile.mkdtemp()) / "percentiles.lua"
    script.write_text(PERCENTILES_LUA)
    arguments = ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "-s", str(script)]
    for name, value in (headers or {}).items():
        arguments += ["-H", f"{name}: {value}"]
    output = subprocess.run([*arguments, url], capture_output=True, text=True, check=True).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    assert rate is not None, output
    figures = {"req_s": float(rate.group(1))}
    for percent, microseconds in PERCENTILE.findall(output):
        figures[f"p{percent}_ms"] = int(microseconds) / 1e3
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    figures["non_2xx"] = float(non_2xx.group(1)) if non_2xx else 0.0
    return figures


def answers(site: Site, oracle: Oracle, seconds: int) -> dict[str, float]:
    """16 threads answering practice questions right, each learner (and address) answering one attempt."""
    latencies_ms: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds
    counter = iter(range(1_000_000))

    def worker(_: int) -> None:
        while time.monotonic() < stop:
            number = next(counter)
            with site.client(f"127.{100 + number // 60000}.{number // 250 % 240}.{number % 250 + 1}") as client:
                started = client.post("/api/v1/quizzes/nvlink/attempts?lang=en")
                if started.status_code != 201:
                    with lock:
                        statuses[started.status_code] = statuses.get(started.status_code, 0) + 1
                    continue
                attempt_id = started.json()["attempt_id"]
                for body in oracle.right_answers(client, attempt_id):
                    if time.monotonic() >= stop:
                        break
                    began = time.perf_counter()
                    response = client.post(f"/api/v1/attempts/{attempt_id}/answers", json=body)
                    elapsed_ms = (time.perf_counter() - began) * 1e3
                    with lock:
                        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                        if response.status_code == 200:
                            latencies_ms.append(elapsed_ms)

    began = time.monotonic()
    with ThreadPoolExecutor(CONNECTIONS) as pool:
        list(pool.map(worker, range(CONNECTIONS)))
    elapsed_s = time.monotonic() - began
    cuts = statistics.quantiles(latencies_ms, n=100)
    return {
        "answers_s": len(latencies_ms) / elapsed_s,
        "p50_ms": cuts[49],
        "p95_ms": cuts[94],
        "p99_ms": cuts[98],
        "refused": float(sum(count for status, count in statuses.items() if status != 200)),
    }


def run(hosts: int, seconds: int) -> None:
    directory = Path(tempfile.mkdtemp(prefix="interconnects-bench-"))
    stack = local_stack.up(directory, https_port=0, hosts=hosts, workers=2)
    try:
        site = Site(stack)
        oracle = Oracle.of(stack)
        with site.client("127.0.99.1") as learner:
            pass_exam(learner, oracle)
            claimed = site.post_form(learner, "/en/certificate", "/en/certificate", {"name": "Bench Mark"})
            match = CERTIFICATE_LOCATION.search(claimed.headers["location"])
            assert match is not None
            for _ in range(2):  # the second is a cache hit
                chapter = learner.get("/en/guides/nvlink", headers={"Accept-Encoding": "gzip"})
            assert chapter.headers["x-cache-status"] == "HIT"
            size = chapter.num_bytes_downloaded  # as sent: gzipped
        static = directory / "public" / "static" / "000000000000" / "bench.bin"
        static.parent.mkdir(parents=True)
        static.write_bytes(b"x" * size)
        gz = {"Accept-Encoding": "gzip"}
        print(f"\n== {hosts} host(s) x 2 workers; chapter {size} B gzipped; {CONNECTIONS} connections, {seconds} s")
        hit = wrk(f"{stack.url}/en/guides/nvlink", seconds, gz)
        disk = wrk(f"{stack.url}/static/000000000000/bench.bin", seconds)
        page = wrk(f"{stack.url}/c/{match.group(1)}", seconds, gz)
        for name, figures in (("chapter (cache HIT)", hit), ("static file, same size", disk), ("verification", page)):
            print(
                f"{name:24} {figures['req_s']:8.0f} req/s  p50 {figures.get('p50_ms', 0):6.2f} ms  "
                f"p95 {figures.get('p95_ms', 0):6.2f} ms  p99 {figures.get('p99_ms', 0):6.2f} ms  "
                f"non-2xx {figures['non_2xx']:.0f}"
            )
        print(f"cache hit / static file: {hit['req_s'] / disk['req_s']:.2f}")
        answered = answers(site, oracle, seconds)
        print(
            f"{'quiz answer (write)':24} {answered['answers_s']:8.0f} ans/s  p50 {answered['p50_ms']:6.2f} ms  "
            f"p95 {answered['p95_ms']:6.2f} ms  p99 {answered['p99_ms']:6.2f} ms  refused {answered['refused']:.0f}"
        )
        oracle.close()
    finally:
        local_stack.down(directory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10)
    arguments = parser.parse_args()
    for hosts in (1, 2):
        run(hosts, arguments.seconds)


if __name__ == "__main__":
    main()
