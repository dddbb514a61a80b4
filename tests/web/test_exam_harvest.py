"""The harvest attack on the final exam (issue 9): throw-away learners from many addresses sit the exam, guess,
and record everything the server reveals; a fresh learner then answers from that record alone. It must not pass.

Forty learners, each with a fresh cookie and its own client address, start the exam under the production rate
limits. The address is set where the ASGI server sets it, in scope["client"] (tests.web.quizzes.ClientAddress),
which is all the app reads for its per-address limits; a real uvicorn would need --proxy-headers and forged
X-Forwarded-For headers to do the same, which tests uvicorn's header trust rather than the app. Half of them use
the JSON API, half the HTML pages with HTMX, and every one also reads its result and review pages, so that both
channels give up whatever they would.

What the record can hold, at most: which option text was right or wrong when a learner chose it, and, on
questions whose right answer is revealed anywhere, the option or the value. Before a learner has passed, the
exam reveals an answer's verdict and the name of its misconception, nothing more: choice questions can be learnt
from verdicts, numeric ones cannot (a wrong value says nothing of the right one, and most draw their parameters
from wide ranges, so a value seen once would rarely be asked again). With at least a quarter of every attempt
numeric and a pass mark of 80 %, the record cannot pass.
"""

from __future__ import annotations

import html
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.quiz.service import QuizPolicy
from tests.conftest import SettingsFactory
from tests.web.quizzes import (
    HX,
    ClientAddress,
    Clock,
    attempt_of,
    quiz_app,
    right_answer,
    state_of,
    wrong_answer,
)

ATTACKERS = 40
REVEALING_KEYS = ("explanation", "correct_tokens", "correct_value")


@dataclass
class Record:
    """Everything the attackers saw, by question id (numeric values also by the prompt, which shows the drawn
    parameters: a value is only worth reusing for the very same parameters)."""

    right_options: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    wrong_options: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    right_sets: dict[str, set[frozenset[str]]] = field(default_factory=lambda: defaultdict(set))
    wrong_sets: dict[str, set[frozenset[str]]] = field(default_factory=lambda: defaultdict(set))
    values: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    revealed_values: int = 0  # values the server showed (not a lucky guess)
    responses: list[str] = field(default_factory=list)  # every body, to search for what must never be in one

    def choice(self, question_id: str, kind: str, chosen: frozenset[str], correct: bool) -> None:
        if kind == "single":
            (self.right_options if correct else self.wrong_options)[question_id] |= chosen
        else:
            (self.right_sets if correct else self.wrong_sets)[question_id].add(chosen)

    def value(self, question_id: str, prompt: str, quantity: str, revealed: bool) -> None:
        self.values[(question_id, " ".join(prompt.split()))].add(quantity)
        self.revealed_values += revealed

    def values_for(self, question_id: str, prompt: str) -> list[str]:
        return sorted(self.values.get((question_id, " ".join(prompt.split())), ()))


def guess_value(rng: random.Random, unit: str) -> str:
    """What a learner who knows nothing types: a number somewhere in nine decades."""
    return f"{10 ** rng.uniform(-3, 6):.4g} {unit}"


def guess_options(rng: random.Random, kind: str, texts: list[str]) -> list[str]:
    if kind == "single":
        return [rng.choice(texts)]
    return rng.sample(texts, rng.randint(1, len(texts)))


# --- reading the HTML a learner gets ------------------------------------------------------------------------


@dataclass(frozen=True)
class ShownQuestion:
    id: str
    kind: str
    prompt: str
    options: dict[str, str]  # token -> text
    unit: str | None


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def questions_on_page(page: str) -> list[ShownQuestion]:
    shown = []
    for item in page.split('<li class="quiz-item" id="question-')[1:]:
        question_id = item.split('"', 1)[0]
        prompt_match = re.search(r'<span class="quiz-prompt">(.*?)</span>', item, re.S)
        assert prompt_match is not None
        options = dict(
            (token, _text(label))
            for token, label in re.findall(
                r'name="tokens" value="([^"]+)"\s+id="option-[^"]+"[^>]*>\s*<label for="option-[^"]+">(.*?)</label>',
                item,
                re.S,
            )
        )
        unit_match = re.search(r'<span class="quiz-unit" aria-hidden="true">(.*?)</span>', item)
        kind = "numeric" if 'name="value"' in item else "multiple" if 'type="checkbox"' in item else "single"
        shown.append(
            ShownQuestion(question_id, kind, _text(prompt_match.group(1)), options, unit_match and unit_match.group(1))
        )
    return shown


def read_feedback(record: Record, question: ShownQuestion, chosen: frozenset[str], answered: str) -> None:
    """What one question's HTML (the answer's fragment, or its review) says: the verdict, the options marked
    right, the expected value."""
    record.responses.append(answered)
    correct = "quiz-feedback is-correct" in answered
    if question.kind == "numeric":
        given = re.search(r"Your answer: (.*?)\.\s", _text(answered))
        if correct and given:
            record.value(question.id, question.prompt, given.group(1), revealed=False)
        expected = re.search(r"Expected: (.*?)\.(?:\s|$)", _text(answered))
        if expected:
            record.value(question.id, question.prompt, expected.group(1), revealed=True)
        return
    if chosen:
        record.choice(question.id, question.kind, chosen, correct)
    right = [
        _text(label)
        for label in re.findall(
            r'<li class="quiz-option[^"]*\bis-right\b[^"]*">.*?(?:<label[^>]*>|<span class="quiz-option-text">)(.*?)<',
            answered,
            re.S,
        )
    ]
    if right:
        record.choice(
            question.id, question.kind, frozenset(right[:1]) if question.kind == "single" else frozenset(right), True
        )


def review_items(review: str) -> dict[str, str]:
    return {
        match.group(1): match.group(0)
        for match in re.finditer(r'aria-labelledby="review-([^"]+)">.*?</article>', review, re.S)
    }


# --- the attackers --------------------------------------------------------------------------------------------


def attack_through_the_api(client: TestClient, record: Record, rng: random.Random) -> str:
    started = client.post("/api/v1/quizzes/exam/attempts?lang=en")
    assert started.status_code == 201, started.text
    body = started.json()
    record.responses.append(started.text)
    attempt_id: str = body["attempt_id"]
    for question in body["questions"]:
        texts = {option["token"]: option["text"] for option in question["options"]}
        if question["type"] == "numeric":
            typed = guess_value(rng, question["unit"])
            sent: dict[str, Any] = {"question_id": question["id"], "value": typed}
        else:
            chosen = guess_options(rng, question["type"], list(texts.values()))
            sent = {"question_id": question["id"], "tokens": [t for t, text in texts.items() if text in chosen]}
        response = client.post(f"/api/v1/attempts/{attempt_id}/answers?lang=en", json=sent)
        assert response.status_code == 200, response.text
        record.responses.append(response.text)
        answer = response.json()
        if question["type"] == "numeric":
            if answer["correct"]:
                record.value(question["id"], question["prompt"], typed, revealed=False)
            if answer["correct_value"] is not None:
                quantity = f"{answer['correct_value']:.6g} {answer['unit']}"
                record.value(question["id"], question["prompt"], quantity, revealed=True)
        else:
            record.choice(question["id"], question["type"], frozenset(chosen), answer["correct"])
            if answer["correct_tokens"]:
                right = frozenset(texts[token] for token in answer["correct_tokens"])
                record.choice(question["id"], question["type"], right, True)
    assert client.post(f"/api/v1/attempts/{attempt_id}/finish").status_code == 200
    record.responses.append(client.get(f"/api/v1/attempts/{attempt_id}?lang=en").text)
    return attempt_id


def attack_through_the_pages(client: TestClient, record: Record, rng: random.Random) -> str:
    landing = client.get("/en/exam")
    record.responses.append(landing.text)
    started = client.post("/en/exam", follow_redirects=False)
    assert started.status_code == 303, started.text
    attempt_id = started.headers["location"].rsplit("/", 1)[1]
    page = client.get(f"/en/attempts/{attempt_id}").text
    record.responses.append(page)
    for question in questions_on_page(page):
        url = f"/en/attempts/{attempt_id}/questions/{question.id}"
        chosen: frozenset[str] = frozenset()
        if question.kind == "numeric":
            data: dict[str, Any] = {"value": guess_value(rng, question.unit or "")}
        else:
            chosen = frozenset(guess_options(rng, question.kind, list(question.options.values())))
            data = {"tokens": [token for token, text in question.options.items() if text in chosen]}
        fragment = client.post(url, data=data, headers=HX)
        assert fragment.status_code == 200, fragment.text
        read_feedback(record, question, chosen, fragment.text)
    record.responses.append(client.get(f"/en/attempts/{attempt_id}").text)
    return attempt_id


def shown_questions(client: TestClient, attempt_id: str) -> list[ShownQuestion]:
    """The attempt's questions as the learner's own API shows them."""
    body = client.get(f"/api/v1/attempts/{attempt_id}?lang=en").json()
    return [
        ShownQuestion(q["id"], q["type"], q["prompt"], {o["token"]: o["text"] for o in q["options"]}, q["unit"])
        for q in body["questions"]
    ]


def read_the_result_and_review(client: TestClient, record: Record, attempt_id: str) -> None:
    questions = shown_questions(client, attempt_id)
    assert client.post(f"/en/attempts/{attempt_id}/finish", follow_redirects=False).status_code == 303
    record.responses.append(client.get(f"/en/attempts/{attempt_id}/result").text)
    review = client.get(f"/en/attempts/{attempt_id}/review").text
    record.responses.append(review)
    items = review_items(review)
    for question in questions:
        item = items[question.id]
        chosen = frozenset(
            _text(text)
            for text in re.findall(
                r'<span class="quiz-option-text">([^<]*)</span>\s*<span class="quiz-marks">\s*<span class="quiz-mark">',
                item,
            )
        )
        read_feedback(record, question, chosen, item)


@pytest.fixture
def exam_app(database_url: str, make_settings: SettingsFactory) -> Iterator[tuple[FastAPI, Clock]]:
    clock = Clock()
    application = quiz_app(database_url, make_settings, policy=None, clock=clock)  # the production limits
    assert state_of(application).quiz.policy == QuizPolicy()
    yield application, clock
    state_of(application).database.dispose()


def learner(application: FastAPI, number: int) -> TestClient:
    return TestClient(ClientAddress(application, f"198.51.100.{number}"))


def answer_from_the_record(client: TestClient, record: Record, rng: random.Random) -> dict[str, Any]:
    body = client.post("/api/v1/quizzes/exam/attempts?lang=en").json()
    attempt_id = body["attempt_id"]
    known = 0
    for question in body["questions"]:
        qid = question["id"]
        texts = {option["text"]: option["token"] for option in question["options"]}
        if question["type"] == "numeric":
            recorded = record.values_for(qid, question["prompt"])
            known += bool(recorded)
            sent: dict[str, Any] = {
                "question_id": qid,
                "value": recorded[0] if recorded else guess_value(rng, question["unit"]),
            }
        elif question["type"] == "single":
            right = [text for text in texts if text in record.right_options.get(qid, ())]
            left = [text for text in texts if text not in record.wrong_options.get(qid, ())] or list(texts)
            known += bool(right) or len(left) == 1
            sent = {"question_id": qid, "tokens": [texts[(right or [rng.choice(left)])[0]]]}
        else:
            sets = [s for s in record.right_sets.get(qid, ()) if s <= set(texts)]
            if sets:
                chosen = sorted(sets[0])
                known += 1
            else:
                candidates = [
                    subset
                    for subset in (frozenset(rng.sample(list(texts), rng.randint(1, len(texts)))) for _ in range(50))
                    if subset not in record.wrong_sets.get(qid, ())
                ]
                chosen = sorted(candidates[0] if candidates else texts)
            sent = {"question_id": qid, "tokens": [texts[text] for text in chosen]}
        assert client.post(f"/api/v1/attempts/{attempt_id}/answers", json=sent).status_code == 200
    finished: dict[str, Any] = client.post(f"/api/v1/attempts/{attempt_id}/finish").json()
    return finished | {"known": known, "numeric": sum(q["type"] == "numeric" for q in body["questions"])}


def answer_giveaways(application: FastAPI) -> list[str]:
    """Every text of the exam bank that gives an answer away: explanations and the options' own feedback."""
    found: list[str] = []
    for question in state_of(application).quiz.exam().questions:
        explanation = question.explanation.en
        found.append(explanation.split("{")[0].strip() if "{" in explanation else explanation)
        found += [option.feedback.en for option in question.options if option.feedback is not None]
    return [text for text in found if len(text) > 20]


def test_throwaway_learners_cannot_harvest_the_exam(exam_app: tuple[FastAPI, Clock]) -> None:
    application, _clock = exam_app
    exam = state_of(application).quiz.exam()
    rng = random.Random(9)
    record = Record()
    for number in range(ATTACKERS):
        with learner(application, number + 1) as attacker:
            attack = attack_through_the_api if number % 2 == 0 else attack_through_the_pages
            attempt_id = attack(attacker, record, rng)
            read_the_result_and_review(attacker, record, attempt_id)

    # Nothing the server sent gives an answer away: no value, no right option, no explanation, no option's feedback.
    assert record.revealed_values == 0
    everything = html.unescape("\n".join(record.responses))
    for giveaway in answer_giveaways(application):
        assert giveaway not in everything, giveaway
    for text in record.responses:
        if text.startswith("{"):
            body = json.loads(text)
            for answer in [*body.get("answers", []), *([body] if "correct" in body else [])]:
                assert all(answer[key] is None for key in REVEALING_KEYS), answer
    assert "quiz-mark-right" not in everything
    assert "is-right" not in everything
    assert "Expected:" not in everything

    # What the verdicts do give away was learnt: many choice questions ...
    assert len(record.right_options) + len(record.right_sets) >= 20
    # ... and still a fresh learner who answers from the record alone does not pass: every attempt is at least a
    # quarter numeric, and the rest is not enough for the pass mark.
    assert (exam.draw - exam.min_numeric) * 100 < exam.pass_percent * exam.draw
    with learner(application, 250) as fresh:
        result = answer_from_the_record(fresh, record, rng)
    assert result["numeric"] >= exam.min_numeric
    assert result["passed"] is False, result
    assert result["score_percent"] < exam.pass_percent


def assert_nothing_revealed(answer: dict[str, Any]) -> None:
    assert all(answer[key] is None for key in REVEALING_KEYS), answer


def test_the_exam_reveals_its_answers_only_once_the_learner_has_passed(exam_app: tuple[FastAPI, Clock]) -> None:
    application, clock = exam_app
    with learner(application, 251) as client:
        first = client.post("/api/v1/quizzes/exam/attempts").json()["attempt_id"]
        questions = attempt_of(application, client, first).questions
        *by_api, by_page = questions
        for drawn in by_api:
            response = client.post(f"/api/v1/attempts/{first}/answers", json=wrong_answer(drawn))
            assert response.status_code == 200
            assert response.json()["correct"] is False
            assert_nothing_revealed(response.json())
        form = right_answer(by_page)
        data = {"value": f"{form['value']} {form['unit']}"} if "value" in form else {"tokens": form["tokens"]}
        fragment = client.post(f"/en/attempts/{first}/questions/{by_page.id}", data=data, headers=HX).text
        assert "Correct." in fragment  # the verdict, and nothing more
        assert "quiz-mark-right" not in fragment
        assert "Expected:" not in fragment
        assert "shown once you have passed it" in fragment
        assert client.post(f"/api/v1/attempts/{first}/finish").json()["passed"] is False
        for lang in ("en", "ko"):
            review = client.get(f"/{lang}/attempts/{first}/review").text
            assert "quiz-mark-right" not in review
            assert "is-right" not in review
            assert "Expected:" not in review
            assert "정답:" not in review
        for answer in client.get(f"/api/v1/attempts/{first}").json()["answers"]:
            assert_nothing_revealed(answer)

        clock.advance(minutes=11)  # the exam's gap between attempts
        second = client.post("/api/v1/quizzes/exam/attempts").json()["attempt_id"]
        passing = attempt_of(application, client, second).questions
        for drawn in passing:
            response = client.post(f"/api/v1/attempts/{second}/answers", json=right_answer(drawn))
            assert response.json()["correct"] is True
            assert_nothing_revealed(response.json())  # not passed yet: this attempt is not over
        assert client.post(f"/api/v1/attempts/{second}/finish").json() == {"score_percent": 100, "passed": True}

        review = client.get(f"/en/attempts/{second}/review").text
        choices = sum(drawn.type != "numeric" for drawn in passing)
        assert review.count("quiz-mark-right") >= choices
        assert review.count("Expected:") == len(passing) - choices
        assert "shown once you have passed it" not in review
        earlier = client.get(f"/ko/attempts/{first}/review").text  # the earlier attempt's answers too, now
        assert earlier.count("quiz-mark-right") >= sum(drawn.type != "numeric" for drawn in questions)
        revealed = client.get(f"/api/v1/attempts/{first}").json()["answers"]
        assert all(answer["explanation"] for answer in revealed)
        for answer in revealed:
            key = "correct_value" if answer["unit"] and answer["correct_tokens"] is None else "correct_tokens"
            assert answer[key] is not None, answer

        clock.advance(minutes=11)
        third = client.post("/api/v1/quizzes/exam/attempts").json()["attempt_id"]
        drawn = attempt_of(application, client, third).questions[0]
        answer = client.post(f"/api/v1/attempts/{third}/answers", json=wrong_answer(drawn)).json()
        assert answer["explanation"]
        assert answer["correct_value" if drawn.type == "numeric" else "correct_tokens"] is not None


def test_one_address_cannot_sit_the_exam_for_many_learners(exam_app: tuple[FastAPI, Clock]) -> None:
    """Why the attack needs many addresses: fresh cookies from one address hit the per-address limit."""
    application, _clock = exam_app
    limit = state_of(application).quiz.policy.exam_start_per_client.requests
    statuses = []
    for _ in range(limit + 1):
        with learner(application, 77) as client:
            statuses.append(client.post("/api/v1/quizzes/exam/attempts").status_code)
    assert statuses == [201] * limit + [429]
    with learner(application, 78) as elsewhere:
        assert elsewhere.post("/api/v1/quizzes/exam/attempts").status_code == 201
        assert elsewhere.post("/api/v1/quizzes/nvlink/attempts").status_code == 201
