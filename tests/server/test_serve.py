"""``wason serve`` for real: uvicorn on 127.0.0.1 in another process, played by a client that speaks only the
published routes; and the command's flags and one-line errors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server import hidden_family
from tests.server.test_games import solve
from wason.cli import main

ROOT = Path(__file__).resolve().parents[2]
BASE = "/guess-the-rule/game"

# the server process: the test family registered, then the command line as a user types it
SERVER = """
import sys
from tests.server import hidden_family
from wason.core import registry
from wason.cli import main

registry.register(hidden_family.FAMILY)
sys.exit(main(["serve", "--port", sys.argv[1], "--db", sys.argv[2], "--log-level", "warning"]))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    db = tmp_path_factory.mktemp("serve") / "served.db"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(db)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited: {proc.stderr.read() if proc.stderr else ''}")
            try:
                if httpx.get(f"{url}/guess-the-rule/games", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("the server did not answer within 60 s")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_client_of_the_published_routes_plays_to_a_win(server: str) -> None:
    """Only the reference's four routes, the reference's body (count as a string, a player), no store."""
    with httpx.Client(base_url=server, timeout=30) as http:
        body = {
            "game_name": hidden_family.GAME_NAME,
            "difficulty": "L2",
            "player": "me",
            "num_init_examples": "3",
        }
        game = http.post(BASE, json=body).json()
        gid = game["game_uuid"]
        assert game["status"] == "ongoing"
        positives, negatives = list(game["positive_examples"]), list(game["negative_examples"])
        hidden = http.get(f"{BASE}/{gid}", params={"include_rule": "true"})
        assert hidden.status_code == 409 and "rule" not in hidden.json()
        assert "rule" not in http.get(f"{BASE}/{gid}", params={"include_rule": "false"}).json()
        for _ in range(5):
            more = http.get(f"{BASE}/{gid}/examples", params={"n_examples": 3}).json()
            assert more["status"] == "ongoing" and "rule" not in more
            positives += more["positive_examples"]
            negatives += more["negative_examples"]
        verdict = http.post(
            f"{BASE}/validate_guess", json={"game_id": gid, "guess": solve(positives, negatives)}
        )
        assert verdict.json()["status"] == "won"
        summary = http.get(f"{BASE}/{gid}", params={"include_rule": "true"}).json()
        assert summary["status"] == "won" and summary["rule"] == solve(positives, negatives)
        assert summary["turns_taken"] == 7
        late = http.post(f"{BASE}/validate_guess", json={"game_id": gid, "guess": "give up"})
        assert late.status_code == 409


def test_every_game_the_server_lists_can_be_played_to_its_end(server: str) -> None:
    """Each game, by a client that knows nothing but the routes: more examples, then give up until it ends."""
    with httpx.Client(base_url=server, timeout=60) as http:
        listed = http.get("/guess-the-rule/games").json()["games"]
        assert hidden_family.GAME_NAME in {g["game_name"] for g in listed}
        for entry in listed:
            body: dict[str, Any] = {
                "game_name": entry["game_name"],
                "difficulty": "L1",
                "num_init_examples": 1,
            }
            created = http.post(BASE, json=body)
            if created.status_code == 424:  # a game that needs a model says so; this server has none
                assert "model" in created.json()["error"]
                continue
            assert created.status_code == 200, created.text
            gid = created.json()["game_uuid"]
            status = "ongoing"
            for _ in range(40):
                more = http.get(f"{BASE}/{gid}/examples", params={"n_examples": 2})
                assert more.status_code in (200, 422), more.text  # 422: the game has no more to give
                verdict = http.post(f"{BASE}/validate_guess", json={"game_id": gid, "guess": "give up"})
                assert verdict.status_code == 200, verdict.text
                status = verdict.json()["status"]
                if status != "ongoing":
                    break
            assert status in ("won", "lost"), f"{entry['game_name']} did not end"
            summary = http.get(f"{BASE}/{gid}", params={"include_rule": "true"})
            assert summary.status_code == 200 and summary.json()["rule"], summary.text


def test_serve_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert all(flag in out for flag in ("--host", "--port", "--db", "127.0.0.1"))


@pytest.mark.parametrize(
    ("port", "reason"),
    [("abc", "invalid int value"), ("0", "from 1 to 65535"), ("70000", "from 1 to 65535"), ("-5", "65535")],
)
def test_a_bad_port_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, port: str, reason: str
) -> None:
    assert main(["serve", "--port", port, "--db", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert reason in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and err.count("\n") == 1
