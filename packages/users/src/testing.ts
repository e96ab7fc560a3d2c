/**
 * What other services' tests need of the users service: the real service, whose keys, handles
 * and profiles answer over the bus as in production.
 * `@lore/users/testing`, declared as a dev dependency by the packages that use it.
 */
import type { LoreService, ServiceDeps } from '@lore/kit';
import { createUsersService, type UsersServiceOptions } from './service.js';

export { createUsersService, type UsersServiceOptions } from './service.js';

/** The users service on `deps`, started. */
export async function startUsersService(
  deps: ServiceDeps,
  options: UsersServiceOptions = {},
): Promise<LoreService> {
  const users = await createUsersService(deps, options);
  await users.start();
  return users;
}
