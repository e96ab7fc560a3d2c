export { MAX_CONDITIONS, similarity } from './domain/conditions.js';
export { Evaluator } from './domain/evaluator.js';
export type { Facts, Interpretation, Matcher, Tri } from './domain/interpret.js';
export {
  describe as describeInterpretation,
  evaluate as evaluateInterpretation,
  interpret,
} from './domain/interpret.js';
export type { ApprovalsPorts } from './ports.js';
export { APPROVALS_VERSION, approvalsTools, createApprovalsService } from './service.js';
