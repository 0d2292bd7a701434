// Package browser holds the end-to-end tests of the hub's page: a real
// 'stick serve' process, real SQLite files, other processes taking turns
// through the library, and a real headless Chromium driven with chromedp.
// It has no code of its own; run it alone with
//
//	go test ./web/browser
//
// The tests look for Chromium in $STICK_CHROMIUM, $CHROME_PATH, then
// /usr/bin/chromium, chromium, chromium-browser and google-chrome on PATH
// (Debian: apt-get install chromium). Without one they skip, saying so;
// with CI or STICK_REQUIRE_BROWSER=1 in the environment they fail instead.
// Every step saves a screenshot into $STICK_SCREENSHOTS (default
// $TMPDIR/stick-screenshots), which the test log names.
package browser
