"""ReCAP: plan-ahead decomposition, re-injection of the parent's plan, one windowed conversation."""


