// A WebSocket client from the npm package `ws`, for the interoperability tests.
// Usage: node ws_client.mjs URL COUNT MESSAGE
// Sends MESSAGE, waits for its echo and checks it, COUNT times, then closes with 1000 and waits
// for the server's close. Prints "ok COUNT" and exits 0, or prints the problem and exits 1.
import WebSocket from 'ws';

const [url, countText, message] = process.argv.slice(2);
const count = Number(countText);
const socket = new WebSocket(url);
let received = 0;

function fail(why) {
  console.log(`failed: ${why}`);
  process.exit(1);
}

setTimeout(() => fail(`timed out after ${received} echoes`), 10000).unref();
socket.on('error', (error) => fail(error.message));
socket.on('open', () => socket.send(message));
socket.on('message', (data, isBinary) => {
  if (isBinary || data.toString() !== message) fail(`bad echo: ${data.toString()}`);
  received += 1;
  if (received < count) {
    socket.send(message);
  } else {
    socket.close(1000, 'done');
  }
});
socket.on('close', (code) => {
  if (received !== count || code !== 1000) fail(`closed with ${code} after ${received} echoes`);
  console.log(`ok ${received}`);
  process.exit(0);
});
