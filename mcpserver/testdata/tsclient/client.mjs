// A member driven by the official TypeScript SDK over Streamable HTTP, for
// TestHTTPTypeScriptSDK: node client.mjs URL TOKEN CLIENT_NAME ROOM_NAME.
// It joins the named room, takes the stick, prints {"holding": ...}, waits
// for a line on stdin, makes two faults, releases with a handoff and
// prints {"done": ...}, then chooses a handle, lists the channels, sends
// the other member a message and reads it back from the history. The SDK
// checks every result against the tool's output schema.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, name, roomName] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name, version: "1.0" });
await client.connect(transport);

const call = async (tool, args) => {
  const r = await client.callTool({ name: tool, arguments: args });
  return { error: r.isError === true, data: r.structuredContent, text: r.content.map((c) => c.text).join("") };
};

const tools = (await client.listTools()).tools;
const join = await call("join_path", { name: roomName });
const room = join.data.room_id;
const wait = await call("wait_for_turn", { room_id: room, max_wait_ms: 0 });
console.log(JSON.stringify({ holding: { protocol: transport.protocolVersion ?? "", session: transport.sessionId ?? "", tools: tools.map((t) => t.name), join, wait } }));

const lines = createInterface({ input: process.stdin });
for await (const _ of lines) break;

const lease = { room_id: room, lease_id: wait.data.lease_id, expected_turn_id: wait.data.turn_id };
const mismatch = await call("heartbeat", { ...lease, expected_turn_id: wait.data.turn_id + 5 });
const notFound = await call("get_room_state", { room_id: "room_0000000000000000" });
const release = await call("release_stick", {
  ...lease,
  handoff: { status: "typed from TypeScript", next_action: "check the Go side", artifacts: [{ path: "client.mjs", role: "review" }] },
});
const handle = await call("set_handle", { room_id: room, handle: "ts" });
const me = await call("get_my_handle", { room_id: room });
const channels = await call("list_channels", { room_id: room });
const message = await call("append_note", { room_id: room, text: "typed from TypeScript, for you", to: [release.data.reserved_for], channel: "parallel-work" });
const history = await call("read_history", { room_id: room, channels: ["parallel-work"], since: "1h" });
const unknown = await call("append_note", { room_id: room, text: "to nobody", to: ["nobody"] });
console.log(JSON.stringify({ done: { mismatch, notFound, release, handle, me, channels, message, history, unknown } }));
await client.close();
process.exit(0);
