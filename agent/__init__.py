"""The ReCode engine: code tree, expansion, executor, prompts and the stepper. No UI."""
