"""The deployment suite: the whole stack of `deploy/local-stack up` (PostgreSQL, two app hosts of two workers each,
nginx with TLS and its cache) started once per session, with a real SMTP server (aiosmtpd) as its mail relay.

Starting four workers that each load the whole course is most of this suite's time, so there is one stack for
every test here; each test uses its own learners, addresses and pages, so that none depends on another."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy import local_stack
from tests.conftest import require_deploy
from tests.deploy.site import Oracle, Site
from tests.mailserver import MailServer, running_mail_server


def _missing() -> list[str]:
    missing = [name for name in ("nginx", "openssl") if shutil.which(name) is None]
    try:
        local_stack._postgres_bin()
    except local_stack.StackError:
        missing.append("PostgreSQL (initdb, pg_ctl)")
    return missing


@pytest.fixture(scope="session")
def mail_server() -> Iterator[MailServer]:
    with running_mail_server() as server:
        yield server


@pytest.fixture(scope="session")
def stack(mail_server: MailServer) -> Iterator[local_stack.Stack]:
    require_deploy(_missing())
    # Not pytest's tmp_path: its parents are private to this user, and the cluster runs as `postgres` under root.
    directory = Path(tempfile.mkdtemp(prefix="interconnects-stack-"))
    started = local_stack.up(directory, https_port=0, hosts=2, workers=2, extra_env={"SMTP_URL": mail_server.url})
    try:
        yield started
    finally:
        local_stack.down(directory)


@pytest.fixture(scope="session")
def site(stack: local_stack.Stack) -> Site:
    return Site(stack)


@pytest.fixture(scope="session")
def oracle(stack: local_stack.Stack) -> Iterator[Oracle]:
    found = Oracle.of(stack)
    yield found
    found.close()
