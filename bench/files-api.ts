/** bench:files' server: the real api (createApiApp) on a free port with one workspace; prints `ready <json>` with its
 * origin and API key on one line. Stops on SIGTERM. */
import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import { createApiApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/common/config/config';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createApiApp(config, { logLevel: 'silent' });
  await app.listen(0, '127.0.0.1');
  const accounts = new AccountsService(app.get(MikroORM).em.fork() as never, loadPlans(config.plansFile));
  const org = await accounts.createOrganization({ name: 'bench', plan: 'pro', email: 'bench@example.com' });
  const { secret } = await accounts.createKey(org.id, { name: 'bench' });
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  process.stdout.write(`ready ${JSON.stringify({ origin, key: secret })}\n`);
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

void main();
