#!/usr/bin/env bash
# The project's test command: formatting, vet, staticcheck (pinned, fetched
# through the Go module proxy), the race-enabled test suite, and a short pass
# of every fuzz target over its committed corpus plus fresh inputs.
set -euo pipefail
cd "$(dirname "$0")"

STATICCHECK_VERSION=v0.8.2
FUZZTIME=${FUZZTIME:-10s}

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

echo "== fuzz ($FUZZTIME each)"
go test -run '^$' -fuzz '^FuzzHandoffValidate$' -fuzztime "$FUZZTIME" ./stick
go test -run '^$' -fuzz '^FuzzCanonical$' -fuzztime "$FUZZTIME" ./workspace
go test -run '^$' -fuzz '^FuzzAncestors$' -fuzztime "$FUZZTIME" ./workspace
go test -run '^$' -fuzz '^FuzzToolArguments$' -fuzztime "$FUZZTIME" ./mcpserver
