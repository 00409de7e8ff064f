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


def serve(settings: ViewSettings, say: Callable[[str], None] = print) -> None:
    """Raises BindError before binding anything when the bind is not allowed."""
    import uvicorn

    from spanproof.view.app import create_app

    check_bind(settings.host, settings.token)
    _port_free(settings.host, settings.port)
    app = create_app(settings)
    say(f"spanproof view: runs and gate results of {settings.home}")
    if settings.token:
        say(f"access token: {settings.token}")
    if not is_loopback(settings.host):
        say("listening beyond this machine; every request must carry the token above")
    say(f"open {address(settings)}  (Ctrl-C stops)")
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        server_header=False,
    )
