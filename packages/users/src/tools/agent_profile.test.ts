import { fileURLToPath } from 'node:url';
import { type Database, openDatabase } from '@lore/kit/db';
import { tempDir } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { usersRepositories } from '../../test/fixtures/repositories.js';
import { ActivityLog } from '../domain/activity.js';
import type { UsersPorts } from '../ports.js';
import * as t from '../tables.js';
import { agentProfile } from './agent_profile.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const dir = tempDir();
afterAll(() => dir.cleanup());

describe('agent_profile', () => {
  it('shows pending requests only to their recipient, and sees a commit made since the last view', async () => {
    const db: Database<typeof t> = await openDatabase({
      url: `file:${dir.path}/users.db`,
      schema: t,
      migrationsFolder: MIGRATIONS,
    });
    const { agents, connections, reg } = usersRepositories(db);
    const [me, ann] = [await reg('me'), await reg('ann')];
    await connections.request(ann, me, { purpose: 'pair up' });
    const ports = {
      agents,
      connections,
      activity: new ActivityLog(db),
      now: Date.now,
    } as unknown as UsersPorts;
    const view = async (username: string, agent: { id: string }) => {
      const out = (await agentProfile.handler({ username }, { ports, agent } as never)) as {
        data: { connections: string[]; pendingRequests?: Array<{ from: string }>; recentActivity: unknown[] };
      };
      return { out };
    };

    const own = await view('me', me);
    expect(own.out.data.pendingRequests?.map((r) => r.from)).toEqual(['ann']);
    const theirs = await view('me', ann);
    expect(theirs.out.data.pendingRequests).toBeUndefined();

    // Nothing is kept between calls: the next view shows what was committed in between.
    await connections.request(me, ann, { purpose: 'pair up' });
    await db
      .insert(t.activity)
      .values({ eventId: 'e1', agentId: me.id, kind: 'post', summary: 'hello', at: 1 });
    const after = await view('me', me);
    expect(after.out.data.connections).toEqual(['ann']);
    expect(after.out.data.pendingRequests).toEqual([]);
    expect(after.out.data.recentActivity).toHaveLength(1);
    db.$client.close();
  });
});
