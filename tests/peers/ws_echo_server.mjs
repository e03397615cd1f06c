// A WebSocket echo server from the npm package `ws`, for the interoperability tests and bench.
// Usage: node ws_echo_server.mjs [--tls CERT_FILE KEY_FILE] READY_FILE [EXPECTED_MESSAGE]
// Listens on 127.0.0.1, a port the kernel picks, and writes that port to READY_FILE (via a
// rename, so a reader never sees half of it). Echoes every message as it came (text or binary).
// With EXPECTED_MESSAGE, a message that differs is answered by a close with code 4000.
// With --tls, it serves wss:// (node's https server with that certificate chain and key, PEM).
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { createServer } from 'node:https';
import { WebSocketServer } from 'ws';

const args = process.argv.slice(2);
let tls = null;
if (args[0] === '--tls') {
  tls = { cert: readFileSync(args[1]), key: readFileSync(args[2]) };
  args.splice(0, 3);
}
const [readyFile, expected] = args;

const https = tls ? createServer(tls) : null;
const server = https ? new WebSocketServer({ server: https })
                     : new WebSocketServer({ host: '127.0.0.1', port: 0 });
const listening = https ?? server;
listening.on('listening', () => {
  writeFileSync(`${readyFile}.tmp`, `${listening.address().port}\n`);
  renameSync(`${readyFile}.tmp`, readyFile);
});
if (https) https.listen(0, '127.0.0.1');
server.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => {
    if (expected !== undefined && data.toString() !== expected) {
      socket.close(4000, 'unexpected message');
      return;
    }
    socket.send(data, { binary: isBinary });
  });
});
process.on('SIGTERM', () => {
  server.close();
  if (https) https.close();
  process.exit(0);
});
