"""The quiz's sentences for learners: the English messages (extracted by gettext) and `QuizText`, which puts
them in the learner's language with the catalog the web layer hands it."""

from __future__ import annotations

from dataclasses import dataclass

from app.formatting import significant
from app.i18n import Messages, _
from app.quiz.bank import Quiz
from app.quiz.errors import RateLimitedError
from app.quiz.readmodels import AnswerView, AttemptView, DrawnView, Feedback

SUBMISSION_ERRORS: dict[str, str] = {
    "no_choice": _("Choose an answer first."),
    "one_choice": _("Choose exactly one answer."),
    "unknown_option": _("That answer is not one of this question's options. Reload the page and try again."),
    "unknown_question": _("This question is not part of this attempt."),
    "expected_tokens": _("This question is answered by choosing options."),
    "expected_value": _("This question is answered with a number and a unit."),
    "not_a_number": _("Type a number followed by its unit."),
    "ambiguous_comma": _(
        "That comma can be read two ways. Write a decimal with a point or with a comma and one or two digits "
        "(2.4 or 2,4), and thousands as 1024 or 1,024."
    ),
    "malformed_number": _(
        "That number cannot be read: write it with one decimal point at most, like 1000.5, 1,000.5 or 2,4."
    ),
    "missing_unit": _("Add a unit after the number (s, ms, µs for time; GB/s or Gb/s for bandwidth)."),
    "unknown_unit": _(
        "Unknown unit. Use s, ms, µs, ns for time; B/s, MB/s, GB/s, TB/s, Gb/s for bandwidth; B, MB, GB, MiB, GiB "
        "for sizes; % for a share."
    ),
    "wrong_dimension": _("That unit measures something else: this question asks for %(unit)s."),
    "too_long": _("That answer is too long."),
    "out_of_range": _("That number is too large or too small to be an answer to any question here."),
    "malformed": _("The answer could not be read."),
}

DIAGNOSES: dict[str, str] = {
    "direction": _(
        "Your answer is off by a factor of 2: that is the one-direction versus both-directions slip. "
        "Headline NVLink and PCIe figures add both directions; a transfer uses one."
    ),
    "bits-bytes": _("Your answer is off by a factor of 8: bits versus bytes. Gb/s counts bits, GB/s bytes."),
    "gb-gib": _("Your answer is off by 7.4 %: GB versus GiB. 1 GiB is 1,073,741,824 bytes, and GB/s is decimal."),
    "prefix": _("Your answer is off by a power of 1000: check the prefix (ms versus µs, GB versus MB)."),
    "busbw-algbw": _("Your answer is off by the bus-bandwidth factor: time = size / algbw, never size / busbw."),
    "per-link": _("Your answer is off by the number of links: per link versus per GPU."),
    "direction+bits-bytes": _("Two slips at once: one direction versus both (×2) and bits versus bytes (×8)."),
    "direction+gb-gib": _("Two slips at once: one direction versus both (×2) and GB versus GiB (7.4 %)."),
    "bits-bytes+gb-gib": _("Two slips at once: bits versus bytes (×8) and GB versus GiB (7.4 %)."),
    "arithmetic": _("Not a unit slip: your answer is %(ratio)s× the right one. Recheck the arithmetic."),
    "sign": _("A time or a bandwidth cannot be negative."),
}
NOT_A_UNIT_SLIP = _("Not one of the usual unit slips: recheck the arithmetic.")
PRACTICE_TITLE = _("Practice quiz: %(chapter)s")
HINT = _("In %(unit)s, or with another unit of the same kind: the format is like %(example)s.")

MISCONCEPTIONS: dict[str, str] = {
    "direction": _("Both directions versus one"),
    "bits-bytes": _("Bits versus bytes"),
    "gb-gib": _("GB versus GiB"),
    "per-link": _("Per link versus per GPU"),
    "busbw-algbw": _("Bus bandwidth versus algorithm bandwidth"),
    "per-nic": _("Per NIC versus per node"),
    "line-rate": _("Line rate versus achieved rate"),
    "prefix": _("Prefix slip"),
    "topology": _("Topology assumption"),
    "scope": _("What the component does"),
}

CONFLICTS: dict[str, str] = {
    "already_answered": _("You have already answered this question; your answer is locked."),
    "closed": _("This attempt is over; answers can no longer be changed."),
    "timed_out": _("Time is up: the attempt has ended with the answers you had given."),
}

RATE_LIMITS: dict[str, str] = {
    "requests": _("Too many requests. Please wait %(seconds)s seconds and try again."),
    "requests_long": _("Too many requests from your network. Please try again in %(wait)s."),
    "exam_daily": _("You can take the exam at most %(count)s times in 24 hours. Try again in %(wait)s."),
    "exam_gap": _("Please wait %(wait)s before starting the exam again."),
}

NOT_FOUND = _("There is no such quiz or attempt.")

UNAVAILABLE = _(
    "The course database is not answering right now. Your answers so far are safe; please try again in a minute."
)


@dataclass(frozen=True, slots=True)
class FeedbackLine:
    label: str | None  # the misconception's name, when the option or the diagnosis names one
    text: str


class QuizText(Messages):
    """The quiz's messages and feedback in one language."""

    def submission_error(self, code: str, unit: str | None = None) -> str:
        return self.get(
            SUBMISSION_ERRORS.get(code, SUBMISSION_ERRORS["malformed"]),
            **({"unit": unit or ""} if code == "wrong_dimension" else {}),
        )

    def returned_error(self, attempt: AttemptView, question_id: str | None, code: str | None) -> dict[str, str]:
        """The message of an answer that was refused without JavaScript, by question id: the browser is sent
        back to the question with the error's code in the address (only a known code shows anything)."""
        drawn = attempt.question(question_id) if question_id else None
        if drawn is None or code not in SUBMISSION_ERRORS:
            return {}
        return {drawn.id: self.submission_error(code, drawn.unit)}

    def conflict(self, code: str) -> str:
        return self.get(CONFLICTS[code])

    def not_found(self) -> str:
        return self.get(NOT_FOUND)

    def unavailable(self) -> str:
        return self.get(UNAVAILABLE)

    def rate_limited(self, error: RateLimitedError) -> str:
        wait = self.duration(error.retry_after_s)
        if error.reason == "exam_daily":
            count = error.quiz.attempts_per_day if error.quiz is not None else None
            return self.get(RATE_LIMITS["exam_daily"], count=count or 0, wait=wait)
        if error.reason == "exam_gap":
            return self.get(RATE_LIMITS["exam_gap"], wait=wait)
        if error.retry_after_s > 90:  # "90103 seconds" says nothing a person can use
            return self.get(RATE_LIMITS["requests_long"], wait=wait)
        return self.get(RATE_LIMITS["requests"], seconds=error.retry_after_s)

    def title(self, quiz: Quiz, chapter_title: str | None) -> str:
        """Every chapter quiz is named after its chapter, in one pattern; the exam keeps its own title."""
        if quiz.is_exam or chapter_title is None:
            return quiz.title.get(self.language)
        return self.get(PRACTICE_TITLE, chapter=chapter_title)

    def duration(self, seconds: int) -> str:
        minutes = -(-seconds // 60)
        if minutes >= 90:
            hours = -(-minutes // 60)
            return self.translations.ngettext("%(num)d hour", "%(num)d hours", hours) % {"num": hours}
        return self.translations.ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}

    def misconception(self, code: str | None) -> str | None:
        if code is None or code not in MISCONCEPTIONS:
            return None
        return self.get(MISCONCEPTIONS[code])

    def feedback(self, answer: AnswerView) -> list[FeedbackLine]:
        return [self._line(item) for item in answer.feedback]

    def _line(self, item: Feedback) -> FeedbackLine:
        if item.text is not None:
            return FeedbackLine(self.misconception(item.misconception), item.text.get(self.language))
        if item.diagnosis is not None:
            codes = item.diagnosis.split("+")
            label = self.misconception(codes[0]) if len(codes) == 1 else None
            template = DIAGNOSES.get(item.diagnosis, DIAGNOSES["arithmetic"])
            if "%(ratio)s" not in template:
                return FeedbackLine(label, self.get(template))
            if item.ratio is None:  # a zero answer: there is no ratio to show
                return FeedbackLine(label, self.get(NOT_A_UNIT_SLIP))
            return FeedbackLine(label, self.get(template, ratio=significant(item.ratio, self.language)))
        return FeedbackLine(self.misconception(item.misconception), "")

    def expected(self, answer: AnswerView) -> str | None:
        if answer.correct_value is None:
            return None
        return f"{significant(answer.correct_value, self.language)} {answer.drawn.unit}"

    def hint(self, drawn: DrawnView) -> str:
        example = drawn.hint_example(self.language)
        return self.get(HINT, unit=drawn.unit or "", example=example or "")
