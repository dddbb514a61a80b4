"""Certificates: the claim step after a passed exam, the public verification page and its downloads, the
issuer's keys and status lists, and POST /api/v1/credentials/verify.

The verification page and its artifacts are public (no login) and answer in the visitor's language (?lang=, the
language cookie, then Accept-Language). The page is verified from the stored bytes on every request, so it is
never cached (`no-cache`) and never indexed (`noindex`). What third parties fetch to verify (the JSON, the JWT,
did.json, jwks.json, the status lists) may be read from any origin. Refusals are the service's domain errors,
answered by app.web.exceptions.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Form, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse
from markupsafe import Markup
from pydantic import BaseModel, Field
from starlette.responses import Response

from app.certificates import qr as qr_code
from app.certificates.messages import QR_TITLE, CertificateText
from app.certificates.verification import Verification
from app.web import cache_policy
from app.web.deps import (
    NO_STORE,
    CertificateServiceDep,
    LanguageDep,
    PageDep,
    StateDep,
    client_of,
    no_store,
)
from app.web.htmx import VARY, wants_fragment
from app.web.i18n import request_language
from app.web.routes.api_simulator import ErrorOut
from app.web.templating.urls import url_path

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api/v1", tags=["certificates"], dependencies=[Depends(no_store)])

MAX_NAME_INPUT = 1000
PUBLIC_READ = {"access-control-allow-origin": "*", "cross-origin-resource-policy": "cross-origin"}
PAGE_HEADERS = {
    cache_policy.HEADER: cache_policy.REVALIDATE,
    "x-robots-tag": "noindex",
    "vary": f"Accept-Language, Cookie, {VARY}",
}
ARTIFACT_CACHE = cache_policy.SHARED_DATA
STATUS_LIST_CACHE = cache_policy.SHARED_BRIEFLY
KEYS_CACHE = cache_policy.SHARED_BRIEFLY
BADGE_CACHE = cache_policy.SHARED_LONG  # the same art for every certificate; a new design keeps its URL


# --- the claim step ---------------------------------------------------------------------------------------


class ClaimForm(BaseModel):
    """The claim form as typed, bounded only in length: the service says what may go on a certificate."""

    name: str = Field("", max_length=MAX_NAME_INPUT)
    email: str = Field("", max_length=MAX_NAME_INPUT)


ClaimFormDep = Annotated[ClaimForm, Form()]


@router.get("/{lang}/certificate", name="certificate_claim")
async def claim_page(page: PageDep, certificates: CertificateServiceDep) -> Response:
    claim = await certificates.claim_status(page.context)
    name = claim.certificate.name if claim.certificate else ""
    return page.render("certificates/claim.html", claim=claim, name=name, email="", error=None, explanation=None)


@router.post("/{lang}/certificate/preview", name="certificate_preview")
async def claim_preview(page: PageDep, certificates: CertificateServiceDep, form: ClaimFormDep) -> Response:
    """The name as it will print: the fragment while typing (HTMX), else the claim page with it (no script)."""
    if wants_fragment(page.request):
        preview = certificates.preview(form.name)
        response = page.render(
            "certificates/_name_preview.html", preview=preview, text=certificates.text(page.language)
        )
    else:
        claim, preview = await certificates.claim_preview(page.context, form.name)
        response = page.render(
            "certificates/claim.html",
            claim=claim,
            name=form.name,
            email=form.email,
            error=None,
            explanation=None,
            preview=preview,
            text=certificates.text(page.language),
        )
    response.headers["vary"] = VARY
    return response


@router.post("/{lang}/certificate", name="certificate_claim_post")
async def claim(page: PageDep, certificates: CertificateServiceDep, form: ClaimFormDep) -> Response:
    issued = await certificates.claim(page.context, form.name, form.email or None)
    location = url_path(page.request, "certificate", certificate_id=issued.id)
    return RedirectResponse(f"{location}?lang={page.language}", status_code=303, headers=NO_STORE)


# --- the verification page and its artifacts --------------------------------------------------------------
# The suffixed routes come first: `/c/{certificate_id}` alone would also match "ID.json".


def _artifact(body: bytes, media_type: str, filename: str | None = None) -> Response:
    headers = {cache_policy.HEADER: ARTIFACT_CACHE, "x-robots-tag": "noindex", **PUBLIC_READ}
    if filename is not None:
        headers["content-disposition"] = f'inline; filename="{filename}"'
    return Response(body, media_type=media_type, headers=headers)


@router.get("/c/{certificate_id}.json", name="certificate_json")
async def certificate_json(request: Request, certificate_id: str, certificates: CertificateServiceDep) -> Response:
    found, body = await certificates.artifact(client_of(request), certificate_id, "json")
    return _artifact(body, "application/json", f"{found}.json")


@router.get("/c/{certificate_id}.jwt", name="certificate_jwt")
async def certificate_jwt(request: Request, certificate_id: str, certificates: CertificateServiceDep) -> Response:
    found, body = await certificates.artifact(client_of(request), certificate_id, "jwt")
    return _artifact(body, "application/jwt", f"{found}.jwt")


@router.get("/c/{certificate_id}.pdf", name="certificate_pdf")
async def certificate_pdf(request: Request, certificate_id: str, certificates: CertificateServiceDep) -> Response:
    found, body = await certificates.artifact(client_of(request), certificate_id, "pdf")
    response = _artifact(body, "application/pdf", f"certificate-{found}.pdf")
    cache_policy.apply(response, cache_policy.REVALIDATE)  # shows the revocation, once there is one
    return response


@router.get("/c/{certificate_id}.png", name="certificate_image")
async def certificate_image(request: Request, certificate_id: str, certificates: CertificateServiceDep) -> Response:
    _found, body = await certificates.artifact(client_of(request), certificate_id, "png")
    response = _artifact(body, "image/png")
    cache_policy.apply(response, cache_policy.REVALIDATE)
    return response


@router.get("/{lang}/c/{certificate_id}", name="certificate_in_language")
async def certificate_in_language(request: Request, lang: LanguageDep, certificate_id: str) -> Response:
    """The language switcher's target: the same page, in that language."""
    location = url_path(request, "certificate", certificate_id=certificate_id)
    return RedirectResponse(f"{location}?lang={lang}", status_code=303, headers=NO_STORE)


@router.get("/c/{certificate_id}", name="certificate")
async def certificate_page(
    request: Request,
    certificate_id: str,
    certificates: CertificateServiceDep,
    state: StateDep,
    qr: Annotated[str | None, Query(max_length=4096)] = None,
) -> Response:
    language = request_language(request)
    client = client_of(request)
    qr_check = None
    if qr:
        view, check, matches = await certificates.check_fragment(client, certificate_id, qr)
        qr_check = {"check": check, "matches": matches}
    else:
        view = await certificates.certificate(client, certificate_id)
    text = certificates.text(language)
    qr_title = text.get(QR_TITLE, name=view.name or view.id)
    context: dict[str, Any] = {
        "view": view,
        "qr_check": qr_check,
        "qr_svg": Markup(qr_code.svg(view.qr_url, qr_title, "certificate-qr")),  # noqa: S704  (qr.svg escapes the title)
        "text": text,
        "linkedin_organization_id": state.settings.linkedin_organization_id,
        "switch": ("certificate_in_language", {"certificate_id": view.id, "lang": language}),
    }
    if qr_check is not None:
        template = "certificates/_qr_check.html" if wants_fragment(request) else "certificates/certificate.html"
        return state.templates.page(request, template, language, context, headers=PAGE_HEADERS)
    # Verified just now; what the page shows follows from the view alone, so its bytes are made once per view
    # and language, and the page cache in front replays them after verifying again for each request.
    return state.certificate_pages.response(request, language, view, context)


# --- what the issuer publishes ----------------------------------------------------------------------------


def _json(data: Any, cache_control: str, media_type: str = "application/json") -> JSONResponse:
    return JSONResponse(data, media_type=media_type, headers={cache_policy.HEADER: cache_control, **PUBLIC_READ})


@router.get("/.well-known/did.json", name="did_document")
async def did_document(certificates: CertificateServiceDep) -> Response:
    return _json(await certificates.did_document(), KEYS_CACHE, "application/did+json")


@router.get("/.well-known/jwks.json", name="jwks")
async def jwks(certificates: CertificateServiceDep) -> Response:
    return _json(await certificates.jwks(), KEYS_CACHE, "application/jwk-set+json")


@router.get("/status/{number}", name="status_list")
async def status_list(number: str, certificates: CertificateServiceDep) -> Response:
    body = await certificates.status_list(number)
    return Response(
        body, media_type="application/json", headers={cache_policy.HEADER: STATUS_LIST_CACHE, **PUBLIC_READ}
    )


@router.get("/issuer/badge.{extension}", name="badge")
async def badge(extension: Literal["svg", "png"], certificates: CertificateServiceDep) -> Response:
    """The achievement's badge art, at the stable URLs every credential names (Achievement.image)."""
    body = await certificates.badge(extension)
    media_type = "image/svg+xml" if extension == "svg" else "image/png"
    return Response(body, media_type=media_type, headers={cache_policy.HEADER: BADGE_CACHE, **PUBLIC_READ})


@router.get("/issuer", name="issuer")
async def issuer(request: Request, certificates: CertificateServiceDep, state: StateDep) -> Response:
    """The issuer's Profile: JSON for a client that asks for it (Accept), else a page with every key."""
    accept = request.headers.get("accept", "")
    if "json" in accept and "text/html" not in accept:
        response = _json(certificates.profile(), KEYS_CACHE, "application/ld+json")
        response.headers["vary"] = "Accept"
        return response
    language = request_language(request)
    keys = await certificates.public_keys()
    context = {"issuer": certificates.issuer, "keys": keys, "switch": (None, {})}
    headers = {cache_policy.HEADER: cache_policy.REVALIDATE, "vary": "Accept, Accept-Language, Cookie"}
    return state.templates.page(request, "certificates/issuer.html", language, context, headers=headers)


# --- JSON API ---------------------------------------------------------------------------------------------


class CheckOut(BaseModel):
    name: str = Field(description="format, issuer, key, signature, jwt_claims, validity_period or status.")
    passed: bool
    message: str = Field(description="What the check found, in the requested language.")


class VerifyOut(BaseModel):
    valid: bool = Field(description="Every check passed: the signature is this issuer's and it is not revoked.")
    signature: Literal["valid", "invalid"] = Field(description="Whether the issuer's key signed exactly this.")
    status: Literal["active", "revoked"] | None = Field(
        description="The status-list bit; null when the credential names no status entry of this issuer."
    )
    checks: list[CheckOut]


def verification_out(verification: Verification, text: CertificateText) -> VerifyOut:
    return VerifyOut(
        valid=verification.valid,
        signature="valid" if verification.signature_valid else "invalid",
        status=verification.status,
        checks=[
            CheckOut(name=check.name, passed=check.passed, message=text.problem(check.problem))
            for check in verification.checks
        ],
    )


VERIFY_EXAMPLES = {
    "jwt": {"summary": "A compact JWS", "value": {"jwt": "eyJhbGciOiJFZERTQSIs..."}},
    "credential": {"summary": "A credential with its proof", "value": {"@context": ["..."], "proof": {}}},
}


@api_router.post(
    "/credentials/verify",
    name="api_verify_credential",
    response_model=VerifyOut,
    responses={
        403: {"model": ErrorOut, "description": "A foreign Origin or Sec-Fetch-Site."},
        422: {"model": ErrorOut, "description": "The body is not a JSON object."},
        429: {"model": ErrorOut, "description": "Too many verifications from this address; see Retry-After."},
        503: {"model": ErrorOut, "description": "The database does not answer; see Retry-After."},
    },
)
async def verify_credential(
    request: Request,
    certificates: CertificateServiceDep,
    body: Annotated[
        dict[str, Any],
        Body(
            description='An OpenBadgeCredential with its embedded proof, or {"jwt": "<compact JWS>"}.',
            openapi_examples=VERIFY_EXAMPLES,
        ),
    ],
    lang: Annotated[str | None, Query(description="en or ko; default: the negotiated language.")] = None,
) -> VerifyOut:
    # `body` is for the schema and its 422s; the check reads the bytes as sent, since the parsed body has already
    # kept one of two equal names (a verifier must refuse those).
    del body
    verification = await certificates.verify(client_of(request), await request.body())
    return verification_out(verification, certificates.text(request_language(request)))
