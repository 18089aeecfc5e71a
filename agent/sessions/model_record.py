"""Which model a session's record names: `--llm` as typed and, for a profile, its name, the profiles file it
came from, the model it calls, where its requests went and where its key came from (never the key).

Read when the run starts and never later: a journal from elsewhere is data, so an export or a resume
names the model from the record without opening a file the journal names.
"""

from __future__ import annotations

from pathlib import Path

from agent.llm.profiles import spec_endpoint
from agent.run.spec import ModelChoice


def model_choice(llm_spec: str, profiles: str | None, review: bool = False) -> ModelChoice:
    """The model part of a run's record: `--llm` as typed and, for a profile, its name, the profiles file
    (absolute) it came from (so a resume needs no --profiles), the model it calls, where its requests went
    and where its key came from (never the key), all read now, never later."""
    base_url, key_env = spec_endpoint(llm_spec, profiles)
    profile = llm_spec.removeprefix("review:")
    return ModelChoice(llm=llm_spec, profile=profile.split(":", 1)[1] or "default" if profile.startswith("profile:") else None,
                       profiles=profiles, model=profile_model(llm_spec, profiles), base_url=base_url, key_env=key_env,
                       review=review)


def profile_model(spec: str, profiles: str | None) -> str | None:
    """The model a `profile:NAME` spec calls, from the profiles file this run was given (None otherwise).

    Recorded in the header when the run starts, so an export names the model without ever
    opening a file a journal names (a journal from elsewhere is data).
    """
    spec = spec.removeprefix("review:")
    if not spec.startswith("profile:"):
        return None
    from agent.llm.profiles import ProfileError, load_profiles

    source = profiles or profiles_in_use(spec, None)
    if not source:
        return None
    try:
        profile = load_profiles(Path(source)).profiles.get(spec.split(":", 1)[1] or "default")
    except (ProfileError, OSError):
        return None
    return profile.model if profile is not None else None


def profiles_in_use(spec: str, explicit: str | None) -> str | None:
    """The profiles file (absolute) a `profile:NAME` spec is read from, to record in the session; else None."""
    from agent.llm.profiles import ProfileError, find_profiles_file

    if not spec.removeprefix("review:").startswith("profile:"):
        return None
    try:
        found = find_profiles_file(explicit)
    except ProfileError:
        return None
    return str(found.resolve()) if found is not None else None
