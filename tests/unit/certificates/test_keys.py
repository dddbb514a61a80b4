"""The signing keys: generated for development (mode 0600), required in production, OpenSSL's own format,
rotation that keeps every old key, and no private key in any message."""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import pytest

from app.bootstrap import certificate_keys
from app.certificates.keys import KeyFileError, KeyRing
from app.config import ConfigurationError, Environment, Settings


def test_development_generates_a_key_file_readable_by_its_owner_only(tmp_path: Path) -> None:
    settings = Settings(env=Environment.DEVELOPMENT, var_dir=tmp_path)
    ring, path = certificate_keys(settings)
    assert path == tmp_path / "certificate-keys.pem"
    assert path.stat().st_mode & 0o777 == 0o600
    assert certificate_keys(settings)[0].active.thumbprint == ring.active.thumbprint


def test_production_refuses_to_start_without_a_configured_key_file(tmp_path: Path) -> None:
    settings = Settings(env=Environment.PRODUCTION, var_dir=tmp_path, secret_key="s" * 48)
    with pytest.raises(ConfigurationError, match="CERTIFICATE_KEY_FILE"):
        certificate_keys(settings)
    assert not (tmp_path / "certificate-keys.pem").exists()
    missing = Settings(
        env=Environment.PRODUCTION, var_dir=tmp_path, secret_key="s" * 48, certificate_key_file=tmp_path / "none.pem"
    )
    with pytest.raises(ConfigurationError, match=r"none\.pem"):
        certificate_keys(missing)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_a_key_made_by_openssl_is_loaded_and_rotation_appends(tmp_path: Path) -> None:
    path = tmp_path / "keys.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(path)], check=True)
    ring = KeyRing.load(path)
    rotated = ring.rotated(path)
    reloaded = KeyRing.load(path)
    assert [key.thumbprint for key in reloaded.keys] == [key.thumbprint for key in rotated.keys]
    assert reloaded.keys[0].thumbprint == ring.active.thumbprint
    assert reloaded.active.thumbprint != ring.active.thumbprint
    assert path.stat().st_mode & 0o777 == 0o600


def test_bad_key_files_are_named_without_their_content(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    good = tmp_path / "good.pem"
    ring = KeyRing.load_or_generate(good)
    secret = ring.active.pem().decode()
    rsa = tmp_path / "rsa.pem"
    if shutil.which("openssl"):
        subprocess.run(["openssl", "genpkey", "-algorithm", "rsa", "-out", str(rsa)], check=True, capture_output=True)
        with pytest.raises(KeyFileError, match="not an Ed25519 key"):
            KeyRing.load(rsa)
    broken = tmp_path / "broken.pem"
    broken.write_text(secret.replace(secret.splitlines()[1], "A" * 64))
    for path in (broken, tmp_path / "empty.pem"):
        path.touch()
        with caplog.at_level(logging.DEBUG), pytest.raises(KeyFileError) as refused:
            KeyRing.load(path)
        assert str(path) in str(refused.value)
        assert secret.splitlines()[1] not in str(refused.value) + caplog.text
    assert secret.splitlines()[1] not in repr(ring) + str(ring.active)
