"""The `interconnects` command: serve the site, manage the schema, check the content."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from app import migrations
from app.config import ConfigurationError, get_settings
from app.content import ContentError, load_course
from app.db import Database
from app.quiz.bank import load_quizzes

cli = typer.Typer(help="Interconnects: the GPU interconnects course.", no_args_is_help=True)
db_cli = typer.Typer(help="Database schema (Alembic).", no_args_is_help=True)
content_cli = typer.Typer(help="Course content.", no_args_is_help=True)
cli.add_typer(db_cli, name="db")
cli.add_typer(content_cli, name="content")


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
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(help="Worker processes (PostgreSQL for more than one).")] = 1,
    reload: Annotated[bool, typer.Option(help="Restart when code changes (development).")] = False,
) -> None:
    """Serve the site with uvicorn."""
    import uvicorn

    from app.main import create_app

    try:
        create_app()  # fail here, with a readable message, rather than inside a worker
    except ContentError as error:
        _fail("The content has problems:\n" + str(error))
    except (ConfigurationError, migrations.SchemaOutOfDateError) as error:
        _fail(str(error))
    uvicorn.run("app.main:app", host=host, port=port, workers=workers, reload=reload, proxy_headers=True)


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
    pages = sum(len(chapter.pages) for chapter in course.chapters)
    questions = sum(len(quiz.questions) for quiz in quizzes)
    typer.echo(
        f"content OK: {len(course.published)} chapter(s), {pages} page(s), "
        f"{len(quizzes.quizzes)} quiz(zes) with {questions} question(s)"
    )


def _fail(message: str) -> None:
    typer.echo(message, err=True)
    raise typer.Exit(code=1)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
