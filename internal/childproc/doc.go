// Package childproc supervises child processes that speak in lines: it
// starts one with pipes on its standard streams, delivers its stdout line
// by line (on a channel, or to a function in order), writes lines to its
// stdin, keeps the tail of its stderr for error messages, and kills and
// reaps it so that none is left behind as an orphan or a zombie.
//
// It serves every program of the project that drives processes of its own:
// the demo's agents, the chaos soak's agents, the benchmarks' roles and the
// tests' helper processes (internal/testproc). On Linux a child dies with
// the process that started it (Pdeathsig); elsewhere a child is expected to
// stop when its stdin reaches end of file.
//
// [Tail] is the bounded buffer behind [Proc.Stderr], for any writer whose
// last bytes are worth keeping.
package childproc
