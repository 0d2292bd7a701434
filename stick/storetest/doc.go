// Package storetest is the conformance suite of stick.Store: the behaviour
// every store must give the Service, tested through the Store and Tx
// interfaces alone, so that a second store (a database server shared by
// several hosts) is held to the promises package store keeps today.
//
// A store runs it from its own tests, with an Opener that makes a fresh,
// empty store per subtest and opens as many handles on it as a test asks
// for (a second handle stands for another process or host sharing the
// store):
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Harness{Open: func(t *testing.T) func() stick.Store {
//			dir := t.TempDir()
//			return func() stick.Store {
//				st, err := mystore.Open(dir)
//				if err != nil {
//					t.Fatal(err)
//				}
//				return st
//			}
//		}})
//	}
//
// The suite covers every Tx method (rooms, members, events and their
// sequence numbers, idempotency keys, documents and their history,
// search with the parsed query language, channels: their notes' stats,
// pruning and the log's history by filters, a hub's tokens and the hashes
// of their secrets, a hub's settings), Update's atomicity under concurrent writers on two
// handles and its rollback, View's snapshot, the errors a store must pass
// through or give, Close, and the wake-ups (Changed, Rung and Tx.Ring). It stores fixed times only, never reads a
// clock, and waits on a wake-up channel no longer than a bound
// (Harness.WakeWithin), never for a timeout.
package storetest
