/**
 * One Lore node for the broadcast benchmark, in its own process: users, knowledge, queries and
 * approvals in one all-in-one process (startAllInOne), served over HTTP. Configured by the
 * environment (LORE_DATA_DIR, LORE_NODE_ID, NATS_URL, LORE_PORT). Prints
 * `Lore is running at <url>/mcp`.
 */
import { startAllInOne } from '@lore/aggregator';
import { createApprovalsService } from '@lore/approvals';
import { loadConfig, serveHttp } from '@lore/kit';
import { createKnowledgeService } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
import { createUsersService } from '@lore/users';

const NODE_SERVICES = [
  { name: 'users', create: createUsersService },
  { name: 'knowledge', create: createKnowledgeService },
  { name: 'queries', create: createQueriesService },
  { name: 'approvals', create: createApprovalsService },
];

const config = loadConfig(process.env);
const lore = await startAllInOne(config, { services: NODE_SERVICES });
const http = await serveHttp(lore.app, config);
process.stderr.write(`Lore is running at ${http.url}/mcp (node ${lore.nodeId})\n`);

const stop = () => {
  void http
    .close()
    .then(() => lore.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
