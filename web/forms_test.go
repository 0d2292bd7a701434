package web_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// postRaw posts body with contentType, carrying a CSRF cookie of the
// sender's own making, and returns the status and the page.
func (e *env) postRaw(path, contentType string, body io.Reader) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, http.MethodPost, e.srv.URL+path, body)
	req.Header.Set("Content-Type", contentType)
	req.AddCookie(&http.Cookie{Name: "stick_csrf", Value: strings.Repeat("ab", 32)})
	resp, err := e.client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestFormBodiesBounded: the page reads only url-encoded forms, and only
// so much of one, before any handler (the CSRF check first) reads it.
func TestFormBodiesBounded(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "bounded")
	csrf := strings.Repeat("ab", 32)
	for _, path := range []string{"/signin", "/rooms/" + room + "/notes"} {
		var mp bytes.Buffer
		mw := multipart.NewWriter(&mp)
		_ = mw.WriteField("csrf", csrf)
		_ = mw.WriteField("text", "a note")
		fw, _ := mw.CreateFormFile("file", "big.bin")
		_, _ = fw.Write(bytes.Repeat([]byte("z"), 3<<20))
		_ = mw.Close()
		st, page := e.postRaw(path, mw.FormDataContentType(), &mp)
		if st != http.StatusUnsupportedMediaType || !strings.Contains(page, "application/x-www-form-urlencoded only") {
			t.Errorf("%s, multipart: %d\n%.1500s", path, st, page)
		}
		big := url.Values{"csrf": {csrf}, "text": {strings.Repeat("n", 3<<20)}}.Encode()
		st, page = e.postRaw(path, "application/x-www-form-urlencoded", strings.NewReader(big))
		if st != http.StatusRequestEntityTooLarge || !strings.Contains(page, "at most 2 MB") {
			t.Errorf("%s, a 3 MB form: %d\n%.1500s", path, st, page)
		}
		if st, _ = e.postRaw(path, "text/plain", strings.NewReader("csrf="+csrf)); st != http.StatusUnsupportedMediaType {
			t.Errorf("%s, text/plain: %d", path, st)
		}
	}
	// A form within the bound is read: the reader joins.
	st, _ := e.postRaw("/rooms/"+room+"/join", "application/x-www-form-urlencoded; charset=utf-8",
		strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
	if st != http.StatusSeeOther {
		t.Fatalf("a small form: %d", st)
	}
	if rs, err := e.svc.RoomState(e.ctx, room); err != nil || len(rs.Members) != 2 {
		t.Fatalf("the form within the bound did nothing: %+v %v", rs.Members, err)
	}
}
