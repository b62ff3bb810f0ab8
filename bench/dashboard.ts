import { execFile } from 'node:child_process';
import type { Gateway } from './gateway.ts';
import { paymentsSearchPath, searchedRef } from './scenarios.ts';

const PASSWORD = 'bench dashboard password';

/**
 * A viewer of the bench merchant, made with `lipira users create` as an operator would, signed
 * in through the sign-in form as a browser would: the Cookie header its dashboard requests carry.
 */
export async function signedInDashboardCookie(gateway: Gateway, repoRoot: string): Promise<string> {
  const email = `bench-viewer-${Date.now()}@example.com`;
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [
        'bin/lipira.js',
        'users',
        'create',
        '--merchant',
        gateway.merchantId,
        '--email',
        email,
        '--role',
        'viewer',
        '--password-stdin',
        '--json',
      ],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: gateway.databaseUrl, LOG_LEVEL: 'warn' } },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`lipira users create: ${stderr || error.message}`)) : resolve(),
    );
    child.stdin!.end(`${PASSWORD}\n`);
  });
  const form = await fetch(`${gateway.url}/dashboard/login`);
  const csrfCookie = form.headers
    .getSetCookie()
    .map((header) => header.split(';')[0]!)
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${gateway.url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: csrfCookie, origin: gateway.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email, password: PASSWORD }).toString(),
  });
  const session = signedIn.headers.getSetCookie().find((header) => header.startsWith('lipira_dashboard='));
  if (signedIn.status !== 303 || !session)
    throw new Error(`signing in to the dashboard was answered ${signedIn.status}`);
  return session.split(';')[0]!;
}

/**
 * The search row measures nothing unless its searches find their payments: a few of them are
 * asked once, before the load, and must list exactly the sessions whose tx_ref begins with the
 * ref searched for (`searchedRef`: itself and the ten one digit longer), which were bulk-loaded.
 */
export async function assertSearchFinds(gateway: Gateway, cookie: string, sessions: number): Promise<void> {
  for (const share of [0, 0.5, 0.999]) {
    const ref = searchedRef(sessions, share);
    const response = await fetch(gateway.url + paymentsSearchPath(ref), { headers: { cookie } });
    const page = await response.text();
    const found = [...page.matchAll(LISTED_REF)].map((match) => match[1]!).sort();
    const expected = [ref, ...Array.from({ length: 10 }, (_, digit) => `${ref}${digit}`)].sort();
    if (response.status !== 200 || found.join() !== expected.join())
      throw new Error(
        `the payments search for ${ref} was answered ${response.status} listing ${found.length} payments (${found.slice(0, 3).join(', ')}), not the ${expected.length} seeded: its row would measure nothing`,
      );
  }
}

/** A payment's reference as the payments table lists it: its merchant ref, linked to its page. */
const LISTED_REF = /<a href="\/dashboard\/payments\/[^"/?]+">([^<]*)<\/a>/g;
