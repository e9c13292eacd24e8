// `npm start` / `npm run serve`: the gateway's entry point. It only turns on Node's on-disk compile
// cache before anything else loads (the runtime, the generated code and the handlers of every
// connector are ~150 modules whose type stripping and compilation take ~250 ms of each start;
// from the cache ~60 ms), then runs bin/gateway.ts. The cache lives in Node's default place (the
// system temporary directory, or NODE_COMPILE_CACHE); entries are checked against the source, so a
// changed file is compiled anew.
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
await import('./gateway.ts');
