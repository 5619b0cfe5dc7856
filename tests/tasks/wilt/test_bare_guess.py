"""A bare-expression final guess is invalid, as in the reference, unless --lenient-guess (issue 36)."""

from wason.tasks.wilt import FinalGuess, WiltConfig, WiltGame, WiltRunConfig, get_rule


def _play(guess: str, **config: bool) -> WiltGame:
    g = WiltGame(get_rule("full", 2).program(), WiltConfig(**config))  # rule 2: x < y < z
    g.start()
    g.step(FinalGuess(guess))
    return g


def test_bare_expression_is_invalid_and_scores_zero() -> None:
    g = _play("x < y < z")
    assert g.verdict is not None and not g.verdict.accepted
    assert g.verdict.rejection == "Invalid lambda function."
    assert not g.outcome().success
    assert _play("lambda x, y, z: x < y < z").outcome().success


def test_lenient_guess_accepts_it_and_is_recorded_in_the_run() -> None:
    assert _play("x < y < z", lenient_guess=True).outcome().success
    run = WiltRunConfig(lenient_guess=True)
    assert run.game_config().lenient_guess
    assert WiltRunConfig().game_config().lenient_guess is False
    assert run.model_dump()["lenient_guess"] is True
