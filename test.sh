#!/usr/bin/env bash
# The project's test command: formatting, vet, staticcheck (pinned, fetched
# through the Go module proxy), the race-enabled test suite (the page's
# tests among them, in a real headless Chromium, which must be installed),
# the domain's behaviour tests once more on PostgreSQL (a throwaway cluster
# this script starts, or the server STICK_TEST_DATABASE_URL names), the
# chaos soak (60 s, 12 processes, a fixed seed; CHAOS_* to change them),
# the chaos soak over a hub (45 s, 8 processes behind their own proxies, a
# fixed seed; CHAOS_HUB_* to change them), both soaks once more on
# PostgreSQL (30 s each; CHAOS_PG_* to change them), and a short pass of every fuzz
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
CHAOS_PG_DURATION=${CHAOS_PG_DURATION:-30s}
CHAOS_PG_PROCS=${CHAOS_PG_PROCS:-8}

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
	if declare -F pg_stop >/dev/null; then pg_stop; fi
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

# The PostgreSQL store's tests, and the behaviour tests run once more on
# PostgreSQL, need a server: the one STICK_TEST_DATABASE_URL names (its user
# may create databases), else a throwaway cluster started here (initdb into
# a temporary directory, a Unix socket only, as the unprivileged user
# postgres when run as root) and stopped at the end. Without PostgreSQL
# those tests fail (STICK_REQUIRE_POSTGRES=0 makes them skip instead), said
# before the tests and again at the end.
STICK_REQUIRE_POSTGRES=${STICK_REQUIRE_POSTGRES:-1}
pg_dir=""
pg_as=()
pg_bin=""
pg_find() {
	local d
	if [ -n "${STICK_PG_BIN:-}" ]; then
		[ -x "$STICK_PG_BIN/initdb" ] && pg_bin=$STICK_PG_BIN
		return 0
	fi
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		pg_bin=$(dirname "$(readlink -f "$(command -v initdb)" 2>/dev/null || command -v initdb)")
		return 0
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
		if [ -x "$d/initdb" ]; then
			pg_bin=$d
			return 0
		fi
	done
}
pg_stop() {
	if [ -n "$pg_dir" ]; then
		"${pg_as[@]}" "$pg_bin/pg_ctl" stop -D "$pg_dir/data" -m immediate -w >/dev/null 2>&1 || true
		rm -rf "$pg_dir"
		pg_dir=""
	fi
}
pg_start() {
	pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/stick-test-pg.XXXXXX")
	mkdir "$pg_dir/sock"
	if [ "$(id -u)" = 0 ]; then
		chown postgres: "$pg_dir" "$pg_dir/sock" && pg_as=(runuser -u postgres --) || return 1
	fi
	"${pg_as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$pg_dir/initdb.log" 2>&1 || {
		cat "$pg_dir/initdb.log"
		return 1
	}
	"${pg_as[@]}" "$pg_bin/pg_ctl" start -w -t 60 -D "$pg_dir/data" -l "$pg_dir/log" \
		-o "-c listen_addresses='' -k $pg_dir/sock -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" >/dev/null || {
		cat "$pg_dir/log"
		return 1
	}
	export STICK_TEST_DATABASE_URL="postgres://postgres@/postgres?host=$pg_dir/sock&sslmode=disable"
}
if [ -z "${STICK_TEST_DATABASE_URL:-}" ]; then
	pg_find
	if [ -z "$pg_bin" ]; then
		case "$STICK_REQUIRE_POSTGRES" in
		"" | 0 | false | no) warn "PostgreSQL not found; the PostgreSQL store's tests SKIP. Install it (apt-get install postgresql), set STICK_TEST_DATABASE_URL, or run .ci/run, which does." ;;
		*) warn "PostgreSQL not found, so the PostgreSQL store's tests will fail. Install it (apt-get install postgresql), set STICK_TEST_DATABASE_URL to a server whose user may create databases, set STICK_REQUIRE_POSTGRES=0 to skip them, or run .ci/run, which does." ;;
		esac
	else
		echo "== a throwaway PostgreSQL cluster ($pg_bin)"
		pg_start || { echo "test.sh: could not start PostgreSQL from $pg_bin"; exit 1; }
	fi
fi
export STICK_REQUIRE_POSTGRES

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

stage "go test -race on PostgreSQL (./stick)"
# The domain's behaviour tests once more, on the PostgreSQL store.
STICK_TEST_STORE=postgres go test -race -count=1 -json ./stick | go run ./internal/testreport

stage "chaos soak ($CHAOS_DURATION, $CHAOS_PROCS processes, seed $CHAOS_SEED)"
go run ./cmd/stickbench chaos --duration "$CHAOS_DURATION" --procs "$CHAOS_PROCS" --seed "$CHAOS_SEED"

stage "chaos soak over a hub ($CHAOS_HUB_DURATION, $CHAOS_HUB_PROCS processes, seed $CHAOS_HUB_SEED)"
go run ./cmd/stickbench chaos --hub --duration "$CHAOS_HUB_DURATION" --procs "$CHAOS_HUB_PROCS" --seed "$CHAOS_HUB_SEED"

# The same soaks on PostgreSQL, each on an empty database of its own on the
# server the tests used; without one (STICK_REQUIRE_POSTGRES=0 and none
# found) they are not run, as warned above.
if [ -n "${STICK_TEST_DATABASE_URL:-}" ]; then
	stage "chaos soak on PostgreSQL ($CHAOS_PG_DURATION, $CHAOS_PG_PROCS processes, seed $CHAOS_SEED)"
	go run ./cmd/stickbench chaos --database "$STICK_TEST_DATABASE_URL" --duration "$CHAOS_PG_DURATION" --procs "$CHAOS_PG_PROCS" --seed "$CHAOS_SEED"

	stage "chaos soak over a hub on PostgreSQL ($CHAOS_PG_DURATION, $CHAOS_HUB_PROCS processes, seed $CHAOS_HUB_SEED)"
	go run ./cmd/stickbench chaos --hub --database "$STICK_TEST_DATABASE_URL" --duration "$CHAOS_PG_DURATION" --procs "$CHAOS_HUB_PROCS" --seed "$CHAOS_HUB_SEED"
fi

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
