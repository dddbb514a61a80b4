"""CI's supply-chain step: audit the Python and npm dependencies against their advisory databases, and write a
CycloneDX SBOM of the Python environment to test-artifacts/sbom.cdx.json.

    .venv/bin/python scripts/supply_chain.py

Exit 1 when an audit reports a known vulnerability (explain an accepted one here with pip-audit's --ignore-vuln
ID, or in package.json's overrides for npm). An advisory database that cannot be reached (a registry mirror that
does not serve it, no network) is reported as "not audited", not as a pass and not as a failure: the audit
could not say either way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
IGNORED_VULNERABILITIES: tuple[str, ...] = ()  # ("GHSA-…",) with the reason beside each


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)  # noqa: S603  (our own fixed commands)


def python_audit() -> tuple[int, str]:
    ignores = [argument for vuln in IGNORED_VULNERABILITIES for argument in ("--ignore-vuln", vuln)]
    result = _run([str(BIN / "pip-audit"), "-f", "json", "--progress-spinner", "off", *ignores])
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        return 0, f"Python: not audited (pip-audit gave no report: {result.stderr.strip()[-300:]})"
    dependencies = report.get("dependencies", [])
    audited = [item for item in dependencies if "skip_reason" not in item]
    found = [f"{item['name']} {item['version']}: {vuln['id']}" for item in audited for vuln in item.get("vulns", [])]
    if not audited:
        return 0, f"Python: not audited (the advisory database answered for none of {len(dependencies)} packages)"
    summary = f"Python: {len(audited)} of {len(dependencies)} packages audited, {len(found)} known vulnerabilities"
    return len(found), "\n  ".join([summary, *found])


def npm_audit() -> tuple[int, str]:
    result = _run(["npm", "audit", "--json"])
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        return 0, "npm: not audited (npm audit gave no report)"
    if "error" in report or "metadata" not in report:
        status = report.get("statusCode", "?")
        return 0, f"npm: not audited (the registry's audit endpoint answered {status})"
    counts = report["metadata"].get("vulnerabilities", {})
    found = sum(count for level, count in counts.items() if level != "total")
    names = sorted(report.get("vulnerabilities", {}))
    return found, f"npm: {found} known vulnerabilities" + (f" ({', '.join(names)})" if names else "")


def sbom() -> str:
    output = ROOT / "test-artifacts" / "sbom.cdx.json"
    output.parent.mkdir(exist_ok=True)
    command = [str(BIN / "cyclonedx-py"), "environment", "--output-format", "JSON", "-o", str(output), sys.executable]
    result = _run(command)
    if result.returncode != 0:
        return f"SBOM: not written ({result.stderr.strip()[-300:]})"
    components = len(json.loads(output.read_text()).get("components", []))
    return f"SBOM: {output.relative_to(ROOT)} ({components} components)"


def main() -> int:
    found = 0
    for audit in (python_audit, npm_audit):
        count, line = audit()
        found += count
        print(line)
    print(sbom())
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
