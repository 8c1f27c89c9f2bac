"""The web server: one page, its assets, a live event stream and a small JSON API (the routes and
the safety checks: docs/web.md); connections go through :mod:`boardctl.web.gate`."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from importlib import resources
from typing import Any

from aiohttp import web

from boardctl.board.layout import Layout
from boardctl.errors import BoardError, ConfigError, ControlError
from boardctl.service.control import parse_request
from boardctl.web import tools
from boardctl.web.gate import Gate, GatedSite
from boardctl.web.hub import Hub
from boardctl.web.page_config import WebConfig
from boardctl.web.pairing import Pairing, PairingError
from boardctl.web.results import Changes, ResultsFeed, board_document, standings_document
from boardctl.web.socket_source import NoAnswer, ServiceGone, Source

log = logging.getLogger(__name__)

#: Control-socket ops a paired phone may send (``press`` stays with the buttons).
COMMAND_OPS = frozenset({"peg", "undo", "redo", "next", "cut", "new_game", "set", "refile"})
#: A page's request id: made in the page's script, one per tap (the service keeps up to 64).
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
TOKEN_HEADER = "X-Board-Token"
KEEPALIVE = 15.0
STOP_TIMEOUT = 3.0
MAX_BODY = 16 * 1024
RECORDS_WAIT = 15.0  # seconds a page waits for the service to fold its journal

ASSETS = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
    "/manifest.webmanifest": ("manifest.webmanifest", "application/manifest+json"),
    "/icon.svg": ("icon.svg", "image/svg+xml"),
    "/standings": ("standings.html", "text/html; charset=utf-8"),
    "/standings.js": ("standings.js", "text/javascript; charset=utf-8"),
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

HUB = web.AppKey("hub", Hub)
SOURCE = web.AppKey("source", Source)
PAIRING = web.AppKey("pairing", Pairing)
HOSTS: web.AppKey[frozenset[str]] = web.AppKey("hosts")
CHOICES: web.AppKey[dict[str, Any]] = web.AppKey("choices")
CONFIG = web.AppKey("config", WebConfig)
CHANGES = web.AppKey("changes", Changes)
FEED: web.AppKey[ResultsFeed | None] = web.AppKey("feed")
BOARD: web.AppKey[str] = web.AppKey("board")
STREAMS: web.AppKey[set[asyncio.Task[Any]]] = web.AppKey("streams")  # ended at shutdown


def asset_bytes() -> dict[str, bytes]:
    folder = resources.files("boardctl.web").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name, _ in ASSETS.values()}


def allowed_hosts(config: WebConfig) -> frozenset[str]:
    """``Host`` headers the page answers: its addresses and names, with the port."""
    hosts = set()
    for name in (*config.listen, *config.hostnames, "localhost"):
        shown = f"[{name}]" if ":" in name else name
        hosts.add(f"{shown}:{config.port}".lower())
        if config.port == 80:
            hosts.add(shown.lower())
    return frozenset(hosts)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"ok": False, "error": message}, status=status)


def _refused(exc: ControlError) -> web.Response:
    """``503`` when the service cannot be reached, ``502`` when it refused."""
    return _error(503 if isinstance(exc, ServiceGone) else 502, str(exc))


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Host check on every request; same-origin JSON for every POST; security headers."""
    host = request.headers.get("Host", "").lower()
    if host not in request.app[HOSTS]:
        return _error(421, f"unknown host {host!r}: open the page by the board's address")
    if request.method not in ("GET", "HEAD"):
        origin = request.headers.get("Origin")
        if origin != f"http://{host}":
            return _error(403, "refused: the request does not come from this page")
        if request.content_type != "application/json":
            return _error(415, "send JSON (Content-Type: application/json)")
    response = await handler(request)
    response.headers.update(SECURITY_HEADERS)
    return response


def paired(request: web.Request) -> bool:
    return request.app[PAIRING].check(request.headers.get(TOKEN_HEADER))


async def _json_body(request: web.Request) -> dict[str, Any]:
    """The JSON object a POST carries, read within ``header_timeout`` seconds (else ``408``)."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise ControlError(f"request body over {MAX_BODY} bytes")
    wait = request.app[CONFIG].header_timeout
    try:
        body = await asyncio.wait_for(request.json(), wait)
    except TimeoutError:
        raise web.HTTPRequestTimeout(
            text=f"the request body did not arrive within {wait:g} s",
            headers={"Connection": "close"},
        ) from None
    except ValueError:
        raise ControlError("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise ControlError("the request body must be a JSON object")
    return body


async def _asset(body: bytes, headers: dict[str, str], request: web.Request) -> web.Response:
    return web.Response(body=body, headers=headers)


async def events(request: web.Request) -> web.StreamResponse:
    """Server-sent events: the plan when it changes, then every state."""
    hub = request.app[HUB]
    sent_plan = None

    def plan_first() -> bytes:
        nonlocal sent_plan
        plan = hub.plan
        if plan is None or plan["key"] == sent_plan:
            return b""
        sent_plan = plan["key"]
        return b"event: plan\ndata: " + _dump(plan) + b"\n\n"

    return await _stream(request, hub, plan_first)


async def result_events(request: web.Request) -> web.StreamResponse:
    """Server-sent events: one message (the results' version) whenever the results change."""
    return await _stream(request, request.app[CHANGES])


async def _stream(
    request: web.Request, pages: Hub | Changes, before: Callable[[], bytes] = bytes
) -> web.StreamResponse:
    """Each message ``pages`` queue for this page as a server-sent event (``before`` it: what that
    returns), with keep-alive comments, until the page goes."""
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
    )
    await response.prepare(request)
    queue = pages.subscribe()
    task = asyncio.current_task()
    assert task is not None
    request.app[STREAMS].add(task)
    try:
        await response.write(b"retry: 1000\n\n")
        while True:
            try:
                message = await asyncio.wait_for(queue.get(), KEEPALIVE)
            except TimeoutError:
                await response.write(b": still here\n\n")
                continue
            await response.write(before() + b"data: " + _dump(message) + b"\n\n")
    except (ConnectionResetError, RuntimeError):
        pass  # the page went away
    finally:
        pages.unsubscribe(queue)
        request.app[STREAMS].discard(task)
    return response


NO_RESULTS = 'results are not configured: set results = "mqtt" in web.toml (docs/web.md)'
NOT_PAIRED = "this phone is not paired: run 'boardctl web pair' and enter the code"


async def results(request: web.Request) -> web.Response:
    """This board's results and player records, from the broker."""
    feed = request.app[FEED]
    if feed is None:
        return _error(404, NO_RESULTS)
    document = board_document(feed.results, request.app[BOARD])
    return web.json_response({"ok": True, "error": feed.error, **document})


async def standings_api(request: web.Request) -> web.Response:
    """Every board's standings, ranked as ``boardctl standings`` ranks them."""
    feed = request.app[FEED]
    if feed is None:
        return _error(404, NO_RESULTS)
    options = request.app[CONFIG].standings
    document = await asyncio.to_thread(standings_document, feed.results, options)
    return web.json_response({**document, "source_error": feed.error})


async def records(request: web.Request) -> web.Response:
    """Every player's record, from the service's journal (``records``: the same as
    ``boardctl stats players --json``), asked again while the service still folds it."""
    source = request.app[SOURCE]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RECORDS_WAIT
    pause = 0.01
    ask: dict[str, Any] = {"op": "records"}
    while True:
        try:
            result = await source.request(ask)
        except ControlError as exc:  # an older service says "unknown op", or the journal's error
            return _refused(exc)
        if result.get("ready"):
            return web.json_response({"ok": True, **result})
        if isinstance(result.get("events"), int):  # entries made meanwhile: not waited for
            ask.setdefault("since", result["events"])
        if loop.time() > deadline:
            return _error(503, "the board is still reading its journal: try again in a moment")
        await asyncio.sleep(pause)
        pause = min(0.2, pause * 2)


async def invite(request: web.Request) -> web.Response:
    """The code of the game this board hosts (``boardctl remote invite``'s), for a paired
    phone only: whoever has it can enter scores into the game. ``{}`` when not hosting."""
    if not paired(request):
        return _error(401, NOT_PAIRED)
    try:
        hosted = await request.app[SOURCE].request({"op": "invite"})
    except ControlError as exc:
        return _refused(exc)
    return web.json_response({"ok": True, **hosted})


def _dump(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


async def state(request: web.Request) -> web.Response:
    hub = request.app[HUB]
    latest = hub.latest
    if latest is None:
        try:
            snap = await request.app[SOURCE].snapshot()
        except ControlError as exc:
            latest = {"up": False, "reason": str(exc)}
        else:  # only the watch sets the pages' state: one started meanwhile has it newer
            latest = hub.latest or hub.message(snap)
    return web.json_response(
        {
            **latest,
            "paired": paired(request),
            "board": hub.plan,
            "results": request.app[FEED] is not None,
            "choices": request.app[CHOICES],
        }
    )


async def history(request: web.Request) -> web.Response:
    try:
        rows = await request.app[SOURCE].request({"op": "history"})
    except ControlError as exc:
        return _refused(exc)
    return web.json_response({"ok": True, "rows": tools.history_rows(rows)})


async def score(request: web.Request) -> web.Response:
    cards = request.query.get("cards", "")
    crib = request.query.get("crib", "0") in ("1", "true")
    try:
        return web.json_response({"ok": True, "score": tools.score(cards, crib=crib)})
    except BoardError as exc:
        return _error(400, str(exc))


async def discard(request: web.Request) -> web.Response:
    cards = request.query.get("cards", "")
    dealer = request.query.get("dealer", "1") in ("1", "true")
    try:
        options = await asyncio.to_thread(tools.advise, cards, dealer=dealer)
    except BoardError as exc:
        return _error(400, str(exc))
    return web.json_response({"ok": True, "options": options})


async def pair(request: web.Request) -> web.Response:
    try:
        body = await _json_body(request)
        label = request.headers.get("User-Agent", "")[:80]
        code, address = str(body.get("code", "")), request.remote or ""
        ident, token = request.app[PAIRING].redeem(code, label, address)
    except PairingError as exc:
        await asyncio.sleep(0.5)  # a guess costs time
        return _error(403, str(exc))
    except ControlError as exc:
        return _error(400, str(exc))
    log.info("a phone was paired (id %s)", ident)
    return web.json_response({"ok": True, "id": ident, "token": token})


async def command(request: web.Request) -> web.Response:
    """One control-socket command from a paired phone, with the service's checks and words.

    ``200`` answered (``"repeated"``: an earlier try had put it there), ``409`` refused by the
    engine, ``4xx`` by the page; ``202`` and ``503`` are not confirmed: the page asks again with the
    same ``request_id`` (docs/web.md, "One tap, one entry").
    """
    if not paired(request):
        return _error(401, NOT_PAIRED)
    try:
        body = await _json_body(request)
        rid = body.get("request_id")  # made on the page for one tap (checked, never made here)
        if not isinstance(rid, str) or not REQUEST_ID.fullmatch(rid):
            raise ControlError(
                "a command needs its request_id: 16-64 letters, digits, '-' or '_', made on the "
                "page once per tap and sent again unchanged with every retry"
            )
        message = parse_request(json.dumps(body))  # the control socket's own checks
    except ControlError as exc:
        return _error(400, str(exc))
    if message["op"] not in COMMAND_OPS:
        return _error(400, f"{message['op']!r} is not a command the page sends")
    message.pop("id", None)
    try:
        result = await request.app[SOURCE].request(message)
    except ServiceGone as exc:
        sent = isinstance(exc, NoAnswer)
        why = "sent, no answer yet" if sent else "the service is not reachable"
        return web.json_response(
            {
                "ok": False,
                "confirmed": False,
                "request_id": rid,
                "why": why,
                "error": f"not confirmed ({why}: {exc}); ask again with the same request id",
            },
            status=202 if sent else 503,
        )
    except ControlError as exc:
        request.app[HUB].note_refusal(str(exc))
        return _error(409, str(exc))
    repeated = isinstance(result, dict) and bool(result.get("repeated"))
    return web.json_response(
        {"ok": True, "confirmed": True, "request_id": rid, "repeated": repeated, "result": result}
    )


async def _on_shutdown(app: web.Application) -> None:
    """End the open event streams, so a stop does not wait for the pages to leave."""
    for task in app[STREAMS].copy():
        task.cancel()


async def _running(app: web.Application) -> AsyncIterator[None]:
    """Follow the broker's results, if configured (the feed's thread calls back into the loop);
    at the end, stop watching the board."""
    feed = app[FEED]
    if feed is not None:
        loop = asyncio.get_running_loop()
        changes = app[CHANGES]
        feed.start(lambda: loop.call_soon_threadsafe(changes.changed, feed.error))
    yield
    await app[HUB].close()
    app[SOURCE].close()


def make_app(
    config: WebConfig,
    source: Source,
    layout: Layout,
    pairing: Pairing,
    *,
    feed: ResultsFeed | None = None,
    board: str = "",
) -> web.Application:
    """The application (``feed``: the broker's results, or None; ``board``: this board's id)."""
    app = web.Application(middlewares=[guard], client_max_size=MAX_BODY)
    app[CONFIG] = config
    app[FEED] = feed
    app[BOARD] = board
    app[CHANGES] = Changes()
    app[SOURCE] = source
    app[HUB] = Hub(source, layout)
    app[PAIRING] = pairing
    app[HOSTS] = allowed_hosts(config)
    app[CHOICES] = tools.choices()
    app[STREAMS] = set()
    files = asset_bytes()
    for path, (name, content_type) in ASSETS.items():
        headers = {"Content-Type": content_type, "Cache-Control": "no-cache"}
        app.router.add_get(path, partial(_asset, files[name], headers))
    app.router.add_get("/events", events)
    app.router.add_get("/api/state", state)
    app.router.add_get("/api/history", history)
    app.router.add_get("/api/score", score)
    app.router.add_get("/api/discard", discard)
    app.router.add_post("/api/pair", pair)
    app.router.add_post("/api/command", command)
    app.router.add_get("/api/results", results)
    app.router.add_get("/api/standings", standings_api)
    app.router.add_get("/api/records", records)
    app.router.add_get("/api/invite", invite)
    app.router.add_get("/results/events", result_events)
    app.cleanup_ctx.append(_running)
    app.on_shutdown.append(_on_shutdown)
    return app


def serve(app: web.Application, config: WebConfig) -> None:
    """Serve ``app`` until SIGTERM or SIGINT, then stop within a few seconds whatever pages do."""
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(_serve(app, config))
    finally:
        loop.close()


async def _serve(app: web.Application, config: WebConfig) -> None:
    runner = web.AppRunner(
        app,
        access_log=None,
        shutdown_timeout=1.0,
        keepalive_timeout=config.idle_timeout,
        lingering_time=1.0,
    )
    await runner.setup()
    gate = Gate(config.connections_per_address, config.header_timeout)
    gate.install(asyncio.get_running_loop())
    try:
        for host in config.listen:
            await GatedSite(runner, host, config.port, gate).start()
    except OSError as exc:
        await runner.cleanup()
        where = f"{', '.join(config.listen)} port {config.port}"
        raise ConfigError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    urls = ", ".join(f"http://{h}/" for h in sorted(allowed_hosts(config)) if "localhost" not in h)
    log.warning(
        "serving the board on %s (read-only until a phone is paired: boardctl web pair)", urls
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    try:
        await asyncio.wait_for(runner.cleanup(), STOP_TIMEOUT)
    except TimeoutError:
        log.warning("stopped without waiting for every page to leave")
