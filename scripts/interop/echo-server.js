// Tiny origin helper for scripts/interop.sh (node built-in modules only).
//   node echo-server.js PORT CHUNKED_FILE
// POST|PUT /upload  -> JSON {"method","bytes","sha256"} of the request body received
// GET /chunked      -> CHUNKED_FILE streamed in uneven pieces without Content-Length
//                      (Transfer-Encoding: chunked on HTTP/1.1)
// GET /healthz      -> "ok"
'use strict';
const http = require('http');
const crypto = require('crypto');
const fs = require('fs');

const port = Number(process.argv[2]);
const chunkedFile = process.argv[3];
if (!port || !chunkedFile) {
  console.error('usage: node echo-server.js PORT CHUNKED_FILE');
  process.exit(2);
}
const chunkedBody = fs.readFileSync(chunkedFile);

const server = http.createServer((req, res) => {
  const path = req.url.split('?')[0];
  if (path === '/upload' && (req.method === 'POST' || req.method === 'PUT')) {
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    req.on('data', (d) => { hash.update(d); bytes += d.length; });
    req.on('end', () => {
      const out = JSON.stringify({ method: req.method, bytes, sha256: hash.digest('hex') }) + '\n';
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) });
      res.end(out);
    });
    req.on('error', () => res.destroy());
    return;
  }
  if (path === '/chunked' && req.method === 'GET') {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    const sizes = [1, 7, 1000, 16384, 3, 65536, 4096, 12345];
    let off = 0, i = 0;
    const next = () => {
      if (off >= chunkedBody.length) { res.end(); return; }
      const n = sizes[i++ % sizes.length];
      res.write(chunkedBody.subarray(off, off + n));
      off += n;
      // a small pause now and then so the pieces really leave as separate chunks
      if (i % 4 === 0) setTimeout(next, 5); else setImmediate(next);
    };
    next();
    return;
  }
  if (path === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 3 });
    res.end('ok\n');
    return;
  }
  req.resume();
  res.writeHead(404, { 'Content-Type': 'text/plain', 'Content-Length': 10 });
  res.end('not found\n');
});
server.listen(port, '127.0.0.1', () => console.log(`echo-server listening on 127.0.0.1:${port}`));
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
