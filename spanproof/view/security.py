"""The viewer's controls, in code: who may connect, what a page may run, which posts count.

- Host header: on a loopback bind only loopback names are accepted, so a web page on
  another site cannot reach the viewer through DNS rebinding.
- Access token (required off loopback): given once as ``?token=``, then kept in an
  HttpOnly, SameSite=Strict cookie; ``Authorization: Bearer`` works for scripts.
- CSRF: every state-changing form carries the per-process token; a POST without it,
  or from another origin, is refused before any handler runs.
- Content-Security-Policy forbids every script: the viewer ships none, so text that
  looks like HTML in a stored page can only ever be shown as text.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlencode, urlsplit

from starlette.datastructures import URL
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_COOKIE = "spanproof_view_token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

CSP = (
    "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self' data:; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    b"content-security-policy": CSP.encode(),
    b"x-content-type-options": b"nosniff",
    b"x-frame-options": b"DENY",
    b"referrer-policy": b"same-origin",
    b"cache-control": b"no-store",
}


def new_csrf_token() -> str:
    return secrets.token_urlsafe(32)


def same(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(str(a).encode(), str(b).encode())


class CsrfRefused(Exception):
    pass


def check_csrf(form_token: str | None, expected: str) -> None:
    if not same(form_token, expected):
        raise CsrfRefused(
            "refused: this form has no valid CSRF token (reload the page and submit again)"
        )


class Guard:
    """ASGI middleware applying the host, token, origin and header rules to every request."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: set[str] | None, token: str | None) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k not in SECURITY_HEADERS
                ]
                message["headers"] = headers + list(SECURITY_HEADERS.items())
            await send(message)

        refusal = self._refusal(Request(scope))
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, request: Request) -> Response | None:
        host = request.headers.get("host", "")
        if self.allowed_hosts is not None and host not in self.allowed_hosts:
            return PlainTextResponse(
                f"refused: unexpected Host header {host!r}; open the viewer at the address it "
                "printed at start",
                status_code=400,
            )
        if self.token is not None:
            supplied = request.query_params.get("token")
            if supplied is not None and request.method in SAFE_METHODS:
                if not same(supplied, self.token):
                    return PlainTextResponse("refused: wrong access token", status_code=401)
                # Trade the token in the address for a cookie, and drop it from the address.
                query = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                target = URL(request.url.path + ("?" + urlencode(query) if query else ""))
                response = RedirectResponse(str(target), status_code=303)
                response.set_cookie(
                    TOKEN_COOKIE, self.token, httponly=True, samesite="strict", path="/"
                )
                return response
            authorization = request.headers.get("authorization", "")
            bearer = authorization[7:] if authorization.lower().startswith("bearer ") else None
            if not (
                same(request.cookies.get(TOKEN_COOKIE), self.token) or same(bearer, self.token)
            ):
                return PlainTextResponse(
                    "refused: this viewer needs its access token; open the address with "
                    "?token=... that `spanproof view` printed at start",
                    status_code=401,
                )
        if request.method not in SAFE_METHODS:
            origin = request.headers.get("origin")
            if origin and origin != "null" and urlsplit(origin).netloc != host:
                return PlainTextResponse(
                    "refused: a state-changing request from another origin", status_code=403
                )
            if origin == "null":
                return PlainTextResponse(
                    "refused: a request with an opaque origin", status_code=403
                )
        return None
