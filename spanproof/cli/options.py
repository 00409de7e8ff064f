"""Options and output helpers every spanproof command shares.

One definition of --home, --json and --base-url/--api-key, of progress lines
(stderr, silent under --json) and of JSON on stdout, so the commands cannot
drift apart in spelling, defaults or where their output goes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import click

if TYPE_CHECKING:
    from spanproof.core.specs import EndpointSettings

# a click command function or a command, as click's decorators take and return it
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

HOME_HELP = "State directory. Default: $SPANPROOF_HOME, else the per-user data dir."
DB_HELP = (
    "Store database: sqlite:///PATH or postgresql+psycopg://USER:PASS@HOST:PORT/DB, so several "
    "machines share runs, gate runs and the verdict cache. Default: $SPANPROOF_DB, else "
    "spanproof.sqlite in the home."
)


def judge_specs() -> str:
    """The judge specs the registry knows, for help text (built-ins and installed plug-ins),
    and how to name one."""
    from spanproof.graders.judges import judge_usage

    return f"{judge_usage()}; NAME=SPEC names it in every table (t5=scripted:t5.jsonl)"


def local_judges() -> str:
    """The judges that compute on this machine (declared ``local``), for help text."""
    from spanproof.graders.judges import judge_kinds

    return ", ".join(k.name for k in judge_kinds() if k.local)


# The scripted judge's file format, for the help of the commands that judge labelled pairs
# (graders/judges/scripted.py reads it; README "Scripted judges" says the same).
SCRIPTED_FORMAT_HELP = """\b
Scripted judges (scripted:FILE): a .jsonl file, one verdict a line, or a .json list of them
or object of them keyed by pair id. Each entry says which pair it answers by "id" (the pair
file's id), "key" (sha256 of claim + "\\n" + span, hex) or "claim" and "span", and gives
"verdict" (SUPPORTED | PARTIAL | NOT_SUPPORTED) with, optionally, "quote_used" (needed for a
SUPPORTED verdict to pass the audit), "unsupported_element", "confidence", "by_repeat" or
"flip_rate" (samples for --repeat). E.g.
  {"id": "wice-dev02986", "verdict": "NOT_SUPPORTED", "quote_used": ""}
A scripted judge answers only the pairs its file holds: any other pair is an error
(calibrate --cover compares judges on the pairs every judge covers instead).
"""


def home_option(help: str = HOME_HELP) -> Callable[[F], F]:
    return click.option("--home", type=click.Path(file_okay=False), default=None, help=help)


def db_option(help: str = DB_HELP) -> Callable[[F], F]:
    return click.option("--db", default=None, metavar="URL", help=help)


def storage_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """A storage problem (unusable home, damaged or unreachable database, damaged record)
    is one line on stderr that says how to recover, and exit 2 - never a traceback.
    Put it directly above the function, below the click decorators."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from spanproof.store.errors import StoreError

        try:
            return command(*args, **kwargs)
        except StoreError as exc:
            err(f"Error: {exc}")
            sys.exit(exc.exit_code)

    return wrapper


def json_option(
    help: str = "Print one JSON document on stdout (no progress, no table).",
) -> Callable[[F], F]:
    return click.option("--json", "as_json", is_flag=True, help=help)


def endpoint_options(command: F) -> F:
    """--base-url and --api-key for openai: specs; each falls back to its OPENAI_* variable."""
    command = click.option(
        "--api-key",
        envvar="OPENAI_API_KEY",
        default=None,
        help="API key for openai: specs [env: OPENAI_API_KEY; local servers: any value].",
    )(command)
    return click.option(
        "--base-url",
        envvar="OPENAI_BASE_URL",
        default=None,
        help="OpenAI-compatible endpoint for openai: specs [env: OPENAI_BASE_URL].",
    )(command)


def allow_network_option(command: F) -> F:
    """--allow-network CIDR: the one way a live fetch reaches a non-public address."""
    return click.option(
        "--allow-network",
        "allow_networks",
        multiple=True,
        metavar="CIDR",
        help="With --live: also reach this loopback/private/link-local network (e.g. "
        "127.0.0.0/8 for a server on this machine); repeatable. Default: public addresses only.",
    )(command)


def fetch_timeout_option(command: F) -> F:
    """--fetch-timeout SECONDS: the deadline for one whole fetched page (every byte, every
    redirect hop), not per read: a page that trickles one byte a second is given up."""
    return click.option(
        "--fetch-timeout",
        "fetch_timeout_s",
        type=click.FloatRange(min=0, min_open=True),
        envvar="SPANPROOF_FETCH_TIMEOUT",
        default=None,
        help="With --live: seconds for one whole page, all of it (default 30) "
        "[env: SPANPROOF_FETCH_TIMEOUT].",
    )(command)


def err(message: str) -> None:
    click.echo(message, err=True)


@overload
def progress_printer(as_json: Literal[False], indent: str = "") -> Callable[[str], None]: ...
@overload
def progress_printer(as_json: bool, indent: str = "") -> Callable[[str], None] | None: ...
def progress_printer(as_json: bool, indent: str = "") -> Callable[[str], None] | None:
    """Progress lines go to stderr, and nowhere under --json so stdout stays one document."""
    if as_json:
        return None
    return lambda message: click.echo(f"{indent}{message}", err=True)


def echo_json(payload: Any) -> None:
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))


# --- model calls: limits, deadline, and running a command's coroutine ----------------------

_WIRE_META = "spanproof.wire"
RESPONSE_FORMATS = ("auto", "json_schema", "json_object_schema", "json_object", "prompt")


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if value is not None:
        ctx.meta.setdefault(_WIRE_META, {})[param.name] = value
    return value


def model_options(concurrency: bool = True) -> Callable[[F], F]:
    """--timeout, --concurrency, --response-format and --deadline for a command that may call a
    model. Their values are read by ``endpoint_settings`` and ``run_async``, so a command only
    adds the decorator."""

    def decorate(command: F) -> F:
        opts = [
            click.option(
                "--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True),
                envvar="SPANPROOF_TIMEOUT", expose_value=False, callback=_remember,
                help="Seconds to wait for one model reply (default 180, sized for CPU "
                "inference) [env: SPANPROOF_TIMEOUT].",
            ),
            click.option(
                "--response-format", type=click.Choice(RESPONSE_FORMATS),
                envvar="SPANPROOF_RESPONSE_FORMAT", expose_value=False, callback=_remember,
                help="Structured output mode for openai: models; auto negotiates once per "
                "endpoint (json_schema -> json_object_schema -> json_object -> prompt) "
                "[env: SPANPROOF_RESPONSE_FORMAT].",
            ),
            click.option(
                "--deadline", "deadline_s", type=click.FloatRange(min=0, min_open=True),
                envvar="SPANPROOF_DEADLINE", expose_value=False, callback=_remember,
                help="Stop the whole command after this many seconds (exit 2) "
                "[env: SPANPROOF_DEADLINE].",
            ),
        ]  # fmt: skip
        if concurrency:
            opts.append(
                click.option(
                    "--concurrency",
                    "concurrency",
                    type=click.IntRange(1, 256),
                    envvar="SPANPROOF_CONCURRENCY",
                    expose_value=False,
                    callback=_remember,
                    help="Most model requests in flight at once (default 8); fewer while the "
                    "server's latency says it queues [env: SPANPROOF_CONCURRENCY].",
                )  # fmt: skip
            )
        for opt in opts:
            command = opt(command)
        return command

    return decorate


def wire_options() -> dict[str, Any]:
    ctx = click.get_current_context(silent=True)
    return dict(ctx.meta.get(_WIRE_META, {})) if ctx is not None else {}


def endpoint_settings(
    base_url: str | None, api_key: str | None, **overrides: Any
) -> EndpointSettings:
    """EndpointSettings from --base-url/--api-key and the model options of this command."""
    from spanproof.core.specs import EndpointSettings

    given = wire_options()
    fields: dict[str, Any] = {
        k: given[k] for k in ("timeout_s", "concurrency", "response_format") if k in given
    }
    fields.update({k: v for k, v in overrides.items() if v is not None})
    return EndpointSettings(base_url=base_url, api_key=api_key, **fields)


def traffic_lines() -> list[str]:
    """What the command's model clients did (requests, retries, re-asks, errors, limits)."""
    from spanproof.wire import clients

    lines: list[str] = []
    for client in clients():
        lines.append("model traffic: " + client.describe())
        lines.extend(f"note: {n}" for n in client.notices)
    return lines


class CommandStop:
    """Why the running command is being stopped, set before its task is cancelled: "interrupt"
    (Ctrl-C), "terminate" (SIGTERM, how CI cancels a job) or "deadline" (--deadline). A
    command that can keep what finished (the gate) reads it to record the run and say why."""

    EXIT_CODES = {"interrupt": 130, "terminate": 143, "deadline": 2}

    def __init__(self, deadline_s: float | None = None) -> None:
        self.deadline_s = deadline_s
        self.reason: str | None = None

    def __call__(self) -> str | None:
        return self.reason

    def message(self, what: str) -> str:
        if self.reason == "deadline":
            return (
                f"error: the {what} reached its --deadline of {self.deadline_s:g} s and was "
                "stopped. Raise --deadline, or make it faster (--concurrency, a smaller set)."
            )
        how = "SIGTERM" if self.reason == "terminate" else "Ctrl-C"
        return f"interrupted: the {what} was stopped ({how}); what finished was recorded."


def _watch(stop: CommandStop, task: asyncio.Task[Any]) -> Callable[[], None]:
    """Ctrl-C, SIGTERM and the deadline set ``stop.reason`` and cancel ``task`` (a second
    signal stops at once). Returns the function that puts the previous handlers back."""
    import signal

    loop = asyncio.get_running_loop()

    def stop_for(reason: str) -> None:
        if stop.reason is not None and reason != "deadline":
            raise KeyboardInterrupt if reason == "interrupt" else SystemExit(143)
        if stop.reason is None:
            stop.reason = reason
            task.cancel()

    installed: list[tuple[int, Any]] = []
    for sig, reason in ((signal.SIGINT, "interrupt"), (signal.SIGTERM, "terminate")):
        previous = signal.getsignal(sig)
        # A background job of a non-interactive shell inherits SIGINT ignored: keep ignoring it.
        if previous is signal.SIG_IGN:
            continue
        try:
            loop.add_signal_handler(sig, stop_for, reason)
        except (RuntimeError, ValueError):  # not the main thread: signals stay as they were
            continue
        installed.append((sig, previous))
    timer = loop.call_later(stop.deadline_s, stop_for, "deadline") if stop.deadline_s else None

    def restore() -> None:
        if timer is not None:
            timer.cancel()
        for sig, previous in installed:
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous)

    return restore


def run_async(
    coro: Coroutine[Any, Any, T],
    *,
    quiet: bool = False,
    what: str = "command",
    stop: CommandStop | None = None,
) -> T:
    """Run the command's coroutine: --deadline (exit 2), Ctrl-C (exit 130), SIGTERM (exit 143),
    model setup errors (exit 2), the model clients closed, and their traffic said on stderr.

    ``stop``: given by a command that keeps what finished when it is stopped; its coroutine
    reads ``stop()`` when cancelled and may return a result, which is then returned here (the
    command says why it stopped and picks its exit code). Otherwise a stop exits here."""
    from spanproof.graders.errors import JudgeConfigError

    from spanproof.wire import CircuitOpen, EndpointConfigError, close_clients

    stop = stop or CommandStop(wire_options().get("deadline_s"))

    async def main() -> T:
        task = asyncio.current_task()
        if task is None:  # asyncio.run runs main() as a task, always
            raise RuntimeError("run_async's coroutine runs outside a task")
        restore = _watch(stop, task)
        try:
            return await coro
        finally:
            restore()
            await close_clients()
            lines.extend(traffic_lines())

    lines: list[str] = []

    def say_traffic() -> None:
        for line in lines:
            err(line)

    try:
        result = asyncio.run(main())
    except KeyboardInterrupt:
        say_traffic()
        stop.reason = "interrupt"
        err(stop.message(what))
        sys.exit(130)
    except SystemExit:
        say_traffic()
        raise
    except asyncio.CancelledError:
        say_traffic()
        stop.reason = stop.reason or "interrupt"
        err(stop.message(what))
        sys.exit(CommandStop.EXIT_CODES[stop.reason])
    except (JudgeConfigError, CircuitOpen, EndpointConfigError) as exc:
        say_traffic()
        err(f"error: {exc}")
        sys.exit(2)
    if not quiet:
        for line in lines:
            err(line)
    return result
