# torchlint: one Makefile builds the binary, fetches the pinned third-party
# C sources, and runs every test.
#
#   make            build ./torchlint
#   make demo       run it on the bundled example training script
#   make test       install test dependencies (as root, on Debian) and run all tests
#   make install    install to $(PREFIX)/bin (PREFIX=/usr/local by default)
#
# Packagers can point TS_LIB_DIR, TS_PYTHON_DIR and TS_TOML_DIR at their own
# copies of the tree-sitter runtime and grammars to skip the npm fetch.

VERSION := 0.1.0
# Where the project lives: SARIF's informationUri and rule help links.
HOMEPAGE ?= https://github.com/torchlint/torchlint
PREFIX ?= /usr/local
CC ?= cc
BUILD ?= build
DEPS ?= $(BUILD)/deps

TS_LIB_DIR ?= $(DEPS)/tree-sitter/package/vendor/tree-sitter/lib
TS_PYTHON_DIR ?= $(DEPS)/tree-sitter-python/package/src
TS_TOML_DIR ?= $(DEPS)/tree-sitter-toml/package/src

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS ?= -O2 -g
TL_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L $(WARN) \
	-I analyzer -I $(BUILD)/gen -I $(TS_LIB_DIR)/include -DTL_VERSION='"$(VERSION)"' -DTL_HOMEPAGE='"$(HOMEPAGE)"' -pthread
# Third-party sources are built with their own expectations, without our warnings.
DEP_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -w -pthread
LDLIBS := -ljansson -pthread

ANALYZER_SRC := $(wildcard analyzer/*.c)
LIB_SRC := $(filter-out analyzer/main.c,$(ANALYZER_SRC))
EMBED_FILES := $(sort $(wildcard rules/*.toml) $(wildcard queries/*.scm) $(wildcard skills/*/SKILL.md))

# Default build and a sanitizer build, side by side.
OBJ := $(BUILD)/obj
ASAN_OBJ := $(BUILD)/asan
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all deps demo test install clean unit-build asan-build check-warnings fuzz-smoke
all: torchlint

DEPS_STAMP := $(DEPS)/.stamp
ifeq ($(TS_LIB_DIR),$(DEPS)/tree-sitter/package/vendor/tree-sitter/lib)
$(DEPS_STAMP): deps.lock tools/fetch-deps.sh tools/install-build-deps.sh
	./tools/install-build-deps.sh
	./tools/fetch-deps.sh deps.lock $(DEPS)
else
$(DEPS_STAMP): tools/install-build-deps.sh
	./tools/install-build-deps.sh
	@mkdir -p $(DEPS) && touch $@
endif
deps: $(DEPS_STAMP)

$(BUILD)/embed: tools/embed.c
	@mkdir -p $(BUILD)
	$(CC) -std=c11 -O1 -Wall -Wextra -o $@ $<

$(BUILD)/gen/embedded.c: $(BUILD)/embed $(EMBED_FILES)
	@mkdir -p $(BUILD)/gen
	$(BUILD)/embed $@ $(EMBED_FILES)

# --- objects -----------------------------------------------------------------
define objects
$(1)/ts_lib.o: $(DEPS_STAMP)
	@mkdir -p $(1)
	$$(CC) $(2) $$(DEP_CFLAGS) -I $$(TS_LIB_DIR)/include -I $$(TS_LIB_DIR)/src -c $$(TS_LIB_DIR)/src/lib.c -o $$@
$(1)/ts_python_parser.o: $(DEPS_STAMP)
	@mkdir -p $(1)
	$$(CC) $(2) $$(DEP_CFLAGS) -I $$(TS_PYTHON_DIR) -c $$(TS_PYTHON_DIR)/parser.c -o $$@
$(1)/ts_python_scanner.o: $(DEPS_STAMP)
	@mkdir -p $(1)
	$$(CC) $(2) $$(DEP_CFLAGS) -I $$(TS_PYTHON_DIR) -c $$(TS_PYTHON_DIR)/scanner.c -o $$@
$(1)/ts_toml_parser.o: $(DEPS_STAMP)
	@mkdir -p $(1)
	$$(CC) $(2) $$(DEP_CFLAGS) -I $$(TS_TOML_DIR) -c $$(TS_TOML_DIR)/parser.c -o $$@
$(1)/ts_toml_scanner.o: $(DEPS_STAMP)
	@mkdir -p $(1)
	$$(CC) $(2) $$(DEP_CFLAGS) -I $$(TS_TOML_DIR) -c $$(TS_TOML_DIR)/scanner.c -o $$@
$(1)/embedded.o: $(BUILD)/gen/embedded.c
	@mkdir -p $(1)
	$$(CC) $(2) $$(TL_CFLAGS) -c $$< -o $$@
$(1)/%.o: analyzer/%.c $(wildcard analyzer/*.h) $(DEPS_STAMP)
	@mkdir -p $(1)
	$$(CC) $(2) $$(TL_CFLAGS) -c $$< -o $$@
endef
$(eval $(call objects,$(OBJ),$$(CFLAGS)))
$(eval $(call objects,$(ASAN_OBJ),$$(ASAN_FLAGS)))

DEP_OBJS = ts_lib.o ts_python_parser.o ts_python_scanner.o ts_toml_parser.o ts_toml_scanner.o embedded.o
LIB_OBJS = $(patsubst analyzer/%.c,%.o,$(LIB_SRC)) $(DEP_OBJS)

torchlint: $(addprefix $(OBJ)/,$(LIB_OBJS) main.o)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/torchlint-asan: $(addprefix $(ASAN_OBJ)/,$(LIB_OBJS) main.o)
	$(CC) $(ASAN_FLAGS) -o $@ $^ $(LDLIBS)

# --- tests -----------------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))
UNIT_ASAN_BINS := $(patsubst tests/unit/%.c,$(BUILD)/unit-asan/%,$(UNIT_SRC))

$(BUILD)/unit/%: tests/unit/%.c tests/unit/helpers.h $(addprefix $(OBJ)/,$(LIB_OBJS))
	@mkdir -p $(BUILD)/unit
	$(CC) $(CFLAGS) $(TL_CFLAGS) -I tests/unit -o $@ $< $(addprefix $(OBJ)/,$(LIB_OBJS)) -lcmocka $(LDLIBS)

$(BUILD)/unit-asan/%: tests/unit/%.c tests/unit/helpers.h $(addprefix $(ASAN_OBJ)/,$(LIB_OBJS))
	@mkdir -p $(BUILD)/unit-asan
	$(CC) $(ASAN_FLAGS) $(TL_CFLAGS) -I tests/unit -o $@ $< $(addprefix $(ASAN_OBJ)/,$(LIB_OBJS)) -lcmocka $(LDLIBS)

# A libFuzzer build of the loader and engine (clang), and a short run of it
# from the corpus as seeds. FUZZ_SECONDS bounds the run.
FUZZ_SECONDS ?= 30
FUZZ_OBJ := $(BUILD)/fuzz
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
$(eval $(call objects,$(FUZZ_OBJ),$$(FUZZ_FLAGS)))
$(BUILD)/fuzz-engine: tests/fuzz/fuzz_engine.c $(addprefix $(FUZZ_OBJ)/,$(LIB_OBJS))
	clang -O1 -g -fsanitize=fuzzer,address,undefined $(TL_CFLAGS) -o $@ $^ -ljansson -pthread

fuzz-smoke:
	@command -v clang >/dev/null 2>&1 || { echo "fuzz-smoke: clang is needed (apt-get install clang)"; exit 1; }
	$(MAKE) --no-print-directory CC=clang $(BUILD)/fuzz-engine
	./tests/fuzz/run-smoke.sh $(BUILD)/fuzz-engine $(FUZZ_SECONDS)

demo: torchlint
	@echo "$$ ./torchlint examples/train_cifar.py"
	@./torchlint examples/train_cifar.py; status=$$?; \
	  echo "(torchlint exited with $$status: 1 means findings)"; \
	  [ $$status -le 1 ]

test: torchlint
	./tests/install-test-deps.sh
	$(MAKE) --no-print-directory unit-build asan-build
	./tests/run-all.sh

# Our sources must be warning-free under gcc and clang (whichever are here).
check-warnings: $(DEPS_STAMP) $(BUILD)/gen/embedded.c
	@for cc in gcc clang; do \
	  command -v $$cc >/dev/null 2>&1 || continue; \
	  echo "check-warnings: $$cc"; \
	  for f in $(ANALYZER_SRC) tools/embed.c tests/fuzz/fuzz_engine.c; do \
	    $$cc $(TL_CFLAGS) -Werror -fsyntax-only $$f || exit 1; \
	  done; \
	done

unit-build: $(UNIT_BINS)
asan-build: $(UNIT_ASAN_BINS) $(BUILD)/torchlint-asan

install: torchlint
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 torchlint $(DESTDIR)$(PREFIX)/bin/torchlint

clean:
	rm -rf $(OBJ) $(ASAN_OBJ) $(BUILD)/gen $(BUILD)/unit $(BUILD)/unit-asan $(BUILD)/embed \
	  $(BUILD)/torchlint-asan torchlint
