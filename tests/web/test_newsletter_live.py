"""The newsletter as it runs: `interconnects serve` (a real uvicorn) over real HTTP, mail through a real SMTP
server, and `interconnects newsletter send` as a process that is killed in the middle of a send and run again."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from email import message_from_bytes, policy
from pathlib import Path

import httpx

from app import migrations
from app.db import Database
from tests.mailserver import running_mail_server
from tests.servers import INTERCONNECTS_SERVE, PROJECT_ROOT, running_server
from tests.unit.newsletter.helpers import add_subscribers, deliveries, write_issue
from tests.web.newsletter import CONFIRM_LINK, text_of

CLI = [sys.executable, "-m", "app.cli", "newsletter"]
WAIT_S = 120
SECRET = {"SECRET_KEY": "live-" + "k" * 40}


def run_cli(arguments: list[str], environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"ENV": "test"} | environment
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [*CLI, *arguments], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=WAIT_S, check=False
    )


def test_sign_up_confirm_send_and_one_click_unsubscribe_over_http_and_smtp(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    with running_mail_server() as smtp:
        environment = SECRET | {"SMTP_URL": smtp.url}
        with (
            running_server(INTERCONNECTS_SERVE, var_dir, environment) as base_url,
            httpx.Client(base_url=base_url) as web,
        ):
            signup = web.post(
                "/newsletter?lang=ko", data={"email": "ada@example.com", "language": "ko", "source": "home"}
            )
            assert signup.status_code == 200
            assert "받은편지함을 확인해 주세요" in signup.text
            [confirmation] = smtp.to("ada@example.com")
            found = re.search(
                CONFIRM_LINK.pattern.replace("http://testserver", re.escape(base_url)), text_of(confirmation)
            )
            assert found is not None
            assert web.get(found.group(0)).status_code == 200  # a scanner's GET
            exported = run_cli(["export"], environment | {"VAR_DIR": str(var_dir), "BASE_URL": base_url})
            assert exported.returncode == 0, exported.stderr
            assert "ada@example.com" not in exported.stdout  # not confirmed by the GET
            confirmed = web.post(found.group(0), headers={"Origin": base_url, "Sec-Fetch-Site": "same-origin"})
            assert confirmed.status_code == 200

            issue = write_issue(tmp_path)
            sent = run_cli(["send", str(issue)], environment | {"VAR_DIR": str(var_dir), "BASE_URL": base_url})
            assert sent.returncode == 0, sent.stderr
            assert json.loads(sent.stdout) == {"issue": "issue-1", "sent": 1, "already_sent": 0, "uncertain": 0}
            [mail] = [message for message in smtp.to("ada@example.com") if message["List-Unsubscribe"]]
            assert mail["Subject"] == "issue-1호"

            rows = list(
                csv.DictReader(
                    io.StringIO(
                        run_cli(["export"], environment | {"VAR_DIR": str(var_dir), "BASE_URL": base_url}).stdout
                    )
                )
            )
            assert [(row["email"], row["language"], row["source"]) for row in rows] == [
                ("ada@example.com", "ko", "home")
            ]
            assert rows[0]["consented_at"]

            # The mail provider's one-click POST: no cookie, no token but the URL's, from its own server.
            url = str(mail["List-Unsubscribe"]).strip("<>")
            assert url.startswith(f"{base_url}/newsletter/unsubscribe/")
            with httpx.Client() as provider:
                done = provider.post(
                    url,
                    content=b"List-Unsubscribe=One-Click",
                    headers={"content-type": "application/x-www-form-urlencoded"},
                )
            assert done.status_code == 200
            again = run_cli(["send", str(issue)], environment | {"VAR_DIR": str(var_dir), "BASE_URL": base_url})
            assert json.loads(again.stdout)["sent"] == 0
        after = run_cli(["export"], environment | {"VAR_DIR": str(var_dir), "BASE_URL": "http://127.0.0.1:1"})
        assert after.stdout.strip() == "email,language,source,consented_at"


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    """Polls a condition (the state of files and rows another process writes), with a deadline."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_a_send_killed_midway_and_run_again_mails_everyone_exactly_once(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    database = Database.from_url(f"sqlite:///{var_dir / 'interconnects.sqlite3'}")
    migrations.upgrade(database)
    addresses = add_subscribers(database, 40) + add_subscribers(database, 20, language="ko")
    issue = write_issue(tmp_path)
    outbox = var_dir / "outbox"
    outbox.mkdir()
    # The 25th mail's temporary file is a FIFO: opening it blocks the sender there, after 24 whole mails and with
    # the 25th claimed, until the process is killed: the middle of a send, deterministically.
    stuck = outbox / ".issue-1-25.tmp"
    os.mkfifo(stuck)
    environment = {"VAR_DIR": str(var_dir), "BASE_URL": "https://course.example", "ENV": "test"} | SECRET
    env = os.environ | environment
    env.pop("DATABASE_URL", None)
    env.pop("SMTP_URL", None)
    process = subprocess.Popen([*CLI, "send", str(issue)], cwd=PROJECT_ROOT, env=env)
    try:
        _wait_for(
            lambda: (
                len(list(outbox.glob("*.eml"))) == 24
                and deliveries(database, "issue-1").get(addresses[24]) == "sending"
            ),
            "the send to block at mail 25",
        )
        assert process.poll() is None
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=WAIT_S)
    assert process.returncode == -signal.SIGKILL
    assert len(list(outbox.glob("*.eml"))) == 24
    stuck.unlink()

    resumed = run_cli(["send", str(issue)], environment)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["sent"] + report["already_sent"] == 60
    assert report["uncertain"] == 0
    again = run_cli(["send", str(issue)], environment)
    assert json.loads(again.stdout) == {"issue": "issue-1", "sent": 0, "already_sent": 60, "uncertain": 0}

    recipients = [
        str(message_from_bytes(path.read_bytes(), policy=policy.default)["To"]) for path in outbox.glob("*.eml")
    ]
    assert sorted(recipients) == sorted(addresses)  # everyone, exactly once
    assert set(deliveries(database, "issue-1").values()) == {"sent"}
    database.dispose()


def test_send_reports_smtp_down_and_the_next_run_resumes(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    database = Database.from_url(f"sqlite:///{var_dir / 'interconnects.sqlite3'}")
    migrations.upgrade(database)
    addresses = add_subscribers(database, 8)
    issue = write_issue(tmp_path)
    with running_mail_server() as smtp:
        environment = {"VAR_DIR": str(var_dir), "BASE_URL": "https://course.example", "SMTP_URL": smtp.url} | SECRET
        smtp.accept_limit = 3
        stopped = run_cli(["send", str(issue)], environment)
        assert stopped.returncode == 1
        for phrase in ("send stopped", "451", "run the same command again"):
            assert phrase in stopped.stderr
        smtp.accept_limit = None
        resumed = run_cli(["send", str(issue)], environment)
        assert json.loads(resumed.stdout) == {"issue": "issue-1", "sent": 5, "already_sent": 3, "uncertain": 0}
        assert all(len(smtp.to(address)) == 1 for address in addresses)
    database.dispose()
