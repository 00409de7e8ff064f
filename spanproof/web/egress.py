"""Egress: the only way anything in spanproof reaches a web server.

The controls live in code, at the HTTP transport, not in a prompt:

- GET only. ``Fetcher`` has no method that sends anything else, and its
  transport (``PolicyTransport``) refuses any non-GET request that reaches it
  by another route.
- Host allowlist, checked by the transport for EVERY request, so each redirect
  hop (followed by hand, never by httpx) is re-checked. Entries:
  ``host`` matches that host on any port; ``host:port`` matches only that
  port; ``*.suffix`` matches any subdomain of ``suffix`` (not ``suffix``
  itself: list both if you mean both), optionally with ``:port``. Matching is
  on the lowercased host without a trailing dot; URLs with credentials
  (``user@host``) and schemes other than http/https are refused.
- Size cap enforced while streaming (a Content-Length above the cap is
  refused before the body is read), content-type allowlist, connect/read
  timeouts and a deadline for the whole page (``page_timeout_s``, every hop
  included: a server that sends one byte a second cannot hold a run), at most
  ``max_redirects`` hops.
- Addresses (SSRF): a live fetch resolves the host itself and connects to the
  address it checked, at connect time, on every hop (``GuardedBackend`` under
  httpx), so a DNS answer that changes between a check and the connect
  (rebinding) cannot slip past. Loopback, link-local (169.254.169.254 and
  friends), private, shared, multicast, reserved and unspecified addresses are
  refused unless ``allow_networks`` names a network that holds them (the CLI's
  ``--allow-network CIDR``; the injection suite's and the tests' loopback
  servers are reached that way). A refusal is a ``URL_NOT_ALLOWED`` event: no
  connection was opened. An injected transport (replay, tests) opens no socket
  and is not guarded.
- Every attempted contact is an ``EgressEvent`` (allowed or refused). An
  event whose reason starts with ``URL_NOT_ALLOWED`` was stopped before any
  connection; every other event reached for the host (``contacted``).
  ``status`` is the HTTP status when a response arrived, else None.

URL normalisation (for "this URL appeared in a search hit or in the
question"), by urllib.parse rules: scheme and host lowercased; default port
(80 for http, 443 for https) dropped; fragment dropped; an empty path
becomes ``/``; userinfo kept; path and query kept byte for byte (no
percent-decoding, no parameter sorting, no dot-segment resolution), so two
URLs that could be served differently never compare equal.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx
from pydantic import BaseModel, Field, field_validator

from spanproof.core.evidence import Document, EgressEvent
from spanproof.core.tool_schema import ErrorCode, ToolFailure
from spanproof.core.urls import DEFAULT_PORTS, host_allowed, host_of
from spanproof.web.snapshots import SnapshotStore
from spanproof.wire.limiter import LoopSemaphore

if TYPE_CHECKING:
    from httpcore._backends.base import SOCKET_OPTION as SocketOption

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_CONTENT_TYPES = ["text/html", "text/plain", "application/xhtml+xml"]
# The whole page, all hops: the read timeout alone restarts with every byte that arrives.
DEFAULT_PAGE_TIMEOUT_S = 30.0
# Events also go to the list of the run that asked for the fetch (Toolbox.events).
_SINK: contextvars.ContextVar[list[EgressEvent] | None] = contextvars.ContextVar(
    "egress_sink", default=None
)


class AddressRefused(Exception):
    """Every address a host resolved to is one a live fetch may not reach (SSRF guard)."""

    def __init__(self, host: str, reasons: list[str]):
        self.host = host
        self.reasons = reasons
        super().__init__(f"{host} resolves only to refused addresses: {'; '.join(reasons)}")


def address_refusal(
    address: str, allow_networks: Iterable[ipaddress.IPv4Network | ipaddress.IPv6Network] = ()
) -> str | None:
    """None when a live fetch may connect to ``address``, else what kind of address it is."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if any(ip.version == net.version and ip in net for net in allow_networks):
        return None
    refused = {
        "loopback": ip.is_loopback,
        "link-local": ip.is_link_local,
        "multicast": ip.is_multicast,
        "unspecified": ip.is_unspecified,
        "reserved": ip.is_reserved,
        "private": ip.is_private,
    }
    for kind, is_kind in refused.items():
        if is_kind:
            return f"{ip} is a {kind} address"
    if not ip.is_global:
        return f"{ip} is not a public address"
    return None


async def _resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the OS resolver, off the event loop)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]  # an address is a str in every family


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend that resolves, checks and connects to the checked address.

    The host name is resolved once per connection; only an address that passes
    ``address_refusal`` is connected to (TLS still verifies the host name, which httpcore
    passes as SNI), so what was checked is what is reached.
    """

    def __init__(
        self, inner: httpcore.AsyncNetworkBackend, allow_networks: Iterable[IPNetwork]
    ) -> None:
        self._inner = inner
        self._allow = list(allow_networks)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await asyncio.wait_for(_resolve(host, port), timeout)
        except (TimeoutError, OSError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        refused = []
        for address in dict.fromkeys(addresses):
            reason = address_refusal(address, self._allow)
            if reason is None:
                return await self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address,
                    socket_options=socket_options,
                )  # fmt: skip
            refused.append(reason)
        raise AddressRefused(host, refused)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise AddressRefused(path, ["unix sockets are never fetched"])

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """httpx's default certificate verification, built once per process: every fetcher (the
    injection suite makes one per page) used to load the CA bundle again, 40 ms each."""
    return httpx.create_ssl_context()


def guarded_transport(allow_networks: Iterable[IPNetwork] = ()) -> httpx.AsyncHTTPTransport:
    """httpx's own transport with the address guard under its connection pool."""
    transport = httpx.AsyncHTTPTransport(verify=_tls_context())
    pool = getattr(transport, "_pool", None)  # httpx's private pool: checked, not assumed
    if pool is None or not hasattr(pool, "_network_backend"):
        # Fail closed: never fetch live without the guard because httpx changed shape.
        raise RuntimeError(
            "this httpx version does not expose its connection pool's network backend, so the "
            "address guard cannot be installed; pin httpx to a version spanproof supports"
        )
    pool._network_backend = GuardedBackend(pool._network_backend, allow_networks)
    return transport


class EgressPolicy(BaseModel):
    allow_hosts: list[str]
    # Networks a live fetch may reach although they are loopback/private/link-local/...
    # (CIDR strings, e.g. "127.0.0.0/8"); empty = public addresses only.
    allow_networks: list[str] = Field(default_factory=list)
    max_bytes: int = Field(default=2_000_000, gt=0)
    content_types: list[str] = Field(default_factory=lambda: list(DEFAULT_CONTENT_TYPES))
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 15.0
    page_timeout_s: float = Field(default=DEFAULT_PAGE_TIMEOUT_S, gt=0)
    max_redirects: int = Field(default=5, ge=0)

    def check_url(self, url: str) -> str | None:
        """None when the URL may be contacted, else the reason it may not."""
        try:
            parts = urlsplit(url)
            _ = parts.port  # a port out of range raises ValueError here
        except ValueError as exc:
            return f"malformed URL ({exc})"
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS:
            return f"scheme {parts.scheme!r} is not http or https"
        if parts.username is not None or parts.password is not None:
            return "URLs with credentials are refused"
        if not (parts.hostname or "").rstrip("."):
            return "URL has no host"
        if host_allowed(url, self.allow_hosts):
            return None
        return f"host {host_of(url)!r} is not on the allowlist"

    @field_validator("allow_networks")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        for net in value:
            try:
                ipaddress.ip_network(net, strict=False)
            except ValueError as exc:
                raise ValueError(
                    f"{net!r} is not a network (write it as CIDR, e.g. 10.0.0.0/8)"
                ) from exc
        return value

    def networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        return [ipaddress.ip_network(n, strict=False) for n in self.allow_networks]

    def allows_content_type(self, content_type: str) -> bool:
        media = content_type.split(";", 1)[0].strip().lower()
        return media in {c.lower() for c in self.content_types}


class PolicyTransport(httpx.AsyncBaseTransport):
    """Wraps the real transport; refuses any request the policy does not allow.

    This is where "GET only" and the allowlist are enforced, so no code path
    (redirects, retries, a future feature) can bypass them.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport, policy: EgressPolicy, fetcher: Fetcher):
        self.inner = inner
        self.policy = policy
        self._fetcher = fetcher

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if request.method != "GET":
            raise self._fetcher._refuse(
                url,
                "URL_NOT_ALLOWED",
                f"method {request.method} is refused (GET only)",
                f"Only GET requests are allowed; {request.method} was refused.",
                retryable=False,
                method=request.method,
            )
        reason = self.policy.check_url(url)
        if reason is not None:
            raise self._fetcher._refuse(
                url,
                "URL_NOT_ALLOWED",
                reason,
                f"{reason}. Only allowlisted hosts can be fetched; pick another search hit.",
                retryable=False,
            )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Fetcher:
    """GETs pages under an EgressPolicy and stores them in a SnapshotStore."""

    def __init__(
        self,
        policy: EgressPolicy,
        store: SnapshotStore,
        transport: httpx.AsyncBaseTransport | None = None,
        record_to: Path | str | None = None,
        *,
        concurrency: int = 8,
    ):
        self.policy = policy
        self.store = store
        self.events: list[EgressEvent] = []
        self.record_to = Path(record_to) if record_to else None
        inner = transport or guarded_transport(policy.networks())
        self.transport = PolicyTransport(inner, policy, self)
        self._concurrency = concurrency
        self._slots = LoopSemaphore(concurrency)  # one per event loop, like the client
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def _client_for_loop(self) -> httpx.AsyncClient:
        # A client's connection pool belongs to one event loop; a new loop gets a new client.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client_loop = loop
            self._client = httpx.AsyncClient(
                transport=self.transport,
                follow_redirects=False,
                timeout=httpx.Timeout(
                    self.policy.read_timeout_s,
                    connect=self.policy.connect_timeout_s,
                    read=self.policy.read_timeout_s,
                ),
                headers={"User-Agent": "spanproof/0.1 (+evidence fetcher)"},
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _record(
        self,
        url: str,
        decision: str,
        reason: str = "",
        *,
        method: str = "GET",
        status: int | None = None,
        nbytes: int = 0,
        ms: float = 0.0,
    ) -> EgressEvent:
        event = EgressEvent(
            host=host_of(url),
            method=method,
            url=url,
            decision=decision,
            reason=reason,
            status=status,
            bytes=nbytes,
            ms=round(ms, 2),
        )
        self.events.append(event)
        run_sink = _SINK.get()  # the events list of the run whose fetch this is
        if run_sink is not None:
            run_sink.append(event)
        return event

    def _refuse(
        self,
        url: str,
        code: ErrorCode,
        detail: str,
        message: str,
        *,
        retryable: bool,
        method: str = "GET",
        status: int | None = None,
        nbytes: int = 0,
        started: float | None = None,
    ) -> ToolFailure:
        """Record a refused attempt and return the failure the caller raises."""
        ms = 0.0 if started is None else (time.perf_counter() - started) * 1000
        self._record(
            url, "refused", f"{code}: {detail}", method=method, status=status, nbytes=nbytes, ms=ms
        )
        return ToolFailure(code, message, retryable=retryable)

    async def fetch(self, url: str, *, sink: list[EgressEvent] | None = None) -> Document:
        """GET ``url`` (following allowed redirects by hand) and store the final body."""
        token = _SINK.set(sink)
        self._client_for_loop()
        try:
            async with self._slots:
                started = time.perf_counter()
                try:
                    async with asyncio.timeout(self.policy.page_timeout_s):
                        return await self._fetch(url)
                except TimeoutError:
                    limit = self.policy.page_timeout_s
                    raise self._refuse(
                        url,
                        "FETCH_FAILED",
                        f"the page did not finish within {limit:g} s",
                        f"{url} did not finish loading within {limit:g} s (a server that sends "
                        "its page this slowly is not a usable source). Pick another search hit.",
                        retryable=False,
                        started=started,
                    ) from None
        finally:
            _SINK.reset(token)

    async def _fetch(self, url: str) -> Document:
        client = self._client_for_loop()
        current = url
        for _hop in range(self.policy.max_redirects + 1):
            started = time.perf_counter()
            try:
                request = client.build_request("GET", current)
            except httpx.InvalidURL as exc:
                # A host httpx cannot read (999.1.1.1, the octal 0177.0.0.1): never contacted.
                raise self._refuse(
                    current,
                    "URL_NOT_ALLOWED",
                    f"malformed URL ({exc})",
                    f"{current} is not a URL that can be fetched ({exc}). Pick another search hit.",
                    retryable=False,
                ) from exc
            try:
                response = await client.send(request, stream=True)
            except ToolFailure:
                raise
            except AddressRefused as exc:
                raise self._refuse(
                    current,
                    "URL_NOT_ALLOWED",
                    f"address refused: {'; '.join(exc.reasons)}",
                    f"{current} resolves to an address that is not public "
                    f"({'; '.join(exc.reasons)}); such addresses are never fetched. Pick "
                    "another search hit.",
                    retryable=False,
                ) from exc
            except httpx.HTTPError as exc:
                raise self._refuse(
                    current,
                    "FETCH_FAILED",
                    f"{type(exc).__name__}: {exc}",
                    f"Could not fetch {current} ({type(exc).__name__}). Pick another search hit.",
                    retryable=True,
                    started=started,
                ) from exc
            try:
                if response.is_redirect and response.headers.get("location"):
                    target = urljoin(current, response.headers["location"])
                    self._record(
                        current,
                        "allowed",
                        f"redirect to {target}",
                        status=response.status_code,
                        ms=(time.perf_counter() - started) * 1000,
                    )
                    self._record_response(current, response, b"")
                    current = target
                    continue
                body = await self._read_body(current, response, started)
            finally:
                await response.aclose()
            elapsed = (time.perf_counter() - started) * 1000
            content_type = response.headers.get("content-type", "")
            if response.status_code >= 400:
                raise self._refuse(
                    current,
                    "FETCH_FAILED",
                    f"HTTP {response.status_code}",
                    f"{current} answered HTTP {response.status_code}. Pick another search hit.",
                    retryable=response.status_code >= 500,
                    status=response.status_code,
                    nbytes=len(body),
                    started=started,
                )
            self._record(
                current, "allowed", "", status=response.status_code, nbytes=len(body), ms=elapsed
            )
            self._record_response(current, response, body)
            return self.store.put(
                url,
                body,
                final_url=current,
                status=response.status_code,
                content_type=content_type,
                http_headers=list(response.headers.multi_items()),
            )
        raise self._refuse(
            current,
            "FETCH_FAILED",
            f"more than {self.policy.max_redirects} redirects",
            f"{url} redirected more than {self.policy.max_redirects} times. Pick another search hit.",
            retryable=False,
        )

    async def _read_body(self, url: str, response: httpx.Response, started: float) -> bytes:
        content_type = response.headers.get("content-type", "")
        if not self.policy.allows_content_type(content_type):
            raise self._refuse(
                url,
                "UNSUPPORTED_CONTENT_TYPE",
                content_type or "none",
                f"{url} is {content_type or 'of unknown type'}; only "
                f"{', '.join(self.policy.content_types)} can be read. Pick another search hit.",
                retryable=False,
                status=response.status_code,
                started=started,
            )
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.policy.max_bytes:
            raise self._too_large(url, response, int(declared), started)
        chunks: list[bytes] = []
        total = 0
        try:
            async for chunk in response.aiter_bytes():
                total += len(chunk)
                if total > self.policy.max_bytes:
                    raise self._too_large(url, response, total, started)
                chunks.append(chunk)
        except httpx.HTTPError as exc:
            raise self._refuse(
                url,
                "FETCH_FAILED",
                f"{type(exc).__name__}: {exc}",
                f"Reading {url} failed ({type(exc).__name__}). Pick another search hit.",
                retryable=True,
                status=response.status_code,
                nbytes=total,
                started=started,
            ) from exc
        return b"".join(chunks)

    def _too_large(
        self, url: str, response: httpx.Response, seen: int, started: float
    ) -> ToolFailure:
        return self._refuse(
            url,
            "TOO_LARGE",
            f"more than {self.policy.max_bytes} bytes",
            f"{url} is larger than {self.policy.max_bytes} bytes. Pick a shorter source.",
            retryable=False,
            status=response.status_code,
            nbytes=seen,
            started=started,
        )

    def _record_response(self, url: str, response: httpx.Response, body: bytes) -> None:
        if self.record_to is None:
            return
        from spanproof.web.corpus import append_response

        append_response(
            self.record_to,
            url,
            status=response.status_code,
            headers=list(response.headers.multi_items()),
            body=body,
        )


def contacted(event: EgressEvent) -> bool:
    """Did this attempt open (or try to open) a connection to the host?

    Only the policy's own refusals (reason ``URL_NOT_ALLOWED: ...``) stop a
    request before a socket is opened; every other event, allowed or refused
    (TOO_LARGE, UNSUPPORTED_CONTENT_TYPE, FETCH_FAILED), reached for the host.
    """
    return not event.reason.startswith("URL_NOT_ALLOWED")


def contacted_hosts(events: Iterable[EgressEvent]) -> set[str]:
    return {e.host for e in events if contacted(e)}
