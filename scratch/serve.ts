import { startServe } from '../test/helpers/serve-process.ts';
import { temporaryFolder } from '../test/helpers/temp-folders.ts';
const folder = temporaryFolder('lipira-serve-');
const serve = await startServe({ DATABASE_URL: `sqlite://${folder.dir}/x.db` }, { readyTimeoutMs: 240_000 });
try {
  const js = await fetch(`${serve.url}/dashboard/assets/dashboard.js`);
  console.log(js.status, js.headers.get('content-type'), (await js.text()).slice(0, 60));
} finally { await serve.stop(); folder.remove(); }
