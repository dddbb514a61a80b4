"""Subscribers put straight into a database, for the sender's tests (the web tests sign up through HTTP)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert, select

from app.db import Database
from app.newsletter.models import Delivery, Subscriber

NOW = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)


def add_subscribers(database: Database, count: int, status: str = "confirmed", language: str = "en") -> list[str]:
    addresses = [f"reader{index}.{status}.{language}@example.com" for index in range(count)]
    rows = [
        {
            "email": address,
            "language": language,
            "status": status,
            "source": "home",
            "created_at": NOW,
            "updated_at": NOW,
            "consented_at": NOW if status != "pending" else None,
        }
        for address in addresses
    ]
    if rows:
        database.transaction(lambda session: session.execute(insert(Subscriber), rows), write=True)
    return addresses


def deliveries(database: Database, issue_id: str) -> dict[str, str]:
    """Address -> delivery status, for one issue."""
    statement = (
        select(Subscriber.email, Delivery.status)
        .join(Delivery, Delivery.subscriber_id == Subscriber.id)
        .where(Delivery.issue_id == issue_id)
    )
    return dict(
        database.transaction(lambda session: [(row[0], row[1]) for row in session.execute(statement)], write=False)
    )


def write_issue(directory: Path, name: str = "issue-1", body: str = "Hello **readers**.\n") -> Path:
    path = directory / f"{name}.md"
    path.write_text(f'---\nsubject: "Issue {name}"\n---\n{body}', "utf-8")
    (directory / f"{name}.ko.md").write_text(f'---\nsubject: "{name}호"\n---\n독자 여러분, 안녕하세요.\n', "utf-8")
    return path
