"""A lab game played in a browser (Debian's Chromium) through its own forms: requests typed into the steps box
(Enter sends, Shift+Enter starts a new step), Done, a prediction that cannot be read (one line naming its field,
nothing stored), the test answered with the hidden laws as the theory, and the ending."""

from __future__ import annotations

import re
from typing import Any

import pytest


def _enter(page: Any) -> None:
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_a_lab_game_in_a_browser(live_server: Any, browser_page: Any) -> None:
    # the game's end reads the theory and draws the ideal learner's curves
    pytest.importorskip("wason.tasks.lab.theory", reason="the lab's theory reader has not landed yet")
    pytest.importorskip("wason.tasks.lab.learner", reason="the lab's ideal learner has not landed yet")
    page = browser_page
    page.goto(f"{live_server.url}/play?family=lab")
    page.keyboard.type("ada")  # the name field has the focus
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/play/\d+$"))
    sid = int(page.url.rsplit("/", 1)[1])
    store = live_server.store
    item = store.get_episode(sid).item
    laws = item["domain"]["law_text"]
    objects = [o["name"] for o in item["lab"]["objects"]]
    intro = page.inner_text(".play-intro")
    assert "Operations:" in intro and objects[0] in intro
    assert not any(law in page.content() for law in laws)
    # the steps box has the focus, and its placeholder is a request in the lab's own names
    example = page.locator("#move-run textarea").get_attribute("placeholder")
    assert example and example.split()[1] in objects
    page.keyboard.type(example)
    _enter(page)
    assert page.locator(".play-history li").count() == 1
    assert "Results:" in page.inner_text(".play-history")
    # two steps in one request: the second on a new line
    page.locator("#move-run textarea").focus()
    page.keyboard.type(example)
    page.keyboard.press("Shift+Enter")
    page.keyboard.type(f"reset {objects[0]}")
    _enter(page)
    assert page.locator(".play-history li").count() == 2
    assert f"2. reset({objects[0]})" in page.inner_text(".play-history")
    assert [t["action"]["type"] for t in store.list_turns(sid)] == ["Request", "Request"]
    with page.expect_navigation():
        page.locator("#move-done button").click()
    # the test: one field per experiment, the theory, the report
    fields = page.locator("#move-answer input[name^='f_test']")
    n = fields.count()
    assert n == item.get("test_size", n) and n >= 1
    page.fill("[name='f_test1']", "no-such-thing.zib=3")
    with page.expect_navigation():
        page.locator("#move-answer button").click()
    assert page.inner_text("#play-error").startswith("test1: ")
    assert len(store.list_turns(sid)) == 3  # the unreadable answer stored nothing
    for k in range(1, n + 1):
        page.fill(f"[name='f_test{k}']", "-")
    page.fill("[name='f_theory']", "\n".join(laws))
    page.fill("[name='f_report']", "I wrote the laws down.")
    with page.expect_navigation():
        page.locator("#move-answer button").click()
    page.wait_for_selector("#play-ending")
    ending = page.inner_text("#play-ending")
    assert "The hidden laws were:" in ending and all(law in ending for law in laws)
    assert "Your theory is exactly equivalent to the hidden laws." in ending
    episode = store.get_episode(sid)
    assert episode.status == "completed" and episode.metrics is not None
    assert episode.metrics["theory_equivalent"] is True and episode.metrics["experiments"] == 2
