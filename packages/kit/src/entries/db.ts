/** `@lore/kit/db`: a service's libSQL database (drizzle), its migrations, prepared reads and the service store. */
export type {
  Database,
  IndexRebuild,
  OpenDatabaseOptions,
  PreparedReadStats,
  RawRow,
  ReadArg,
  RowValue,
  Transaction,
} from '../db/index.js';
export {
  inbox,
  insertRows,
  insertRowsReturning,
  migrationsFolder,
  openDatabase,
  outbox,
  PreparedReads,
  preparedReads,
  preparedSelect,
  rebuildInBackground,
  rebuildIndex,
  tableReader,
} from '../db/index.js';
export type { ServiceStore } from '../store.js';
export { openServiceStore } from '../store.js';
