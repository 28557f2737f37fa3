# coursekit — two commands do all set-up on a fresh machine that has Python 3.10+:
#   make lab    create .venv if missing, install the course, register its kernel, open JupyterLab
#   make test   the same bootstrap plus test tools, then every test the project has
# Re-running either when pyproject.toml has not changed installs nothing (stamp files in .venv).
# Windows: see README ("Windows") for the plain `python -m ...` equivalents.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# JupyterLab listens on localhost with token authentication; override HOST to change.
HOST ?= 127.0.0.1
PORT ?= 8888
# Course language of the index opened by `make lab`: zh or en.
COURSE_LANG ?= zh
# Extra JupyterLab flags, e.g. LAB_ARGS=--no-browser.
LAB_ARGS ?=
# JupyterLab refuses to start as root unless told --allow-root; containers (Docker, ModelScope's notebooks) often run
# as root, so `make lab` adds the flag itself when the user is root and LAB_ARGS does not already hold it.
ROOT_LAB_ARGS := $(if $(filter 0,$(shell id -u 2>/dev/null)),$(if $(filter --allow-root,$(LAB_ARGS)),,--allow-root))
# The PyTorch lab extra (lesson 8) is installed in CI and when WITH_LAB=1.
WITH_LAB ?= $(if $(filter true 1,$(CI)),1,0)
# `site` is the course website's build tools (make site), `lite` JupyterLite's (make lite); both are tested in make test.
TEST_EXTRAS := course,test,site,lite$(if $(filter 1,$(WITH_LAB)),$(strip ,lab))
# With the lab extra, pin the PyTorch release the course is tested with (2.13.0; its CPU wheel
# is what CI machines carry): an unpinned resolve could pick a newer multi-GB CUDA build.
# A torch already in the venv within the lab extra's range (2.6 to 2.13) is kept, not replaced.
# TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu takes the CPU-only build from PyTorch's own index.
TORCH_PIN ?= torch==2.13.0
TORCH_INDEX_URL ?=
TORCH_IN_RANGE := import sys, torch; v = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]); sys.exit(not (2, 6) <= v < (2, 14))
# JupyterLab UI language for each course language (the zh UI comes from jupyterlab-language-pack-zh-CN).
LAB_LOCALE_zh := zh_CN
LAB_LOCALE_en := en
LAB_SETTINGS := $(VENV)/share/coursekit/lab-settings-$(COURSE_LANG)
COURSE_STAMP := $(VENV)/.stamp-course
TEST_STAMP := $(VENV)/.stamp-$(subst $(strip ,),-,$(TEST_EXTRAS))
# `make site` needs only the course and the site extra (Sphinx, myst-nb, the theme, jieba), not the test tools.
SITE_STAMP := $(VENV)/.stamp-course-site
PIP := $(PY) -m pip --disable-pip-version-check

.PHONY: lab test test-lessons lint typecheck unit notebooks notebooks-build bench site lite cheatsheet clean help

help:
	@echo "make lab     open the course in JupyterLab (COURSE_LANG=zh|en, HOST, PORT)"
	@echo "make test    run every test (lint, types, unit, property, doctest, notebooks, browser; about 60 min on 2 cores)"
	@echo "make test-lessons  run the lessons of one language (COURSE_LANG=zh|en) under nbval: the check before class"
	@echo "make bench   measure import, notebook and widget timings, the planner's search and explain, and the website build"
	@echo "make site    build the bilingual course website into build/site (executes every lesson)"
	@echo "make lite    build the course as a JupyterLite site into build/lite (PYODIDE_DIR=a Pyodide distribution)"
	@echo "make cheatsheet  print the cheat sheet to build/cheatsheet_zh.pdf and build/cheatsheet_en.pdf (one A4 page each)"

$(PY):
	$(PYTHON) -m venv $(VENV)

$(COURSE_STAMP): pyproject.toml tools/install_kernel.py | $(PY)
	$(PIP) install -e ".[course]"
	@# the kernel loads the exercises' line of help at start, so it is there after a restart too (review 26)
	$(PY) tools/install_kernel.py
	@touch $@

$(TEST_STAMP): pyproject.toml $(COURSE_STAMP)
	@if [ "$(WITH_LAB)" = 1 ] && ! $(PY) -c '$(TORCH_IN_RANGE)' 2>/dev/null; then \
		echo "installing $(TORCH_PIN)"; \
		$(PIP) install "$(TORCH_PIN)" $(if $(TORCH_INDEX_URL),--index-url "$(TORCH_INDEX_URL)"); \
	fi
	$(PIP) install -e ".[$(TEST_EXTRAS)]"
	@touch $@

$(SITE_STAMP): pyproject.toml $(COURSE_STAMP)
	$(PIP) install -e ".[course,site]"
	@touch $@

# The UI language is a JupyterLab user setting kept per course language inside the venv.
lab: $(COURSE_STAMP)
	@case "$(COURSE_LANG)" in zh|en) ;; *) echo "COURSE_LANG must be zh or en, not '$(COURSE_LANG)'"; exit 2;; esac
	@mkdir -p "$(LAB_SETTINGS)/@jupyterlab/translation-extension"
	@printf '{"locale": "%s"}\n' "$(LAB_LOCALE_$(COURSE_LANG))" \
		> "$(LAB_SETTINGS)/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
	@# code cells wrap their long lines: at 1280 px a projected editor shows about 100 columns, lessons use up to 180
	@mkdir -p "$(LAB_SETTINGS)/@jupyterlab/notebook-extension"
	@printf '{"codeCellConfig": {"lineNumbers": false, "lineWrap": true}}\n' \
		> "$(LAB_SETTINGS)/@jupyterlab/notebook-extension/tracker.jupyterlab-settings"
	JUPYTERLAB_SETTINGS_DIR="$(abspath $(LAB_SETTINGS))" \
	$(BIN)/jupyter lab --ServerApp.ip=$(HOST) --ServerApp.port=$(PORT) --ServerApp.root_dir="$(CURDIR)" \
		--LabApp.default_url=/lab/tree/notebooks/$(COURSE_LANG)/00_index.ipynb $(ROOT_LAB_ARGS) $(LAB_ARGS)

lint: $(TEST_STAMP)
	$(PY) -m ruff check coursekit tests tools benchmarks conftest.py
	$(PY) -m ruff format --check coursekit tests tools benchmarks conftest.py

typecheck: $(TEST_STAMP)
	$(PY) -m mypy

notebooks-build: $(TEST_STAMP)
	$(PY) tools/build_notebooks.py

test: lint typecheck $(TEST_STAMP)
	$(PY) -m pytest tests coursekit notebooks/zh notebooks/en \
		--nbval-lax --nbval-current-env --nbval-cell-timeout=300 -p no:cacheprovider

# Before class: every lesson of one language runs without an error (make test runs the whole suite, about an hour).
test-lessons: $(TEST_STAMP)
	@case "$(COURSE_LANG)" in zh|en) ;; *) echo "COURSE_LANG must be zh or en, not '$(COURSE_LANG)'"; exit 2;; esac
	$(PY) -m pytest notebooks/$(COURSE_LANG) \
		--nbval-lax --nbval-current-env --nbval-cell-timeout=300 -p no:cacheprovider

bench: $(TEST_STAMP)
	$(PY) benchmarks/bench_course.py
	$(PY) benchmarks/bench_plan.py
	$(PY) benchmarks/bench_site.py

# The site build also runs npm once (KaTeX for the formulas; cached in build/site-vendor).
site: $(SITE_STAMP)
	$(PY) tools/site/build_site.py --out build/site

# PYODIDE_DIR: a Pyodide distribution folder (the full one draws the lessons' figures; see README).
PYODIDE_DIR ?=
lite: $(TEST_STAMP)
	@test -n "$(PYODIDE_DIR)" || { echo "make lite needs PYODIDE_DIR=/path/to/pyodide (a Pyodide distribution folder)"; exit 2; }
	$(PY) tools/lite/build_lite.py --pyodide "$(PYODIDE_DIR)" --out build/lite

# The cheat sheet as one A4 page per language, printed by the headless Chromium the browser tests use.
cheatsheet: $(TEST_STAMP)
	@mkdir -p build
	$(PY) tools/cheatsheet_pdf.py zh build/cheatsheet_zh.pdf
	$(PY) tools/cheatsheet_pdf.py en build/cheatsheet_en.pdf

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache .hypothesis artifacts bench-results.json
