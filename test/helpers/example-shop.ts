import fs from 'node:fs';
import http from 'node:http';
import { serveSite, type MerchantSite } from './browser.ts';

const TEMPLATE = new URL('../../examples/shop.html', import.meta.url);

/**
 * examples/shop.html served on loopback (an origin other than the gateway's) with its placeholders
 * filled in, as a merchant would serve it; every other path is a small landing page (callback_url,
 * return_url).
 */
export function startExampleShop(gatewayUrl: string, publicKey: string): Promise<MerchantSite> {
  const server = http.createServer((request, response) => {
    const origin = `http://${request.headers.host}`;
    if (request.url === '/' || request.url?.startsWith('/?')) {
      const page = fs
        .readFileSync(TEMPLATE, 'utf8')
        .replaceAll('{{GATEWAY_URL}}', gatewayUrl)
        .replaceAll('{{PUBLIC_KEY}}', publicKey)
        .replaceAll('{{SHOP_URL}}', origin);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end(page);
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      '<!doctype html><html lang="en"><head><title>Chikondi Crafts</title><link rel="icon" href="data:,"></head><body><h1>Back at the shop</h1></body></html>',
    );
  });
  return serveSite(server);
}
