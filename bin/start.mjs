// `npm start` / `npm run serve`: the gateway's entry point. It only turns on Node's on-disk compile
// cache before anything else loads (the runtime, the generated code and the handlers of every
// connector are ~700 modules whose type stripping and compilation take ~250 ms of each start;
// from the cache ~60 ms), then runs bin/gateway.ts. The cache lives in Node's default place (the
// system temporary directory, or NODE_COMPILE_CACHE); entries are checked against the source, so a
// changed file is compiled anew.
// Plain JavaScript on purpose: a .ts entry point is type-stripped before it can turn the cache on,
// and that alone loads Node's TypeScript stripper (~50 ms of each start, measured here).
import { enableCompileCache } from 'node:module';

const cache = enableCompileCache?.();
// Worker threads (the embedded database runs in one) start without the cache unless told where it is.
if (cache?.directory && !process.env.NODE_COMPILE_CACHE) process.env.NODE_COMPILE_CACHE = cache.directory;
await import('./gateway.ts');
