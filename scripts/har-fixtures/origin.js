// A small local origin the HAR fixtures are captured from: an HTML page that makes the browser
// fetch JSON, POST JSON, load a PNG, follow a redirect, get a 404 and a gzip-encoded text.
// Usage: node origin.js PORT   (prints "listening PORT" when ready)
'use strict';
const http = require('http');
const zlib = require('zlib');

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
  '1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a5e2b3a40000000049454e44ae426082', 'hex');

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Loupe HAR fixture</title></head>
<body><h1>Fixture</h1><img src="/img.png" alt="">
<script>
(async () => {
  const items = await (await fetch('/api/items?page=1')).json();
  await fetch('/api/echo', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({name: 'caf\\u00e9', count: items.items.length})});
  await fetch('/redirect');
  await fetch('/missing');
  await (await fetch('/gzip')).text();
  document.title = 'done';
  // Firefox writes its automatic HAR export when the page is left: leave it when asked to
  if (location.search === '?leave') setTimeout(() => { location.href = '/missing?left'; }, 500);
})();
</script></body></html>`;

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const chunks = [];
  req.on('data', c => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    switch (url.pathname) {
      case '/':
        res.writeHead(200, {'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store'});
        return res.end(PAGE);
      case '/api/items':
        res.writeHead(200, {'Content-Type': 'application/json', 'Set-Cookie': 'session=abc123; Path=/; HttpOnly'});
        return res.end(JSON.stringify({items: [{id: 1, name: 'alpha'}, {id: 2, name: 'beta'}], query: url.search}));
      case '/api/echo':
        res.writeHead(201, {'Content-Type': 'application/json'});
        return res.end(JSON.stringify({received: body.toString('utf8'), length: body.length}));
      case '/img.png':
        res.writeHead(200, {'Content-Type': 'image/png'});
        return res.end(PNG);
      case '/redirect':
        res.writeHead(302, {'Location': '/api/items?after=redirect'});
        return res.end();
      case '/gzip': {
        const text = 'gzip-encoded text, '.repeat(40);
        res.writeHead(200, {'Content-Type': 'text/plain; charset=utf-8', 'Content-Encoding': 'gzip'});
        return res.end(zlib.gzipSync(Buffer.from(text)));
      }
      case '/favicon.ico':
        res.writeHead(204);
        return res.end();
      default:
        res.writeHead(404, {'Content-Type': 'text/plain'});
        return res.end('not found: ' + url.pathname);
    }
  });
});
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  console.log('listening ' + server.address().port);
});
