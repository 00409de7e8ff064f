"""URLs in one canonical form, and the allowlist's host matching.

Egress decides with these what a run may contact and which fetch repeats a search hit; the
gate's audits of a run use the same functions, so an audit can never disagree with the rule it
audits about whether two URLs are one.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_url(url: str) -> str:
    """Canonical form used to compare URLs; raises ValueError for anything but http(s)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"unsupported scheme {parts.scheme!r}")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise ValueError("no host")
    port = parts.port  # raises ValueError for a bad port
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host
    if port is not None and port != DEFAULT_PORTS[scheme]:
        netloc = f"{host}:{port}"
    if parts.username is not None:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def host_of(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port is not None else host


def entry_matches(entry: str, host: str, port: int) -> bool:
    entry_port: int | None = None
    if entry.startswith("["):  # [v6]:port
        inner, _, rest = entry[1:].partition("]")
        entry_host = inner
        if rest.startswith(":") and rest[1:].isdigit():
            entry_port = int(rest[1:])
    elif entry.count(":") == 1:
        entry_host, _, port_text = entry.partition(":")
        if not port_text.isdigit():
            return False
        entry_port = int(port_text)
    else:
        entry_host = entry
    entry_host = entry_host.rstrip(".")
    if entry_port is not None and entry_port != port:
        return False
    if entry_host.startswith("*."):
        suffix = entry_host[1:]  # ".example.com"
        return host.endswith(suffix) and len(host) > len(suffix)
    return host == entry_host


def canonical_url(url: str) -> str:
    """``normalise_url``'s form, or the stripped text of a URL it refuses: what an audit of a
    recorded run compares, so it agrees with egress on every URL egress accepted and still reads
    a malformed one it recorded."""
    try:
        return normalise_url(url)
    except ValueError:
        return url.strip()


def host_allowed(url: str, allow_hosts: list[str] | tuple[str, ...]) -> bool:
    """Whether the URL's host and port match an allowlist entry (``host``, ``host:port``,
    ``[v6]:port`` or ``*.suffix``), exactly as egress decides it."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        return False
    effective = port if port is not None else DEFAULT_PORTS.get(parts.scheme.lower())
    if effective is None:
        return False
    return any(entry_matches(e.strip().lower(), host, effective) for e in allow_hosts)
