"""One game of every family played in Chromium with the keyboard alone (Tab, typing, Enter; no clicks), checked
on the text a person sees: each move's feedback (a wrong guess says so, a value the game cannot use is refused
naming its field), and an end screen that agrees with itself. Each page is laid out for a person at 1280 and
390 px wide: no label's box overlaps an input's, and nothing is wider than the window. Screenshots of every game
are saved under the test's ``tmp_path``.

The games of WILT, Static Picnic and the lab run by default; the others are marked ``slow`` (each starts its own
Chromium).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wason.store import Store

WIDTHS = (1280, 390)

LAYOUT = """() => {
  const shown = (sel) => [...document.querySelectorAll(sel)]
    .filter((e) => e.type !== "hidden" && e.getClientRects().length > 0);
  const labels = shown("label").map((e) => [e.textContent.trim().slice(0, 40), e.getBoundingClientRect()]);
  const inputs = shown("input, textarea, select").map((e) => [e.name, e.getBoundingClientRect()]);
  const overlaps = [];
  for (const [text, l] of labels) {
    for (const [name, i] of inputs) {
      const w = Math.min(l.right, i.right) - Math.max(l.left, i.left);
      const h = Math.min(l.bottom, i.bottom) - Math.max(l.top, i.top);
      if (w > 0.5 && h > 0.5) overlaps.push(text + " / " + name);
    }
  }
  return {overlaps, scroll: document.documentElement.scrollWidth, width: window.innerWidth};
}"""


class Game:
    """A page of a game and what the player sees, driven by keys only."""

    def __init__(self, page: Any, url: str, store: Store, shots: Path) -> None:
        self.page, self.url, self.store, self.shots = page, url, store, shots
        self.sid = 0
        self.n = 0

    # -- keys ------------------------------------------------------------------------------------------------
    def focus(self, selector: str) -> None:
        """Tab (from the top of the page) until ``selector`` has the focus."""
        self.page.evaluate("() => document.activeElement && document.activeElement.blur()")
        for _ in range(120):
            self.page.keyboard.press("Tab")
            if self.page.evaluate("(s) => document.activeElement.matches(s)", selector):
                return
        raise AssertionError(f"Tab never reached {selector}")

    def type(self, text: str, selector: str | None = None) -> None:
        """Type into ``selector`` (reached with Tab) or into the focused field, replacing what it held."""
        if selector is not None:
            self.focus(selector)
        self.page.keyboard.press("Control+A")
        self.page.keyboard.type(text)

    def enter(self) -> None:
        with self.page.expect_navigation():
            self.page.keyboard.press("Enter")

    def send(self, move: str, **values: str) -> None:
        """Fill a move's fields (each reached with Tab) and send it with Enter (a move without fields: Enter on
        its button)."""
        if not values:
            self.focus(f"#move-{move} button")
        for name, text in values.items():
            self.type(text, f"#f-{move}-{name}")
        self.enter()

    # -- what is seen ----------------------------------------------------------------------------------------
    def start(self, family: str, **fields: str) -> None:
        self.page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        self.page.goto(f"{self.url}/play?family={family}")
        self.layout("start")
        self.page.keyboard.type("ada")  # the name field has the focus
        for name, text in fields.items():
            self.type(text, f"#{name}")
        self.enter()
        assert re.search(r"/play/\d+$", self.page.url), self.page.url
        self.sid = int(self.page.url.rsplit("/", 1)[1])

    def quiz(self) -> None:
        """Answer "yes" to every question of the quiz that follows a decided game, then send it."""
        fields = self.page.locator("#move-quiz input[name^='f_label']").count()
        assert fields >= 1
        self.focus("#f-quiz-label1")
        for _ in range(fields):
            self.page.keyboard.type("yes")
            self.page.keyboard.press("Tab")
        self.focus("#f-quiz-label1")
        self.enter()

    def said(self) -> str:
        """What the game answered the last move."""
        answer = self.page.locator(".play-history li").last.locator("pre")
        return str(answer.inner_text()) if answer.count() else ""

    def moves(self) -> int:
        return int(self.page.locator(".play-history li").count())

    def error(self) -> str:
        return str(self.page.inner_text("#play-error"))

    def ending(self) -> str:
        self.page.wait_for_selector(".play-end")
        return str(self.page.inner_text(".play-end"))

    def layout(self, what: str) -> None:
        """At each width: no label over an input, nothing wider than the window; a screenshot of each."""
        for width in WIDTHS:
            self.page.set_viewport_size({"width": width, "height": 900})
            found = self.page.evaluate(LAYOUT)
            self.n += 1
            self.page.screenshot(path=str(self.shots / f"{self.n:02d}-{what}-{width}.png"), full_page=True)
            assert not found["overlaps"], f"{what} at {width}px: labels over inputs: {found['overlaps'][:5]}"
            assert found["scroll"] <= found["width"], f"{what} at {width}px: {found['scroll']}px wide"
        self.page.set_viewport_size({"width": WIDTHS[0], "height": 900})


def wilt(g: Game) -> None:
    g.start("wilt", rule="2")  # x < y < z
    g.layout("wilt")
    g.page.keyboard.type("abc")  # x has the focus
    g.page.keyboard.press("Tab")
    g.page.keyboard.type("2")
    g.page.keyboard.press("Tab")
    g.page.keyboard.type("3")
    g.enter()
    assert g.error().startswith("x: ") and "not a number" in g.error()
    assert g.moves() == 0 and g.store.list_turns(g.sid) == []  # refused: nothing stored, no test used
    g.type("1", "#f-test-x")  # the values typed are kept: only x is typed again
    g.enter()
    assert "True" in g.said()
    g.send("test", x="3", y="2", z="1")
    assert "False" in g.said()
    g.send("guess", expression="x < y < z")
    end = g.ending()
    assert "you solved it" in end
    assert "Correct, after 2 tests." in end and "Your 2 tests ruled out" in end


def picnic(g: Game) -> None:
    g.start("picnic", seed="1")
    intro = g.page.inner_text(".play-intro")
    assert "You can bring:" in intro and "type 'more N'" not in intro
    g.layout("picnic")
    g.page.keyboard.press("Control+A")  # the count has the focus
    g.page.keyboard.type("2")
    g.enter()
    assert "You can bring:" in g.said()
    g.send("guess", text="weapon and fruit and turtle")
    assert g.said().startswith("Wrong: that is not the rule")
    if not g.page.locator(".play-end").count():
        g.send("give_up")
    end = g.ending()
    assert "Game over" in end and "not solved" in end and "The rule was:" in end


def lab(g: Game) -> None:
    pytest.importorskip("wason.tasks.lab.learner", reason="the lab's ideal learner has not landed yet")
    g.start("lab", seed="1")
    assert "JSON" not in g.page.inner_text("main") and "Your reply" not in g.page.inner_text("main")
    example = g.page.locator("#f-run-steps").get_attribute("placeholder")
    assert example
    g.page.keyboard.type(example)  # the steps box has the focus
    g.enter()
    assert "Results:" in g.said()
    g.send("done")
    rows = g.page.locator(".play-table tbody tr")
    n = rows.count()
    assert n >= 1 and "JSON" not in g.page.inner_text("main")
    g.layout("lab-test")
    g.focus("#f-answer-test1")
    for _ in range(n):
        g.page.keyboard.type("-")
        g.page.keyboard.press("Tab")
    g.focus("#f-answer-report")
    g.page.keyboard.type("nothing changes, I think")
    g.enter()
    end = g.ending()
    assert "Game over" in end and "The hidden laws were:" in end


def aiw(g: Game) -> None:
    g.start("aiw", seed="1")
    assert "### Answer" not in g.page.inner_text("main")
    g.layout("aiw")
    g.page.keyboard.type("three")
    g.enter()
    assert g.error().startswith("answer: ") and g.store.list_turns(g.sid) == []
    expected = str(g.store.get_episode(g.sid).item["expected"])
    g.type(expected, "#f-answer-answer")
    g.enter()
    end = g.ending()
    assert "you solved it" in end and f"The answer was {expected}." in end
    assert f"You answered {expected}: right." in end


def lists(g: Game) -> None:
    g.start("lists", seed="1")
    g.layout("lists")
    g.page.keyboard.type("1, 2, x")  # list 1 has the focus
    g.enter()
    assert g.error().startswith("list 1: ") and g.store.list_turns(g.sid) == []
    g.type("1, 2, 3", "#f-tests-list1")
    g.enter()
    assert "[1, 2, 3] -> " in g.said() and "rounds left" in g.said()
    g.send("final", text="the numbers go up")
    assert "Python predicate" in g.said() and "JSON" not in g.page.inner_text("main")
    g.page.keyboard.type("lambda xs: xs == sorted(xs)")  # the predicate has the focus
    g.enter()
    assert "yes or no" in g.said()
    g.quiz()
    end = g.ending()
    assert "Game over" in end and "The rule was:" in end


def code_functions(g: Game) -> None:
    g.start("code-functions", seed="1")
    assert "Items from the category" not in g.page.inner_text("main")
    g.layout("code-functions")
    g.send("guess", text="words with a z")
    assert "Python predicate" in g.said()
    g.page.keyboard.type("lambda w: 'z' in w and len(w) > 40")  # the predicate has the focus
    g.enter()
    assert g.said().startswith("Wrong: that is not the rule.")
    g.send("give_up")
    assert "yes or no" in g.said()  # a decided game asks the quiz
    g.quiz()
    end = g.ending()
    assert "Game over" in end and "not solved" in end and "The rule was:" in end


def math(g: Game) -> None:
    g.start("math", seed="1")
    assert "My Guess is" not in g.page.inner_text("main")
    g.layout("math")
    g.send("guess", text="add one")
    assert "Python expression" in g.said()
    g.page.keyboard.type("lambda v, i: v + 100001")
    g.enter()
    assert g.said().startswith("Wrong: that is not the rule.")
    g.send("give_up")
    end = g.ending()
    assert "Game over" in end and "The rule was:" in end


def dynamic_picnic(g: Game) -> None:
    g.start("dynamic-picnic", seed="1")
    g.layout("dynamic-picnic")
    g.page.keyboard.type("a kite")  # "Can I bring" has the focus
    g.enter()
    assert "Game Master:" in g.said()
    g.send("guess", text="starts with q lambda w: w.startswith('qqq')")
    assert "Incorrect" in g.said()
    g.send("give_up")
    end = g.ending()
    assert "Game over" in end and "The rule was:" in end


GAMES: dict[str, Callable[[Game], None]] = {
    "wilt": wilt,
    "picnic": picnic,
    "lab": lab,
    "aiw": aiw,
    "lists": lists,
    "code-functions": code_functions,
    "math": math,
    "dynamic-picnic": dynamic_picnic,
}
DEFAULT = ("wilt", "picnic", "lab")


def test_every_registered_family_has_a_keyboard_game() -> None:
    from wason.core import registry
    from wason.tasks import __name__ as builtin

    ours = {f.name for f in registry.families() if type(f).__module__.startswith(builtin)}
    assert ours <= set(GAMES), f"no keyboard game for {sorted(ours - set(GAMES))}"


@pytest.mark.parametrize(
    "family", [f if f in DEFAULT else pytest.param(f, marks=pytest.mark.slow) for f in GAMES]
)
def test_a_game_played_with_the_keyboard_alone(
    family: str, live_server: Any, browser_page: Any, tmp_path: Path
) -> None:
    game = Game(browser_page, live_server.url, live_server.store, tmp_path)
    GAMES[family](game)
    game.layout(f"{family}-end")
    assert len(list(tmp_path.glob("*.png"))) >= 4
