// One full garbage collection that gives memory back, once, when start-up is over (the embedded
// engine's thread once the engine is open, the main thread before the gateway listens). Start-up
// leaves garbage and a young generation grown to its maximum; nothing shrinks them while the
// process is idle, so they would stay resident (docs/decisions/performance.md, 'The embedded
// engine's memory' and 'Start-up garbage collected once').

type Gc = (options: object) => void;

/**
 * V8's last-resort flavour, the one that also shrinks new space, without --expose-gc on the command
 * line: `gc` is taken as Node's documentation of `v8.setFlagsFromString` shows, and the flag is set
 * back at once. A process started with --expose-gc (a test, a profile) keeps its own `gc`.
 */
export async function collectOnce(): Promise<void> {
  let gc = (globalThis as { gc?: Gc }).gc;
  if (!gc) {
    const [v8, vm] = await Promise.all([import('node:v8'), import('node:vm')]);
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as Gc;
    v8.setFlagsFromString('--no-expose-gc');
  }
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
