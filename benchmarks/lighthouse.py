"""Lighthouse (npm, pinned in package.json) in Debian's chromium against the app under uvicorn: the four category
scores and the text-compression and cache-policy audits for home, a chapter and the lab in both languages.
    .venv/bin/python benchmarks/lighthouse.py [PATH ...]
"""

from __future__ import annotations

import json
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


def audit(url: str) -> dict[str, float | None]:
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


def main() -> None:
    paths = sys.argv[1:] or list(PAGES)
    with serve_process() as base_url:
        print(f"{'page':<22}" + "".join(f"{name:>16}" for name in (*CATEGORIES, *AUDITS)))
        for path in paths:
            scores = audit(base_url + path)
            print(f"{path:<22}" + "".join(f"{_shown(scores[name]):>16}" for name in (*CATEGORIES, *AUDITS)))


def _shown(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.2f}"


if __name__ == "__main__":
    main()
