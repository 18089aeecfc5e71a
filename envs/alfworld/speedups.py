"""Memoise the pure, repeated work inside TextWorld's PDDL engine.

Profiling ALFWorld episodes (cProfile over load, reset and the walkthrough)
shows that most of their CPU goes to work whose answer never changes for a
given input:

- TatSu parses of the same grammar strings: every feedback text and every
  admissible command is derived from a template that is parsed again at each
  step (`textgen._parse_and_convert`), and every grammar condition is parsed
  again as a logic query (`textworld.logic._parse_and_convert`);
- the game grammar, parsed at each load although ALFWorld games differ only by
  the sentence of their `task` rule: it is parsed once with that sentence masked,
  and each game gets a copy whose `task` rule is its own sentence;
- `fast_downward.pddl2sas`, run twice at `load()` and the same two times again
  at `reset()` on the same domain and problem: kept per process, and on disk
  (`logic_cache.kept_on_disk`) for the next process that opens the same game;
- `copy_context`, which deep-copies the variable and mapping dicts of the text
  generator's context for every symbol, although ALFWorld's grammar only reads
  attributes of the copied values (`{r.name}`, `{o.indefinite}`, ...).

`install()` wraps those functions with caches and replaces the deep copy by a
copy of the two dicts. Observations and admissible commands are identical with
and without it: `tests/envs/test_speedups.py` plays a sample of bundled and real
games both ways and compares every text (`benchmarks/check_speedups.py` all 200,
with `tests/envs/engine_transcript.py`). Set RECODE_ALFWORLD_SPEEDUPS=0 to run
the engine untouched; `benchmarks/bench_env.py` measures both.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from copy import deepcopy
from typing import Any, Callable

from envs.alfworld.options import current

_installed = False


def is_installed() -> bool:
    return _installed


def enabled() -> bool:
    """$RECODE_ALFWORLD_SPEEDUPS is not 0 (or false, no, off)."""
    return current().speedups_on


class _Memo:
    """A bounded least-recently-used cache of one function's results by its arguments."""

    def __init__(self, function: Callable[..., Any], size: int, fresh: Callable[[Any], Any] | None) -> None:
        self.function = function
        self.size = size
        self.fresh = fresh  # makes a private copy of a cached value for callers that mutate it
        self.results: OrderedDict[Any, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = (args, tuple(sorted(kwargs.items())))
        try:
            value = self.results[key]
            self.results.move_to_end(key)
            self.hits += 1
        except KeyError:
            value = self.function(*args, **kwargs)
            self.misses += 1
            self.results[key] = value
            if len(self.results) > self.size:
                self.results.popitem(last=False)
        except TypeError:  # an unhashable argument: no caching
            return self.function(*args, **kwargs)
        return self.fresh(value) if self.fresh else value


def _copy_context_shallow(context: dict[str, Any]) -> dict[str, Any]:
    """The text generator's context with its own variable and mapping dicts (values shared)."""
    return {
        "state": context["state"],
        "facts": context["facts"],
        "variables": dict(context["variables"]),
        "mapping": dict(context["mapping"]),
        "entity_infos": context["entity_infos"],
    }


def _parse_task_once(pddl2sas: Callable[..., Any], module: Any) -> _Memo:
    """`pddl2sas` computed once per process and kept on disk for the next process.

    The translation is pure (the same domain and problem give the same task and
    SAS text) and is most of a game's load (two translations, about 0.3 s), so a
    game opened again (the console's next start, an evaluation's next run)
    reads it back instead (about 270 KB per game in the user's cache folder).
    """
    from envs.alfworld.logic_cache import kept_on_disk, translation_counts

    def translate_text(domain: str, problem: str, mode: str) -> Any:
        return pddl2sas(domain, problem, optimize=mode == "optimized")

    def is_translation(value: Any, args: tuple[Any, ...]) -> bool:
        return isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str)

    on_disk = kept_on_disk(translate_text, module, "pddl2sas", TRANSLATION_CLASSES, translation_counts,
                           accept=is_translation)

    def translate(domain: str, problem: str, verbose: bool = False, optimize: bool = False) -> Any:
        if verbose:  # TextWorld's debug output is printed by the translation itself: never from the cache
            return pddl2sas(domain, problem, verbose=verbose, optimize=optimize)
        return on_disk(domain, problem, "optimized" if optimize else "plain")

    # The translated task is only read (actions, types, objects, init): share it.
    return _Memo(translate, size=4, fresh=None)


_PDDL = "fast_downward.translate.pddl"
# What a translation holds: fast_downward's task (plain PDDL data classes) and the SAS text.
TRANSLATION_CLASSES = tuple(f"{_PDDL}.{name}" for name in (
    "tasks:Task", "tasks:Requirements", "pddl_types:Type", "pddl_types:TypedObject", "predicates:Predicate",
    "functions:Function", "actions:Action", "actions:PropositionalAction", "axioms:Axiom",
    "axioms:PropositionalAxiom", "conditions:Truth", "conditions:Falsity", "conditions:Conjunction",
    "conditions:Disjunction", "conditions:UniversalCondition", "conditions:ExistentialCondition",
    "conditions:Atom", "conditions:NegatedAtom", "effects:Effect", "effects:ConjunctiveEffect",
    "effects:UniversalEffect", "effects:ConditionalEffect", "effects:SimpleEffect", "effects:CostEffect",
    "f_expression:Increase", "f_expression:Assign", "f_expression:PrimitiveNumericExpression",
    "f_expression:NumericConstant"))
_TEXTGEN = "textworld.envs.pddl.textgen"
# What a parsed game grammar holds: the game's actions and its text grammar's rules and symbols.
GRAMMAR_CLASSES = ("textworld.envs.pddl.logic:Action", *(f"{_TEXTGEN}:{name}" for name in (
    "ContextSensitiveGrammar", "ProductionRule", "TerminalSymbol", "NonterminalSymbol", "ConditionalSymbol",
    "EvalSymbol", "ListSymbol")))


def _evaluated_in_text(value: Any, args: tuple[Any, ...]) -> bool:
    """Every `{expression}` of a grammar read back is one the game's own text has (where the parser found it).

    TextWorld `eval`s these expressions when it writes feedback, so a cache file
    must not bring one of its own: that would be code from the cache folder."""
    from textworld.envs.pddl import textgen

    text = args[0] if args and isinstance(args[0], str) else ""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, (str, int, float, bool, type(None))):
            continue
        seen.add(id(item))
        if isinstance(item, textgen.EvalSymbol) and not (isinstance(item.expression, str)
                                                         and _in_braces(item.expression, text)):
            return False
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack += list(item)
        else:
            try:
                stack.append(vars(item))
            except TypeError:
                continue
    return True


def _in_braces(expression: str, text: str) -> bool:
    """`{expression}` or `{expression | condition}` is in the grammar's text."""
    return "{" + expression + "}" in text or "{" + expression + "|" in text


# The one rule that differs between ALFWorld games: "task": [{"rhs": "Your task is to: ..."}]
_TASK_RULE = re.compile(r'("task"\s*:\s*\[\s*\{\s*"rhs"\s*:\s*")([^"\\]*)(")')
_TASK_MASK = "@@the task sentence of this game@@"


class _GameGrammarMemo:
    """Parse a game's grammar once per process, whatever its task sentence."""

    def __init__(self, parse: Callable[..., Any], module: Any) -> None:
        from envs.alfworld.logic_cache import kept_on_disk

        # GameLogic copies the parsed actions and rules into its own containers and only reads them.
        self.parse = _Memo(parse, size=4, fresh=None)
        # The masked grammar is the same in every process: the first game of each reads it back from disk.
        on_disk = kept_on_disk(parse, module, "alfworld-grammar", GRAMMAR_CLASSES, accept=_evaluated_in_text)
        self.masked = _Memo(on_disk, size=4, fresh=None)

    def __call__(self, text: Any, **kwargs: Any) -> Any:
        found = list(_TASK_RULE.finditer(text)) if isinstance(text, str) else []
        if len(found) != 1 or _TASK_MASK in text:
            return self.parse(text, **kwargs)
        task = found[0]
        actions, grammar = self.masked(text[: task.start(2)] + _TASK_MASK + text[task.end(2) :], **kwargs)
        own = _with_task_sentence(grammar, task.group(2))
        return (actions, own) if own is not None else self.parse.function(text, **kwargs)


def _with_task_sentence(grammar: Any, sentence: str) -> Any:
    """A copy of a parsed grammar whose single `task` rule says `sentence` (None if it has another shape)."""
    from textworld.envs.pddl import textgen

    rules = grammar._rules.get("task") or []
    if len(rules) != 1 or [str(symbol) for symbol in rules[0].rhs] != [_TASK_MASK]:
        return None
    own = textgen.ContextSensitiveGrammar()
    for name, alternatives in grammar._rules.items():
        own._rules[name] = list(alternatives)
    old = rules[0]
    # The sentence has no quote or backslash, so its JSON text is the string itself.
    rhs = textgen._parse_and_convert(sentence, rule_name="symbols")
    own._rules["task"] = [textgen.ProductionRule(lhs=old.lhs, rhs=rhs, weight=old.weight, condition=old.condition)]
    return own


def install() -> bool:
    """Patch the engine's modules once per process; return whether the speedups are on."""
    global _installed
    if _installed:
        return True
    if not enabled():
        return False
    import fast_downward
    import textworld.logic as tw_logic
    from textworld.envs.pddl import logic as pddl_logic
    from textworld.envs.pddl import textgen

    wanted = [(textgen, "_parse_and_convert"), (textgen, "copy_context"), (textgen, "ContextSensitiveGrammar"),
              (textgen, "ProductionRule"), (tw_logic, "_parse_and_convert"), (pddl_logic, "_parse_and_convert"),
              (fast_downward, "pddl2sas")]
    if not all(callable(getattr(module, name, None)) for module, name in wanted):  # dynamic: the names of `wanted`
        return False  # another TextWorld than the one these caches were written for: run it untouched
    # Symbols are mutated after parsing (their context is set), so callers get copies.
    textgen._parse_and_convert = _Memo(textgen._parse_and_convert, size=4096, fresh=deepcopy)
    tw_logic._parse_and_convert = _Memo(tw_logic._parse_and_convert, size=4096, fresh=deepcopy)
    pddl_logic._parse_and_convert = _GameGrammarMemo(pddl_logic._parse_and_convert, pddl_logic)
    fast_downward.pddl2sas = _parse_task_once(fast_downward.pddl2sas, fast_downward)
    textgen.copy_context = _copy_context_shallow
    _installed = True
    return True
