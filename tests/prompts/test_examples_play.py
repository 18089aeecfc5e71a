"""Every few-shot example is a piece of a plan that wins when a model copies it.

The examples of each task type are played as the answers of a run (each stub
answered with the example written for it) through the real engine on every
bundled ALFWorld game of that type, and must win (`make test` plays three games
of each type, `make slow` all of them). The layouts that tripped
the old examples are named and checked to occur: a lamp seen during the
object search, a lamp at the very place the object was taken from, and a
second object that must be searched for after the first was placed.
"""

from __future__ import annotations

import ast
import re

import pytest

from envs import registry
from agent.agents.recode.authoring import play_examples
from agent.agents.recode.examples import parse_example, split_examples
from agent.agents.recode.prompt import PAPER_PROMPTS
from agent.runtime.code import parse_answer
from agent.runtime.prompt_parts import ExamplePlay
from agent.runtime.prompts import PromptSet
from envs.alfworld.catalog import list_games

pytestmark = pytest.mark.heavy  # real ALFWorld games


TASK_TYPES = ("put", "clean", "heat", "cool", "examine", "puttwo")


def examples_text(task_type: str, prompts: PromptSet | None = None) -> str:
    return (prompts or PromptSet()).text(f"alfworld/examples/{task_type}.txt")


# The bundled examples played on a bundled game, by game: a play is the same every time (neither the game nor the
# examples draw a random number), and the sweep, the layout checks and the workspace's games share six games
# (put-01, examine-01, puttwo-01, ...). Each test reads the plays it names; whichever asks first plays the game
# (a sandbox worker and a game load each).
_PLAYED: dict[str, ExamplePlay] = {}


async def bundled_play(episode_ref: str) -> ExamplePlay:
    """The bundled examples of the game's task type played on it (once per module)."""
    if episode_ref not in _PLAYED:
        _PLAYED[episode_ref] = await play_examples(examples_text(episode_ref.split("-")[0]), episode_ref)
    return _PLAYED[episode_ref]


def places_visited(actions: tuple[str, ...]) -> list[str]:
    return [a[len("go to "):] for a in actions if a.startswith("go to ")]


SAMPLE_EVERY = 4  # `make test` plays games 1, 5 and 9 of each type; `make slow` every one


@pytest.mark.parametrize("task_type, every", [pytest.param(t, SAMPLE_EVERY, id=t) for t in TASK_TYPES]
                         + [pytest.param(t, 1, id=f"{t}-every-game", marks=pytest.mark.slow) for t in TASK_TYPES])
async def test_the_examples_of_a_task_type_win_every_bundled_game_of_it(task_type: str, every: int) -> None:
    games = [g.id for g in list_games([task_type])]
    assert len(games) >= 10
    games = games[::every]
    lost = []
    for game in games:
        play = await bundled_play(game)
        if not play.won:
            lost.append(f"{game}: {play.reason} after {list(play.actions)}")
        assert play.steps <= 30, f"{game}: {play.steps} steps is far from a searching plan's cost"
    assert not lost, "\n".join(lost)


async def play_layout(episode_ref: str) -> tuple[str, ...]:
    play = await bundled_play(episode_ref)
    assert play.won, play.summary()
    return play.actions


@pytest.mark.parametrize("episode_ref", ["examine-01", "examine-03", "examine-06"])
async def test_a_lamp_seen_during_the_object_search_is_used(episode_ref: str) -> None:
    actions = await play_layout(episode_ref)
    take = next(i for i, a in enumerate(actions) if a.startswith("take "))
    lamp_place = actions[-2][len("go to "):]
    assert actions[-1].startswith("use ") and lamp_place in places_visited(actions[:take]), actions
    assert len(places_visited(actions[take:])) == 1, f"no second search for the lamp: {actions}"


@pytest.mark.parametrize("episode_ref", ["examine-07", "examine-08"])
async def test_a_lamp_where_the_object_was_taken_is_used(episode_ref: str) -> None:
    actions = await play_layout(episode_ref)
    take = next(a for a in actions if a.startswith("take "))
    assert actions[-1].startswith("use ") and actions[-2] == "go to " + take.rsplit(" from ", 1)[1], actions


@pytest.mark.parametrize("episode_ref", ["puttwo-01", "puttwo-02", "puttwo-04"])
async def test_the_second_object_is_searched_for_after_the_first_was_placed(episode_ref: str) -> None:
    actions = await play_layout(episode_ref)
    moves = [i for i, a in enumerate(actions) if a.startswith("move ")]
    takes = [a for a in actions if a.startswith("take ")]
    assert len(moves) == 2 and len(takes) == 2, actions
    second_from = takes[1].rsplit(" from ", 1)[1]
    assert second_from not in places_visited(actions[: moves[0]]), f"{second_from} was seen before: {actions}"
    dest = actions[moves[0]].rsplit(" to ", 1)[1]
    assert second_from != dest and takes[0].split(" from ")[0] != takes[1].split(" from ")[0], actions


async def test_the_workspace_game_of_each_type_is_won_and_the_paper_examples_were_not() -> None:
    """The games the workspace plays; the examples before this fix did not win all of them."""
    paper = PromptSet(PAPER_PROMPTS)
    old_losses = []
    for task_type in TASK_TYPES:
        game = registry.provider("alfworld").example_episode(task_type)
        assert game is not None
        assert game.startswith(task_type + "-")
        assert (await bundled_play(game)).won
    for game in ("clean-01", "cool-01", "examine-03", "puttwo-02"):
        play = await play_examples(examples_text(game.split("-")[0], paper), game, prompts=paper)
        old_losses.append(play.won)
    assert old_losses == [False, False, False, False]


async def test_an_edited_example_that_no_longer_wins_is_reported() -> None:
    text = examples_text("put").replace('if "You pick up" in obs:', 'if "You pick up" in obs and False:')
    play = await play_examples(text, "put-01")
    assert not play.won and "do not win put-01" in play.summary()
    missing = await play_examples(examples_text("put").split("\n---\n")[0], "put-01")
    assert not missing.won and "no example is written for the stub" in missing.reason


async def test_examples_are_played_behind_the_walls_and_layers_the_user_runs_with() -> None:
    """The workspace plays edited examples with the run's sandbox policy (given, never read from the
    environment): with the Python layers off, as `RECODE_SANDBOX_LAYERS=os` asks, `import os` runs."""
    from agent.sandbox.walls import SandboxPolicy

    text = re.sub(r'^( *)(if "You pick up" in obs:)', r"\1import os\n\1\2", examples_text("put"), count=1,
                  flags=re.M)
    assert not (await play_examples(text, "put-01")).won  # behind the checks the import is refused
    assert (await play_examples(text, "put-01", sandbox=SandboxPolicy(python_layers=False))).won


# -- what a model copies from the examples, checked without playing -------------------------


def example_codes() -> list[tuple[str, str, str]]:
    out = []
    for task_type in TASK_TYPES:
        for line, chunk in split_examples(examples_text(task_type)):
            ex = parse_example(chunk, line)
            out.append((task_type, ex.function, parse_answer(ex.answer).code))
    return out


def test_every_task_type_shows_search_take_action_and_place() -> None:
    for task_type in TASK_TYPES:
        code = "\n".join(c for t, _f, c in example_codes() if t == task_type)
        assert "go to" in code and 'if "is closed" in obs' in code, f"{task_type}: a search"
        assert 'if "You pick up" in obs' in code, f"{task_type}: a take with a check"
        action = {"clean": "You clean", "heat": "You heat", "cool": "You cool", "examine": "You turn on"}
        if task_type in action:
            assert action[task_type] in code, f"{task_type}: the type's action with a check"
        if task_type != "examine":
            assert '"You move" in obs' in code, f"{task_type}: a place with a check"
        assert "likely" in code, f"{task_type}: the search visits likely places first"


def test_object_searches_use_word_boundaries() -> None:
    for task_type, function, code in example_codes():
        for pattern in re.findall(r'rf?"([^"]*\{(?:item|lamp)_kind\}[^"]*)"', code):
            assert pattern.startswith(r"\b") or "fullmatch" in code, f"{task_type} {function}: {pattern}"
    knife = re.compile(r"\b" + "knife" + r" \d+")
    assert knife.findall("you see a butterknife 2, and a knife 1.") == ["knife 1"]


SOLVE_CASES = {  # instruction -> (object kind, destination or lamp kind)
    "put": {"put a vase in sidetable.": ("vase", "sidetable"), "put some keychain on sofa.": ("keychain", "sofa"),
            "put an apple in fridge.": ("apple", "fridge"), "place the apple in the fridge.": ("apple", "fridge")},
    "clean": {"put a clean plate in fridge.": ("plate", "fridge"), "clean some fork and put it in drawer.": ("fork", "drawer"),
              "clean an apple and put it in fridge.": ("apple", "fridge"),
              "put a clean apple on the countertop.": ("apple", "countertop")},
    "heat": {"put a hot cup in sinkbasin.": ("cup", "sinkbasin"), "heat some mug and put it in cabinet.": ("mug", "cabinet"),
             "heat an apple and put it in fridge.": ("apple", "fridge"),
             "heat the apple and put it on the countertop.": ("apple", "countertop")},
    "cool": {"put a cool apple in garbagecan.": ("apple", "garbagecan"), "cool some mug and put it in sinkbasin.": ("mug", "sinkbasin"),
             "cool an apple and put it in fridge.": ("apple", "fridge"),
             "put an cool apple on the countertop.": ("apple", "countertop")},
    "examine": {"examine the book with the desklamp.": ("book", "desklamp"),
                "look at basketball under the desklamp.": ("basketball", "desklamp"),
                "look at an apple under the desklamp.": ("apple", "desklamp"),
                "examine a apple with the floorlamp.": ("apple", "floorlamp")},
    "puttwo": {"find two peppershaker and put them in countertop.": ("peppershaker", "countertop"),
               "put two cloth in dresser.": ("cloth", "dresser"),
               "find two apple and put them on the countertop.": ("apple", "countertop")},
}


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_solve_examples_parse_other_wordings(task_type: str) -> None:
    """The instruction parsing a model copies falls back when the wording differs ("an", "the", "on")."""
    code = next(c for t, f, c in example_codes() if t == task_type and f.startswith("solve("))
    head = ast.unparse(ast.Module(body=ast.parse(code).body[:2], type_ignores=[]))  # `m = ...` and the kinds
    for instruction, expected in SOLVE_CASES[task_type].items():
        scope = {"re": re, "instruction": instruction}
        exec(head, scope)  # noqa: S102 - the example's own parsing lines
        second = scope.get("dest_kind", scope.get("lamp_kind"))
        assert (scope["item_kind"], second) == expected, instruction
