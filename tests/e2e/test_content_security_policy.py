"""The Content-Security-Policy, checked by what Chromium does with it rather than by its text: a page served with
the app's own headers refuses an inline script, an inline event handler, a style attribute and a script from
another origin that someone managed to put in it, and still runs the site's own script."""

from __future__ import annotations

from playwright.sync_api import Browser, Route, expect

from tests.e2e.browser import expect_csp_refusals, open_page

INJECTED = (
    "<script>window.injectedRan = true;</script>"
    '<img src="data:," onerror="window.handlerRan = true" alt="">'
    '<p id="injected-style" style="color: rgb(255, 0, 0)">injected</p>'
    '<script src="https://evil.example/x.js"></script>'
)


def test_the_policy_refuses_injected_scripts_and_styles_and_keeps_the_sites_own(
    browser: Browser, live_server: str
) -> None:
    path = "/en/guides/nvlink"

    def inject(route: Route) -> None:
        response = route.fetch()  # the app's real response, headers and all
        body = response.text().replace("</main>", INJECTED + "</main>", 1)
        assert INJECTED in body
        route.fulfill(response=response, body=body)

    with open_page(browser) as page:
        expect_csp_refusals(page)
        violations: list[str] = []
        page.on("console", lambda message: violations.append(message.text) if message.type == "error" else None)
        page.route(live_server + path, inject)
        page.goto(live_server + path)
        expect(page.locator("#injected-style")).to_be_attached()
        assert page.evaluate("() => window.injectedRan") is None
        assert page.evaluate("() => window.handlerRan") is None
        colour = page.locator("#injected-style").evaluate("element => getComputedStyle(element).color")
        assert colour != "rgb(255, 0, 0)"
        # The site's own script ran: it builds the figure the reader reaches.
        figure = page.locator("figure.dg").first
        figure.scroll_into_view_if_needed()
        expect(figure.locator(".dg-chart")).to_be_attached()
        refused = " ".join(text for text in violations if "Content Security Policy" in text)
        # Chromium names each refusal on the console, with the directive that refused it.
        assert "inline script" in refused, violations
        assert "style-src" in refused, violations
        assert "evil.example" in refused, violations
