"""A sandbox runner with some of its Python-level layers left out, for the tests that show each layer holds alone.

The production `SandboxRunner` has no such switch: only these tests ask its worker to run without
the static checks or the audit hook (the kernel's walls and the other layers stay).
"""

from __future__ import annotations

from typing import Any

from agent.sandbox.runner import SandboxRunner


class LayersOffRunner(SandboxRunner):
    """`SandboxRunner` whose worker skips the static checks and/or the audit hook."""

    def __init__(self, *, static_checks: bool = True, audit_hook: bool = True, **options: Any) -> None:
        super().__init__(**options)
        self._config["skip_static_checks_for_tests"] = not static_checks
        self._config["skip_audit_hook_for_tests"] = not audit_hook
