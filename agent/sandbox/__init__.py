"""Run generated and typed node code in a sandboxed worker process.

`SandboxRunner` (agent.sandbox.runner) implements `agent.runtime.runner.CodeRunner`;
`check_code` (agent.sandbox.checks) is the static check, usable on its own to
reject an LLM answer early. This package imports nothing: the worker process
imports it and must not pay for asyncio.
"""
