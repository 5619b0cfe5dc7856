"""Write what the published Code Functions predicates say about every word of the game's vocabulary.

The reference's accepted functions (``history_L1.txt`` of GuessTheRuleBench, in the shared reference pack) were
translated into wason's word language (``src/wason/tasks/code_functions/translate.py``). This script runs the
*original* functions on every word of the game's vocabulary and writes their truth values to
``tests/tasks/code_functions/data/original_truths.json``, so that ``tests/tasks/code_functions/test_original_truths.py``
can hold each translation (run through the word sandbox, as the game runs it) to its original on every word.

The originals are model-written Python: they run only in a child process of this script, under resource limits
(CPU time, address space, no file writes, no new processes), with a scrubbed environment, in an empty temporary
directory, and never in wason itself or in its tests. Nothing in ``src/`` imports this script.

Usage (from the checkout, with the project's virtualenv)::

    .venv/bin/python scripts/make_code_function_truths.py            # rewrite the data file
    .venv/bin/python scripts/make_code_function_truths.py --check    # fail if the file is not what it writes

The reference pack is read from ``../shared`` beside the checkout, or from ``$WASON_SHARED``. The output is
deterministic: the same reference, vocabulary and wordfreq version give the same file, byte for byte.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "tests" / "tasks" / "code_functions" / "data" / "original_truths.json"
HISTORY = ("reference", "guess_the_rule", "code_functions", "history_L1.txt")
FORMAT = 1

# Limits of the child that runs the published functions (171 functions x ~10,600 words take about a second).
CHILD_CPU_SECONDS = 120
CHILD_ADDRESS_SPACE = 1024**3
CHILD_WALL_SECONDS = 300
# ``-I`` without its ``-E``: no site packages, no user site, no script directory on the path, no bytecode written,
# while the (otherwise empty) environment still sets the hash seed
CHILD_FLAGS = ("-B", "-S", "-s", "-P")
HASH_SEEDS = ("0", "1")

# A top-level ``def``: at the start of a line, or glued to the end of the previous ``generated_fn = name`` line
# (the published file has one such ``...fivedef is_unique_consonant_count(word):``). Nested ``def``s are indented.
_DEF = re.compile(r"(?:^|(?<=\w))def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)


def shared_dir() -> Path:
    """The shared folder (the one holding ``reference/``): ``$WASON_SHARED`` or ``../shared`` beside the checkout."""
    env = os.environ.get("WASON_SHARED")
    return Path(env) if env else REPO.parent / "shared"


def split_history(text: str) -> list[tuple[str, str]]:
    """``(name, code)`` of every published function, in file order; ``code`` runs up to the next ``def``.

    This is written apart from wason's own splitter (``translate.split_functions``), so that the test, which
    pairs the two lists by index and name, also checks that wason reads the same functions out of the file.
    """
    matches = list(_DEF.finditer(text))
    return [
        (m.group(1), text[m.start() : matches[k + 1].start() if k + 1 < len(matches) else len(text)])
        for k, m in enumerate(matches)
    ]


def run_child(request: str, hash_seed: str) -> list[dict[str, Any]]:
    """One run of the limited child on ``request``, with string hashing seeded by ``hash_seed``."""
    with tempfile.TemporaryDirectory(prefix="wason-truths-") as scratch:
        completed = subprocess.run(
            [sys.executable, *CHILD_FLAGS, str(Path(__file__).resolve()), "--child"],
            input=request,
            capture_output=True,
            text=True,
            cwd=scratch,
            env={"LC_ALL": "C.UTF-8", "PYTHONHASHSEED": hash_seed},
            timeout=CHILD_WALL_SECONDS,
            check=False,
        )
    if completed.returncode != 0:
        raise SystemExit(
            f"the child running the published functions failed (exit {completed.returncode}):\n"
            f"{completed.stderr[-4000:]}"
        )
    results: list[dict[str, Any]] = json.loads(completed.stdout)
    return results


def run_originals(functions: list[tuple[str, str]], words: list[str]) -> list[dict[str, Any]]:
    """Run every function on every word in a limited child process; one ``{name, bits, raised}`` per function.

    The child runs twice, with two hash seeds: a function whose answer depended on the order of a set's
    elements would answer differently, and would be reported instead of stored.
    """
    request = json.dumps({"functions": [code for _, code in functions], "words": words})
    results, *others = [run_child(request, seed) for seed in HASH_SEEDS]
    if len(results) != len(functions):
        raise SystemExit(f"the child answered for {len(results)} of {len(functions)} functions")
    for k, ((name, _), result) in enumerate(zip(functions, results, strict=True)):
        if result["name"] != name:
            raise SystemExit(f"function {k + 1} {name}: the code bound generated_fn to {result['name']}")
        if any(other[k] != result for other in others):
            raise SystemExit(f"function {k + 1} {name}: its answers depend on the hash seed (a set's order)")
    return results


def child() -> None:
    """The child: limit this process, then run the published functions as the reference did (``exec``).

    The reference ``exec``'d each function and called ``generated_fn(word)``; that is the only way to know what
    the originals say, so it is done here, and only here: in a process limited before any published code runs,
    started without site packages or user paths and with an empty environment (:data:`CHILD_FLAGS`), with
    stdin and stdout as its only channel.
    Run as root, it becomes ``nobody`` once limited: root could raise its limits again (and is not held to
    ``RLIMIT_NPROC``), and ``nobody`` cannot write to the private temporary directory it runs in.
    """
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (CHILD_CPU_SECONDS, CHILD_CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.geteuid() == 0:
        import pwd

        try:
            nobody = pwd.getpwnam("nobody")
            uid, gid = nobody.pw_uid, nobody.pw_gid
        except KeyError:
            uid = gid = 65534
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    request = json.loads(sys.stdin.read())
    words: list[str] = request["words"]
    out = []
    for code in request["functions"]:
        namespace: dict[str, Any] = {"__name__": "generated"}
        # the published code, run here only: in this limited child (see the docstring), never in wason
        exec(code, namespace)
        fn = namespace["generated_fn"]
        bits = []
        raised = []
        for word in words:
            try:
                bits.append("1" if fn(word) else "0")
            except MemoryError:  # a limit of this child, not something the function says about the word
                raise
            except Exception:  # the word sandbox reads an error as False; the words are listed
                bits.append("0")
                raised.append(word)
        out.append({"name": fn.__name__, "bits": "".join(bits), "raised": raised})
    sys.stdout.write(json.dumps(out))


def pack(bits: str) -> str:
    """A bit string (``"0110..."``, one character a word) as base64 of its bytes, most significant bit first."""
    padded = bits + "0" * (-len(bits) % 8)
    data = bytes(int(padded[i : i + 8], 2) for i in range(0, len(padded), 8))
    return base64.b64encode(data).decode("ascii")


def build(shared: Path) -> str:
    """The data file's text."""
    sys.path.insert(0, str(REPO / "src"))
    from wason.tasks.code_functions.vocabulary import vocabulary, vocabulary_provenance

    history_path = shared.joinpath(*HISTORY)
    if not history_path.is_file():
        raise SystemExit(f"the reference's history_L1.txt is not at {history_path} (set WASON_SHARED)")
    history = history_path.read_bytes()
    functions = split_history(history.decode("utf-8"))
    words = list(vocabulary())
    results = run_originals(functions, words)
    truths: dict[str, str] = {}
    entries = []
    for index, ((name, _), result) in enumerate(zip(functions, results, strict=True), 1):
        bits = result["bits"]
        # the digest wason's published_rules.json gives a rule's extension: SHA-256 of one byte (0/1) a word
        digest = hashlib.sha256(bytes(c == "1" for c in bits)).hexdigest()[:16]
        truths[digest] = pack(bits)
        entries.append(
            {
                "index": index,
                "name": name,
                "true": bits.count("1"),
                "truth": digest,
                "raised": result["raised"],
            }
        )
    head = {
        "about": (
            "What the published Code Functions predicates (GuessTheRuleBench history_L1.txt) say about every "
            "word of the game's vocabulary, found by running the originals in a limited child process. "
            "Written by scripts/make_code_function_truths.py; do not edit by hand."
        ),
        "format": FORMAT,
        "encoding": (
            "functions[k].truth names an entry of truths: base64 of the packed bits (most significant bit "
            "first), bit i for the i-th word of vocabulary(); the name is the first 16 hex digits of the SHA-256 "
            "of the truth as one byte (0 or 1) a word, as published_rules.json names a rule's extension"
        ),
        "regenerate": ".venv/bin/python scripts/make_code_function_truths.py",
        "history": {"path": "/".join(HISTORY), "sha256": hashlib.sha256(history).hexdigest()},
        "vocabulary": {
            **vocabulary_provenance(),
            "sha256": hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest(),
        },
    }
    # one line a function and a truth, so that a regenerated file's diff says which functions changed
    lines = [json.dumps(head, indent=1)[:-2] + ",", ' "functions": [']
    lines += [f"  {json.dumps(e)}," for e in entries]
    lines[-1] = lines[-1][:-1]
    lines += [" ],", ' "truths": {']
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in sorted(truths.items())]
    lines[-1] = lines[-1][:-1]
    lines += [" }", "}"]
    text = "\n".join(lines) + "\n"
    if json.loads(text) != {**head, "functions": entries, "truths": dict(sorted(truths.items()))}:
        raise SystemExit("internal error: the data file does not read back")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--check", action="store_true", help="fail if the data file differs from what it writes"
    )
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"where to write (default {OUTPUT})")
    args = parser.parse_args(argv)
    if args.child:
        child()
        return 0
    text = build(shared_dir())
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is not what the script writes; rerun it without --check", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    data = json.loads(text)
    print(
        f"wrote {args.output}: {len(data['functions'])} functions, {data['vocabulary']['words']} words, "
        f"{len(data['truths'])} distinct truth vectors"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
