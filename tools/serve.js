#!/usr/bin/env node
/* tools/serve.js - a tiny static server for web/, no dependencies: 127.0.0.1 only.
   Usage: node tools/serve.js [port]   (or PORT=...; default 8080; 0 picks a free port).
   Also require()d by the browser tests, which start it on a free port and close it. */
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8', '.txt': 'text/plain; charset=utf-8', '.ico': 'image/x-icon'
};

function handler(root) {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' });
      return res.end();
    }
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch (e) {
      res.writeHead(400);
      return res.end('bad request');
    }
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.normalize(path.join(root, rel));
    // Never serve anything outside root (../ in the path).
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403);
      return res.end('forbidden');
    }
    fs.stat(file, (err, st) => {
      // The page names no icon (a strict CSP would refuse one); answer the browser's own
      // request for /favicon.ico with nothing rather than a 404 it logs.
      if (rel === '/favicon.ico') { res.writeHead(204); return res.end(); }
      if (err || !st.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        return res.end('not found');
      }
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': st.size,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff'
      });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).pipe(res);
    });
  };
}

// Resolves with { server, url } once listening.
function start(opts = {}) {
  const root = path.resolve(opts.root || path.join(__dirname, '..', 'web'));
  const port = opts.port === undefined ? 8080 : Number(opts.port);
  const server = http.createServer(handler(root));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

if (require.main === module) {
  const arg = process.argv[2] !== undefined ? process.argv[2] : process.env.PORT;
  const port = arg === undefined || arg === '' ? 8080 : Number(arg);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve.js: port must be an integer 0..65535, got "${arg}"`);
    process.exit(2);
  }
  start({ port }).then(({ url }) => {
    console.log(`BlockLens: ${url}  (Ctrl+C to stop)`);
  }, (err) => {
    console.error(`serve.js: cannot listen on 127.0.0.1:${port}: ${err.message}`);
    process.exit(1);
  });
}

module.exports = { start };
