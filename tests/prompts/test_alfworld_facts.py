"""Facts the prompt states about ALFWorld, checked on a real bundled game."""

from __future__ import annotations

from envs.registry import make_env


def test_heating_and_cooling_need_the_appliance_where_you_stand_but_not_open() -> None:
    env = make_env("heat-01")  # the cup 1 is in the closed microwave 1
    env.reset()
    try:
        for action in ("go to microwave 1", "open microwave 1", "take cup 1 from microwave 1", "close microwave 1"):
            env.step(action)
        assert env.step("go to sinkbasin 1").startswith("You arrive")
        assert env.step("heat cup 1 with microwave 1") == "Nothing happens."  # not where you stand
        assert "is closed" in env.step("go to microwave 1")
        assert env.step("heat cup 1 with microwave 1") == "You heat the cup 1 using the microwave 1."
        assert "is closed" in env.step("go to fridge 1")
        assert env.step("cool cup 1 with fridge 1") == "You cool the cup 1 using the fridge 1."
        assert env.step("go to fridge 1") == "Nothing happens."  # "go to" where you already are
    finally:
        env.close()
