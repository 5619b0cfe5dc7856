"""Grammar-constrained sampling for the embedded model that checks the likely tokens against the grammar
instead of masking the whole vocabulary, with the same results as llama-cpp-python's own sampler chain.

llama-cpp-python (0.3) samples a constrained reply with one llama.cpp sampler chain: penalties, grammar, then
top-k, typical, top-p, min-p, temperature and a random draw (or greedy at temperature 0). Its grammar step
checks every one of the vocabulary's tokens (49,152 for SmolLM2) against the grammar on every generated token,
about 9 ms of CPU a token, up to 40% of a constrained call. Only the best tokens can ever be chosen, so
:class:`CheckFirstSampler` checks those first and masks the whole vocabulary only when they do not settle it:

* **greedy** (temperature 0): the best token is checked; when the grammar allows it, it is the grammar-masked
  vocabulary's best token too (the same first index of the highest logit), so it is the chain's choice. When
  the grammar refuses it, the whole vocabulary is masked, as before (llama.cpp's own ``common_sampler`` does
  the same).
* **top-k sampling** (the default chain, temperature above 0): the best ``CANDIDATES`` tokens are checked; when
  at least ``top_k`` of them are allowed, with no two of the best ``top_k`` allowed logits equal and all of them
  above every token not checked, those ``top_k`` tokens in descending order are exactly what the chain's top-k
  step leaves after the grammar (one order, since no logits tie), and the rest of the chain (top-p, min-p,
  temperature, the seeded draw) runs on them unchanged: the same token and the same random stream. Otherwise
  (few allowed tokens, as inside a number, or a tie) the whole vocabulary is masked, as before.

Any other chain (penalties, mirostat, logits processors, top-k off) is left to llama-cpp-python.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

CANDIDATES = 128
"""How many of the best tokens top-k sampling checks against the grammar before masking the whole vocabulary."""

MASKS_KEPT = 4096
"""How many full masks a model keeps (by grammar and reply so far) before it forgets them all: at most
4,096 x 4,096 token ids of 4 bytes (64 MiB) and their keys, far less in practice (a game reply's action part allows
under 40 tokens)."""
MASK_TOKENS_KEPT = 4096
"""A full mask is kept only when the grammar allows at most this many tokens (a small array of their ids)."""

_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])  # llama_token_data


class CheckFirstSampler:
    """Stands in for llama-cpp-python's sampler chain during one generation (see the module's docstring).

    Attributes:
        checked: tokens settled by checking the best tokens only.
        masked: tokens for which the whole vocabulary was masked.
    """

    def __init__(
        self,
        llama_cpp: Any,
        grammar: Any,
        rest: Any,
        n_vocab: int,
        *,
        greedy: bool,
        top_k: int,
        masks: dict[tuple[int, ...], np.ndarray[Any, Any]] | None = None,
    ) -> None:
        """Args:
        llama_cpp: the ``llama_cpp`` module.
        grammar: a llama-cpp-python ``LlamaSampler`` holding only the grammar sampler.
        rest: a ``LlamaSampler`` chain of everything else llama-cpp-python would have run (no grammar).
        n_vocab: the vocabulary's size.
        greedy: the chain ends in greedy selection (temperature 0).
        top_k: the chain's top-k (used when not greedy; must be positive).
        masks: full masks already made with this grammar: the ids the grammar allowed, by the reply's tokens
            before them (the grammar's state follows from those alone, as each generation starts it afresh).
        """
        self._lib = llama_cpp
        self._grammar = grammar
        self._rest = rest
        self._n_vocab = n_vocab
        self._greedy = greedy
        self._top_k = top_k
        self._ids = np.arange(n_vocab, dtype=np.int32)
        self._masks = masks if masks is not None else {}
        self._reply: list[int] = []
        self.checked = 0
        self.masked = 0
        self.reused = 0

    def sample(self, ctx: Any, idx: int = -1) -> int:
        """The next token from the logits at ``idx``, accepted by the grammar and the rest of the chain."""
        lib = self._lib
        logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx.ctx, idx), shape=(self._n_vocab,))
        token = self._greedy_token(logits) if self._greedy else self._top_k_token(logits)
        if token is None:
            token = self._masked_token(logits)
            self.masked += 1
        else:
            self.checked += 1
        lib.llama_sampler_accept(self._grammar.sampler, token)
        lib.llama_sampler_accept(self._rest.sampler, token)
        self._reply.append(token)
        return token

    def close(self) -> None:
        self._grammar.close()
        self._rest.close()

    def _apply(self, sampler: Any, data: np.ndarray[Any, Any]) -> Any:
        lib = self._lib
        array = lib.llama_token_data_array(
            data=ctypes.cast(data.ctypes.data, lib.llama_token_data_p),
            size=len(data),
            selected=-1,
            sorted=False,
        )
        lib.llama_sampler_apply(sampler.sampler, ctypes.byref(array))
        return array

    def _allowed(self, ids: np.ndarray[Any, Any], logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        data = np.empty(len(ids), dtype=_TOKEN_DATA)
        data["id"] = ids
        data["logit"] = logits[ids]
        data["p"] = 0.0
        self._apply(self._grammar, data)
        allowed: np.ndarray[Any, Any] = data["logit"] != -np.inf  # the grammar sets refused tokens to -inf
        return allowed

    def _greedy_token(self, logits: np.ndarray[Any, Any]) -> int | None:
        best = int(np.argmax(logits))  # the first index of the highest logit, as llama.cpp's greedy sampler
        if self._allowed(np.array([best], dtype=np.int32), logits)[0]:
            return best
        return None

    def _top_k_token(self, logits: np.ndarray[Any, Any]) -> int | None:
        k = self._top_k
        n = min(CANDIDATES, self._n_vocab)
        if n <= k:
            return None
        best = np.argpartition(logits, -n)[-n:]
        best = best[np.argsort(-logits[best], kind="stable")]
        allowed = best[self._allowed(best, logits)]
        if len(allowed) < k:
            return None
        kept = logits[allowed[: k + 1]] if len(allowed) > k else logits[allowed[:k]]
        # no ties among the kept ones or with the next allowed one, and none unchecked above or equal to the k-th
        if not bool(np.all(np.diff(kept) < 0)) or not logits[allowed[k - 1]] > logits[best[-1]]:
            return None
        data = np.empty(k, dtype=_TOKEN_DATA)
        data["id"] = allowed[:k]
        data["logit"] = logits[allowed[:k]]
        data["p"] = 0.0
        return self._selected(self._apply(self._rest, data))

    def _masked_token(self, logits: np.ndarray[Any, Any]) -> int:
        data = np.empty(self._n_vocab, dtype=_TOKEN_DATA)
        data["id"] = self._ids
        data["p"] = 0.0
        key = tuple(self._reply)
        allowed = self._masks.get(key)
        if allowed is not None:  # the grammar's own output: refused tokens at -inf, the others untouched
            self.reused += 1
            data["logit"] = -np.inf
            data["logit"][allowed] = logits[allowed]
            array = self._apply(self._rest, data)
            return self._selected(array)
        data["logit"] = logits
        array = self._apply(self._grammar, data)
        allowed = np.flatnonzero(data["logit"] != -np.inf).astype(np.int32)
        if len(allowed) <= MASK_TOKENS_KEPT:
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            self._masks[key] = allowed
        self._lib.llama_sampler_apply(self._rest.sampler, ctypes.byref(array))
        return self._selected(array)

    @staticmethod
    def _selected(array: Any) -> int:
        if array.selected < 0 or array.selected >= array.size:
            raise RuntimeError("llama.cpp's sampler selected no token")
        return int(array.data[array.selected].id)


def install(
    llama: Any, llama_cpp: Any, enabled: Callable[[], bool], on_sampler: Callable[[Any], None]
) -> None:
    """Make ``llama`` (a ``llama_cpp.Llama``) sample grammar-constrained replies with :class:`CheckFirstSampler`
    where the chain allows it (see the module's docstring).

    Args:
        llama: the loaded model.
        llama_cpp: the ``llama_cpp`` module.
        enabled: read at the start of every generation; False keeps llama-cpp-python's own chain.
        on_sampler: called with each :class:`CheckFirstSampler` made (for its counts).
    """
    from llama_cpp import _internals

    sampler_type: Any = getattr(_internals, "LlamaSampler")  # noqa: B009 - untyped in the library
    original = llama._init_sampler
    masks: dict[str, dict[tuple[int, ...], np.ndarray[Any, Any]]] = {}  # by the grammar's text

    @functools.wraps(original)
    def init_sampler(**kwargs: Any) -> Any:
        grammar = kwargs.get("grammar")
        temp = kwargs.get("temp", 0.8)
        top_k = kwargs.get("top_k", 40)
        neutral = (
            kwargs.get("repeat_penalty", 1.0) == 1.0
            and kwargs.get("frequency_penalty", 0.0) == 0.0
            and kwargs.get("presence_penalty", 0.0) == 0.0
        )
        greedy = temp == 0.0
        if (
            grammar is None
            or not enabled()
            or kwargs.get("logits_processor") is not None
            or not neutral
            or temp < 0.0
            or (not greedy and (kwargs.get("mirostat_mode", 0) != 0 or top_k <= 0))
        ):
            return original(**kwargs)
        rest = original(**{**kwargs, "grammar": None})
        grammar_sampler = sampler_type()
        grammar_sampler.add_grammar(llama._model, grammar)
        sampler = CheckFirstSampler(
            llama_cpp,
            grammar_sampler,
            rest,
            llama.n_vocab(),
            greedy=greedy,
            top_k=top_k,
            masks=masks.setdefault(grammar._grammar + "\0" + grammar._root, {}),
        )
        on_sampler(sampler)
        return sampler

    llama._init_sampler = init_sampler
