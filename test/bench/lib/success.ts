/**
 * A call counts as successful when it is answered with HTTP 2xx and a JSON-RPC result that is not a
 * tool error (also inside an SSE `data:` line, as the SDK answers). Tool texts are JSON-escaped
 * inside the result, so `"error":` can only match a JSON-RPC error object.
 */
export function isSuccess(status: number, body: string): boolean {
  return (
    status >= 200 &&
    status < 300 &&
    body.includes('"result":') &&
    !body.includes('"isError":true') &&
    !body.includes('"error":')
  );
}
