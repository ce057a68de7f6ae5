// Webhook limits, read by the routes, the workflows and the delivery; imports nothing.

/** Endpoints an account may hold (docs/decisions.md, "Events and webhooks"). */
export const WEBHOOK_ENDPOINTS_PER_ACCOUNT = 10;
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** A receiver has this long to answer an attempt (Standard Webhooks suggests 15 s at most). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The longest delay a Cloudflare Queue accepts for a retry (12 hours). */
export const MAX_RETRY_DELAY_SECONDS = 43_200;
/** An endpoint whose every attempt has failed for this long is disabled (DECISIONS, third round). */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000;
/** The longest a replaced secret may keep signing after a rotation (7 days). */
export const MAX_PREVIOUS_SECRET_SECONDS = 7 * 24 * 60 * 60;
