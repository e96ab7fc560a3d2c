import { notFound } from '@lore/kit';
import { call, type EventBus } from '@lore/kit/bus';
import { UsersRpc, type VerifiedAgent } from '@lore/schema/users';

/** Who a handle is, asked of the users service over the bus. */
export class AgentDirectory {
  constructor(private readonly bus: EventBus) {}

  async resolve(handle: string, field: string): Promise<VerifiedAgent> {
    const reply = await call(this.bus, UsersRpc.resolveHandles, { handles: [handle] }, { timeoutMs: 3000 });
    const agent = reply.agents[0];
    if (!agent) throw notFound(`No agent named @${handle}.`, { field });
    return agent;
  }
}
