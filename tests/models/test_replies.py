"""Reading a reply body ourselves: the size cap, strict decoding, the schema check and their one-line errors."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from pydantic import Field, StrictStr

from wason.models.base import ModelError
from wason.models.replies import (
    MAX_REPLY_BYTES,
    Count,
    ReplyModel,
    checked_text,
    parse_json,
    read_capped,
    validate,
)


class TimeoutException(Exception):
    """Stands for the HTTP layer's timeout base class, which is not a TimeoutError."""


class PoolReadTimeout(TimeoutException):
    pass


class Item(ReplyModel):
    name: StrictStr
    count: Count | None = None


class Reply(ReplyModel):
    items: list[Item] = Field(min_length=1)


class Chunks:
    """An async iterator of chunks that records how far it was read and whether it was closed."""

    def __init__(self, chunks: list[bytes], fail: Exception | None = None) -> None:
        self.chunks = chunks
        self.fail = fail
        self.read = 0
        self.closed = False

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._gen()

    async def _gen(self) -> AsyncIterator[bytes]:
        try:
            for chunk in self.chunks:
                self.read += 1
                yield chunk
            if self.fail is not None:
                raise self.fail
        finally:
            self.closed = True


def error_of(err: pytest.ExceptionInfo[ModelError]) -> str:
    assert err.value.transient is True and err.value.status is None
    message = str(err.value)
    assert message.startswith("malformed reply: ") or "timed out" in message
    assert "\n" not in message
    return message


async def test_whole_body_under_the_cap() -> None:
    source = Chunks([b'{"a"', b": 1}"])
    assert await read_capped(source, limit=100) == b'{"a": 1}'
    assert source.closed


async def test_reading_stops_at_the_first_chunk_past_the_cap() -> None:
    source = Chunks([b"x" * 40] * 1000)
    with pytest.raises(ModelError) as caught:
        await read_capped(source, limit=100)
    assert error_of(caught) == "malformed reply: reply larger than 100 bytes"
    assert source.read == 3  # 120 bytes read of 40,000, and the source closed at once
    assert source.closed


async def test_a_declared_length_over_the_cap_is_refused_unread() -> None:
    source = Chunks([b"x"])
    with pytest.raises(ModelError) as caught:
        await read_capped(source, limit=100, declared_length="101")
    assert "reply larger than 100 bytes (Content-Length 101)" in error_of(caught)
    assert source.read == 0
    # a declared length at the cap, or one that is not a number, leaves it to the reading
    assert await read_capped(Chunks([b"x"]), limit=100, declared_length="100") == b"x"
    assert await read_capped(Chunks([b"x"]), limit=100, declared_length="lots") == b"x"


async def test_a_broken_connection_is_a_cut_off_body() -> None:
    with pytest.raises(ModelError) as caught:
        await read_capped(Chunks([b"abc"], fail=ConnectionResetError("peer went away")), limit=100)
    assert (
        error_of(caught)
        == "malformed reply: body cut off after 3 bytes (ConnectionResetError: peer went away)"
    )


@pytest.mark.parametrize("fail", [TimeoutError(), PoolReadTimeout("read timed out")])
async def test_a_timeout_while_reading_says_so(fail: Exception) -> None:
    with pytest.raises(ModelError) as caught:
        await read_capped(Chunks([b"abc"], fail=fail), limit=100)
    assert error_of(caught) == "request timed out while reading the reply"


def test_default_cap_is_8_mib() -> None:
    assert MAX_REPLY_BYTES == 8 * 1024 * 1024


@pytest.mark.parametrize(
    "body, expected",
    [
        (b"\xff\xfe{}", "malformed reply: not UTF-8 (byte 0 of 4)"),
        (b'{"a": "caf\xe9"}', "malformed reply: not UTF-8 (byte 10 of 13)"),
        (b"", "malformed reply: not JSON (JSONDecodeError: Expecting value: line 1 column 1 (char 0)); the "
              "body is empty"),
        (b"<html>\n<h1>502</h1>", "Expecting value: line 1 column 1 (char 0)); it starts '<html>\\n<h1>502</h1>'"),
        (b'{"a": 1', "not JSON (JSONDecodeError: Expecting ',' delimiter"),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON (RecursionError"),
        (b"1" * 10_000, "not JSON (ValueError: Exceeds the limit"),
    ],
)  # fmt: skip
def test_parse_json_errors(body: bytes, expected: str) -> None:
    with pytest.raises(ModelError) as caught:
        parse_json(body)
    assert expected in error_of(caught)


def test_parse_json_ok() -> None:
    assert parse_json('{"text": "café"}'.encode()) == {"text": "café"}


@pytest.mark.parametrize(
    "payload, expected",
    [
        ([], "malformed reply: the body: Input should be a valid dictionary"),
        ({"items": "nope"}, "malformed reply: items: Input should be a valid list"),
        ({"items": []}, "malformed reply: items: List should have at least 1 item"),
        ({"items": [None]}, "malformed reply: items.0: Input should be a valid dictionary"),
        ({"items": [{"name": 7}]}, "malformed reply: items.0.name: Input should be a valid string"),
        ({"items": [{"name": "a", "count": "12"}]}, "items.0.count: Input should be a valid integer"),
        (
            {"items": [{"name": "a", "count": -1}]},
            "items.0.count: Input should be greater than or equal to 0",
        ),
        ({"items": [{"name": "a", "count": 1.0}]}, "items.0.count: Input should be a valid integer"),
        ({"items": [{"name": "a", "count": True}]}, "items.0.count: Input should be a valid integer"),
        ({"items": [{}, {}]}, "items.0.name: Field required (and 1 more)"),
        (
            {"error": {"message": "upstream\nprovider failed", "code": 502}},
            "malformed reply: an error with status 200: upstream provider failed",
        ),
        ({"error": "overloaded"}, "malformed reply: an error with status 200: overloaded"),
    ],
)
def test_validate_names_the_first_bad_field(payload: object, expected: str) -> None:
    with pytest.raises(ModelError) as caught:
        validate(Reply, payload)
    assert expected in error_of(caught)


def test_validate_ignores_fields_it_does_not_use() -> None:
    reply = validate(Reply, {"items": [{"name": "a", "extra": [1, 2]}], "id": None})
    assert reply.items[0].name == "a" and reply.items[0].count is None


def test_lone_surrogates_are_refused() -> None:
    assert checked_text("café ✓") == "café ✓"
    with pytest.raises(ModelError) as caught:
        checked_text("ab\ud800c")
    assert (
        error_of(caught) == "malformed reply: the text is not valid Unicode (a lone surrogate at character 2)"
    )


def test_the_schema_base_is_frozen() -> None:
    item = Item(name="a")
    with pytest.raises(ValueError):
        item.name = "b"  # type: ignore[misc]
    assert isinstance(item, ReplyModel)
