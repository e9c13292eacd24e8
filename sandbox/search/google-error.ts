// Google's standard error body, as the Search Console API sends it:
// `{ error: { code, message, errors: [{ message, domain, reason }], status } }`.

export class GoogleError extends Error {
  readonly code: number;
  readonly status: string;
  readonly reason: string;
  readonly domain: string;
  constructor(code: number, status: string, reason: string, message: string, domain = 'global') {
    super(message);
    this.code = code;
    this.status = status;
    this.reason = reason;
    this.domain = domain;
  }
  body(): unknown {
    const error: Record<string, unknown> = {
      code: this.code,
      message: this.message,
      errors: [{ message: this.message, domain: this.domain, reason: this.reason }],
      status: this.status,
    };
    if (this.reason === 'insufficientPermissions')
      error.details = [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
          domain: 'googleapis.com',
          metadata: { service: 'searchconsole.googleapis.com' },
        },
      ];
    return { error };
  }
}

export const invalid = (message: string) => new GoogleError(400, 'INVALID_ARGUMENT', 'badRequest', message);
