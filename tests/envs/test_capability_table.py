"""docs/environments.md lists what each registered environment offers beyond the required part,
as the providers themselves say it (`EnvProvider.capabilities()`): a capability added to or dropped
from a provider must show in the page a user reads."""

from __future__ import annotations

from pathlib import Path

from envs import registry
from envs.provider import Capability

PAGE = Path(__file__).resolve().parents[2] / "docs" / "environments.md"
START = "<!-- capabilities: generated from envs.provider; tests/envs/test_capability_table.py checks it -->"
END = "<!-- end of capabilities -->"
BUILTIN = ("alfworld", "sciworld", "sciworld-full", "sciworld-paper", "webshop", "webshop-paper")


def capability_table() -> str:
    """The table as the providers say it: a row per capability, a column per built-in environment."""
    offered = {env: set(registry.provider(env).capabilities()) for env in BUILTIN}
    lines = ["| capability | " + " | ".join(f"`{env}`" for env in BUILTIN) + " |", "|---|" + "---|" * len(BUILTIN)]
    for capability in Capability:
        marks = " | ".join("yes" if capability in offered[env] else "-" for env in BUILTIN)
        lines.append(f"| `{capability.value}` | {marks} |")
    return "\n".join(lines)


def test_the_environments_page_lists_what_each_environment_offers() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert START in text and END in text, f"docs/environments.md lost its markers: {START} ... {END}"
    shown = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert shown == capability_table(), "paste this table between the markers:\n" + capability_table()


def test_alfworld_offers_episode_lookup_header_fields_and_warm_up_and_no_gold_paths() -> None:
    source = registry.provider("alfworld")
    assert source.capabilities() == [Capability.EPISODE_LOOKUP, Capability.HEADER_FIELDS, Capability.WARM,
                                     Capability.TYPE_TITLES, Capability.EXAMPLE_EPISODE]
    assert registry.gold_actions("alfworld:put-01") is None and source.overview() is None
