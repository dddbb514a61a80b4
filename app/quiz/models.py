"""Quiz tables: attempts (with what was drawn) and locked answers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base

ATTEMPT_STATES = ("created", "in_progress", "finished", "expired")
OPEN_STATES = ("created", "in_progress")


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes for timezone-aware columns; everything stored here is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class QuizAttempt(Base):
    """One sitting of a quiz: created -> in_progress (first answer) -> finished | expired, each step once.

    `questions` is what was drawn at the start, with the seed that drew it: question ids in order, the drawn
    parameters, and for each option (in display order) its index in the bank and its per-attempt token.
    """

    __tablename__ = "quiz_attempts"
    __table_args__ = (
        CheckConstraint(f"state IN {ATTEMPT_STATES!r}", name="state"),
        Index("ix_quiz_attempts_learner_quiz_started", "learner_id", "quiz_id", "started_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    learner_id: Mapped[str] = mapped_column(String(32), ForeignKey("learners.id", ondelete="CASCADE"))
    quiz_id: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(BigInteger)
    questions: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    question_count: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    deadline_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    correct_count: Mapped[int | None] = mapped_column(Integer)
    score_percent: Mapped[int | None] = mapped_column(Integer)
    passed: Mapped[bool | None] = mapped_column(Boolean)


class QuizAnswer(Base):
    """A locked answer: at most one per question of an attempt, never updated."""

    __tablename__ = "quiz_answers"
    __table_args__ = (UniqueConstraint("attempt_id", "question_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    attempt_id: Mapped[str] = mapped_column(String(32), ForeignKey("quiz_attempts.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(String(64))
    chosen: Mapped[list[int] | None] = mapped_column(JSON)  # bank option indexes, for choice questions
    text: Mapped[str | None] = mapped_column(String(80))  # the quantity as the learner wrote it
    value: Mapped[float | None] = mapped_column(Float)  # in base units (s or B/s)
    correct: Mapped[bool] = mapped_column(Boolean)
    diagnosis: Mapped[str | None] = mapped_column(String(40))
    ratio: Mapped[float | None] = mapped_column(Float)
    answered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
