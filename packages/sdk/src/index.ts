// @onekhusa-sandbox/sdk: a typed client for the OneKhusa merchant API and this sandbox of it.
export { OneKhusa, newIdempotencyKey, type OneKhusaOptions } from './client.js';
export { OneKhusaError, OneKhusaConnectionError, type ErrorCode, type Result } from './errors.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookHeaders } from './webhooks.js';
export { operationMeta } from './generated/operations.js';
export type { OperationMeta } from './meta.js';
export type { components, operations, paths } from './generated/openapi.js';
export type {
  AcceptsIdempotencyKey,
  BaseCallOptions,
  CallArgs,
  CallOptions,
  Input,
  OperationId,
  Output,
  PagedOperationId,
  PageInput,
  PageItem,
  Problem,
} from './types.js';
