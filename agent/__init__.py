"""The agents and the runtime they share. No UI.

    agents/     one package per agent (recode, react, codeact, plan_execute, recap), the registry, presets
    runtime/    what every agent is stepped by: Stepper, events, tree, the runner protocols, debugger
    sessions/   journal, replay, resume and fork, export, debug settings
    eval/       evaluation plans and reports, compare, failure groups, fairness
    llm/        the LLM protocol, the OpenAI-compatible client, profiles, tokens, role routing
    sandbox/    where untrusted node code runs, and the runner settings every path builds from
"""

