/** Anything that can be closed, such as a running server. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * The servers one owner (the fake, the hostile upstream, the marketplace) has started, so that
 * its `close()` closes every one still open. One mechanism for all of them: a server closed on
 * its own is forgotten at once, and closing it twice closes it once.
 */
export interface ServerSet {
  /** Remembers `server` until it closes; returns it with a `close` that also forgets it. */
  track<Server extends Closable>(server: Server): Server;
  /** Closes every server still open. */
  closeAll(): Promise<void>;
  /** How many servers are open. */
  readonly size: number;
}

/** Creates an empty {@link ServerSet}. */
export function createServerSet(): ServerSet {
  const open = new Set<Closable>();
  return {
    track(server) {
      let closing: Promise<void> | undefined;
      const tracked = {
        ...server,
        close() {
          open.delete(tracked);
          closing ??= server.close();
          return closing;
        },
      };
      open.add(tracked);
      return tracked;
    },
    async closeAll() {
      await Promise.all([...open].map((server) => server.close()));
    },
    get size() {
      return open.size;
    },
  };
}
