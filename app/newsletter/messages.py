"""The newsletter's sentences for people: the English messages (extracted by gettext) and `NewsletterText`,
which puts them in one language with the catalog it is handed (the web layer's, or the CLI's)."""

from __future__ import annotations

from app.i18n import Messages, _

INVALID_ADDRESS = _("Enter a valid e-mail address, such as name@example.com.")
RATE_LIMITED = _(
    "Too many sign-ups from your network or for this address. Please wait %(seconds)s seconds and try again."
)
MAIL_UNAVAILABLE = _("The confirmation mail cannot be sent right now. Please try again in a few minutes.")
TOKEN_PROBLEMS: dict[str, str] = {
    "unknown": _(
        "This link does not work. It may have been cut short: open the whole link from the mail, or sign up again "
        "below."
    ),
    "expired": _("This confirmation link has expired: links work for 48 hours. Sign up again below to get a new one."),
    "used": _("This confirmation link has already been used. If your subscription is not active, sign up again below."),
}

# The mails.
SENDER_NAME = _("Interconnects newsletter")
CONFIRM_SUBJECT = _("Confirm your subscription to the Interconnects newsletter")
CONFIRM_INTRO = _("Someone, probably you, asked to receive the Interconnects newsletter at this address.")
CONFIRM_ACTION = _("To confirm, open this link and press the button on the page:")
CONFIRM_BUTTON = _("Confirm my subscription")
CONFIRM_OUTRO = _(
    "The link works for 48 hours. If you did not ask for this, ignore this mail: without a confirmation you will "
    "get nothing more from us."
)
ALREADY_SUBJECT = _("You are already subscribed to the Interconnects newsletter")
ALREADY_BODY = _(
    "Someone, probably you, asked to subscribe this address again. It is already subscribed, so nothing changes. "
    "Every issue has a link to unsubscribe with one click."
)
ISSUE_FOOTER = _("You get this mail because you subscribed to the Interconnects newsletter.")
UNSUBSCRIBE = _("Unsubscribe with one click")
PRIVACY = _("Your address is used only to send you this newsletter. It is never sold or shared.")


class NewsletterText(Messages):
    """The newsletter messages in one language."""

    def invalid_address(self) -> str:
        return self.get(INVALID_ADDRESS)

    def rate_limited(self, seconds: int) -> str:
        return self.get(RATE_LIMITED, seconds=seconds)

    def mail_unavailable(self) -> str:
        return self.get(MAIL_UNAVAILABLE)

    def token_problem(self, reason: str) -> str:
        return self.get(TOKEN_PROBLEMS.get(reason, TOKEN_PROBLEMS["unknown"]))
