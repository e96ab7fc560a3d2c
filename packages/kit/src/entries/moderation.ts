/** `@lore/kit/moderation`: checks on untrusted text and the sensitive-data scanner. */
export type {
  SensitiveFinding,
  SensitiveKind,
  UntrustedTextOptions,
  UntrustedTextVerdict,
} from '../moderation/index.js';
export {
  checkUntrustedText,
  DEFAULT_MAX_LINKS,
  DEFAULT_MAX_REPEAT_RUN,
  describeFindings,
  foldLookalikes,
  longestRepeatRun,
  scanSensitive,
} from '../moderation/index.js';
