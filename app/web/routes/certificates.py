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
from starlette.requests import HTTPConnection
from starlette.responses import Response

from app.certificates import qr as qr_code
from app.certificates.messages import QR_TITLE, CertificateText
from app.certificates.readmodels import CertificateView
from app.certificates.verification import Verification
from app.web.caching import RecheckedResponse, Representation
from app.web.deps import (
    NO_STORE,
    CertificateServiceDep,
    LanguageDep,
    PageDep,
    StateDep,
    client_of,
    no_store,
    refuse_cross_origin,
)
from app.web.htmx import VARY, wants_fragment
from app.web.i18n import request_language
from app.web.routes.api_simulator import ErrorOut
from app.web.templating import HTML
from app.web.templating.urls import url_path

router = APIRouter(include_in_schema=False, dependencies=[Depends(refuse_cross_origin)])
api_router = APIRouter(
    prefix="/api/v1", tags=["certificates"], dependencies=[Depends(refuse_cross_origin), Depends(no_store)]
)

MAX_NAME_INPUT = 1000
PUBLIC_READ = {"access-control-allow-origin": "*", "cross-origin-resource-policy": "cross-origin"}
PAGE_HEADERS = {
    "cache-control": "no-cache",
    "x-robots-tag": "noindex",
    "vary": f"Accept-Language, Cookie, {VARY}",
}
PAGE_HEADERS_EXTRA = {name: value for name, value in PAGE_HEADERS.items() if name != "cache-control"}
PAGES_REMEMBERED = 1024
# Everything of a CertificateView that the page shows: a page is prepared once per distinct value of these.
PAGE_INPUTS = (
    "id",
    "qr_url",
    "name",
    "course",
    "description",
    "language",
    "issued_at",
    "issuer_name",
    "issuer_id",
    "key",
    "score_percent",
    "pass_percent",
    "criteria",
    "revoked_at",
    "revocation_reason",
    "replaced_by",
)
_PAGES: dict[tuple[object, ...], Representation] = {}
ARTIFACT_CACHE = "public, max-age=300"
STATUS_LIST_CACHE = "public, max-age=60"
KEYS_CACHE = "public, max-age=60"


# --- the claim step ---------------------------------------------------------------------------------------


@router.get("/{lang}/certificate", name="certificate_claim")
async def claim_page(page: PageDep, certificates: CertificateServiceDep) -> Response:
    claim = await certificates.claim_status(page.context)
    name = claim.certificate.name if claim.certificate else ""
    return page.render("certificates/claim.html", claim=claim, name=name, email="", error=None, explanation=None)


@router.post("/{lang}/certificate", name="certificate_claim_post")
async def claim(
    page: PageDep,
    certificates: CertificateServiceDep,
    name: Annotated[str, Form(max_length=MAX_NAME_INPUT)] = "",
    email: Annotated[str, Form(max_length=MAX_NAME_INPUT)] = "",
) -> Response:
    issued = await certificates.claim(page.context, name, email or None)
    location = url_path(page.request, "certificate", certificate_id=issued.id)
    return RedirectResponse(f"{location}?lang={page.language}", status_code=303, headers=NO_STORE)


# --- the verification page and its artifacts --------------------------------------------------------------
# The suffixed routes come first: `/c/{certificate_id}` alone would also match "ID.json".


def _artifact(body: bytes, media_type: str, filename: str | None = None) -> Response:
    headers = {"cache-control": ARTIFACT_CACHE, "x-robots-tag": "noindex", **PUBLIC_READ}
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
    response.headers["cache-control"] = "no-cache"  # shows the revocation, once there is one
    return response


@router.get("/c/{certificate_id}.png", name="certificate_image")
async def certificate_image(request: Request, certificate_id: str, certificates: CertificateServiceDep) -> Response:
    _found, body = await certificates.artifact(client_of(request), certificate_id, "png")
    response = _artifact(body, "image/png")
    response.headers["cache-control"] = "no-cache"
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
        "switch": ("certificate_in_language", {"certificate_id": view.id, "lang": language}),
    }
    if qr_check is not None:
        template = "certificates/_qr_check.html" if wants_fragment(request) else "certificates/certificate.html"
        return state.templates.page(request, template, language, context, headers=PAGE_HEADERS)
    # Verified just now; what the page shows follows from the verdict and the stored row alone, so the bytes
    # (and their gzip) are made once per verdict and language, not per request. The page cache in front replays
    # them only after `recheck` has verified the certificate again for that request.
    key = _page_key(language, view)
    prepared = _PAGES.get(key)
    if prepared is None:
        html = state.templates.render_to_string(request.app, "certificates/certificate.html", language, context)
        prepared = Representation.build(html.encode(), HTML, "no-cache", headers=PAGE_HEADERS_EXTRA.items())
        _PAGES[key] = prepared
        if len(_PAGES) > PAGES_REMEMBERED:
            _PAGES.pop(next(iter(_PAGES)))

    async def recheck(connection: HTTPConnection) -> Representation | None:
        again = await certificates.recheck(certificate_id)
        return _PAGES.get(_page_key(request_language(connection), again)) if again is not None else None

    return RecheckedResponse(prepared, recheck)


def _page_key(language: str, view: CertificateView) -> tuple[object, ...]:
    return (language, *(getattr(view, name) for name in PAGE_INPUTS), view.state, tuple(view.failed_checks))


# --- what the issuer publishes ----------------------------------------------------------------------------


def _json(data: Any, cache_control: str, media_type: str = "application/json") -> JSONResponse:
    return JSONResponse(data, media_type=media_type, headers={"cache-control": cache_control, **PUBLIC_READ})


@router.get("/.well-known/did.json", name="did_document")
async def did_document(certificates: CertificateServiceDep) -> Response:
    return _json(await certificates.did_document(), KEYS_CACHE, "application/did+json")


@router.get("/.well-known/jwks.json", name="jwks")
async def jwks(certificates: CertificateServiceDep) -> Response:
    return _json(await certificates.jwks(), KEYS_CACHE, "application/jwk-set+json")


@router.get("/status/{number}", name="status_list")
async def status_list(number: str, certificates: CertificateServiceDep) -> Response:
    body = await certificates.status_list(number)
    return Response(body, media_type="application/json", headers={"cache-control": STATUS_LIST_CACHE, **PUBLIC_READ})


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
    headers = {"cache-control": "no-cache", "vary": "Accept, Accept-Language, Cookie"}
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
