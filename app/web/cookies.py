"""Every cookie the site sets is built here: HttpOnly, SameSite=Lax, Path=/, and over https Secure with the
`__Host-` prefix (which browsers accept only with Secure, Path=/ and no Domain, so a sibling subdomain cannot
plant one)."""

from __future__ import annotations

from http.cookies import SimpleCookie


def cookie_name(name: str, secure: bool) -> str:
    return f"__Host-{name}" if secure else name


def set_cookie_header(name: str, value: str, max_age_s: int, secure: bool) -> bytes:
    cookie: SimpleCookie = SimpleCookie()
    full_name = cookie_name(name, secure)
    cookie[full_name] = value
    morsel = cookie[full_name]
    morsel["path"] = "/"
    morsel["max-age"] = max_age_s
    morsel["httponly"] = True
    morsel["samesite"] = "Lax"
    if secure:
        morsel["secure"] = True
    return morsel.OutputString().encode("latin-1")
