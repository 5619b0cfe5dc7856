"""Reading a user's rules file: a size cap, a byte-order mark, binary files, and the file and line in errors."""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from wason.cli import main
from wason.tasks.wilt.rules import MAX_RULES_FILE_BYTES, load_rules_file

GOOD = "lambda x, y, z: x < y < z\n"


def write(tmp_path: Path, data: bytes, name: str = "rules.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, codecs.BOM_UTF8 + b"x < y < z\r\n# a comment\r\nlambda a, b, c: a == c\r\n")
    rules = load_rules_file(path)
    assert [(r.id, r.text) for r in rules] == [(1, "x < y < z"), (3, "lambda a, b, c: a == c")]
    assert rules[0].program()(1, 2, 3) is True


def test_a_mark_in_the_middle_is_not_skipped(tmp_path: Path) -> None:
    # only a leading mark is an encoding signature; elsewhere it is a character of a rule and gets rejected
    path = write(tmp_path, b"x < y\n" + codecs.BOM_UTF8 + b"x > y\n")
    with pytest.raises(ValueError, match=r"rules\.txt:2: "):
        load_rules_file(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_dev_zero_ends_at_once_with_one_line() -> None:
    # /dev/zero never ends: reading it whole would hang and fill memory
    with pytest.raises(ValueError) as caught:
        load_rules_file("/dev/zero")
    message = str(caught.value)
    assert message.startswith("/dev/zero: larger than 1 MiB") and "\n" not in message


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    # a file of valid rules, one byte over the cap
    line = GOOD.encode()
    data = line * (MAX_RULES_FILE_BYTES // len(line) + 1)
    path = write(tmp_path, data[: MAX_RULES_FILE_BYTES + 1])
    with pytest.raises(ValueError, match=r"rules\.txt: larger than 1 MiB"):
        load_rules_file(path)
    # and one exactly at the cap is read (its last line cut short, so it ends at a whole line)
    at_cap = data[: MAX_RULES_FILE_BYTES - MAX_RULES_FILE_BYTES % len(line)]
    assert len(load_rules_file(write(tmp_path, at_cap, "ok.txt"))) == len(at_cap) // len(line)


def test_binary_file_names_the_file_line_and_byte(tmp_path: Path) -> None:
    path = write(tmp_path, b"x < y\nx > y\n\x89PNG\r\n\x1a\n\xff\xd8")
    with pytest.raises(ValueError) as caught:
        load_rules_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: not UTF-8 text (byte 13)")
    assert "invalid start byte" not in message


def test_bad_bytes_after_a_mark_count_from_the_start_of_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, codecs.BOM_UTF8 + b"x < y\n\xc3(\n")
    with pytest.raises(ValueError, match=r"rules\.txt:2: not UTF-8 text \(byte 10\)"):
        load_rules_file(path)


def test_nul_bytes_mean_not_a_text_file(tmp_path: Path) -> None:
    # NUL is valid UTF-8, so only this check tells a binary file made of ASCII and zeros from text
    path = write(tmp_path, b"x < y\n\x00\x00\x00\x01")
    with pytest.raises(ValueError, match=r"rules\.txt:2: not a text file \(a NUL byte at byte 7\)"):
        load_rules_file(path)


@pytest.mark.parametrize(
    "data, line",
    [
        (b"x < y\r\n\r\nx <<< y\r\n", 3),  # Windows line ends
        (b"x < y\rx <<< y\r", 2),  # old Mac line ends
        (b"# notes\x0cmore notes\nx <<< y\n", 2),  # a form feed is not a line end for an editor
    ],
)
def test_bad_line_is_named_as_an_editor_counts_lines(tmp_path: Path, data: bytes, line: int) -> None:
    path = write(tmp_path, data)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}:{line}: "):
        load_rules_file(path)


def test_a_directory_is_not_a_rules_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read rules file"):
        load_rules_file(tmp_path)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda tmp: "/dev/zero", "/dev/zero: larger than 1 MiB"),
        (lambda tmp: str(write(tmp, b"\xff\xfe\x00x")), "not UTF-8 text (byte 1)"),
        (lambda tmp: str(write(tmp, b"x < y\nimport os\n")), "rules.txt:2: "),
    ],
)
def test_cli_gives_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[Path], str], message: str
) -> None:
    if message.startswith("/dev/zero") and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero on this system")
    rules = make(tmp_path)
    db = f"sqlite:///{tmp_path / 'w.db'}"
    assert main(["eval", "wilt", "--rules", rules, "--player", "solver", "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
