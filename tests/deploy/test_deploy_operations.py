"""Operations rehearsed on the running stack: an upgrade with a migration while the old code serves, a backup
restored into an empty database, and a signing-key rotation that old certificates survive."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, make_url, text

from alembic import command
from deploy.local_stack import PROJECT_ROOT, Stack
from tests.deploy.site import CERTIFICATE_LOCATION, Oracle, Site, pass_exam

EXPAND_MIGRATION = '''"""test only: expand (a nullable column and an index that code not knowing them ignores)"""

import sqlalchemy as sa

from alembic import op

revision = "test_expand"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("quiz_attempts", sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_quiz_attempts_reviewed_at", "quiz_attempts", ["reviewed_at"])


def downgrade() -> None:
    op.drop_index("ix_quiz_attempts_reviewed_at", table_name="quiz_attempts")
    op.drop_column("quiz_attempts", "reviewed_at")
'''


@contextmanager
def steady_load(site: Site, first_address: int) -> Iterator[Counter[int]]:
    """Learners starting and answering practice quizzes, and readers, until the block ends; their statuses."""
    stop = threading.Event()
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def learner(number: int) -> None:
        count = 0
        while not stop.is_set():
            count += 1
            with site.client(f"127.0.{first_address + number}.{count % 200 + 1}") as client:
                started = client.post("/api/v1/quizzes/nvswitch/attempts?lang=en")
                read = client.get("/en/")
                with lock:
                    statuses.update((started.status_code, read.status_code))
                if started.status_code == 201:
                    question = started.json()["questions"][0]
                    body = (
                        {"question_id": question["id"], "value": 1.0, "unit": question["unit"]}
                        if question["type"] == "numeric"
                        else {"question_id": question["id"], "tokens": [question["options"][0]["token"]]}
                    )
                    answered = client.post(f"/api/v1/attempts/{started.json()['attempt_id']}/answers", json=body)
                    with lock:
                        statuses[answered.status_code] += 1

    threads = [threading.Thread(target=learner, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    try:
        yield statuses
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)


def test_an_expanding_migration_and_its_downgrade_while_the_old_code_serves(
    site: Site, stack: Stack, tmp_path: Path
) -> None:
    scripts = tmp_path / "alembic"
    shutil.copytree(PROJECT_ROOT / "alembic", scripts, ignore=shutil.ignore_patterns("__pycache__"))
    engine = create_engine(stack.database_url)
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(scripts))
    config.attributes["engine"] = engine
    (head,) = ScriptDirectory.from_config(config).get_heads()
    (scripts / "versions" / "99999999_test_expand.py").write_text(EXPAND_MIGRATION.format(head=head))
    try:
        with steady_load(site, 10) as statuses:
            _wait_for_traffic(statuses)
            command.upgrade(config, "head")  # expand: the old code keeps serving on the wider table
            assert "reviewed_at" in {column["name"] for column in inspect(engine).get_columns("quiz_attempts")}
            _wait_for_traffic(statuses, more_than=sum(statuses.values()) + 20)
            command.downgrade(config, "-1")  # and back: `alembic downgrade -1`
            _wait_for_traffic(statuses, more_than=sum(statuses.values()) + 20)
        with engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_heads() == (head,)
        assert "reviewed_at" not in {column["name"] for column in inspect(engine).get_columns("quiz_attempts")}
    finally:
        engine.dispose()
    assert set(statuses) <= {200, 201}, statuses


def _wait_for_traffic(statuses: Counter[int], more_than: int = 10) -> None:
    deadline = time.monotonic() + 120
    while sum(statuses.values()) <= more_than:
        assert time.monotonic() < deadline, statuses
        time.sleep(0.1)


def _pg(stack: Stack, program: str, *arguments: str) -> subprocess.CompletedProcess[bytes]:
    url = make_url(stack.database_url)
    return subprocess.run(
        [str(Path(stack.pg_bin) / program), "-h", str(url.host), "-p", str(url.port), "-U", "postgres", *arguments],
        capture_output=True,
        check=True,
    )


def test_a_backup_restored_into_an_empty_database_serves_every_certificate_and_attempt_as_before(
    site: Site, stack: Stack, oracle: Oracle, tmp_path: Path
) -> None:
    with site.client("127.0.20.1") as learner:
        attempt_id = pass_exam(learner, oracle)
        claimed = site.post_form(learner, "/en/certificate", "/en/certificate", {"name": "Grace Hopper"})
        match = CERTIFICATE_LOCATION.search(claimed.headers["location"])
        assert match is not None
        with site.client("127.0.20.2") as anyone:
            ids = [match.group(1), *_all_certificate_ids(stack)]
            before = {certificate: _certificate_as_served(anyone, certificate) for certificate in ids}
            attempt_before = learner.get(f"/api/v1/attempts/{attempt_id}").json()

            dump = tmp_path / "interconnects.dump"
            _pg(stack, "pg_dump", "-Fc", "-f", str(dump), "interconnects")
            database = make_url(stack.database_url).database or ""
            admin = create_engine(stack.admin_database_url, isolation_level="AUTOCOMMIT")
            try:
                with admin.connect() as connection:  # the database is lost; an empty one takes its place
                    connection.execute(text(f'DROP DATABASE "{database}" WITH (FORCE)'))
                    connection.execute(text(f'CREATE DATABASE "{database}"'))
            finally:
                admin.dispose()
            _pg(stack, "pg_restore", "--exit-on-error", "-d", database, str(dump))

            after = {certificate: _certificate_as_served(anyone, certificate) for certificate in ids}
            assert after == before
            assert learner.get(f"/api/v1/attempts/{attempt_id}").json() == attempt_before
            # and the restored database takes writes again (its sequences came back with it)
            assert learner.post("/api/v1/quizzes/nvlink/attempts?lang=en").status_code == 201


def _all_certificate_ids(stack: Stack) -> list[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "app.cli", "certificates", "list"],
        capture_output=True,
        check=True,
        cwd=PROJECT_ROOT,
        env=os.environ | stack.environment() | {"VAR_DIR": stack.directory},
        text=True,
    )
    return [json.loads(line)["id"] for line in listed.stdout.splitlines() if line.strip()]


def _certificate_as_served(client: httpx.Client, certificate_id: str) -> tuple[object, ...]:
    credential = client.get(f"/c/{certificate_id}.json")
    verdict = client.post(
        "/api/v1/credentials/verify", content=credential.content, headers={"Content-Type": "application/json"}
    ).json()
    assert "valid" in verdict, verdict
    page = client.get(f"/c/{certificate_id}", headers={"Accept-Language": "en"})
    return credential.status_code, credential.content, verdict["valid"], verdict["status"], page.status_code


def test_a_rotated_signing_key_signs_new_certificates_while_the_old_ones_keep_verifying(
    site: Site, stack: Stack, oracle: Oracle
) -> None:
    with site.client("127.0.21.1") as first:
        pass_exam(first, oracle)
        old = CERTIFICATE_LOCATION.search(
            site.post_form(first, "/en/certificate", "/en/certificate", {"name": "Old Key"}).headers["location"]
        )
    assert old is not None
    env = os.environ | stack.environment() | {"VAR_DIR": stack.directory}
    rotated = subprocess.run(
        [sys.executable, "-m", "app.cli", "keys", "rotate"],
        capture_output=True,
        check=True,
        cwd=PROJECT_ROOT,
        env=env,
        text=True,
    )
    new_kid = json.loads(rotated.stdout)["kid"]
    for host in stack.hosts:  # a rolling restart: the other host serves meanwhile
        stack.stop_host(host)
        stack.start_host(host)
        stack.wait_for_host(host)
    with site.client("127.0.21.2") as second:
        pass_exam(second, oracle)
        new = CERTIFICATE_LOCATION.search(
            site.post_form(second, "/en/certificate", "/en/certificate", {"name": "New Key"}).headers["location"]
        )
        assert new is not None
        new_credential = second.get(f"/c/{new.group(1)}.json").json()
        assert new_credential["proof"]["verificationMethod"] == new_kid
        old_credential = second.get(f"/c/{old.group(1)}.json").json()
        assert old_credential["proof"]["verificationMethod"] != new_kid
        for credential in (old_credential, new_credential):
            verdict = second.post("/api/v1/credentials/verify", json=credential).json()
            assert (verdict["valid"], verdict["signature"]) == (True, "valid"), verdict
        methods = {method["id"] for method in second.get("/.well-known/did.json").json()["verificationMethod"]}
        assert {old_credential["proof"]["verificationMethod"], new_kid} <= methods


@pytest.fixture(autouse=True)
def _no_leftover_migration() -> Iterator[None]:
    yield
    assert not list((PROJECT_ROOT / "alembic" / "versions").glob("*test_expand*"))
