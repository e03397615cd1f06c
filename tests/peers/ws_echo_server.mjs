// A WebSocket echo server from the npm package `ws`, for the interoperability tests and bench.
// Usage: node ws_echo_server.mjs READY_FILE [EXPECTED_MESSAGE]
// Listens on 127.0.0.1, a port the kernel picks, and writes that port to READY_FILE (via a
// rename, so a reader never sees half of it). Echoes every message as it came (text or binary).
// With EXPECTED_MESSAGE, a message that differs is answered by a close with code 4000.
import { writeFileSync, renameSync } from 'node:fs';
import { WebSocketServer } from 'ws';

const [readyFile, expected] = process.argv.slice(2);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
server.on('listening', () => {
  writeFileSync(`${readyFile}.tmp`, `${server.address().port}\n`);
  renameSync(`${readyFile}.tmp`, readyFile);
});
server.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => {
    if (expected !== undefined && data.toString() !== expected) {
      socket.close(4000, 'unexpected message');
      return;
    }
    socket.send(data, { binary: isBinary });
  });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
