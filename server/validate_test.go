package server_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// The checks of answers against the OpenAPI document are live: an answer
// the document does not describe fails them.
func TestOpenAPICatchesWrongAnswers(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	for _, tc := range []struct {
		status int
		body   string
	}{
		{200, `{"rooms": "not a list"}`},
		{200, `{"rooms": [], "extra": 1}`},
		{418, `{"rooms": []}`},
		{404, `{"message": "no error object"}`},
	} {
		req, _ := http.NewRequest(http.MethodGet, h.url+"/api/v1/rooms", nil)
		resp := &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader([]byte(tc.body))), Request: req}
		if ok, _ := h.check.ValidateHttpResponse(req, resp); ok {
			t.Errorf("%d %s passed the check", tc.status, tc.body)
		}
	}
}
