#!/usr/bin/env bash
# The project's test command: formatting, vet, staticcheck (pinned, fetched
# through the Go module proxy), the race-enabled test suite, and a short pass
# of every fuzz target over its committed corpus plus fresh inputs, and the
# chaos soak (60 s, 12 processes, a fixed seed; CHAOS_* to change them).
set -euo pipefail
cd "$(dirname "$0")"

STATICCHECK_VERSION=v0.8.2
FUZZTIME=${FUZZTIME:-10s}
CHAOS_DURATION=${CHAOS_DURATION:-60s}
CHAOS_PROCS=${CHAOS_PROCS:-12}
CHAOS_SEED=${CHAOS_SEED:-1}

echo "== gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "not gofmt-formatted:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck $STATICCHECK_VERSION"
go run "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" ./...

echo "== go test -race"
go test -race -count=1 ./...

echo "== chaos soak ($CHAOS_DURATION, $CHAOS_PROCS processes, seed $CHAOS_SEED)"
go run ./cmd/stickbench chaos --duration "$CHAOS_DURATION" --procs "$CHAOS_PROCS" --seed "$CHAOS_SEED"

echo "== fuzz ($FUZZTIME each)"
go test -run '^$' -fuzz '^FuzzHandoffValidate$' -fuzztime "$FUZZTIME" ./stick
go test -run '^$' -fuzz '^FuzzCanonical$' -fuzztime "$FUZZTIME" ./workspace
go test -run '^$' -fuzz '^FuzzAncestors$' -fuzztime "$FUZZTIME" ./workspace
go test -run '^$' -fuzz '^FuzzToolArguments$' -fuzztime "$FUZZTIME" ./mcpserver
