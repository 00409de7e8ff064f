"""Talking to OpenAI-compatible model servers: one client per endpoint, shared by every caller.

Public surface: ``client_for`` (the client factory), ``ModelClient``, its errors, the
concurrency limiters and the schema helpers.
"""

from spanproof.wire.client import (
    NEGOTIATION_ORDER,
    CircuitOpen,
    EndpointConfigError,
    EndpointFailed,
    EndpointRefused,
    ModelClient,
    WireCounters,
    WireError,
    client_for,
    clients,
    close_clients,
    endpoint_dead,
    forget_clients,
    totals,
)
from spanproof.wire.limiter import AdaptiveLimiter, LoopSemaphore
from spanproof.wire.schema import json_from_reply, max_tokens_for, strict_schema

__all__ = [
    "NEGOTIATION_ORDER",
    "AdaptiveLimiter",
    "CircuitOpen",
    "EndpointConfigError",
    "EndpointFailed",
    "EndpointRefused",
    "LoopSemaphore",
    "ModelClient",
    "WireCounters",
    "WireError",
    "client_for",
    "clients",
    "close_clients",
    "endpoint_dead",
    "forget_clients",
    "json_from_reply",
    "max_tokens_for",
    "strict_schema",
    "totals",
]
