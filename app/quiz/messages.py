"""The quiz's sentences for learners, in English; the web layer translates them (gettext extracts `_`)."""

from __future__ import annotations


def _(message: str) -> str:
    """Marks a message for extraction; translated where it is shown."""
    return message


SUBMISSION_ERRORS: dict[str, str] = {
    "no_choice": _("Choose an answer first."),
    "one_choice": _("Choose exactly one answer."),
    "unknown_option": _("That answer is not one of this question's options. Reload the page and try again."),
    "unknown_question": _("This question is not part of this attempt."),
    "expected_tokens": _("This question is answered by choosing options."),
    "expected_value": _("This question is answered with a number and a unit."),
    "not_a_number": _("Type a number, for example 2.4 ms or 450 GB/s."),
    "missing_unit": _("Add a unit, for example ms or GB/s."),
    "unknown_unit": _("Unknown unit. Use s, ms, µs, ns for time, or B/s, MB/s, GB/s, TB/s, Gb/s for bandwidth."),
    "wrong_dimension": _("That unit measures something else: this question asks for %(unit)s."),
    "too_long": _("That answer is too long."),
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
    "exam_daily": _("You can take the exam at most %(count)s times in 24 hours. Try again in %(wait)s."),
    "exam_gap": _("Please wait %(wait)s before starting the exam again."),
}

NOT_FOUND = _("There is no such quiz or attempt.")
