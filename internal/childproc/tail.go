package childproc

import "sync"

// DefaultTail is how many bytes a zero [Tail] keeps: enough for the last
// words of a child that failed, bounded so that a chatty one cannot
// exhaust memory.
const DefaultTail = 64 << 10

// Tail is an io.Writer that keeps the last bytes written to it, at most
// Max (DefaultTail when Max is 0). It is safe for concurrent use; the zero
// value is ready.
type Tail struct {
	Max int

	mu  sync.Mutex
	buf []byte
}

// Write appends p, dropping the oldest bytes beyond the bound. It never
// fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	limit := t.Max
	if limit <= 0 {
		limit = DefaultTail
	}
	if over := len(t.buf) - limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the bytes kept so far.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
