"""Start the viewer: check the bind, print where to open it, serve until interrupted."""

from __future__ import annotations

from collections.abc import Callable

from spanproof.view.settings import ViewSettings, check_bind, is_loopback


def address(settings: ViewSettings) -> str:
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    url = f"http://{host}:{settings.port}/"
    return url + (f"?token={settings.token}" if settings.token else "")


def _port_free(host: str, port: int) -> None:
    """Raise OSError now (with the reason) rather than let the server exit on its own."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))


def banner(settings: ViewSettings) -> list[str]:
    """What the viewer says at start: the store it reads (the database, with its password
    hidden, or the SQLite file), where span text comes from, the token, the address."""
    from spanproof.store.url import redact, resolve_db_url

    lines = [
        f"spanproof view: runs and gate results of {redact(resolve_db_url(settings.db, settings.home))}"
    ]
    if settings.db:
        lines.append(f"span text from the snapshots in {settings.home}")
    if settings.token:
        lines.append(f"access token: {settings.token}")
    if not is_loopback(settings.host):
        lines.append("listening beyond this machine; every request must carry the token above")
    lines.append(f"open {address(settings)}  (Ctrl-C stops)")
    return lines


def serve(settings: ViewSettings, say: Callable[[str], None] = print) -> None:
    """Raises BindError before binding anything when the bind is not allowed."""
    import uvicorn

    from spanproof.view.app import create_app

    check_bind(settings.host, settings.token)
    _port_free(settings.host, settings.port)
    app = create_app(settings)
    for line in banner(settings):
        say(line)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        server_header=False,
    )
