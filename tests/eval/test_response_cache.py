"""The response cache: a second eval after one prompt file changed calls the model only for the prompts that changed.

The model is the local OpenAI-compatible server (real HTTP, the real `openai` client); its request
log counts what a re-run paid for. The cache is the subject, not the game's engine: the toy world
(`toy_env`) plays the episodes, in eval's worker processes and the real sandbox.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import time
from pathlib import Path

import pytest

from agent.llm import Completion, Usage
from agent.llm.cache import CacheError, CachedLLM, ResponseCache, cache_key, parse_ttl
from agent.llm.profiles import Profile
from agent.runtime.prompts import DEFAULT_PROMPTS
from mockllm.openai_server import OpenAICompatibleServer, script_responder, write_profiles
from tests.toyenv import HERE as TOY

from .helpers import read_report, recode, toy_script

pytestmark = pytest.mark.heavy  # the sandbox worker runs the model's code, played by the command line


PROMPTS = DEFAULT_PROMPTS  # ReCode's bundled set
CHANGED_LINE = "# Note: keep the taking step explicit."


def answers(journal: Path) -> list[dict]:
    records = [json.loads(line) for line in (journal / "journal.jsonl").read_text().splitlines()]
    return [r for r in records if r.get("type") == "answer"]


@pytest.mark.heavy  # eval plays in worker processes, the model's code in the sandbox
def test_a_second_eval_calls_the_model_only_for_the_prompts_that_changed(tmp_path, toy_env):
    # two calls an episode (the root's answer calls a helper): a put episode and a take episode
    server = OpenAICompatibleServer(script_responder(str(toy_script(tmp_path, nested=True)))).start()
    try:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=20)
        first_prompts, second_prompts = tmp_path / "prompts-1", tmp_path / "prompts-2"
        for prompts in (first_prompts, second_prompts):  # the set with the toy world's examples in it
            shutil.copytree(PROMPTS, prompts)
            shutil.copytree(TOY / "examples", prompts / "toy" / "examples")
        take = second_prompts / "toy" / "examples" / "take.txt"
        take.write_text(take.read_text() + "\n" + CHANGED_LINE + "\n")

        def evaluate(out: str, prompts: Path, *flags: str, games: str = "vase-1,coin-1") -> dict:
            result = recode(tmp_path, "eval", "--env", "toy", "--llm", "profile:local", "--profiles", str(profiles),
                            "--games", games, "--prompts", str(prompts), "-c", "1",
                            "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / out), "--no-progress",
                            *flags)
            assert result.returncode == 0, result.stderr
            report = read_report(tmp_path / out)
            report["stdout"] = result.stdout
            return report

        first = evaluate("first", first_prompts, "--cache")
        paid_first = len(server.calls)
        by_game = {e["game"]: e for e in first["episodes"]}
        assert paid_first == sum(e["llm_calls"] for e in by_game.values()) > 2
        assert all(e["cached_calls"] == 0 for e in by_game.values()) and "response cache:" not in first["stdout"]

        second = evaluate("second", second_prompts, "--cache")
        asked = server.calls[paid_first:]
        by_game = {e["game"]: e for e in second["episodes"]}
        put, taken = by_game["vase-1"], by_game["coin-1"]
        # put's prompts are the same bytes: all answered from the cache, at no cost, marked in journal and report
        assert put["cached_calls"] == put["llm_calls"] > 0 and put["cost"] == 0
        assert all(a.get("cached") is True for a in answers(Path(put["journal"])))
        # take's example changed: each of its prompts went to the model, and only those
        assert taken["cached_calls"] == 0 and len(asked) == taken["llm_calls"] > 0
        assert all(CHANGED_LINE in call.prompt for call in asked)
        assert not any(a.get("cached") for a in answers(Path(taken["journal"])))
        assert second["summary"]["overall"]["cached_calls"] == put["llm_calls"]
        total = put["llm_calls"] + taken["llm_calls"]
        assert f"response cache: {put['llm_calls']} of {total} LLM calls" in second["stdout"]
        table = {line.split("│")[1].strip(): line for line in second["stdout"].splitlines() if line.count("│") > 8}
        assert "┃ cached calls ┃" in second["stdout"]  # the table's own column: never mixed silently
        assert f" {put['llm_calls']} of {put['llm_calls']} " in table["put"]
        assert f" 0 of {taken['llm_calls']} " in table["take"] and f" {put['llm_calls']} of {total} " in table["overall"]
        assert second["plan"]["cache"] == "on"
        # same results either way: the cache changes what a run costs, not what it does
        assert [e["success"] for e in second["episodes"]] == [e["success"] for e in first["episodes"]]
        compared = recode(tmp_path, "compare", str(tmp_path / "first"), str(tmp_path / "second"))
        assert (f"response cache: 0 of {paid_first} → {put['llm_calls']} of {total} LLM calls answered from the cache"
                in compared.stdout), compared.stdout
        # a replay takes no model time: time compares only coin-1, the episode no side replayed
        assert "time: over the 1 of 2 episodes with no cache replay on either side" in compared.stdout
        take_before = next(e for e in first["episodes"] if e["game"] == "coin-1")
        overall = next(line for line in compared.stdout.splitlines() if line.startswith("│ overall"))
        assert f"{take_before['seconds']:.1f}s → {taken['seconds']:.1f}s" in overall, compared.stdout

        before = len(server.calls)
        third = evaluate("third", second_prompts, "--no-cache", games="vase-1")  # its answers are in the cache
        assert len(server.calls) - before == sum(e["llm_calls"] for e in third["episodes"]) > 0
        assert "response cache: off" in third["stdout"]
    finally:
        server.stop()


def test_the_key_is_the_request_and_the_repeat_only_with_sampling(tmp_path):
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0, "max_tokens": 9}
    assert cache_key(request) == cache_key(dict(reversed(list(request.items()))))  # order-free
    for changed in ({"model": "n"}, {"temperature": 0.5}, {"max_tokens": 10},
                    {"messages": [{"role": "user", "content": "hi "}]}):
        assert cache_key({**request, **changed}) != cache_key(request)
    assert cache_key(request, "http://a/v1") != cache_key(request, "http://b/v1")
    assert cache_key(request, repeat=1) != cache_key(request, repeat=2)

    class Model:
        name = "profile:x"

        def __init__(self, temperature: float) -> None:
            self.profile = Profile(name="x", model="m", temperature=temperature)

        def request(self, prompt: str) -> dict:
            return {"model": "m", "messages": [{"role": "user", "content": prompt}],
                    "temperature": self.profile.temperature}

    cache = ResponseCache(tmp_path)
    greedy = [CachedLLM(Model(0.0), cache, repeat=r) for r in (1, 2)]
    sampled = [CachedLLM(Model(0.7), cache, repeat=r) for r in (1, 2)]
    assert greedy[0].key("p") == greedy[1].key("p")  # temperature 0: a repeat would get the same answer
    assert sampled[0].key("p") != sampled[1].key("p")  # sampling: each repeat its own draw


async def test_an_expired_answer_is_asked_again_and_a_bad_expiry_is_refused(tmp_path):
    class Model:
        name = "profile:x"
        profile = Profile(name="x", model="m")
        calls = 0

        def request(self, prompt: str) -> dict:
            return {"model": "m", "messages": [{"role": "user", "content": prompt}]}

        async def complete(self, prompt, context=None) -> Completion:
            Model.calls += 1
            return Completion(f"answer {Model.calls}", Usage(7, 3), cost=0.5)

    fresh = CachedLLM(Model(), ResponseCache(tmp_path, ttl=3600))
    first = await fresh.complete("p")
    assert first.judged is not None
    first.judged(True)  # the agent took it: kept
    again = await fresh.complete("p")
    assert (first.cached, again.cached, again.text, again.cost, again.usage) == (False, True, "answer 1", 0.0, Usage(7, 3))
    entry = next(tmp_path.rglob("*.json"))
    data = json.loads(entry.read_text())
    entry.write_text(json.dumps({**data, "created": time.time() - 7200}))  # two hours old
    late = await fresh.complete("p")
    assert (late.cached, late.text, Model.calls) == (False, "answer 2", 2)
    assert parse_ttl("12h") == 43200 and parse_ttl("7d") == 604800 and parse_ttl(90) == 90
    with pytest.raises(CacheError, match="use e.g. 30m, 12h, 7d or 2w"):
        parse_ttl("soon")


def test_a_profile_turns_the_cache_on_for_its_model_only(tmp_path):
    from agent.llm.routing import RoutedLLM
    from agent.llm.cache import with_cache
    from agent.llm.openai_client import OpenAILLM
    from agent.llm.profiles import ProfileError, load_profiles

    file = tmp_path / "profiles.yaml"
    file.write_text("models:\n  kept:\n    base_url: http://127.0.0.1:9/v1\n    api_key: x\n    cache: true\n"
                    "    cache_ttl: 12h\n  plain:\n    base_url: http://127.0.0.1:9/v1\n    api_key: x\n")
    book = load_profiles(file)
    kept, plain = (OpenAILLM(book.profiles[n], book.prices) for n in ("kept", "plain"))
    routed = with_cache(RoutedLLM(plain, {"planner": kept}, "planner=profile:kept,profile:plain"), tmp_path,
                        always=False)
    assert isinstance(routed.for_role("planner"), CachedLLM) and routed.for_role("planner").cache.ttl == 43200
    assert routed.default is plain  # a profile without `cache: true` is called every time
    assert isinstance(with_cache(plain, tmp_path, always=True), CachedLLM)  # --cache
    file.write_text("models:\n  bad:\n    cache: yes please\n")
    with pytest.raises(ProfileError, match=r"models.bad.cache must be true or false \(line 3\)"):
        load_profiles(file)
    file.write_text("models:\n  bad:\n    cache_ttl: soon\n")
    with pytest.raises(ProfileError, match="cache_ttl: cache expiry 'soon' is not a duration"):
        load_profiles(file)


@pytest.mark.heavy  # plays with the sandbox worker
def test_run_with_cache_replays_a_whole_episode_without_calling_the_model(tmp_path, toy_env):
    server = OpenAICompatibleServer(script_responder(str(toy_script(tmp_path, nested=True)))).start()
    try:
        profiles = write_profiles(tmp_path / "profiles.yaml", server.base_url, max_retries=0, timeout=20)
        flags = ("run", "--game", "toy:vase-1", "--llm", "profile:local", "--profiles", str(profiles), "--quiet",
                 "--cache", "--cache-dir", str(tmp_path / "cache"))
        first = recode(tmp_path, *flags)
        assert first.returncode == 0, first.stderr
        paid = len(server.calls)
        assert paid > 0 and "response cache" not in first.stderr
        second = recode(tmp_path, *flags)
        assert second.returncode == 0, second.stderr
        assert len(server.calls) == paid  # not one request more
        assert f"note: {paid} of {paid} LLM calls answered from the response cache (no cost)" in second.stderr
        assert second.stdout.split("|")[0] == first.stdout.split("|")[0]  # the same result line
        if importlib.util.find_spec("opentelemetry.sdk") is not None:  # trace viewers see the model and the hits
            from agent.sessions.journal_read import read_journal
            from agent.sessions.otel import finished_spans

            newest = max((tmp_path / "sessions").glob("*/journal.jsonl"), key=lambda p: p.stat().st_mtime).parent
            chats = [s for s in finished_spans([read_journal(newest)]) if s.name.startswith("chat ")]
            assert len(chats) == paid and {s.name for s in chats} == {"chat local-test-model"}
            assert all(s.attributes["recode.cached"] is True for s in chats)
        third = recode(tmp_path, *flags[:-3], "--no-cache")
        assert third.returncode == 0 and len(server.calls) == 2 * paid
    finally:
        server.stop()
