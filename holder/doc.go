// Package holder is the CLI's holder process and its local record. A
// terminal command cannot hold the stick itself, as it ends; 'stick wait',
// 'try' and 'takeover' start a guardian instead: a small process whose
// liveness stands for the holder. It gets the stick with its own process
// facts, heartbeats at the policy's cadence and exits when the lease is
// lost, when its anchor (the shell or harness the command ran in) exits,
// or when 'stick release' stops it. It never releases by itself: when it
// dies without a release the room sees owner_gone. 'stick hold' holds the
// stick the same way in the foreground.
//
// One file per concept:
//
//   - holder.go: a [Holder] gets the stick (Wait, Try, Takeover) and keeps
//     it (Keep heartbeats until the lease is lost or its context ends).
//   - guardian.go: [Run] is the guardian process's body; a [Request] is
//     what it is started with, a [Report] the line it answers with.
//   - start.go: [Start] starts a guardian, detached from the terminal, and
//     reads its report; stop.go: [Stop] ends one, exactly that process.
//   - anchor.go: [WatchAnchor] ends a holder with its shell or harness.
//   - record.go: every holder on this host is recorded in holders.json in
//     [Dir], beside the database, under a lock with a deadline, so that
//     'stick release' finds the lease and a second wait for the same
//     member is refused. Records of holders proven gone are dropped at
//     every change.
//
// Rules stay in package stick: a holder only calls the service, as any
// member does.
package holder
