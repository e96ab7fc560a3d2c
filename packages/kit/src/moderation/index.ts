export {
  checkUntrustedText,
  DEFAULT_MAX_LINKS,
  DEFAULT_MAX_REPEAT_RUN,
  longestRepeatRun,
  type UntrustedTextOptions,
  type UntrustedTextVerdict,
} from './untrusted.js';
