import packageJson from "../../package.json" with { type: "json" };

/** The version of this package, for the `User-Agent` header. */
export const syncClientVersion: string = packageJson.version;
