"""`spanproof view`: a local web app to read runs and gate results and review each claim
against its span. The top layer (with the CLI): it may import anything; nothing imports it."""

from spanproof.view.app import create_app
from spanproof.view.server import serve
from spanproof.view.settings import BindError, ViewSettings

__all__ = ["BindError", "ViewSettings", "create_app", "serve"]
