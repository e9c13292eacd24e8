// Types of bin/bootstrap.mjs (plain JavaScript so that it runs on Node 20) for the TypeScript tests.
export declare const WANTED_NODE_MAJOR: number;
export declare function nodeMajor(version: string): number;
export declare function needsNode(version: string): boolean;
export declare function installReason(state: {
  nodeModules: boolean;
  lock: string | undefined;
  hidden: string | undefined;
}): string | undefined;
export declare function shellQuote(arg: string): string;
export declare function childCommand(
  argv: readonly string[],
  node: string,
): { command: string; args: string[]; shell: boolean };
export declare function prependPath(path: string | undefined, dirs: readonly string[], delimiter: string): string;
