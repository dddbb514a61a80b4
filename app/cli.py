"""The `interconnects` command: serve the site, manage the schema, check the content."""

from __future__ import annotations

import asyncio
import gettext
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, NoReturn, TextIO

import typer

from app import migrations
from app.bootstrap import ISSUER_NAME, certificate_service, issue_sender, newsletter_service
from app.certificates import offline
from app.certificates.credential import Issuer
from app.certificates.errors import CertificateNotFoundError, InvalidNameError
from app.certificates.keys import KeyFileError, KeyRing
from app.certificates.messages import CertificateText
from app.certificates.service import CertificateService
from app.config import ConfigurationError, get_settings, settings_for_serving
from app.content import ContentError, load_course
from app.content.terminology import check_terms
from app.db import Database
from app.newsletter.errors import IssueChangedError, SendStoppedError
from app.newsletter.issue import IssueFileError, load_issue
from app.quiz.bank import QuizCatalog, load_quizzes
from app.quiz.service import QuizService
from app.web.i18n import load_translations

if TYPE_CHECKING:
    from fastapi import FastAPI


# uvicorn's supervisor kills a worker that does not answer its ping within this time, 5 s by default; a worker
# being built on a busy 2-core machine (start-up took 30-60 s there) missed it and was killed, again and again.
WORKER_HEALTHCHECK_TIMEOUT_S = 120


class Language(StrEnum):
    EN = "en"
    KO = "ko"


cli = typer.Typer(help="Interconnects: the GPU interconnects course.", no_args_is_help=True)
db_cli = typer.Typer(help="Database schema (Alembic).", no_args_is_help=True)
content_cli = typer.Typer(help="Course content.", no_args_is_help=True)
certificates_cli = typer.Typer(help="Course certificates: issue, revoke, list, verify.", no_args_is_help=True)
keys_cli = typer.Typer(help="The certificate signing keys.", no_args_is_help=True)
newsletter_cli = typer.Typer(help="The newsletter: send an issue, export the subscribers.", no_args_is_help=True)
cli.add_typer(db_cli, name="db")
cli.add_typer(content_cli, name="content")
cli.add_typer(certificates_cli, name="certificates")
cli.add_typer(keys_cli, name="keys")
cli.add_typer(newsletter_cli, name="newsletter")


@contextmanager
def _database() -> Iterator[Database]:
    settings = get_settings()
    if settings.is_sqlite:
        settings.var_dir.mkdir(parents=True, exist_ok=True)
    database = Database.from_url(settings.sqlalchemy_url)
    try:
        yield database
    finally:
        database.dispose()


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (in development also BASE_URL's, unless set).")] = 8000,
    workers: Annotated[int, typer.Option(help="Worker processes (PostgreSQL for more than one).")] = 1,
    reload: Annotated[bool, typer.Option(help="Restart when code changes (development).")] = False,
    worker_healthcheck_timeout: Annotated[
        int, typer.Option(help="Seconds a worker may take to answer the supervisor's health check.")
    ] = WORKER_HEALTHCHECK_TIMEOUT_S,
) -> None:
    """Serve the site with uvicorn."""
    import uvicorn

    from app.main import create_app

    settings = settings_for_serving(host, port)
    try:
        app = create_app(settings)  # fail here, with a readable message, rather than inside a worker
    except ContentError as error:
        _fail("The content has problems:\n" + str(error))
    except (ConfigurationError, migrations.SchemaOutOfDateError) as error:
        _fail(str(error))
    # One process serves the app just built; workers and the reloader each import and build their own.
    target: FastAPI | str = app if workers == 1 and not reload else "app.main:app"
    uvicorn.run(
        target,
        host=host,
        port=port,
        workers=workers,
        reload=reload,
        proxy_headers=True,
        timeout_worker_healthcheck=worker_healthcheck_timeout,
    )


@db_cli.command()
def upgrade(revision: Annotated[str, typer.Argument(help="Target revision.")] = "head") -> None:
    """Upgrade the schema (default: to the newest revision)."""
    with _database() as database:
        migrations.upgrade(database, revision)
        typer.echo(f"schema at {', '.join(migrations.current_revisions(database)) or 'base'}")


@db_cli.command()
def downgrade(revision: Annotated[str, typer.Argument(help="Target revision, e.g. -1 or base.")]) -> None:
    """Downgrade the schema to REVISION."""
    with _database() as database:
        migrations.downgrade(database, revision)
        typer.echo(f"schema at {', '.join(migrations.current_revisions(database)) or 'base'}")


@db_cli.command()
def current() -> None:
    """Print the schema's current revision and the newest one."""
    with _database() as database:
        typer.echo(f"current: {', '.join(migrations.current_revisions(database)) or 'base (empty)'}")
        typer.echo(f"head:    {', '.join(migrations.head_revisions(database))}")


@content_cli.command("check")
def check_content(
    directory: Annotated[Path | None, typer.Option(help="Content folder (default: CONTENT_DIR).")] = None,
) -> None:
    """Validate all content; print file:line problems and exit 1 if there are any."""
    content_dir = directory or get_settings().content_dir
    try:
        course = load_course(content_dir)
        quizzes = load_quizzes(content_dir, course)
    except ContentError as error:
        for problem in error.problems:
            typer.echo(problem.format(content_dir), err=True)
        _fail(f"{len(error.problems)} problem(s) found.")
    for finding in check_terms(content_dir).pending:
        typer.echo(f"note (pending): {finding.problem().format(content_dir)}", err=True)
    pages = sum(len(chapter.pages) for chapter in course.chapters)
    questions = sum(len(quiz.questions) for quiz in quizzes)
    typer.echo(
        f"content OK: {len(course.published)} chapter(s), {pages} page(s), "
        f"{len(quizzes.quizzes)} quiz(zes) with {questions} question(s)"
    )


# --- certificates -------------------------------------------------------------------------------------------


@contextmanager
def _certificates(with_bank: bool = False) -> Iterator[CertificateService]:
    """The certificate service as the app builds it, on the configured database (migrated like `serve` would:
    SQLite upgraded, PostgreSQL required at head). Only issuing and the exam replay need the question banks,
    whose validation takes seconds; the other commands get an empty catalog."""
    settings = get_settings()
    try:
        course = load_course(settings.content_dir)
        catalog = load_quizzes(settings.content_dir, course) if with_bank else QuizCatalog(MappingProxyType({}))
    except ContentError as error:
        _fail("The content has problems:\n" + str(error))
    with _database() as database:
        try:
            migrations.ensure_schema(database, auto_upgrade=settings.is_sqlite)
            quiz = QuizService(database, catalog)
            yield certificate_service(settings, database, quiz, course, load_translations(), lambda: datetime.now(UTC))
        except (ConfigurationError, migrations.SchemaOutOfDateError) as error:
            _fail(str(error))


def _print_json(value: object) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False))


@certificates_cli.command("issue")
def issue_certificate(
    name: Annotated[str, typer.Option(help="The name to print (NFC-normalised, 1-100 characters).")],
    email: Annotated[str | None, typer.Option(help="Recorded only as a salted SHA-256 hash.")] = None,
    lang: Annotated[Language, typer.Option(help="The certificate's language.")] = Language.EN,
) -> None:
    """Issue a certificate without an exam attempt; prints {"id", "url"}."""
    with _certificates(with_bank=True) as service:
        try:
            issued = asyncio.run(service.issue(name, email, lang.value))
        except InvalidNameError as error:
            _fail(service.text("en").name_problem(error.code))
        _print_json({"id": issued.id, "url": issued.url})


@certificates_cli.command("revoke")
def revoke_certificate(
    certificate_id: Annotated[str, typer.Argument(metavar="ID", help="The certificate id (any case).")],
    reason: Annotated[str, typer.Option(help="Shown on the certificate's page.")],
) -> None:
    """Revoke a certificate: its page, the verify API and the status list say so from now on."""
    with _certificates() as service:
        try:
            revoked = asyncio.run(service.revoke(certificate_id, reason))
        except CertificateNotFoundError:
            _fail(f"no certificate {certificate_id}")
        except ValueError as error:
            _fail(str(error))
        _print_json(revoked.as_json())


@certificates_cli.command("list")
def list_certificates() -> None:
    """Every certificate, oldest first, one JSON object per line."""
    with _certificates() as service:
        for item in asyncio.run(service.listing()):
            _print_json(item.as_json())


@certificates_cli.command("verify")
def verify_certificate(
    file: Annotated[Path, typer.Argument(help="A credential (.json, with its proof) or a compact JWS (.jwt).")],
    keys: Annotated[
        Path | None,
        typer.Option(help="The issuer's did.json or jwks.json (default: this installation's public keys)."),
    ] = None,
    status_list: Annotated[
        Path | None, typer.Option(help="The credential's status list (/status/N), to check revocation offline.")
    ] = None,
) -> None:
    """Verify a certificate offline, with public keys only; exit 1 unless it is valid."""
    settings = get_settings()
    try:
        if keys is not None:
            public = offline.keys_from_file(keys)
        else:  # the public halves of this installation's key file; nothing is generated here
            path, _generated = settings.resolve_certificate_key_file()
            public = list(KeyRing.load(path).public_keys().values())
    except (offline.OfflineError, KeyFileError, ConfigurationError) as error:
        _fail(f"{error} (give the issuer's keys with --keys did.json)")
    issuer = Issuer(settings.base_url, ISSUER_NAME)
    try:
        result = offline.verify_file(file, issuer, public, status_list, datetime.now(UTC))
    except offline.OfflineError as error:
        _fail(str(error))
    text = CertificateText(gettext.NullTranslations(), "en")
    _print_json(
        {
            "valid": result.valid,
            "signature": "valid" if result.signature_valid else "invalid",
            "status": result.status,
            "checks": [
                {"name": check.name, "passed": check.passed, "message": text.problem(check.problem)}
                for check in result.checks
            ],
        }
    )
    if not result.valid:
        raise typer.Exit(code=1)


@certificates_cli.command("exam")
def certificate_exam(
    certificate_id: Annotated[str, typer.Argument(metavar="ID")],
    lang: Annotated[Language, typer.Option(help="The language of the questions.")] = Language.EN,
) -> None:
    """Print the exam the certificate's holder passed, regenerated from its evidence (no answers)."""
    with _certificates(with_bank=True) as service:
        try:
            replay = asyncio.run(service.exam_replay(certificate_id, lang.value))
        except CertificateNotFoundError:
            _fail(f"no certificate {certificate_id}")
    if not replay.questions:
        _fail(f"certificate {replay.certificate_id} records no exam attempt (issued from the command line)")
    typer.echo(
        f"Certificate {replay.certificate_id}: seed {replay.seed}, score {replay.score_percent}% "
        f"(pass mark {replay.pass_percent}%)"
    )
    if replay.content_changed:
        typer.echo(
            f"Note: the course content changed since ({replay.content_version} then, "
            f"{replay.current_content_version} now); the questions are shown as the bank has them today."
        )
    for question in replay.questions:
        typer.echo("")
        if not question.in_bank:
            typer.echo(f"{question.number}. [{question.question_id}] (no longer in the bank) {question.parameters}")
            continue
        typer.echo(f"{question.number}. [{question.question_id}] {question.prompt}")
        for option in question.options:
            typer.echo(f"   - {option}")
        if question.unit:
            typer.echo(f"   (answer in {question.unit})")


@keys_cli.command("rotate")
def rotate_keys() -> None:
    """Add a new signing key; certificates signed with the old ones keep verifying."""
    with _certificates() as service:
        key = service.rotate_keys()
        _print_json(
            {
                "kid": service.issuer.method_id(key.thumbprint),
                "fingerprint": key.public.fingerprint,
                "file": str(service.key_file),
            }
        )


@keys_cli.command("list")
def list_keys() -> None:
    """Every key ever used (the key file's and those recorded in the database), oldest first."""
    with _certificates() as service:
        active = service.keys.active.thumbprint
        for key in asyncio.run(service.public_keys()):
            _print_json(
                {
                    "kid": service.issuer.method_id(key.thumbprint),
                    "fingerprint": key.fingerprint,
                    "signing": key.thumbprint == active,
                }
            )


# --- newsletter ---------------------------------------------------------------------------------------------

CSV_FORMULA_STARTS = ("=", "+", "-", "@")


@contextmanager
def _migrated() -> Iterator[Database]:
    with _database() as database:
        try:
            migrations.ensure_schema(database, auto_upgrade=get_settings().is_sqlite)
        except migrations.SchemaOutOfDateError as error:
            _fail(str(error))
        yield database


@newsletter_cli.command("send")
def send_issue(
    file: Annotated[Path, typer.Argument(help="The issue in Markdown; translations beside it as FILE.<lang>.md.")],
) -> None:
    """Mail the issue to every confirmed subscriber not mailed it yet (safe to run again: nobody gets it twice)."""
    try:
        issue = load_issue(file)
    except IssueFileError as error:
        _fail(str(error))
    with _migrated() as database:
        sender = issue_sender(get_settings(), database, load_translations())
        try:
            report = sender.send(issue)
        except SendStoppedError as error:
            _fail(f"send stopped: {error}")
        except IssueChangedError as error:
            _fail(str(error))
    _print_json(
        {
            "issue": report.issue_id,
            "sent": report.sent,
            "already_sent": report.already_sent,
            "uncertain": report.uncertain,
        }
    )
    if report.uncertain:
        typer.echo(
            f"{report.uncertain} mail(s) were being handed to SMTP when an earlier run stopped; whether they left is "
            "unknown, so they are not sent again.",
            err=True,
        )


@newsletter_cli.command("export")
def export_subscribers(
    output: Annotated[Path | None, typer.Option(help="CSV file to write (default: standard output).")] = None,
) -> None:
    """Confirmed subscribers as CSV: email, language, source, consented_at (a cell that a spreadsheet would run
    as a formula, starting with = + - @, is written with a leading apostrophe)."""
    import csv  # only this command writes CSV

    def cell(value: str) -> str:
        return f"'{value}" if value.startswith(CSV_FORMULA_STARTS) else value

    with _migrated() as database:
        service = newsletter_service(get_settings(), database, load_translations())
        with output.open("w", newline="", encoding="utf-8") if output else _stdout() as file:
            writer = csv.writer(file)
            writer.writerow(["email", "language", "source", "consented_at"])
            for email, language, source, consented_at in service.confirmed():
                writer.writerow([cell(email), language, source, consented_at.isoformat() if consented_at else ""])


@contextmanager
def _stdout() -> Iterator[TextIO]:
    yield sys.stdout


def _fail(message: str) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(code=1)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
