// The words of the platform's protocol errors (specs/platform.yaml `protocolErrors`): the JSON-RPC
// envelope's refusals, the HTTP checks, the authorization server's OAuth errors and the readiness
// report all answer with them. Down here, under every folder that answers one, so that none of them
// imports the MCP envelope (mcp/protocol.ts) only for its texts.
import { platformDescriptor, type PlatformProtocolErrorParams } from '#generated/platform/descriptor.ts';
import type { FailArgs } from './handler-api/tool-context.ts';
import { formatText } from './handler-api/tool-error.ts';

/**
 * The words of a protocol error with its parameters filled in. Typed from the spec: an unknown
 * code or a missing parameter does not compile.
 */
export function protocolText(...[code, params]: FailArgs<PlatformProtocolErrorParams>): string {
  return formatText(platformDescriptor.protocolErrors[code].text, params ?? {});
}
