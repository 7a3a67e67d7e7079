# Two commands matter: `make run` and `make test`. Both set everything up first.
# `make soak` runs the slow reliability scenarios (crash recovery, two processes, long fuzz runs).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

# Snapshot tests need these before pytest imports textual; exported for every recipe.
export TEXTUAL_ANIMATIONS := none
export TZ := UTC
unexport NO_COLOR

.PHONY: run test soak demo bench eval-recall snapshots-update screenshots clean install

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("Python >= 3.11 is needed (found %s)" % sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@# An editable install compiles nothing: without this every run where bytecode is not written
	@# (PYTHONDONTWRITEBYTECODE, a read-only checkout) compiles our ~170 modules from source.
	$(BIN)/python -m compileall -q app
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/agentctx-tui

test: $(STAMP)
	$(BIN)/python -m pytest -n auto -q

# Two workers: the scenarios start subprocesses of their own; the report prints at the end.
soak: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m soak tests/reliability

demo: $(STAMP)
	$(BIN)/python -m tests.fakes.demo

# Compiled again first (only what changed since) so the figures are those of a state after `make`.
bench: $(STAMP)
	$(BIN)/python -m compileall -q app
	$(BIN)/python -m bench

# Recall quality on a generated set of our own (bench/recall_set.py): Hit@1, Hit@5, MRR per ranker.
# The fused row needs the embeddings extra (WordLlama and its bundled model), installed here once.
eval-recall: $(STAMP)
	@$(BIN)/python -c 'import wordllama' 2>/dev/null || $(BIN)/python -m pip install --quiet -e '.[test,embeddings]'
	$(BIN)/python -m bench.recall_eval
	$(BIN)/python -m bench.dialogue_eval

snapshots-update: $(STAMP)
	$(BIN)/python -m pytest tests/tui -q --snapshot-update

clean:
	rm -rf $(VENV) .pytest_cache

# Install once, use in every project: an isolated install with `agentctx-tui` on PATH
# (pipx or uv when you have one; otherwise pipx is installed for you with pip --user).
install:
	@if command -v pipx >/dev/null 2>&1; then pipx install --force . ; \
	elif command -v uv >/dev/null 2>&1; then uv tool install --force . ; \
	else $(PYTHON) -m pip install --user --quiet pipx && $(PYTHON) -m pipx install --force . ; fi
	@echo "Installed. In any project: cd your-project && agentctx-tui   (pipx ensurepath puts ~/.local/bin on PATH)"

screenshots: $(STAMP)
	$(BIN)/python -m scripts.screenshots
