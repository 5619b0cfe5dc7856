"""An HTTP fuzzer: hostile requests drawn by Hypothesis from the app's own OpenAPI schema (every route, its path
and query parameters, its JSON bodies) and from the families' configuration schemas (``/api/families``) and
action types, plus the form routes the schema does not describe (``/play``, ``/play/ID``, ``/watch``,
``/login``), sent to ``wason serve`` in a process of its own over a temporary SQLite store.

Every request must be answered with a status below 500, on a connection the server does not drop; a request
not answered within 30 s fails as a hang (a guard, not a speed test: the machine is often busy); the server's
resident memory may not grow without bound over the run. The default run is small and fixed (derandomized,
a set number of examples: about half a minute); ``pytest -m slow tests/server/test_fuzz.py`` draws ten times
as many. Each test prints what it sent and the slowest answer it saw (``pytest -s`` or ``-rP`` shows it).

Not sent: a model player on ``/watch`` and the model or endpoint fields of a configuration (``judge_model``,
``*_base_url``...), which would make the server call out or load the embedded model (the server here has no
keys, and its OpenAI endpoint is a closed port, in case one slips through).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import time
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.server.served import Served, start
from wason.core import registry
from wason.store import Store

HANG = 30.0
"""Seconds without an answer that count as a hang (generous: a busy machine is slow, a hang is forever)."""

MAX_GROWTH_KIB = 64 * 1024
"""How much the server's resident memory may grow over one test's requests (measured: see the module's
report). The store's rows are on disk; what grows is caches, the families' loaded data and the allocator's
pools, not what the requests sent."""

SCALES = [1, pytest.param(10, marks=pytest.mark.slow)]

# -- hostile values -----------------------------------------------------------------------------------------
HOSTILE_TEXT = [
    "",
    " ",
    "\x00",
    "\ud800",  # a lone surrogate: valid in JSON's \u escapes, not encodable as UTF-8
    "\u202e\u0661\u0662",  # right-to-left override, Arabic-Indic digits (str.isdigit is true)
    "１２",  # full-width digits
    "💥" * 50,
    "x" * 100_001,  # one more than the longest text reply
    "../../../../etc/passwd",
    "%00%2e%2e%2f",
    "<script>alert(1)</script>",
    "{{ 7*7 }}",
    "' OR 1=1 --",
    "lambda x, y, z: __import__('os').system('true')",
    "lambda x, y, z: (lambda: 0).__globals__",
    "lambda x, y, z: 9**9**9",
    "lambda xs: [0] * 10**10",
    "lambda v, i: v ** 10**6",
    "1e309",
    "-0",
    "NaN",
    "9" * 5000,  # past Python's 4,300 digits of int()
    "give up",
    "Test Case: ```(1, 2, 3)```",
    "Final Guess: ```lambda x, y, z: x < y < z```",
    "### Answer: 3",
    "\n\n\n",
    "\t" * 1000,
]
HOSTILE_INTS = [0, -1, 1, 2, 2**31, -(2**31) - 1, 2**63, 2**64, 10**30, -(10**30), 10**400]
HOSTILE_FLOATS = [0.0, -0.0, 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan]
HOSTILE_IDS = [
    "0",
    "-1",
    "01",
    "1.0",
    "1e3",
    "0x1",
    " 1",
    "1 ",
    "１",
    "\u0661",
    "9" * 18,
    "9" * 19,
    "9" * 400,
    "abc",
    "..",
    "%2e%2e",
    "null",
    "true",
    "\x00",
]


def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Any JSON document, the odd corners included (NaN and infinities, huge numbers, lone surrogates)."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from(HOSTILE_INTS),
        st.floats(),
        st.text(max_size=20),
        st.sampled_from(HOSTILE_TEXT[:20]),
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts(10), inner, max_size=4),
        max_leaves=max_leaves,
    )


def texts(max_size: int = 40) -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=max_size), st.sampled_from(HOSTILE_TEXT))


URL_TEXT = [t for t in HOSTILE_TEXT if len(t) <= 5000 and "\ud800" not in t]


def url_texts(max_size: int = 40) -> st.SearchStrategy[str]:
    """Text for a path or a query: no lone surrogates (a URL is UTF-8) and at most a few kB (a client's URL is
    bounded; the server's HTTP parser refuses a request line over 16 kB)."""
    return st.one_of(
        st.text(st.characters(exclude_categories=["Cs"]), max_size=max_size), st.sampled_from(URL_TEXT)
    )


def ints() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(-5, 50), st.sampled_from(HOSTILE_INTS))


def floats() -> st.SearchStrategy[float]:
    return st.one_of(st.floats(-5, 5), st.sampled_from(HOSTILE_FLOATS))


def digits_or_text(values: st.SearchStrategy[Any]) -> st.SearchStrategy[str]:
    """A form's value: a number written as text, or any text."""
    return st.one_of(values.map(str), texts(20))


# -- JSON bodies from a schema ------------------------------------------------------------------------------
def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        path = schema["$ref"].removeprefix("#/").split("/")
        target: Any = root
        for part in path:
            target = target[part]
        schema = target
    return schema


def from_schema(schema: dict[str, Any], root: dict[str, Any], name: str = "") -> st.SearchStrategy[Any]:
    """Values of a JSON schema as FastAPI and pydantic write them (the subset they use), with hostile values
    of each type mixed in."""
    schema = _resolve(schema, root)
    if "enum" in schema:
        return st.one_of(st.sampled_from(schema["enum"]), texts(10))
    if "const" in schema:
        return st.just(schema["const"])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return st.one_of(*(from_schema(s, root, name) for s in schema[key]))
    kind = schema.get("type")
    if kind == "string":
        return texts(int(schema.get("maxLength", 40)) + 2)
    if kind == "integer":
        # a configuration's sizes too: a value over its bound is refused at once, a huge one included
        return ints()
    if kind == "number":
        return floats()
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = schema.get("items", {})
        return st.lists(from_schema(items, root, name), max_size=4)
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        fixed = {k: from_schema(v, root, k) for k, v in props.items() if k in required}
        optional = {k: from_schema(v, root, k) for k, v in props.items() if k not in required}
        return st.fixed_dictionaries(fixed, optional=optional)
    return json_values()


def mutated(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A body drawn from the schema, most of the time as the schema says, else broken: a key dropped, a key
    added, or any JSON at all."""

    def drop(d: Any, data: st.DataObject) -> Any:
        if isinstance(d, dict) and d:
            key = data.draw(st.sampled_from(sorted(d)))
            return {k: v for k, v in d.items() if k != key}
        return d

    def add(d: Any, extra: tuple[str, Any]) -> Any:
        return {**d, extra[0]: extra[1]} if isinstance(d, dict) else d

    extra = st.tuples(st.one_of(texts(12), st.sampled_from(["type", "config", "__proto__"])), json_values())
    return st.one_of(
        value,
        value,
        value,
        st.tuples(value, st.data()).map(lambda t: drop(*t)),
        st.tuples(value, extra).map(lambda t: add(*t)),
        json_values(),
    )


# -- sending ------------------------------------------------------------------------------------------------
@dataclass
class Call:
    """One request: ``body`` is JSON (sent with NaN and infinities as Python writes them) unless ``raw`` is
    given; ``form`` is sent urlencoded."""

    method: str
    path: str
    params: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None
    has_body: bool = False
    raw: bytes | None = None
    form: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def encode(self) -> tuple[bytes | None, dict[str, str]]:
        headers = dict(self.headers)
        if self.raw is not None:
            return self.raw, headers
        if self.form is not None:
            headers.setdefault("content-type", "application/x-www-form-urlencoded")
            return urlencode(self.form, encoding="utf-8", errors="surrogatepass").encode(), headers
        if self.has_body:
            headers.setdefault("content-type", "application/json")
            return json.dumps(self.body).encode("utf-8", "surrogatepass"), headers
        return None, headers

    def __str__(self) -> str:
        shown = self.raw if self.raw is not None else self.form if self.form is not None else self.body
        text = repr(shown)
        if len(text) > 600:
            text = f"{text[:600]}... ({len(text)} characters)"
        query = f"?{self.params!r}" if self.params else ""
        line = (
            f"{self.method} {self.path}{query} {self.headers or ''} {text if self.has_body or shown else ''}"
        )
        return line if len(line) <= 1500 else f"{line[:1500]}... ({len(line)} characters)"


@dataclass
class Tally:
    """What one test sent and how the server answered."""

    sent: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    slowest: float = 0.0
    slowest_call: str = ""
    started: float = field(default_factory=time.monotonic)

    def report(self, name: str, rss_before: int | None, rss_after: int | None) -> str:
        seconds = time.monotonic() - self.started
        grown = f"{(rss_after - rss_before) / 1024:+.1f} MiB" if rss_before and rss_after else "unknown"
        return (
            f"\n{name}: {self.sent} requests in {seconds:.1f} s; statuses {dict(sorted(self.statuses.items()))}; "
            f"slowest answer {self.slowest:.3f} s ({self.slowest_call[:200]}); server RSS "
            f"{(rss_before or 0) / 1024:.1f} -> {(rss_after or 0) / 1024:.1f} MiB ({grown})"
        )


def send(target: Target, call: Call, tally: Tally) -> httpx.Response:
    """Send ``call``; fail on a 5xx, a dropped connection or a hang. An event stream is read to its first
    event only (a run still playing streams for as long as it plays)."""
    content, headers = call.encode()
    note(str(call))
    began = time.monotonic()
    try:
        client = target.client
        request = client.build_request(
            call.method, call.path, params=call.params or None, content=content, headers=headers
        )
        response = client.send(request, stream=True)
        streamed = response.headers.get("content-type", "").startswith("text/event-stream")
        try:
            if streamed:
                next(response.iter_raw(), b"")
            else:
                response.read()
        finally:
            response.close()
    except httpx.TimeoutException:
        target.served.dump_stacks()  # where the server is stuck: printed with its log after the module
        pytest.fail(f"no answer within {HANG:.0f} s (a hang): {call}")
    except httpx.TransportError as exc:
        pytest.fail(f"the connection failed ({type(exc).__name__}: {exc}): {call}")
    took = time.monotonic() - began
    tally.sent += 1
    tally.statuses[response.status_code] = tally.statuses.get(response.status_code, 0) + 1
    if took > tally.slowest:
        tally.slowest, tally.slowest_call = took, str(call)
    if response.status_code >= 500:
        body = response.text[:500] if not streamed else ""
        pytest.fail(f"{response.status_code} for {call}: {body}")
    return response


# -- the server and what it holds -----------------------------------------------------------------------------
@dataclass
class Target:
    """The server under test and what the strategies draw from: its OpenAPI schema, its families (with their
    configuration schemas and action types), and ids of games and runs it holds."""

    served: Served
    client: httpx.Client
    schema: dict[str, Any]
    families: list[dict[str, Any]]
    games: list[str]
    sessions: list[int] = field(default_factory=list)
    plays: list[int] = field(default_factory=list)
    runs: list[int] = field(default_factory=list)

    def family(self, name: str) -> dict[str, Any]:
        return next(f for f in self.families if f["name"] == name)

    def ids(self) -> st.SearchStrategy[str]:
        known = sorted({*self.sessions, *self.plays, *self.runs, 1, 2, 3})
        return st.one_of(
            st.sampled_from([str(i) for i in known]),
            st.sampled_from(HOSTILE_IDS),
            url_texts(12),
        )


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    db = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    # no keys, and OpenAI-style calls go to a closed port: nothing the fuzzer sends can reach a paid model
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.endswith(("_API_KEY", "_BASE_URL"))}
    os.environ["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
    try:
        served = start(Path(db))
    finally:
        os.environ.pop("OPENAI_BASE_URL", None)
        os.environ.update(saved)
    client = httpx.Client(base_url=served.url, timeout=HANG)
    try:
        schema = client.get("/openapi.json").json()
        families = client.get("/api/families").json()["families"]
        games = [g["game_name"] for g in client.get("/guess-the-rule/games").json()["games"]]
        found = Target(served, client, schema, families, games)
        # a game of every family through the API and through the pages, and a solver's run: ids to act on
        for fam in families:
            r = client.post("/api/sessions", json={"family": fam["name"], "index": 0})
            if r.status_code == 201:
                found.sessions.append(r.json()["session"])
            r = client.post("/play", data={"family": fam["name"], "player": "fuzz", "seed": "1"})
            if r.status_code == 303:
                found.plays.append(int(r.headers["location"].rsplit("/", 1)[1]))
        warm_up(found, Store(str(db)))
        yield found
    finally:
        client.close()
        log = served.stop()
        # an error the server logged (its 500s' tracebacks, an exception in the ASGI app) is shown with the run
        if "Traceback" in log or "most recent call first" in log:
            print(f"\nthe fuzzed server's log:\n{log[-20_000:]}")


PLOT = re.compile(r'href="(/runs/\d+/plots/[^"]+)"')


def warm_up(target: Target, store: Store) -> None:
    """A solver's run of every family that has one, each to its end, and their pages and a figure: what a
    server does once (its families' data, the solvers' tables, matplotlib) is done before the fuzzer measures
    its memory, and is not in the time of the fuzzer's first requests."""
    client = target.client
    for fam in target.families:
        r = client.post("/watch", data={"family": fam["name"], "player": "solver", "index": "0"})
        if r.status_code != 303:
            continue
        run = int(r.headers["location"].rsplit("/", 1)[1])
        target.runs.append(run)
        deadline = time.monotonic() + 120
        while store.get_run(run).status in ("pending", "running") and time.monotonic() < deadline:
            time.sleep(0.1)
    for run in target.runs:
        page = client.get(f"/runs/{run}").text
        for plot in PLOT.findall(page)[:1]:
            client.get(plot)
    for path in ["/", "/runs", f"/compare?runs={','.join(map(str, target.runs[:2]))}", "/play", "/watch"]:
        client.get(path)


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,  # the same requests every run
        database=None,
        deadline=None,  # a busy machine is slow; a hang is caught by the client's timeout
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.function_scoped_fixture,
            HealthCheck.data_too_large,
        ],
        print_blob=False,
        # no shrinking: the server keeps what each request did, so a shrunk example is not the one that failed
        # (and a hang would be waited for again at each step); the failing request is printed as it was sent
        phases=[Phase.explicit, Phase.generate],
    )


def measured(name: str, target: Target, tally: Tally, fuzz: typing.Callable[[], None]) -> None:
    """Run ``fuzz`` and check the server: alive, answering, its memory bounded; print what was sent."""
    before = target.served.rss_kib()
    fuzz()
    after = target.served.rss_kib()
    print(tally.report(name, before, after))
    assert target.served.alive(), "the server died"
    assert target.client.get("/api/families").status_code == 200  # and still answers
    if before is not None and after is not None:
        assert after - before < MAX_GROWTH_KIB, f"the server grew by {(after - before) / 1024:.0f} MiB"


# -- 1. every route of the OpenAPI schema ---------------------------------------------------------------------
QUERY_KEYS = ["family", "model", "status", "from", "to", "sort", "order", "page", "runs", "include_rule"]
QUERY_KEYS += ["n_examples", "token", "next"]


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, op)
        for path, ops in sorted(schema["paths"].items())
        for method, op in sorted(ops.items())
        # a run started by POST /watch is another test's (the form routes)
        if not (path == "/watch" and method == "post")
    ]


def schema_call(target: Target, data: st.DataObject) -> Call:
    method, path, op = data.draw(st.sampled_from(operations(target.schema)), label="operation")
    filled = path
    params: list[tuple[str, str]] = []
    for param in op.get("parameters", []):
        if param["in"] == "path":
            value = data.draw(
                target.ids() if param["name"].endswith("id") else url_texts(20), label=param["name"]
            )
            filled = filled.replace("{" + param["name"] + "}", quote(value, safe=""))
        elif param["in"] == "query" and data.draw(st.booleans()):
            typed = from_schema(param["schema"], target.schema).map(str).filter(lambda t: "\ud800" not in t)
            value = data.draw(st.one_of(typed.map(lambda t: t[:5000]), url_texts(20)))
            params.append((param["name"], value))
    for key in data.draw(st.lists(st.sampled_from(QUERY_KEYS), max_size=3, unique=True)):
        params.append((key, data.draw(url_texts(20), label=key)))
    accept = data.draw(st.sampled_from(["application/json", "text/html", "*/*"]))
    call = Call(method, filled, params=params, headers={"accept": accept})
    body = op.get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None:
        kind = data.draw(st.sampled_from(["json", "json", "json", "raw", "type"]), label="body kind")
        if kind == "raw":
            call.raw = data.draw(
                st.one_of(st.binary(max_size=200), st.sampled_from([b"{", b"[]", b"\xff\xfe"]))
            )
            call.headers["content-type"] = "application/json"
        else:
            call.body = data.draw(mutated(from_schema(body["schema"], target.schema)), label="body")
            call.has_body = True
            if kind == "type":
                call.headers["content-type"] = data.draw(
                    st.sampled_from(
                        ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
                    )
                )
    elif method == "POST" and data.draw(st.booleans()):
        call.form = data.draw(st.dictionaries(texts(12), texts(30), max_size=4))
    return call


@pytest.mark.parametrize("scale", SCALES)
def test_every_route_of_the_schema_takes_hostile_requests(target: Target, scale: int) -> None:
    tally = Tally()

    @fuzz_settings(300 * scale)
    @given(st.data())
    def fuzz(data: st.DataObject) -> None:
        send(target, schema_call(target, data), tally)

    measured("the schema's routes", target, tally, fuzz)


# -- 2. sessions of every family: configurations, actions and replies -----------------------------------------
MODEL_FIELDS = re.compile(r"(_model|_base_url)$")


def config_strategy(family: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    schema = family.get("config_schema") or {}
    root = {**schema, "__config__": True}
    props = schema.get("properties", {})
    optional = {
        name: model_or_text() if MODEL_FIELDS.search(name) else from_schema(props.get(name, {}), root, name)
        for name in family["fields"]
    }
    return st.fixed_dictionaries({}, optional=optional)


def model_or_text() -> st.SearchStrategy[str]:
    """A model or an address as a request may name one: the embedded model (allowed: its game then needs a
    model, a 424), models and addresses the server does not allow (a 422), or any text. The fuzzed server
    allows no other model and has no key, so nothing it could send goes anywhere."""
    named = ["local", "local:/etc/passwd.gguf", "openai:gpt-x", "nosuch:thing", "http://127.0.0.1:9/v1", ""]
    return st.one_of(st.sampled_from(named), texts(20))


def action_strategy(name: str) -> st.SearchStrategy[Any]:
    """An action of the family as JSON: each kind's fields drawn by their types, or broken."""
    family = registry.get(name)
    kinds = list(family.actions.kinds.values())

    def of_type(tp: Any) -> st.SearchStrategy[Any]:
        origin = typing.get_origin(tp)
        if tp is int:
            return ints()
        if tp is float:
            return floats()
        if tp is bool:
            return st.booleans()
        if tp is str:
            return texts()
        if origin in (tuple, list):
            args = [a for a in typing.get_args(tp) if a is not Ellipsis] or [Any]
            return st.lists(of_type(args[0]), max_size=6)
        if origin is typing.Literal:
            return st.sampled_from(typing.get_args(tp))
        if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            return st.one_of(*(of_type(a) for a in typing.get_args(tp)))
        if tp is type(None):
            return st.none()
        return json_values()

    def one(kind: type[Any]) -> st.SearchStrategy[dict[str, Any]]:
        hints = typing.get_type_hints(kind) if dataclasses.is_dataclass(kind) else {}
        fields = {f.name: of_type(hints.get(f.name, Any)) for f in dataclasses.fields(kind)} if hints else {}
        return st.fixed_dictionaries({"type": st.just(kind.__name__), **fields})

    return mutated(st.one_of(*(one(k) for k in kinds)))


@pytest.mark.parametrize("scale", SCALES)
def test_sessions_of_every_family_take_hostile_configurations_and_moves(target: Target, scale: int) -> None:
    tally = Tally()

    @fuzz_settings(50 * scale)
    @given(st.data())
    def fuzz(data: st.DataObject) -> None:
        family = target.family(
            data.draw(st.sampled_from([f["name"] for f in target.families]), label="family")
        )
        body: dict[str, Any] = {"family": family["name"], "config": data.draw(config_strategy(family))}
        which = data.draw(st.sampled_from(["index", "seed", "none"]))
        if which != "none":
            body[which] = data.draw(st.one_of(st.integers(-2, 5), st.sampled_from(HOSTILE_INTS)))
        r = send(target, Call("POST", "/api/sessions", body=body, has_body=True), tally)
        sid = str(r.json()["session"]) if r.status_code == 201 else data.draw(target.ids())
        for _ in range(data.draw(st.integers(0, 4), label="moves")):
            move: dict[str, Any]
            if data.draw(st.booleans()):
                move = {"text": data.draw(texts(200))}
            else:
                move = {"action": data.draw(action_strategy(family["name"]))}
            send(
                target,
                Call("POST", f"/api/sessions/{quote(sid, safe='')}/step", body=move, has_body=True),
                tally,
            )
        send(target, Call("GET", f"/api/sessions/{quote(sid, safe='')}/summary"), tally)
        if r.status_code == 201:  # the game's pages, with whatever the moves wrote in its transcript
            send(
                target,
                Call("GET", f"/runs/{r.json()['run']}/episodes/0", headers={"accept": "text/html"}),
                tally,
            )
            send(target, Call("GET", f"/runs/{r.json()['run']}", headers={"accept": "text/html"}), tally)
        # the published routes: a game of a listed name with a hostile count, more examples, a guess
        created = {
            "game_name": data.draw(st.one_of(st.sampled_from(target.games), texts(10))),
            "difficulty": data.draw(st.one_of(st.sampled_from(["L1", "L2", "L3"]), texts(4))),
            "num_init_examples": data.draw(st.one_of(ints(), ints().map(str), texts(5))),
        }
        r = send(target, Call("POST", "/guess-the-rule/game", body=created, has_body=True), tally)
        gid = r.json()["game_uuid"] if r.status_code == 200 else data.draw(target.ids())
        n = data.draw(st.one_of(ints().map(str), url_texts(5)))
        send(
            target,
            Call("GET", f"/guess-the-rule/game/{quote(gid, safe='')}/examples", [("n_examples", n)]),
            tally,
        )
        guess = {"game_id": gid, "guess": data.draw(texts(100))}
        send(target, Call("POST", "/guess-the-rule/game/validate_guess", body=guess, has_body=True), tally)

    measured("sessions of every family", target, tally, fuzz)


# -- 3. the pages' forms ---------------------------------------------------------------------------------------
FORM_MOVE = re.compile(r'name="move" value="([^"]*)"')
FORM_FIELD = re.compile(r'name="(f_[^"]+)"')
FORM_TURN = re.compile(r'name="turn" value="(\d+)"')


def play_form(target: Target, family: dict[str, Any], data: st.DataObject) -> dict[str, str]:
    form = {"family": data.draw(st.one_of(st.just(family["name"]), texts(10)), label="family")}
    form["player"] = data.draw(st.one_of(st.just("ada"), texts(45)), label="player")
    for key in data.draw(st.lists(st.sampled_from(["seed", "rule", "own_rule"]), max_size=2, unique=True)):
        form[key] = data.draw(digits_or_text(ints()), label=key)
    for name in data.draw(st.lists(st.sampled_from(family["fields"]), max_size=3, unique=True)):
        form[f"opt_{name}"] = data.draw(
            model_or_text() if MODEL_FIELDS.search(name) else digits_or_text(ints())
        )
    return form


def watch_form(family: dict[str, Any], data: st.DataObject) -> dict[str, str]:
    # the solver, or a player that is not one; never a model (it would call out, or load the embedded model)
    form = {"family": data.draw(st.one_of(st.just(family["name"]), texts(10)), label="family")}
    form["player"] = data.draw(
        st.one_of(st.just("solver"), texts(10).filter(lambda p: p not in ("model", "local")))
    )
    for key in data.draw(st.lists(st.sampled_from(["index", "seed", "pace"]), max_size=2, unique=True)):
        if key == "pace":
            form[key] = data.draw(
                st.one_of(st.sampled_from(["0", "-1", "11", "nan", "inf", "1e400"]), texts(5))
            )
        else:
            form[key] = data.draw(digits_or_text(ints()), label=key)
    for name in data.draw(st.lists(st.sampled_from(family["fields"]), max_size=3, unique=True)):
        form[f"cfg.{name}"] = data.draw(
            model_or_text() if MODEL_FIELDS.search(name) else digits_or_text(ints())
        )
    return form


@pytest.mark.parametrize("scale", SCALES)
def test_the_pages_forms_take_hostile_values(target: Target, scale: int) -> None:
    tally = Tally()

    @fuzz_settings(200 * scale)
    @given(st.data())
    def fuzz(data: st.DataObject) -> None:
        family = target.family(
            data.draw(st.sampled_from([f["name"] for f in target.families]), label="family")
        )
        route = data.draw(st.sampled_from(["play", "move", "move", "quit", "watch", "stop", "login"]))
        page = {"accept": data.draw(st.sampled_from(["text/html", "application/json"]))}
        if route == "play":
            send(target, Call("POST", "/play", form=play_form(target, family, data), headers=page), tally)
        elif route in ("move", "quit"):
            sid = data.draw(st.one_of(st.sampled_from([str(i) for i in target.plays or [1]]), target.ids()))
            path = f"/play/{quote(sid, safe='')}"
            if route == "quit":
                send(target, Call("POST", f"{path}/quit", headers=page), tally)
                return
            shown = send(target, Call("GET", path, headers={"accept": "text/html"}), tally).text
            moves, fields, turns = (
                FORM_MOVE.findall(shown),
                FORM_FIELD.findall(shown),
                FORM_TURN.findall(shown),
            )
            form = {
                "move": data.draw(st.one_of(st.sampled_from(moves or ["x"]), texts(10))),
                "turn": data.draw(st.one_of(st.sampled_from(turns or ["0"]), digits_or_text(ints()))),
            }
            for name in data.draw(st.lists(st.sampled_from(sorted(set(fields)) or ["f_x"]), max_size=4)):
                form[name] = data.draw(st.one_of(texts(60), ints().map(str)), label=name)
            send(target, Call("POST", path, form=form, headers=page), tally)
        elif route == "watch":
            send(target, Call("POST", "/watch", form=watch_form(family, data), headers=page), tally)
        elif route == "stop":
            rid = data.draw(st.one_of(st.sampled_from([str(i) for i in target.runs or [1]]), target.ids()))
            send(target, Call("POST", f"/watch/{quote(rid, safe='')}/stop", headers=page), tally)
        else:
            form = {"token": data.draw(texts(30)), "next": data.draw(texts(30))}
            send(target, Call("POST", "/login", form=form, headers=page), tally)

    measured("the pages' forms", target, tally, fuzz)
