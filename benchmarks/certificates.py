"""Certificates: the verification page under load against two ceilings, and issuing in bulk.

1. wrk (16 connections) on /c/{ID} — answered by the page cache's fast path, which reads the row and its status
   byte in one indexed statement, verifies the proof and the JWS from the stored bytes (each Ed25519 check
   remembered per exact key, signature and message; the key lookup, the dates and the status bit per request)
   and sends the page made for that verdict — against
   (a) a bare FastAPI app in its own process that does the same single indexed read on the same database and
       returns the very same bytes (benchmarks/certificates_bare.py), target >= 0.8, and
   (b) a bare FastAPI app returning those bytes from memory (benchmarks/_bare.py), target >= 0.5;
   each pair alternating round by round (benchmarks/load.py's `alternating`), the median of the rounds reported.
   Measured 2026-12-02 (2 shared cores, SQLite, a 33 KB Korean page): 0.88 (gzip) and 0.80 (identity) of (a);
   0.29 and 0.27 of (b). Target (b) is out of reach for any page that reads the database per request here: the
   bare app (a) itself makes 0.27-0.35 of (b), its one indexed read through app.db costing ~0.2 ms a request.
2. Issuing 1,000 certificates through the CLI's code path (`interconnects certificates issue` builds the same
   service once per process; here one process issues them all, so the figure is the issue itself), then 100
   revocations, each of which flips a bit of the 16 KiB list, re-encodes and re-signs it in the same transaction.
   A few real `interconnects certificates issue` processes show what one command costs end to end.
    .venv/bin/python benchmarks/certificates.py [--rounds 5] [--seconds 4] [--count 1000] [POSTGRES_URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._server import PROJECT_ROOT, free_port
from benchmarks.load import _slug, _wait, alternating, raw, record, serve_bare, uvicorn_factory

READ_FACTORY = "benchmarks.certificates_bare:create"


def create_app() -> object:
    """The real app, with certificate limits it never reaches (the limiter still runs on every lookup)."""
    from app.certificates.service import CertificatePolicy
    from app.ratelimit import Limit
    from benchmarks._app import create

    app = create()
    unlimited = Limit(10**9, 60)
    app.state.interconnects.certificates.policy = CertificatePolicy(unlimited, unlimited, unlimited)
    return app


def environment(var_dir: str, port: int, database_url: str | None) -> dict[str, str]:
    env = os.environ | {
        "ENV": "test",
        "VAR_DIR": var_dir,
        "SECRET_KEY": "b" * 40,
        "BASE_URL": f"http://127.0.0.1:{port}",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("DATABASE_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def cli(env: dict[str, str], *arguments: str) -> str:
    command = [sys.executable, "-m", "app.cli", *arguments]
    return subprocess.run(command, cwd=PROJECT_ROOT, env=env, check=True, capture_output=True, text=True).stdout


def page_under_load(rounds: int, seconds: int, database_url: str | None) -> None:
    with tempfile.TemporaryDirectory() as var_dir, tempfile.TemporaryDirectory() as bare_dir:
        port = free_port()
        env = environment(var_dir, port, database_url)
        issued = json.loads(cli(env, "certificates", "issue", "--name", "김민준", "--lang", "ko"))
        server = subprocess.Popen(
            uvicorn_factory("benchmarks.certificates:create_app", port), cwd=PROJECT_ROOT, env=env
        )
        try:
            path = f"/c/{issued['id']}"
            base_url = f"http://127.0.0.1:{port}"
            _wait(f"{base_url}/healthz")
            cases = {
                "verification page (gzip)": (path, {"Accept-Encoding": "gzip", "Accept-Language": "ko"}),
                "verification page (identity)": (path, {"Accept-Encoding": "identity", "Accept-Language": "ko"}),
            }
            with httpx.Client(base_url=base_url) as client:
                page = raw(client, path, {"Accept-Encoding": "identity"})
                for name, (case_path, headers) in cases.items():
                    record(Path(bare_dir), _slug(name), raw(client, case_path, headers))
            probe = _slug("verification page (identity)")
            with (
                serve_bare(bare_dir, probe) as memory_url,
                serve_bare(bare_dir, f"{probe}/{issued['id']}", READ_FACTORY, env) as read_url,
            ):
                print(f"verification page: {len(page.content):,} B; wrk 16 connections, {rounds} rounds of {seconds} s")
                print(f"{'endpoint':<30} {'against':<16} {'ours':>9} {'bare':>9} {'ratio':>7}  rounds (ours/bare)")
                for name, (case_path, headers) in cases.items():
                    ceilings = {
                        "the same read": f"{read_url}/{_slug(name)}/{issued['id']}",
                        "memory": f"{memory_url}/{_slug(name)}",
                    }
                    for against, bare_url in ceilings.items():
                        ours, theirs = alternating(f"{base_url}{case_path}", bare_url, headers, rounds, seconds)
                        shown = " ".join(f"{a:.0f}/{b:.0f}" for a, b in zip(ours, theirs, strict=True))
                        print(
                            f"{name:<30} {against:<16} {statistics.median(ours):>9.0f} "
                            f"{statistics.median(theirs):>9.0f} "
                            f"{statistics.median(ours) / statistics.median(theirs):>7.2f}  {shown}"
                        )
        finally:
            server.terminate()
            server.wait(timeout=10)


def issuing(count: int, database_url: str | None) -> None:
    with tempfile.TemporaryDirectory() as var_dir:
        env = environment(var_dir, 8000, database_url)
        started = time.perf_counter()
        for index in range(3):
            cli(env, "certificates", "issue", "--name", f"Process {index}")
        per_process = (time.perf_counter() - started) / 3
        os.environ.update(env)
        from app import cli as commands
        from app.config import get_settings

        get_settings.cache_clear()
        with commands._certificates(with_bank=True) as service:
            ids: list[str] = []
            times: list[float] = []
            started = time.perf_counter()
            for index in range(count):
                began = time.perf_counter()
                ids.append(asyncio.run(service.issue(f"학습자 {index} Learner", None, "ko" if index % 2 else "en")).id)
                times.append(time.perf_counter() - began)
            total = time.perf_counter() - started
            revocations: list[float] = []
            for certificate_id in ids[:100]:
                began = time.perf_counter()
                asyncio.run(service.revoke(certificate_id, "benchmark"))
                revocations.append(time.perf_counter() - began)
            status_list = asyncio.run(service.status_list(1))
            views: list[float] = []
            for certificate_id in ids[-100:]:
                began = time.perf_counter()
                asyncio.run(service.certificate("127.0.0.1", certificate_id))
                views.append(time.perf_counter() - began)
        times.sort()
        print(f"one `interconnects certificates issue` process, end to end: {per_process:.2f} s")
        print(
            f"issued {count} certificates in {total:.1f} s: {1000 * total / count:.1f} ms each "
            f"(median {1000 * statistics.median(times):.1f} ms, p95 {1000 * times[int(0.95 * len(times))]:.1f} ms)"
        )
        print(
            f"revoking (bit flip + re-encode + re-sign the {len(status_list):,}-byte list credential): "
            f"median {1000 * statistics.median(revocations):.1f} ms"
        )
        print(f"verifying a stored certificate (read + proof + JWS): median {1000 * statistics.median(views):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("database_url", nargs="?")
    arguments = parser.parse_args()
    page_under_load(arguments.rounds, arguments.seconds, arguments.database_url)
    issuing(arguments.count, arguments.database_url)


if __name__ == "__main__":
    main()
