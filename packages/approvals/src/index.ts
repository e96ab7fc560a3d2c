export {
  type ApprovalsConfig,
  ApprovalsConfigSchema,
  ApprovalsSettings,
  approvalsSettings,
} from './config.js';
export { MAX_CONDITIONS, similarity } from './domain/conditions.js';
export { Evaluator } from './domain/evaluator.js';
export type { Interpretation, Matcher, Tri } from './domain/interpret.js';
export { describe as describeInterpretation, interpret } from './domain/interpret.js';
export type { Facts, Judgement } from './domain/judge.js';
export { evaluate as evaluateInterpretation } from './domain/judge.js';
export { questionParts, requestsOf } from './domain/request.js';
export type { ApprovalsPorts } from './ports.js';
export { APPROVALS_VERSION, approvalsTools, createApprovalsService } from './service.js';
