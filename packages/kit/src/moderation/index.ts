export { describeFindings, foldLookalikes, type SensitiveFinding, scanSensitive } from './secrets.js';
export { entropy, SENSITIVE_RULES, type SensitiveKind, type SensitiveRule } from './sensitive-rules.js';
export {
  checkUntrustedText,
  DEFAULT_MAX_LINKS,
  DEFAULT_MAX_REPEAT_RUN,
  longestRepeatRun,
  type UntrustedTextOptions,
  type UntrustedTextVerdict,
} from './untrusted.js';
