# Two commands on a fresh clone: `make run` (the console on a bundled game, you as the LLM) and `make test`.
VENV ?= .venv
# The interpreter .venv is made with: the fastest Python 3.10+ here (benchmarks/fastest_python.py says why: one
# build of a version can run the project at half the speed of another). `make PYTHON=... ` chooses by hand.
PYTHON ?= $$(python3 benchmarks/fastest_python.py || echo python3)
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test quick check typecheck slow bench demo

# Test runs keep Python's bytecode cache even where the environment turns it off (some images set
# PYTHONDONTWRITEBYTECODE=1): otherwise every test worker and every process a test starts (the command line,
# sandbox and eval workers) compiles the project again and pytest rewrites every test module's asserts again.
test quick check slow: export PYTHONDONTWRITEBYTECODE :=

# The sandbox's namespaces need bubblewrap (Debian's package): installed here when we may, named when we may not.
$(STAMP): pyproject.toml
	@command -v bwrap >/dev/null || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq bubblewrap)); \
	else echo "note: model code runs only behind bubblewrap's namespaces: install it (sudo apt-get install bubblewrap)"; fi; }
	test -x $(PY) || { python=$(PYTHON); echo "making $(VENV) with $$python"; $$python -m venv $(VENV); }
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/recode-tui

demo: $(STAMP)
	$(VENV)/bin/recode-tui run --game put-01 --llm demo

# Four workers on two cores, a test module each at a time (module fixtures such as a shared JVM stay in
# one worker): tests wait on sandbox workers, JVMs, terminals and Textual's frames, so the extra workers use
# the time two leave idle. The suite is CPU-bound (392-407 CPU-s, 203-210 s idle on a fresh clone on the second
# 2026-12-07 machine; 540-597 CPU-s, 280-308 s warm on the first, a slower one: docs/benchmarks.md);
# one run at three workers took about as long as four, so four stay.
# The type check runs beside them at a lower priority; its verdict is printed at the end.
test: $(STAMP)
	@typed=$$(mktemp); nice -n 10 $(PY) -m mypy >$$typed 2>&1 & mypy=$$!; \
	$(PY) -m pytest -q -n 4 --dist loadfile; tests=$$?; \
	wait $$mypy; types=$$?; cat $$typed; rm -f $$typed; \
	[ $$tests -eq 0 ] && [ $$types -eq 0 ]

# The type check alone: mypy over agent, envs, mockllm and recode_tui ([tool.mypy] in pyproject.toml).
typecheck: $(STAMP)
	$(PY) -m mypy

# Before a commit (under 2 minutes): the type check, the layering and type-ignore rules, the docs' links and examples.
check: $(STAMP)
	$(PY) -m mypy
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not slow and not heavy" tests/test_layers.py tests/test_type_ignores.py tests/test_docs.py

# The edit loop: no long sweeps, no real engines (the `heavy` tier: ALFWorld, the sandbox worker, tmux,
# browser, Ray, JVM), which `make test` runs. 45 s (79 CPU-s) on an idle 2-core machine on 2026-12-07; 64-70 s on a
# slower machine the same day (docs/benchmarks.md).
# Three workers: with no sleeps left to overlap,
# three fill both cores, and a fourth adds only its start-up and contention (~122 CPU-s against 108-117).
quick: $(STAMP)
	$(PY) -m pytest -q -n 3 --dist loadfile -m "not slow and not heavy"

# Only the long sweeps that `make test` samples.
slow: $(STAMP)
	$(PY) -m pytest -q -m slow

bench: $(STAMP)
	$(PY) benchmarks/run_all.py
