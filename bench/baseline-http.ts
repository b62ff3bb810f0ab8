// Lower bound for the table: what Node itself costs to answer a small JSON GET on this machine.
import http from 'node:http';

const BODY = JSON.stringify({ hello: 'world' });
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) };

http
  .createServer((request, response) => {
    response.writeHead(request.method === 'GET' ? 200 : 405, HEADERS).end(BODY);
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
