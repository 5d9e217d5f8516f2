/*
 * SIGTERM and SIGINT, caught from the first moment the entry module runs until the process ends.
 * Imports nothing: main.ts installs it before it loads anything else, so that a supervisor's stop
 * that arrives while sds-sync is still loading modules, migrating the store or waiting for the
 * first account read is remembered and obeyed once the service can act on it, instead of
 * killing the process half-way with the signal's default action.
 *
 * Two windows remain that no JavaScript can close, and in both nothing has happened yet: while
 * Node.js itself boots (before the entry module runs), and, on the re-exec path (main.ts), in the
 * first image, which re-executes itself before it catches anything (a signal it caught would
 * vanish with it). A signal there ends the process with the signal's default action before it
 * opened anything.
 */

/** Called for every stop signal; `count` is 1 for the first. */
export type StopSignalListener = (signal: NodeJS.Signals, count: number) => void;

/** The stop signals this process received, and who acts on them. */
export interface StopSignals {
  /** The first stop signal received, if any. */
  readonly received: NodeJS.Signals | undefined;
  /** Resolves with the first stop signal. */
  readonly first: Promise<NodeJS.Signals>;
  /** Calls `listener` for every stop signal, at once for the first if it already arrived. */
  onSignal(listener: StopSignalListener): void;
}

/** The signals a supervisor stops a service with (systemd, Kubernetes, Docker, Ctrl-C). */
const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/**
 * Starts catching SIGTERM and SIGINT. Until a listener is added, signals are only remembered.
 *
 * @example
 * ```ts
 * const stopSignals = catchStopSignals();
 * stopSignals.onSignal((signal) => void service.stop());
 * ```
 */
export function catchStopSignals(): StopSignals {
  const received: NodeJS.Signals[] = [];
  const listeners: StopSignalListener[] = [];
  let resolveFirst: (signal: NodeJS.Signals) => void = () => undefined;
  const first = new Promise<NodeJS.Signals>((resolve) => {
    resolveFirst = resolve;
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    received.push(signal);
    if (received.length === 1) resolveFirst(signal);
    for (const listener of listeners) listener(signal, received.length);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    get received() {
      return received[0];
    },
    first,
    onSignal(listener) {
      listeners.push(listener);
      received.forEach((signal, index) => {
        listener(signal, index + 1);
      });
    },
  };
}
