package testproc

import "sync"

// tailMax bounds the captured stderr, so a chatty child cannot exhaust
// the test's memory.
const tailMax = 64 << 10

// tailBuffer is an io.Writer that keeps the last tailMax bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

// Write appends b, dropping the oldest bytes beyond tailMax.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - tailMax; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns the bytes kept so far.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
