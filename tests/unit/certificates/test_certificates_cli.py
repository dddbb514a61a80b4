"""`interconnects certificates ...` and `interconnects keys ...`, run in-process on real files and a database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.config import get_settings
from tests.conftest import TEST_SECRET


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[CliRunner]:
    monkeypatch.setenv("VAR_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("SECRET_KEY", TEST_SECRET)
    monkeypatch.setenv("BASE_URL", "https://course.example")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("CERTIFICATE_KEY_FILE", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def invoke(runner: CliRunner, *arguments: str, code: int = 0) -> str:
    result = runner.invoke(cli, list(arguments))
    assert result.exit_code == code, result.output
    return result.stdout  # what a script reads (logs go to stderr)


def refused(runner: CliRunner, *arguments: str) -> str:
    """The message of a command that fails (exit code 1), as its user reads it on stderr."""
    result = runner.invoke(cli, list(arguments))
    assert result.exit_code == 1, result.output
    return result.stderr


def test_issue_prints_id_and_url_and_list_shows_it(runner: CliRunner) -> None:
    issued = json.loads(invoke(runner, "certificates", "issue", "--name", "김민준", "--lang", "ko"))
    assert set(issued) == {"id", "url"}
    assert issued["url"] == f"https://course.example/c/{issued['id']}"
    listed = [json.loads(line) for line in invoke(runner, "certificates", "list").splitlines()]
    assert [(item["id"], item["name"], item["language"], item["status"]) for item in listed] == [
        (issued["id"], "김민준", "ko", "active")
    ]


def test_a_bad_name_is_refused_with_the_reason(runner: CliRunner) -> None:
    output = refused(runner, "certificates", "issue", "--name", "Ada\u202eLovelace")
    assert "text-direction" in output


def test_revoke_then_verify_offline_with_the_saved_status_list(runner: CliRunner, tmp_path: Path) -> None:
    issued = json.loads(invoke(runner, "certificates", "issue", "--name", "Grace Hopper"))
    from app.certificates.models import Certificate, StatusList
    from app.db import Database

    database = Database.from_url(get_settings().sqlalchemy_url)

    def save() -> tuple[Path, Path, Path]:
        with database.session() as session:
            row = session.get(Certificate, issued["id"])
            status = session.get(StatusList, 1)
            assert row is not None
            assert status is not None
            (tmp_path / "c.json").write_text(row.credential)
            (tmp_path / "c.jwt").write_text(row.jws)
            (tmp_path / "status.json").write_text(status.credential)
        return tmp_path / "c.json", tmp_path / "c.jwt", tmp_path / "status.json"

    credential, token, status = save()
    for path in (credential, token):
        verdict = json.loads(invoke(runner, "certificates", "verify", str(path), "--status-list", str(status)))
        assert (verdict["valid"], verdict["signature"], verdict["status"]) == (True, "valid", "active")
    revoked = json.loads(invoke(runner, "certificates", "revoke", issued["id"].lower(), "--reason", "mistake"))
    assert (revoked["status"], revoked["reason"]) == ("revoked", "mistake")
    credential, token, status = save()
    verdict = json.loads(invoke(runner, "certificates", "verify", str(token), "--status-list", str(status), code=1))
    assert (verdict["signature"], verdict["status"]) == ("valid", "revoked")
    tampered = tmp_path / "tampered.json"
    tampered.write_text(credential.read_text().replace("Grace Hopper", "Grace Hoppers"))
    verdict = json.loads(invoke(runner, "certificates", "verify", str(tampered), code=1))
    assert verdict["signature"] == "invalid"
    assert next(check["name"] for check in verdict["checks"] if not check["passed"]) == "signature"
    twice = tmp_path / "twice.json"  # a name given twice: refused, not read as its last value
    original = credential.read_text()
    twice.write_text(
        original.replace('"identityHash": "Grace Hopper"', '"identityHash": "Eve", "identityHash": "Grace Hopper"')
    )
    assert twice.read_text() != original
    verdict = json.loads(invoke(runner, "certificates", "verify", str(twice), "--status-list", str(status), code=1))
    assert [(check["name"], check["passed"]) for check in verdict["checks"]] == [("format", False)]
    database.dispose()


def test_verify_with_a_saved_did_document_and_keys_rotate(runner: CliRunner, tmp_path: Path) -> None:
    issued = json.loads(invoke(runner, "certificates", "issue", "--name", "Grace Hopper"))
    rotated = json.loads(invoke(runner, "keys", "rotate"))
    assert rotated["kid"].startswith("did:web:course.example#")
    keys = [json.loads(line) for line in invoke(runner, "keys", "list").splitlines()]
    assert [key["signing"] for key in keys] == [False, True]
    second = json.loads(invoke(runner, "certificates", "issue", "--name", "Ada Lovelace"))
    from app.certificates.models import Certificate
    from app.db import Database

    database = Database.from_url(get_settings().sqlalchemy_url)
    with database.session() as session:
        for certificate_id in (issued["id"], second["id"]):
            row = session.get(Certificate, certificate_id)
            assert row is not None
            (tmp_path / f"{certificate_id}.jwt").write_text(row.jws)
    database.dispose()
    did = tmp_path / "did.json"
    from app.certificates.credential import Issuer, did_document
    from app.certificates.keys import KeyRing

    ring = KeyRing.load(tmp_path / "var" / "certificate-keys.pem")
    did.write_text(json.dumps(did_document(Issuer("https://course.example", "x"), ring.public_keys().values())))
    for certificate_id in (issued["id"], second["id"]):
        verdict = json.loads(
            invoke(
                runner, "certificates", "verify", str(tmp_path / f"{certificate_id}.jwt"), "--keys", str(did), code=1
            )
        )
        assert verdict["signature"] == "valid"  # not "valid" overall: no status list was given offline
        assert verdict["status"] is None


def test_exam_prints_nothing_for_an_operator_certificate_and_refuses_unknown_ids(runner: CliRunner) -> None:
    issued = json.loads(invoke(runner, "certificates", "issue", "--name", "Grace Hopper"))
    assert "records no exam" in refused(runner, "certificates", "exam", issued["id"])
    assert "no certificate" in refused(runner, "certificates", "exam", "0" * 26)
