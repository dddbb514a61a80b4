"""The certificates' sentences for people: the English messages (extracted by gettext) and `CertificateText`,
which puts them in one language with the catalog it is handed (the web layer's, or the CLI's)."""

from __future__ import annotations

from app.i18n import Messages, _

NAME_PROBLEMS: dict[str, str] = {
    "empty": _("Enter the name to print on the certificate."),
    "too_long": _("The name can be at most 100 characters long."),
    "no_letter": _("The name needs at least one letter."),
    "control": _("The name cannot contain control characters or line breaks."),
    "bidi": _(
        "The name cannot contain text-direction control characters: they can make a name display as something "
        "else. Type the name without them."
    ),
    "invisible": _("The name contains invisible or unassigned characters. Type it again without them."),
    "blank": _(
        "The name contains a character that prints as nothing (a Hangul filler, a variation selector or a blank "
        "braille cell). Type it again without it."
    ),
    "email": _("That does not look like an e-mail address. Leave the field empty or check it."),
}

NOT_ELIGIBLE: dict[str, str] = {
    "not_passed": _(
        "The certificate is for learners who have passed the final exam. Pass the exam in this browser, then "
        "come back here to claim it."
    ),
    "no_exam": _("This course has no final exam, so it issues no certificates."),
}

NOT_FOUND = _(
    "No certificate has this ID: check it for typing errors (an ID is 26 letters and digits). A forged ID looks "
    "like this too."
)
RATE_LIMITED = _("Too many certificate lookups from your address. Please wait %(seconds)s seconds and try again.")
ARTIFACT_UNAVAILABLE = _("This file cannot be made right now. The certificate itself and its JSON are available.")
SUPERSEDED = _("Replaced by a certificate with a corrected name.")

# What each failed check means, for the verification page and the API's `checks`.
CHECK_NAMES: dict[str, str] = {
    "format": _("Open Badges credential"),
    "issuer": _("Issuer"),
    "key": _("Issuer's key"),
    "signature": _("Signature"),
    "jwt_claims": _("JWT claims"),
    "validity_period": _("Validity period"),
    "status": _("Revocation status"),
    "embedded_copy": _("JSON and JWT agree"),
}
PROBLEMS: dict[str, str] = {
    "jws_format": _("This is not a compact JWS (three base64url parts)."),
    "jws_algorithm": _("The JWS is not signed with EdDSA."),
    "jws_type": _("The JWS header's typ is not vc+jwt."),
    "not_open_badge": _("This is not an OpenBadgeCredential."),
    "duplicate_names": _(
        "An object in it names the same member twice, which JSON canonicalisation (RFC 8785) forbids: readers "
        "would disagree on which value counts, so it is not verified."
    ),
    "not_json": _("This is not readable JSON."),
    "no_subject": _("The credential has no credentialSubject."),
    "foreign_issuer": _("The issuer is not this site."),
    "not_checked": _("Not checked: an earlier step failed."),
    "unknown_key": _("The credential names a key this issuer never used."),
    "no_proof": _("The credential has no proof."),
    "proof_format": _("The proof is incomplete."),
    "cryptosuite": _("The proof is not an eddsa-jcs-2022 DataIntegrityProof."),
    "purpose": _("The proof's purpose is not assertionMethod."),
    "context": _("The proof's @context differs from the credential's."),
    "canonical": _("The credential cannot be canonicalised (RFC 8785)."),
    "signature": _("The signature does not match: the credential was changed after it was signed."),
    "claims_mismatch": _("The JWT's iss, jti or nbf do not match the credential."),
    "bad_dates": _("The credential's validFrom is missing or malformed."),
    "not_yet_valid": _("The credential is not valid yet."),
    "expired": _("The credential has expired."),
    "no_status": _("The credential has no status entry in this issuer's status lists."),
    "revoked": _("The credential has been revoked."),
    "copies_differ": _("The JSON credential and the JWT do not carry the same credential."),
}
PASSED = _("Passed.")

# The credential's own words, in the certificate's language.
ACHIEVEMENT_CRITERIA = _(
    "Passed the course's final exam on %(date)s: %(count)d questions drawn from every chapter, at least "
    "%(worked)d of them calculations worked from the course's formulas, open book with the course's interactive "
    "lab, in at most %(minutes)d minutes, with at least %(percent)d %% right. The exam gives no verdict on an "
    "answer before it ends."
)
BADGE_CAPTION = _("Badge of %(course)s")
# The skills the achievement attests (OB 3.0 Achievement.tag). Product and protocol names are the same in every
# language; the concepts are translated.
PRODUCT_SKILLS = ("PCIe", "NVLink", "NVSwitch", "NVL72", "InfiniBand", "RoCE", "NCCL")
CONCEPT_SKILLS = (
    _("GPU interconnects"),
    _("Collective communication"),
    _("Scale-up and scale-out networks"),
    _("Bandwidth and latency estimation"),
)
EVIDENCE_NAME = _("Final exam")
EVIDENCE_DESCRIPTION = _(
    "The passed attempt: its seed, the questions drawn and their parameters, and the version of the course content."
)
OPERATOR_EVIDENCE_NAME = _("Issued by the course operator")
OPERATOR_EVIDENCE_DESCRIPTION = _("Issued from the command line, without an exam attempt on this site.")

# The printable PDF and the preview image.
PDF_TITLE = _("Certificate of completion")
PDF_AWARDED_TO = _("This certifies that")
PDF_COMPLETED = _("has completed the course and passed its final exam:")
PDF_ISSUED = _("Issued")
PDF_ID = _("Certificate ID")
PDF_VERIFY = _("Verify at")
PDF_KEY = _("Signing key")
PDF_SCAN = _("Scan to verify")
PDF_REVOKED = _("Revoked on %(date)s: %(reason)s")
PREVIEW_VERIFIED = _("Verified certificate")
PREVIEW_REVOKED = _("Revoked certificate")
PREVIEW_INVALID = _("Invalid signature")
QR_TITLE = _("Verification QR code of the certificate of %(name)s")


class CertificateText(Messages):
    """The certificate messages in one language."""

    def name_problem(self, code: str) -> str:
        return self.get(NAME_PROBLEMS.get(code, NAME_PROBLEMS["invisible"]))

    def not_eligible(self, reason: str) -> str:
        return self.get(NOT_ELIGIBLE.get(reason, NOT_ELIGIBLE["not_passed"]))

    def not_found(self) -> str:
        return self.get(NOT_FOUND)

    def rate_limited(self, seconds: int) -> str:
        return self.get(RATE_LIMITED, seconds=seconds)

    def unavailable(self) -> str:
        return self.get(ARTIFACT_UNAVAILABLE)

    def check_name(self, name: str) -> str:
        return self.get(CHECK_NAMES.get(name, name))

    def problem(self, code: str | None) -> str:
        if code is None:
            return self.get(PASSED)
        return self.get(PROBLEMS[code]) if code in PROBLEMS else code

    def reason(self, reason: str | None) -> str:
        """A revocation reason: the service's code for a name correction, else the operator's own words."""
        if reason == "superseded":
            return self.get(SUPERSEDED)
        return reason or ""


def skills(text: CertificateText) -> tuple[str, ...]:
    """The achievement's tags in the certificate's language: the concepts first, then the products."""
    return (*(text.get(skill) for skill in CONCEPT_SKILLS), *PRODUCT_SKILLS)
