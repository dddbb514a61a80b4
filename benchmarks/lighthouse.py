"""Lighthouse (npm, pinned in package.json) in Debian's chromium against the app under uvicorn: the four category
scores and the text-compression and cache-policy audits for home, a chapter and the lab in both languages.
    .venv/bin/python benchmarks/lighthouse.py [--runs N] [PATH ...]

Each page is audited N times (default 3) and the median of each score is printed, as Lighthouse's own guidance
on variability advises: the performance score moves by several points between runs on a shared machine, since
the simulated phone's CPU time is the measured time multiplied by four.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._server import PROJECT_ROOT, serve_process

PAGES = ("/en/", "/ko/", "/en/guides/nvlink", "/ko/guides/nvlink", "/en/lab", "/ko/lab")
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
    "--disable-sync --no-first-run"
)
AUDITS = ("document-latency-insight", "cache-insight")  # Lighthouse 13: text compression, cache policy
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


# Lighthouse sometimes loses the start of its trace on a busy machine and says to run it again.
RETRIED_ERRORS = ("NO_NAVSTART", "NO_FCP")
ATTEMPTS = 3


def audit(url: str) -> dict[str, float | None]:
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return _audit_once(url)
        except RuntimeError as error:
            if attempt == ATTEMPTS or not any(code in str(error) for code in RETRIED_ERRORS):
                raise
    raise AssertionError("unreachable")


def _audit_once(url: str) -> dict[str, float | None]:
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        run = subprocess.run(
            [
                str(PROJECT_ROOT / "node_modules" / ".bin" / "lighthouse"),
                url,
                "--quiet",
                "--output=json",
                f"--output-path={report}",
                f"--chrome-flags={CHROME_FLAGS}",
                "--only-categories=" + ",".join(CATEGORIES),
            ],
            check=False,
            env={"CHROME_PATH": "/usr/bin/chromium", "PATH": "/usr/bin:/bin", "HOME": folder},
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            raise RuntimeError(f"lighthouse failed on {url}:\n{run.stderr[-2000:]}")
        data = json.loads(report.read_text())
    scores: dict[str, float | None] = {name: data["categories"][name]["score"] for name in CATEGORIES}
    scores |= {name: data["audits"][name]["score"] for name in AUDITS}
    return scores


def median_scores(url: str, runs: int) -> dict[str, float | None]:
    audits = [audit(url) for _ in range(runs)]
    medians: dict[str, float | None] = {}
    for name in (*CATEGORIES, *AUDITS):
        values = [value for scores in audits if (value := scores[name]) is not None]
        medians[name] = statistics.median(values) if values else None
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3, help="audits per page; the median is printed")
    parser.add_argument("paths", nargs="*", default=list(PAGES))
    arguments = parser.parse_args()
    with serve_process() as base_url:
        print(f"{'page':<22}" + "".join(f"{name:>{_width(name)}}" for name in (*CATEGORIES, *AUDITS)))
        for path in arguments.paths:
            scores = median_scores(base_url + path, arguments.runs)
            cells = "".join(f"{_shown(scores[name]):>{_width(name)}}" for name in (*CATEGORIES, *AUDITS))
            print(f"{path:<22}{cells}", flush=True)


def _width(name: str) -> int:
    return max(16, len(name) + 2)


def _shown(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.2f}"


if __name__ == "__main__":
    main()
