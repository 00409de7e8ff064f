"""`spanproof view`: a local web app to read runs and gate results and review each claim
against its span. The top layer (with the CLI): it may import anything; nothing imports it."""

from spanproof.core.lazy import lazy_exports

__all__ = ["ViewSettings", "create_app", "serve", "BindError"]

__getattr__ = lazy_exports(
    __name__,
    {
        "ViewSettings": "spanproof.view.settings",
        "BindError": "spanproof.view.settings",
        "create_app": "spanproof.view.app",
        "serve": "spanproof.view.server",
    },
)
