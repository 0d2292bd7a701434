#!/usr/bin/env bash
# The project's test command: formatting, vet, staticcheck (pinned, fetched
# through the Go module proxy), the race-enabled test suite (the page's
# tests among them, in a real headless Chromium, which must be installed),
# the chaos soak (60 s, 12 processes, a fixed seed; CHAOS_* to change them),
# the chaos soak over a hub (45 s, 8 processes behind their own proxies, a
# fixed seed; CHAOS_HUB_* to change them), and a short pass of every fuzz
# target over its committed corpus plus fresh inputs.
# It says how long each stage took and the total, lists every skipped test
# with its reason, and warns loudly about what it cannot test on this machine.
set -euo pipefail
cd "$(dirname "$0")"

STATICCHECK_VERSION=v0.8.2
FUZZTIME=${FUZZTIME:-10s}
CHAOS_DURATION=${CHAOS_DURATION:-60s}
CHAOS_PROCS=${CHAOS_PROCS:-12}
CHAOS_SEED=${CHAOS_SEED:-1}
CHAOS_HUB_DURATION=${CHAOS_HUB_DURATION:-45s}
CHAOS_HUB_PROCS=${CHAOS_HUB_PROCS:-8}
CHAOS_HUB_SEED=${CHAOS_HUB_SEED:-1}

started=$(date +%s)
stage_name=""
stage_started=$started
timings=()
warnings=()

# stage NAME ends the running stage (printing its time) and starts NAME;
# stage "" only ends the running one.
stage() {
	local now
	now=$(date +%s)
	if [ -n "$stage_name" ]; then
		timings+=("$(printf '  %-44s %5ss' "$stage_name" $((now - stage_started)))")
		echo "   ($stage_name: $((now - stage_started))s)"
	fi
	stage_name=$1
	stage_started=$now
	if [ -n "$stage_name" ]; then
		echo "== $stage_name"
	fi
}

warn() {
	warnings+=("$1")
	echo "WARNING: $1"
}

summary() {
	local status=$? now
	now=$(date +%s)
	if [ "$status" -ne 0 ] && [ -n "$stage_name" ]; then
		echo "test.sh: FAILED in stage '$stage_name' after $((now - started))s"
	else
		stage ""
		echo "== time"
		printf "%s\n" ${timings[@]+"${timings[@]}"}
		printf '  %-44s %5ss\n' "total" $((now - started))
	fi
	for w in ${warnings[@]+"${warnings[@]}"}; do
		echo "WARNING: $w"
	done
}
trap summary EXIT

# The prompt tests run their snippets in bash, zsh and fish; a shell that is
# not installed is skipped (STICK_REQUIRE_SHELLS=1, as .ci/run sets, makes it
# a failure instead). Say so before the tests run and again at the end.
missing_shells=""
for sh in zsh fish; do
	command -v "$sh" >/dev/null 2>&1 || missing_shells="$missing_shells $sh"
done
if [ -n "$missing_shells" ]; then
	if [ -n "${STICK_REQUIRE_SHELLS:-}" ]; then
		warn "not installed:$missing_shells; STICK_REQUIRE_SHELLS is set, so TestPromptSnippetsInRealShells will fail"
	else
		warn "not installed:$missing_shells; TestPromptSnippetsInRealShells SKIPS the prompt snippets for them. Install them (apt-get install zsh fish) or run .ci/run, which does."
	fi
fi

# The page's browser tests (web/browser) drive a real headless Chromium.
# This script runs them with STICK_REQUIRE_BROWSER=1, so a missing browser
# fails them (STICK_REQUIRE_BROWSER=0 makes them skip instead). Say so
# before the tests and again at the end.
STICK_REQUIRE_BROWSER=${STICK_REQUIRE_BROWSER:-1}
browser=""
for b in "${STICK_CHROMIUM:-}" "${CHROME_PATH:-}" chromium chromium-browser google-chrome google-chrome-stable; do
	if [ -n "$b" ] && command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	case "$STICK_REQUIRE_BROWSER" in
	"" | 0 | false | no) warn "Chromium not found; the page's browser tests (web/browser) SKIP. Install it (apt-get install chromium) or run .ci/run, which does." ;;
	*) warn "Chromium not found, so the page's browser tests (web/browser) will fail. Install it (apt-get install chromium), set STICK_REQUIRE_BROWSER=0 to skip them, or run .ci/run, which does." ;;
	esac
fi

stage "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "not gofmt-formatted:"; echo "$unformatted"; exit 1
fi

stage "go vet"
go vet ./...

stage "staticcheck $STATICCHECK_VERSION"
go run "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" ./...

stage "go test -race"
# The report prints each package's result, the output of what failed, and
# every skipped test with its reason at the end: no test skips quietly.
STICK_REQUIRE_BROWSER=$STICK_REQUIRE_BROWSER go test -race -count=1 -json ./... | go run ./internal/testreport

stage "chaos soak ($CHAOS_DURATION, $CHAOS_PROCS processes, seed $CHAOS_SEED)"
go run ./cmd/stickbench chaos --duration "$CHAOS_DURATION" --procs "$CHAOS_PROCS" --seed "$CHAOS_SEED"

stage "chaos soak over a hub ($CHAOS_HUB_DURATION, $CHAOS_HUB_PROCS processes, seed $CHAOS_HUB_SEED)"
go run ./cmd/stickbench chaos --hub --duration "$CHAOS_HUB_DURATION" --procs "$CHAOS_HUB_PROCS" --seed "$CHAOS_HUB_SEED"

stage "fuzz ($FUZZTIME each)"
# Minimizing a new input that widened coverage is bounded (the default is
# 60 s): the fuzzer runs no new input meanwhile, and a long text could take
# a short run's whole budget without a single execution (seen with
# FuzzParseQuery: 1,201 executions in 20 s unbounded, 333,000 bounded).
#
# Go 1.26's fuzzing coordinator can fail a target with a bare "context
# deadline exceeded" when -fuzztime ends while a worker is mid-call
# (golang/go#75804, fixed in Go 1.27), with no failing input. Such a run
# counts as passed only when it wrote no failing input and the target then
# passes on its whole corpus; it is named in the warnings at the end. Any
# other failure fails the stage.
fuzz() {
	local out corpus="$2/testdata/fuzz/$1" before after
	before=$(ls "$corpus" 2>/dev/null | sort || true)
	if out=$(go test -run '^$' -fuzz "^$1\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 2s "$2" 2>&1); then
		echo "$out"
		return 0
	fi
	echo "$out"
	after=$(ls "$corpus" 2>/dev/null | sort || true)
	if [ "$before" = "$after" ] && echo "$out" | grep -q '^    context deadline exceeded$' &&
		! echo "$out" | grep -qE 'Failing input written|panic:|--- FAIL: .*/' &&
		go test -run "^$1\$" -count=1 "$2"; then
		warn "$1: the fuzzing coordinator's end-of-time race (golang/go#75804), no failing input; the corpus passes"
		return 0
	fi
	return 1
}
fuzz FuzzHandoffValidate ./stick
fuzz FuzzParseQuery ./stick
fuzz FuzzAuthenticate ./stick
fuzz FuzzCanonical ./workspace
fuzz FuzzAncestors ./workspace
fuzz FuzzRemoteKey ./workspace
fuzz FuzzToolArguments ./mcpserver
fuzz FuzzStdioLine ./mcpserver
fuzz FuzzRender ./render
fuzz FuzzDecodeBody ./server
