import { execFile } from 'node:child_process';
import type { Gateway } from './gateway.ts';

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
