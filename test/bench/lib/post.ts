// One HTTP request through undici's handler API, the answer collected whole. The floor, the peer
// pattern and the load generator use it instead of undici's `request()`, which left 7–20 % of what a call allocated
// alive at each scavenge (docs/decisions/upstream-calls.md, 'Upstream calls on undici's dispatcher API, not
// request()'): in the floor that set its own latency tail (scavenges
// of 15–19 ms), and in the load generator it delayed the reading of answers, whichever server was
// measured.
import type { Dispatcher } from 'undici';

export interface Posted {
  readonly status: number;
  readonly text: string;
}

export function post(
  dispatcher: Dispatcher,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    dispatcher.dispatch(
      { method: 'POST', path, headers, body },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ status, text: Buffer.concat(chunks).toString('utf8') });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}
