import type { ClientHooks, Logger } from "../hooks.ts";

/**
 * Turns a pino-style logger into hooks: requests and responses at debug, retries at warn,
 * failures at error. The events are already redacted; errors are logged through `toJSON()`.
 */
export function loggerHooks(logger: Logger): ClientHooks {
  return {
    onRequest: (event) => logger.debug?.({ ...event }, `sds request ${event.method} ${event.url}`),
    onResponse: (event) => logger.debug?.({ ...event }, `sds response ${event.status} ${event.method} ${event.url}`),
    onRetry: ({ error, ...event }) =>
      logger.warn?.(
        { ...event, error: error.toJSON() },
        `sds retry ${event.method} ${event.url} in ${event.delayMs} ms: ${error.message}`,
      ),
    onError: ({ error, ...event }) =>
      logger.error?.({ ...event, error: error.toJSON() }, `sds request failed: ${error.message}`),
  };
}
