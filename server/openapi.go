package server

import (
	_ "embed"
	"net/http"
	"strconv"
)

// openAPI is the OpenAPI 3.1 document of the JSON API, made from the
// endpoints' Go types and kept up to date by the package's tests
// (TestOpenAPIDocument; 'go test ./server -run OpenAPI -update' writes it).
//
//go:embed openapi.json
var openAPI []byte

// serveOpenAPI answers the OpenAPI document.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPI)))
	_, _ = w.Write(openAPI)
}
