"""Talking to OpenAI-compatible model servers: one client per endpoint, shared by every caller.

Public surface: ``client_for`` (the client factory), ``ModelClient``, its errors, the
concurrency limiters, the schema helpers, and ``structured`` (one typed call with its re-asks;
the chat types it speaks are in ``spanproof.wire.chat``).
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
from spanproof.wire.structured import MalformedReply, Structured, structured

__all__ = [
    "NEGOTIATION_ORDER",
    "AdaptiveLimiter",
    "CircuitOpen",
    "EndpointConfigError",
    "EndpointFailed",
    "EndpointRefused",
    "LoopSemaphore",
    "MalformedReply",
    "ModelClient",
    "Structured",
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
    "structured",
    "totals",
]
