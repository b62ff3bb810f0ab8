import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { lipira, ROOT } from '../helpers/cli.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { freePort } from '../helpers/gateway.ts';
import { payAtCheckout } from '../helpers/payments.ts';
import { startServe } from '../helpers/serve-process.ts';
import { DashboardBrowser } from '../helpers/dashboard.ts';
import { commandComplete, curl, matchesShown, shellWords } from '../helpers/shell-commands.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

/** A password of the length the set-password page asks for. */
const OWNER_PASSWORD = 'mango shop owner 2026';

/** Where the README's commands send their requests; the test's gateway listens elsewhere, as the README says to. */
const README_BASE = 'http://127.0.0.1:8000';

interface Step {
  command: string;
  /** What the README shows after `→`, if anything. */
  shown: string | null;
}

/** The README's walk-through: its code blocks, and the text between them. */
function walkThrough(base: string): { blocks: Step[][]; prose: string[] } {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const rest = readme.slice(readme.indexOf('\n## Walk-through\n') + 1);
  const section = rest.slice(0, rest.search(/\n##+ /)).replaceAll(README_BASE, base);
  const parts = section.split(/^```sh\n([\s\S]*?)^```\n/m);
  return {
    prose: parts.filter((_part, i) => i % 2 === 0),
    blocks: parts.filter((_part, i) => i % 2 === 1).map(stepsOf),
  };
}

/** A block's commands, each with what a `# → …` after it shows (continued on `#   …` lines). */
function stepsOf(block: string): Step[] {
  const steps: Step[] = [];
  let pending: string | null = null;
  let showing = false;
  for (const line of block.split('\n')) {
    if (pending !== null) pending += `\n${line}`;
    else if (line.startsWith('# → ')) {
      steps.at(-1)!.shown = line.slice('# → '.length);
      showing = true;
      continue;
    } else if (showing && line.startsWith('#  ')) {
      steps.at(-1)!.shown += `\n${line.slice(1)}`;
      continue;
    } else {
      showing = false;
      if (line.startsWith('#') || line.trim() === '') continue;
      pending = line;
    }
    if (commandComplete(pending)) {
      steps.push({ command: pending, shown: null });
      pending = null;
    }
  }
  return steps;
}

for (const kind of DATABASE_KINDS) {
  describe(`the README's walk-through on ${kind}`, () => {
    test('every command works as written and answers what its → shows', async (t) => {
      const cleanup = useCleanup(t);
      const checkout = temporaryFolder('lipira-walkthrough-');
      cleanup(async () => checkout.remove());
      // On SQLite the commands share ./data/lipira.db, as in a checkout; PostgreSQL is given to both.
      const database = kind === 'postgres' ? freshDatabase(kind) : null;
      if (database) cleanup(() => database.drop());
      const databaseEnv: Record<string, string> = database ? { DATABASE_URL: database.url } : {};

      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const { blocks, prose } = walkThrough(base);
      assert.equal(blocks.length, 3, 'start the gateway; steps 1-3; after paying in the browser, steps 5-7');
      // Another port, the README's way: its one `.env` line, which the gateway and the commands read.
      const envLine = /put `(PORT=\d+)` in a `\.env` file in the\s+checkout's folder/.exec(prose[0]!)?.[1];
      assert.ok(envLine, `the walk-through says how to use another port: ${prose[0]}`);
      fs.writeFileSync(path.join(checkout.dir, '.env'), `${envLine.replace(/\d+$/, String(port))}\n`);
      const variables: Record<string, string> = {};
      let lastJson: Record<string, unknown> | null = null;
      let checkoutUrl: string | null = null;
      let lastOutput = '';

      /** Runs one step as a shell in the checkout would, and answers what it printed (for curl, with the status). */
      async function run(step: Step): Promise<{ status?: number; output: string }> {
        const words = shellWords(step.command, variables);
        const assignments = words.filter(
          (word, i) => /^[A-Z_]+=/.test(word) && words.slice(0, i).every((before) => /^[A-Z_]+=/.test(before)),
        );
        const [program, ...args] = words.slice(assignments.length);
        const env = Object.fromEntries(
          assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
        );
        if (program === undefined) {
          // `KEY=sec-test-...`: a value the person copies from what the last command printed.
          for (const [name, placeholder] of Object.entries(env)) {
            const prefix = placeholder.replace(/\.\.\.$/, '');
            const copied = Object.values(lastJson ?? {}).find(
              (value) => typeof value === 'string' && value.startsWith(prefix),
            );
            assert.ok(typeof copied === 'string', `nothing printed before ${step.command} starts with ${prefix}`);
            variables[name] = copied;
          }
          return { output: '' };
        }
        if (program === 'npm' && args.join(' ') === 'start') {
          const server = await startServe({ ...databaseEnv, ...env }, { cwd: checkout.dir, portFromEnvFile: port });
          cleanup(() => server.stop());
          return { output: '' };
        }
        if (program === 'npx' && args[0] === 'lipira') {
          const result = await lipira(args.slice(1), { ...databaseEnv, ...env }, checkout.dir);
          assert.equal(result.code, 0, `${step.command}\n${result.stderr}`);
          return { output: result.stdout };
        }
        if (program === 'curl') {
          const answer = await curl(words);
          return { status: answer.status, output: answer.body };
        }
        if (program === 'ls' && args.length === 1)
          return { output: fs.readdirSync(path.join(checkout.dir, args[0]!)).sort().join('\n') };
        throw new Error(`the walk-through runs a command this test cannot: ${step.command}`);
      }

      /** Whether what a step printed is what the README shows after its →. */
      function asShown(step: Step, result: { status?: number; output: string }): boolean {
        if (step.shown === null) return true;
        let shown = step.shown;
        if (result.status !== undefined) {
          const status = /^(\d{3}) /.exec(shown);
          assert.ok(status, `a → after curl starts with the HTTP status: ${step.command}`);
          if (Number(status[1]) !== result.status) return false;
          shown = shown.slice(status[0].length);
        }
        return matchesShown(shown, result.output);
      }

      async function runBlock(steps: Step[], afterPaying = false): Promise<void> {
        for (const step of steps) {
          let result = await run(step);
          // Webhooks and receipts go out a moment after the payment: a person reading along is slower than this test.
          for (
            const deadline = Date.now() + 10_000;
            afterPaying && !asShown(step, result) && Date.now() < deadline;
            result = await run(step)
          )
            await sleep(200);
          assert.ok(
            asShown(step, result),
            `${step.command}\nanswered ${result.status ?? ''} ${result.output}\nwhere the README shows ${step.shown}`,
          );
          lastOutput = result.output;
          if (result.output === '') continue;
          try {
            lastJson = JSON.parse(result.output);
          } catch {
            lastJson = null;
          }
          const created = (lastJson as { data?: { checkout_url?: string } } | null)?.data?.checkout_url;
          if (created) checkoutUrl = created;
        }
      }

      await runBlock(blocks[0]!);
      await runBlock(blocks[1]!);

      // Step 4, in the browser: the number the README gives, and where it says the browser lands.
      const browserStep = prose[2]!;
      const mobile = /type `(\d+)`/.exec(browserStep)?.[1];
      const landing = new RegExp(`\`(${base}/sandbox/landing\\?[^\`]+)\``).exec(browserStep)?.[1];
      assert.ok(mobile && landing && checkoutUrl, browserStep);
      const landedAt = await payAtCheckout(base, checkoutUrl, mobile);
      assert.ok(
        landedAt && matchesShown(landing, landedAt),
        `landed at ${landedAt}, where the README shows ${landing}`,
      );
      assert.equal((await fetch(landedAt)).status, 200);

      await runBlock(blocks[2]!, true);

      // Step 8's link, then the sign-in the text after it describes: the payment is on the dashboard.
      const link = new RegExp(`${base}(/dashboard/set-password\\?token=[\\w-]+)`).exec(lastOutput)?.[1];
      const email = /with `([^`]+@[^`]+)`/.exec(prose[3]!)?.[1];
      assert.ok(link && email, `step 8 printed a set-password link (${lastOutput}) and the text names the email`);
      const owner = new DashboardBrowser(base);
      assert.equal((await owner.get(link)).status, 200);
      const token = new URL(link, base).searchParams.get('token')!;
      const set = await owner.post('/dashboard/set-password', {
        token,
        password: OWNER_PASSWORD,
        confirm: OWNER_PASSWORD,
      });
      assert.equal(set.location, '/dashboard/login?password_set=1');
      assert.equal((await owner.signIn(email, OWNER_PASSWORD)).location, '/dashboard');
      const payments = await owner.get('/dashboard/payments');
      assert.equal(payments.status, 200);
      assert.match(payments.text, /order-1001/);
    });
  });
}
