"""Sending an issue through the outbox transport: mails per second and peak memory as the list grows, and a
second run of the same send (which mails no one).

Run: ``python benchmarks/newsletter.py [SIZES...]`` (default 0 2500 5000 10000). Prints figures; asserts nothing.

Each size gets a fresh SQLite database under a temporary VAR_DIR with that many confirmed subscribers (a fifth of
them Korean), and `interconnects newsletter send` runs as its own process, exactly as a scheduler would run it;
its wall time and peak RSS come from wait4(). The 0-subscriber run is the process's fixed cost (interpreter,
imports, catalogs, migrations check), subtracted to get mails per second.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert  # noqa: E402  (after the path is set)

from app import migrations  # noqa: E402
from app.db import Database  # noqa: E402
from app.newsletter.models import Subscriber  # noqa: E402

ISSUE = """---
id: benchmark-1
subject: "Interconnects briefing: NVLink 5 in one page"
---
NVLink 5 gives each Blackwell GPU **1.8 TB/s** (both directions added), twice NVLink 4.

- 18 links per GPU, 50 GB/s each way per link
- NVL72 joins 72 GPUs in one NVLink domain

[Read the chapter](https://course.example/en/guides/nvlink)
"""
ISSUE_KO = """---
subject: "Interconnects 브리핑: NVLink 5 한눈에 보기"
---
NVLink 5는 Blackwell GPU 하나에 **1.8 TB/s**(양방향 합산)를 제공합니다. NVLink 4의 두 배입니다.
"""


def prepare(directory: Path, count: int) -> Path:
    var_dir = directory / "var"
    var_dir.mkdir()
    database = Database.from_url(f"sqlite:///{var_dir / 'interconnects.sqlite3'}")
    migrations.upgrade(database)
    now = datetime.now(UTC)
    rows = [
        {
            "email": f"reader{index}@example.com",
            "language": "ko" if index % 5 == 0 else "en",
            "status": "confirmed",
            "source": "home",
            "created_at": now,
            "updated_at": now,
            "consented_at": now,
        }
        for index in range(count)
    ]
    if rows:
        database.transaction(lambda session: session.execute(insert(Subscriber), rows), write=True)
    database.dispose()
    (directory / "issue.md").write_text(ISSUE, "utf-8")
    (directory / "issue.ko.md").write_text(ISSUE_KO, "utf-8")
    return var_dir


def send(directory: Path, var_dir: Path) -> tuple[float, float, dict[str, int]]:
    """Wall seconds, peak RSS in MiB and the command's report."""
    env = os.environ | {"ENV": "test", "VAR_DIR": str(var_dir), "BASE_URL": "https://course.example"}
    env.pop("DATABASE_URL", None)
    env.pop("SMTP_URL", None)
    env["SECRET_KEY"] = "benchmark-" + "k" * 40
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "newsletter", "send", str(directory / "issue.md")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    assert process.stdout is not None
    output = process.stdout.read()
    process.stdout.close()
    if status != 0:
        raise SystemExit(f"send failed with status {status}")
    return elapsed, usage.ru_maxrss / 1024, json.loads(output)


def main() -> None:
    sizes = [int(argument) for argument in sys.argv[1:]] or [0, 2500, 5000, 10000]
    print(f"{'subscribers':>11} {'wall s':>8} {'mails/s':>8} {'peak RSS MiB':>13} {'rerun s':>8} {'rerun sent':>10}")
    fixed_s: float | None = None
    for count in sizes:
        with tempfile.TemporaryDirectory(prefix="newsletter-bench-") as temporary:
            directory = Path(temporary)
            var_dir = prepare(directory, count)
            elapsed, peak_mib, report = send(directory, var_dir)
            rerun_s, _rerun_mib, rerun = send(directory, var_dir)
            mails = len(list((var_dir / "outbox").glob("*.eml"))) if count else 0
            assert report["sent"] == count == mails, (report, mails)
            if fixed_s is None:
                fixed_s = elapsed if count == 0 else 0.0
            rate = count / max(elapsed - fixed_s, 1e-9) if count else 0.0
            print(f"{count:>11} {elapsed:>8.2f} {rate:>8.0f} {peak_mib:>13.1f} {rerun_s:>8.2f} {rerun['sent']:>10}")


if __name__ == "__main__":
    main()
