"""``wason code-functions ...``: the published functions' translation, checking rule files, generated rules."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from wason.tasks.code_functions.grammar import generate_rules
from wason.tasks.code_functions.translate import split_functions

MAX_FILE = 1 << 20


def run(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    if args.cf_command == "published":
        return _published(args, write)
    if args.cf_command == "check":
        return _check(args, write)
    if args.cf_command == "rules":
        try:
            rules = generate_rules(args.level, args.seed, args.n)
        except ValueError as exc:
            raise ValueError(f"rules: {exc}") from None
        for rule in rules:
            write(f"{rule.key}\t{rule.text}\t{rule.source}")
        return 0
    raise ValueError(f"unknown command {args.cf_command!r}")


def _published(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    from wason.tasks.code_functions.published import published_data

    data = published_data()
    rules, untranslated = data["rules"], data["untranslated"]
    balanced = [r for r in rules if r["balance"]["published_ok"] and r["balance"]["vocabulary_ok"]]
    if args.json:
        write(json.dumps(data, indent=1))
        return 0
    write(
        f"history_L1.txt: {data['functions']} functions; {len(rules)} translated into the word language, "
        f"{len(untranslated)} not; {sum(r['balance']['published_ok'] for r in rules)} pass the published balance "
        f"check (4 < k < 46 of 50 words) on this word list, {len(balanced)} also 10%-90% of the whole list; "
        f"{len({r['extension'] for r in rules})} distinct by extension ({len({r['extension'] for r in balanced})} "
        "among the balanced)."
    )
    for u in untranslated:
        write(f"  not translated: #{u['index']} {u['name']}: {u['reason']}")
    return 0


def _check(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    from wason.tasks.code_functions.writer import check_code

    path = Path(args.file)
    try:
        # at most one byte past the limit is read: a device or pipe without end (/dev/zero) is refused too
        with path.open("rb") as f:
            raw = f.read(MAX_FILE + 1)
    except OSError as exc:
        raise ValueError(f"{args.file}: cannot read it ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE:
        raise ValueError(f"{args.file}: larger than 1 MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{args.file}: not UTF-8 text (byte {exc.start})") from None
    codes = _codes(text)
    accepted = []
    for k, code in enumerate(codes, 1):
        record = check_code(code, f"check|{k}")
        if record["accepted"]:
            accepted.append(record)
            write(f"#{k} {record.get('name')}: accepted  {record['source']}")
        else:
            write(f"#{k} {record.get('name', '?')}: rejected: {record['reason']}")
    write(f"{len(accepted)} of {len(codes)} accepted")
    if args.output:
        lines = [
            json.dumps(
                {
                    "key": f"checked:{path.name}:{k}",
                    "level": args.level,
                    "text": f"the function {r.get('name')}",
                    "source": r["source"],
                    "provenance": {"code": r["code"], "balance": r.get("balance")},
                }
            )
            for k, r in enumerate(accepted, 1)
        ]
        Path(args.output).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        write(f"wrote {len(lines)} rules to {args.output}")
    return 0


def _codes(text: str) -> list[str]:
    """The functions to check: each accepted rule's code of a write-rules report (``wason show RUN --json``),
    each reply of a write-rules report's rejections too, or else every function definition of a text file."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("rules"), list):
            return [str(r.get("code") or "") for r in data["rules"] if isinstance(r, dict)]
    return split_functions(text)
